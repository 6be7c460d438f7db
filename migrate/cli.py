"""`triton_migrate.cli`, the command line's entry point (`migrate`, `python -m triton_migrate.cli`, and
`from triton_migrate.cli import main`): the front end's commands (frontend/cli.py) and `migrate verify`,
loaded on use from verify/, which drives the front end's run API (so the front end may not import it)."""

from __future__ import annotations

import functools
import importlib

import click

from triton_migrate.frontend.cli import main

__all__ = ["main"]


# The attributes of triton_migrate.verify; `migrate tune` is also `migrate verify tune`: it runs kernels too.
_VERIFY_COMMANDS = {"verify": "command", "tune": "tune_command"}


def _verify_command(name: str) -> click.Command:
    # Imported on use only: verification needs triton and torch, which nothing else here may import.
    try:
        return getattr(importlib.import_module("triton_migrate.verify"), _VERIFY_COMMANDS[name])
    except Exception as exc:  # not installed yet, or a broken import: say so instead of a traceback
        reason = f"{type(exc).__name__}: {exc}"

    @click.command(name, context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
    @click.pass_context
    def unavailable(ctx):
        """Not available in this installation."""
        click.echo(f"migrate {name} is not available in this installation ({reason}).", err=True)
        ctx.exit(2)

    return unavailable


for _name in _VERIFY_COMMANDS:
    main.on_use[_name] = functools.partial(_verify_command, _name)

if __name__ == "__main__":
    main()
