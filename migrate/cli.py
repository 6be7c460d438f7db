"""`triton_migrate.cli`, the public spelling of the command line (`python -m triton_migrate.cli`, and
`from triton_migrate.cli import main`); it lives in the front end (frontend/cli.py)."""

from triton_migrate.frontend.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    main()
