"""The syntax of each output form, one module a form, built from expressions the caller chose."""
