"""`[tool.triton-migrate]` in pyproject.toml: the nearest file upward from each path wins, the CLI overrides it.

File-level keys (target, strict, min-triton-version, kernel-targets, select, ignore, per-file-ignores, exclude,
extend-exclude) come from each file's nearest configuration; run-level keys (output-format, jobs,
respect-gitignore) from the configuration nearest to the working directory, as in ruff.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace

import pathspec

from triton_migrate.output import FORMATS
from triton_migrate.policy import KERNEL_TARGETS, TARGETS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib

TABLE = "triton-migrate"
ALL = "ALL"


class ConfigError(Exception):
    """Invalid configuration; str() names the file and the key."""


@dataclass(frozen=True)
class Config:
    root: str = "."  # the directory relative patterns are relative to (the pyproject.toml's)
    source: str | None = None  # the file it came from; None: built-in defaults
    target: str = "auto"
    strict: bool = False
    min_triton: tuple[int, int] = (3, 5)
    select: tuple[str, ...] = (ALL,)
    ignore: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    exclude: tuple[str, ...] = ()
    extend_exclude: tuple[str, ...] = ()
    output_format: str = "full"
    jobs: int = 0  # 0: not set, one worker per CPU
    respect_gitignore: bool = True
    compat_module: str = "triton_migrate.compat"  # --target compat: where migrated code imports the shim
    kernel_targets: tuple[tuple[str, str], ...] = ()  # function name -> target, as `migrate tune` measured
    _specs: dict = field(default_factory=dict, compare=False, repr=False)  # compiled globs, by pattern

    def ignored_for(self, path: str) -> tuple[str, ...]:
        """`ignore` plus every `per-file-ignores` entry whose glob matches `path`."""
        matched = [codes for glob, codes in self.per_file_ignores if self._matches((glob,), path)]
        return self.ignore + tuple(code for codes in matched for code in codes)

    def excludes(self, path: str, is_dir: bool = False, root: str | None = None) -> bool:
        """`root`: match relative to this directory instead of the configuration's (see cli._excluded)."""
        return self._matches(self.exclude + self.extend_exclude, path, is_dir, root)

    def _matches(self, patterns: tuple[str, ...], path: str, is_dir: bool = False, root: str | None = None) -> bool:
        if not patterns:
            return False
        relative = os.path.relpath(os.path.abspath(path), root or self.root).replace(os.sep, "/")
        if relative.startswith("../"):
            return False
        relative += "/" if is_dir else ""  # lets `name/` patterns match the directory itself, as in git
        if patterns not in self._specs:
            self._specs[patterns] = pathspec.GitIgnoreSpec.from_lines(patterns)
        return self._specs[patterns].match_file(relative)


def enabled(code: str, select: tuple[str, ...], ignore: tuple[str, ...]) -> bool:
    """A code runs if some `select` entry is a prefix of it and no `ignore` entry is (`ALL` matches any)."""

    def hit(selectors: tuple[str, ...]) -> bool:
        return any(s == ALL or code.startswith(s) for s in selectors)

    return hit(select) and not hit(ignore)


# --- validation: one function per key, each given the raw TOML value and returning the field value ---------------


def _one_of(choices: tuple[str, ...]):
    def check(value):
        if value not in choices:
            raise ValueError(f"must be one of {', '.join(choices)}, not {value!r}")
        return value

    return check


def _bool(value):
    if not isinstance(value, bool):
        raise ValueError(f"must be true or false, not {value!r}")
    return value


def _version(value):
    match = re.fullmatch(r"(\d+)\.(\d+)", str(value)) if isinstance(value, str) else None
    if match is None:
        raise ValueError(f'must be a "MAJOR.MINOR" string such as "3.5", not {value!r}')
    return int(match[1]), int(match[2])


def _module_path(value):
    if not isinstance(value, str) or not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", value):
        raise ValueError(f'must be a dotted module path such as "mypkg._triton_compat", not {value!r}')
    return value


def _strings(value):
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ValueError(f"must be a list of strings, not {value!r}")
    return tuple(value)


def _codes(value):
    from triton_migrate.rules import CODES

    codes = _strings(value)
    for code in codes:
        if code != ALL and not any(known.startswith(code) for known in CODES):
            raise ValueError(f"{code!r} is not a rule code or prefix (see `migrate --list-rules`)")
    return codes


def _per_file_ignores(value):
    if not isinstance(value, dict):
        raise ValueError(f'must be a table of glob = ["CODE", ...], not {value!r}')
    return tuple((glob, _codes(codes)) for glob, codes in value.items())


def _kernel_targets(value):
    if not isinstance(value, dict) or not all(isinstance(v, str) and v in KERNEL_TARGETS for v in value.values()):
        raise ValueError(f'must be a table of kernel = "{" | ".join(KERNEL_TARGETS)}" (`migrate tune` writes one), '
                         f"not {value!r}")
    return tuple(sorted(value.items()))


def _jobs(value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"must be a whole number ≥ 1, not {value!r}")
    return value


KEYS = {  # TOML key -> (Config field, validator)
    "target": ("target", _one_of(TARGETS)),
    "strict": ("strict", _bool),
    "min-triton-version": ("min_triton", _version),
    "select": ("select", _codes),
    "ignore": ("ignore", _codes),
    "per-file-ignores": ("per_file_ignores", _per_file_ignores),
    "exclude": ("exclude", _strings),
    "extend-exclude": ("extend_exclude", _strings),
    "output-format": ("output_format", _one_of(FORMATS)),
    "jobs": ("jobs", _jobs),
    "respect-gitignore": ("respect_gitignore", _bool),
    "compat-module": ("compat_module", _module_path),
    "kernel-targets": ("kernel_targets", _kernel_targets),
}


def apply(config: Config, table: dict, where: str) -> Config:
    """`config` with the keys of `table` (TOML names) validated and set; `where` prefixes error messages."""
    changes = {}
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown key {key!r} (known: {', '.join(KEYS)})")
        name, check = KEYS[key]
        try:
            changes[name] = check(value)
        except ValueError as exc:
            raise ConfigError(f"{where}: {key}: {exc}") from None
    return replace(config, **changes)


def read_table(path: str) -> dict | None:
    """The `[tool.triton-migrate]` table of a pyproject.toml, or None if it has none."""
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    table = document.get("tool", {}).get(TABLE)
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
    return table


def load(path: str) -> Config | None:
    """The configuration in a pyproject.toml, or None if it has no `[tool.triton-migrate]` table."""
    table = read_table(path)
    if table is None:
        return None
    return apply(Config(root=os.path.dirname(os.path.abspath(path)), source=path), table, path)


class Resolver:
    """Finds the configuration for each path, reading every pyproject.toml at most once."""

    def __init__(self, overrides: dict, explicit: str | None = None, isolated: bool = False) -> None:
        self._overrides = overrides  # TOML key -> value, from the command line
        self._by_dir: dict[str, Config] = {}
        self._fixed: Config | None = None  # one configuration for every path (--config, --isolated)
        if explicit is not None:
            self._fixed = self._final(load(explicit) or Config(root=os.path.dirname(os.path.abspath(explicit))))
        elif isolated:
            self._fixed = self._final(Config(root=os.getcwd()))

    def for_path(self, path: str) -> Config:
        if self._fixed is not None:
            return self._fixed
        absolute = os.path.abspath(path)
        return self._nearest(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))

    def _final(self, config: Config) -> Config:
        return apply(config, self._overrides, "command line")

    def _nearest(self, directory: str) -> Config:
        """The configuration of the nearest pyproject.toml upward (a loop: trees can be deeper than the
        recursion limit)."""
        unresolved = []
        while directory not in self._by_dir:
            candidate = os.path.join(directory, "pyproject.toml")
            found = load(candidate) if os.path.isfile(candidate) else None
            if found is not None:
                self._by_dir[directory] = self._final(found)
                break
            unresolved.append(directory)
            parent = os.path.dirname(directory)
            if parent == directory:  # no configuration anywhere up to the file system's root
                self._by_dir[directory] = self._final(Config(root=os.getcwd()))
                break
            directory = parent
        for below in unresolved:
            self._by_dir[below] = self._by_dir[directory]
        return self._by_dir[directory]
