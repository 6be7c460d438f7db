"""The command-line options of every command that migrates: the default command and `report` take them all,
`migrate verify` and `migrate tune` the configuration options, so that they migrate as `--write` does. A
setting's option is made from its entry in settings.SETTINGS; the others are the run's own."""

from __future__ import annotations

import click

from triton_migrate.frontend import config as cfg
from triton_migrate.frontend import runs
from triton_migrate.frontend.settings import SETTINGS, Setting


def _csv(_ctx, _param, values: tuple[str, ...]) -> list[str] | None:
    codes = [code.strip() for value in values for code in value.split(",") if code.strip()]
    return codes or None


def _setting_option(setting: Setting):
    """The click option of a setting (settings.Option)."""
    option = setting.option
    if option.kind == "switch":
        return click.option(f"{setting.flag}/--no-{setting.flag[2:]}", setting.parameter, default=None,
                            help=option.help)
    kinds: dict[str, dict] = {"choice": {"type": click.Choice(option.choices)},
                              "int": {"type": click.IntRange(min=option.low, max=option.high)},
                              "list": {"multiple": True, "callback": _csv}}
    names = [name for name in (option.short, setting.flag) if name]
    return click.option(*names, setting.parameter, metavar=option.metavar, help=option.help,
                        **kinds.get(option.kind, {}))


def _settings(migrating: bool) -> list:
    return [_setting_option(s) for s in SETTINGS if s.option is not None and s.option.migrates == migrating]


# How each file is migrated: `migrate verify` and `migrate tune` take these too, so that they migrate as
# `--write` does.
CONFIGURATION = [
    click.option("--config", "config_file", type=click.Path(dir_okay=False, exists=True),
                 help="Use this pyproject.toml for every path instead of the nearest one."),
    click.option("--isolated", is_flag=True, help="Ignore every pyproject.toml."),
    *_settings(migrating=True),
]
SHARED = [
    click.argument("paths", nargs=-1, type=click.Path()),
    *CONFIGURATION,
    *_settings(migrating=False),
    click.option("--exclude", multiple=True, metavar="PATTERN",
                 help="Skip paths matching this gitignore-style glob (adds to the configuration's)."),
    click.option("--force-exclude", is_flag=True,
                 help="Apply excludes to files named on the command line too (as pre-commit passes them)."),
    click.option("-o", "--output-file", type=click.Path(dir_okay=False),
                 help="Write the diagnostics (or the document) to this file instead of stdout."),
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
