"""`python -m triton_migrate`: the `migrate` command, as `python -m ruff` is ruff's."""

from triton_migrate.cli import main

main(prog_name="migrate")
