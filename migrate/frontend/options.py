"""The command-line options of every command that migrates: the default command and `report` take them all,
`migrate verify` and `migrate tune` the configuration options, so that they migrate as `--write` does."""

from __future__ import annotations

import click

from triton_migrate.frontend import config as cfg
from triton_migrate.frontend import runs


def _csv(_ctx, _param, values: tuple[str, ...]) -> list[str] | None:
    codes = [code.strip() for value in values for code in value.split(",") if code.strip()]
    return codes or None


# How each file is migrated: `migrate verify` and `migrate tune` take these too, so that they migrate as
# `--write` does.
CONFIGURATION = [
    click.option("--config", "config_file", type=click.Path(dir_okay=False, exists=True),
                 help="Use this pyproject.toml for every path instead of the nearest one."),
    click.option("--isolated", is_flag=True, help="Ignore every pyproject.toml."),
    click.option("--target", type=click.Choice(cfg.TARGETS),
                 help="What to emit: descriptors where safe else masked pointers (auto), only descriptors where "
                      "proven or stated (the rest untouched), or only masked pointers."),
    click.option("--strict/--no-strict", default=None,
                 help="Refuse descriptors whose safety depends on run-time values (strides, alignment), checked "
                      "at launch or stated."),
    click.option("--min-triton-version", metavar="X.Y", help="The oldest Triton the migrated code must run on."),
    click.option("--unsafe-fixes/--no-unsafe-fixes", default=None,
                 help="Also apply fixes that delete code: a helper whose block-pointer parameters nothing fills, or "
                      "that returns a block pointer every call now creates itself (TTD011); never a kernel."),
    click.option("--assume", multiple=True, callback=_csv, metavar="FACTS",
                 help="Facts about every kernel's tensor arguments and launches that descriptors may rely on "
                      "(comma-separated: aligned, contiguous, aligned-rows, in-bounds, allocator; replaces the "
                      "configuration's `assume`)."),
    click.option("--triton-module", "triton_module", multiple=True, callback=_csv, metavar="MODULE.NAME=WHAT",
                 help="A name that a module outside the run binds to triton (comma-separated, e.g. "
                      "vllm.triton_utils.tl=triton.language; replaces the configuration's `triton-modules`)."),
    click.option("--line-length", type=click.IntRange(min=1, max=320), metavar="N",
                 help="Keep emitted code within N columns [default: the project's ruff, black or flake8 "
                      "setting, else 88]."),
]
SHARED = [
    click.argument("paths", nargs=-1, type=click.Path()),
    *CONFIGURATION,
    click.option("--select", multiple=True, callback=_csv, metavar="CODES",
                 help="Rule codes or prefixes to enable (comma-separated; replaces the configuration's)."),
    click.option("--ignore", multiple=True, callback=_csv, metavar="CODES",
                 help="Rule codes or prefixes to disable (comma-separated; replaces the configuration's)."),
    click.option("--exclude", multiple=True, metavar="PATTERN",
                 help="Skip paths matching this gitignore-style glob (adds to the configuration's)."),
    click.option("--force-exclude", is_flag=True,
                 help="Apply excludes to files named on the command line too (as pre-commit passes them)."),
    click.option("--respect-gitignore/--no-respect-gitignore", default=None,
                 help="Skip files that .gitignore files ignore [default: respect]."),
    click.option("-o", "--output-file", type=click.Path(dir_okay=False),
                 help="Write the diagnostics (or the document) to this file instead of stdout."),
    click.option("-j", "--jobs", type=click.IntRange(min=1), help="Worker processes [default: one per CPU]."),
    click.option("--no-cache", is_flag=True, help="Analyse every file, without reading or writing the cache."),
    click.option("--cache-dir", metavar="DIR", help="Where check results are cached [default: "
                 ".triton-migrate-cache]."),
    click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
                 help="Colour output; `auto`: on a terminal, unless NO_COLOR is set."),
    click.option("-q", "--quiet", is_flag=True, help="Print diagnostics and errors, but no summary or warnings."),
    click.option("-v", "--verbose", is_flag=True, help="Also say which files were skipped and why, and timings."),
]


def _decorated(function, decorators: list):
    for decorator in reversed(decorators):
        function = decorator(function)
    return function


def shared_options(function):
    return _decorated(function, SHARED)


def configuration_options(function):
    return _decorated(function, CONFIGURATION)



class ConfigurationError(click.ClickException):
    """A bad pyproject.toml: exit 2 with its message, without the usage block that a mistyped option gets (the
    command line was right)."""

    exit_code = 2

    def __init__(self, error: cfg.ConfigError) -> None:
        super().__init__(f"configuration: {error}")


def resolve(params: dict, fmt_option: str | None = None) -> tuple[cfg.Resolver, cfg.Config]:
    """runs.resolve, exit 2 on a bad configuration or option."""
    try:
        return runs.resolve(params, fmt_option)
    except cfg.ConfigError as exc:
        raise ConfigurationError(exc) from None
    except runs.OptionError as exc:
        raise click.UsageError(str(exc)) from None
