"""The syntax of each form an access or a creation takes, built from what the analysis decided (its records)."""
