"""`[tool.triton-migrate]` in pyproject.toml: the nearest file upward from each path wins, the CLI overrides it.

Every key is defined once, in settings.py (SETTINGS). File-level keys come from each file's nearest
configuration; run-level keys (output-format, jobs, respect-gitignore) from the configuration nearest to the
working directory, as in ruff.

Without `line-length` here, emitted code keeps to the line length of the project the file belongs to
(LineLengths): ruff's, black's or flake8's, from the nearest file above it that configures one of them; and
the `# noqa` comments it carries are those the rules of the project's nearest ruff configuration ask for
(Config.ruff, ruff_rules.py). One walker (Nearest) finds each of them upward.
"""

from __future__ import annotations

import configparser
import difflib
import os
import re
import sys
from dataclasses import dataclass, field, replace
from typing import Callable, Generic, TypeVar

import pathspec

from triton_migrate.frontend import ruff_rules
from triton_migrate.frontend.settings import ALL, BY_KEY, MAX_LINE_LENGTH
from triton_migrate.policy import Layout, Policy, Statement
from triton_migrate.rules import selects

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib

TABLE = "triton-migrate"
T = TypeVar("T")


class ConfigError(Exception):
    """Invalid configuration; str() names the file and the key."""


@dataclass(frozen=True)
class Config:
    root: str = "."  # the directory relative patterns are relative to (the pyproject.toml's)
    source: str | None = None  # the file it came from; None: built-in defaults
    target: str = "auto"
    strict: bool = False
    unsafe_fixes: bool = False  # fixes that delete user code (TTD011)
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
    line_length: int = 0  # 0: not set here, the project's (LineLengths)
    # The rules the project's ruff checks in each file (ruff_rules.py), from its nearest ruff configuration
    ruff: ruff_rules.RuffRules = field(default=ruff_rules.NO_CONFIGURATION, compare=False, repr=False)
    # Stated facts (policy.Statement): for every kernel, per glob of paths, per kernel or kernel argument.
    assume: tuple[Statement, ...] = ()
    per_file_assume: tuple[tuple[str, tuple[Statement, ...]], ...] = ()
    kernel_assume: tuple[Statement, ...] = ()
    # Modules outside the run that re-export triton (`vllm.triton_utils`): (module, name, "triton" or
    # "triton.language", where it was stated), for when their source cannot be found (triton_modules.py).
    triton_modules: tuple[tuple[str, str, str, str], ...] = ()
    known_triton_modules: bool = True  # the built-in table of modules known to re-export triton
    _specs: dict = field(default_factory=dict, compare=False, repr=False)  # compiled globs, by pattern
    # Config field -> where its value was set (a file, "command line"); a field not here has its default.
    origins: dict = field(default_factory=dict, compare=False, repr=False)

    def ignored_for(self, path: str) -> tuple[str, ...]:
        """`ignore` plus every `per-file-ignores` entry whose glob matches `path`."""
        matched = [codes for glob, codes in self.per_file_ignores if self._matches((glob,), path)]
        return self.ignore + tuple(code for codes in matched for code in codes)

    def policy_for(self, path: str) -> Policy:
        """What the engine may do to the file at `path`."""
        return Policy(target=self.target, strict=self.strict, min_triton=self.min_triton,
                      compat_module=self.compat_module, kernel_targets=self.kernel_targets,
                      assume=self.statements_for(path),
                      unsafe_fixes=self.unsafe_fixes)

    def layout(self) -> Layout:
        """How the rewrite lays out the code it writes in the files of this configuration: where no file sets
        the line length, the file's own code may widen it."""
        return Layout(self.line_length, from_code="line_length" not in self.origins)

    def statements_for(self, path: str) -> tuple[Statement, ...]:
        """The facts stated for the kernels of `path`: `assume`, the `per-file-assume` entries whose glob
        matches it, and `kernel-assume`."""
        matched = [s for glob, statements in self.per_file_assume if self._matches((glob,), path) for s in statements]
        return (*self.assume, *matched, *self.kernel_assume)

    def excludes(self, path: str, is_dir: bool = False, root: str | None = None) -> bool:
        """`root`: match relative to this directory instead of the configuration's (see runs._excluded)."""
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
    """A code runs if some `select` entry is a prefix of it (or an alias that names it: TTD108) and no `ignore`
    entry is (`ALL` matches any)."""

    def hit(selectors: tuple[str, ...]) -> bool:
        return any(s == ALL or code.startswith(s) or selects(s, code) for s in selectors)

    return hit(select) and not hit(ignore)


def apply(config: Config, table: dict, where: str) -> Config:
    """`config` with the keys of `table` (TOML names) validated and set; `where` prefixes error messages."""
    changes = {}
    for key, value in table.items():
        if key not in BY_KEY:
            raise ConfigError(f"{where}: unknown key {key!r} ({_suggestion(key)})")
        setting = BY_KEY[key]
        try:
            changes[setting.field] = setting.check(value, f"{shown_path(where)}: {key}") if setting.stated \
                else setting.check(value)
        except ValueError as exc:
            raise ConfigError(f"{where}: {key}: {exc}") from None
    return replace(config, **changes, origins={**config.origins, **dict.fromkeys(changes, where)})


def _suggestion(key: str) -> str:
    """`did you mean ...` for a typo (`targte`, `line_length`), else every key."""
    close = difflib.get_close_matches(key.replace("_", "-"), BY_KEY, n=1, cutoff=0.7)
    return f"did you mean {close[0]!r}?" if close else f"known: {', '.join(BY_KEY)}"


def _spelling(name: str) -> str:
    return re.sub(r"[-_.\s]", "", name.lower())


def shown_path(where: str) -> str:
    """A configuration file as the report names it: relative to the working directory where it is below it."""
    relative = os.path.relpath(where) if os.path.isabs(where) else where
    return where if relative.startswith("..") else relative


def read_table(path: str) -> dict | None:
    """The `[tool.triton-migrate]` table of a pyproject.toml, or None if it has none."""
    try:
        with open(path, "rb") as handle:
            document = tomllib.load(handle)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    tools = document.get("tool", {})
    misspelt = [name for name in tools if name != TABLE and _spelling(name) == _spelling(TABLE)]
    if misspelt:  # read by no one: every setting in it would be silently ignored
        raise ConfigError(f"{path}: [tool.{misspelt[0]}] is not read: the table is [tool.{TABLE}]")
    table = tools.get(TABLE)
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{TABLE}] must be a table")
    return table


def load(path: str) -> Config | None:
    """The configuration in a pyproject.toml, or None if it has no `[tool.triton-migrate]` table."""
    table = read_table(path)
    if table is None:
        return None
    return apply(Config(root=os.path.dirname(os.path.abspath(path)), source=path), table, path)


class Nearest(Generic[T]):
    """A setting per directory, from the nearest directory upward that has one: `own(directory)` is the
    directory's own (None: look further up), `default()` applies where no directory up to the file system's
    root has one. Each directory is looked at once; a loop, as trees can be deeper than the recursion limit."""

    def __init__(self, own: Callable[[str], T | None], default: Callable[[], T]) -> None:
        self._own, self._default = own, default
        self._by_dir: dict[str, T] = {}

    def __call__(self, directory: str) -> T:
        unresolved = []
        while directory not in self._by_dir:
            found = self._own(directory)
            if found is not None:
                self._by_dir[directory] = found
                break
            unresolved.append(directory)
            parent = os.path.dirname(directory)
            if parent == directory:
                self._by_dir[directory] = self._default()
                break
            directory = parent
        for below in unresolved:
            self._by_dir[below] = self._by_dir[directory]
        return self._by_dir[directory]


class Resolver:
    """Finds the configuration for each path, reading every pyproject.toml at most once."""

    def __init__(self, overrides: dict, explicit: str | None = None, isolated: bool = False) -> None:
        self._overrides = overrides  # TOML key -> value, from the command line
        self._nearest = Nearest(self._own, self._outside_any)  # directory -> the nearest pyproject.toml's
        self._fixed: Config | None = None  # one configuration for every path (--config, --isolated)
        self._lengths = LineLengths()
        self._ruff = Nearest(_ruff_rules_of, lambda: ruff_rules.NO_CONFIGURATION)
        self._measured: dict[str, Config] = {}  # directory -> its configuration with the project's settings
        if explicit is not None:
            fixed = load(explicit) or Config(root=os.path.dirname(os.path.abspath(explicit)))
            declared = declared_line_length(explicit)
            if not fixed.line_length:
                fixed = _with_length(fixed, declared or DEFAULT_LINE_LENGTH, explicit if declared else None)
            ruff = ruff_rules.rules_in(explicit) or ruff_rules.NO_CONFIGURATION
            self._fixed = replace(self._final(fixed), ruff=ruff)
        elif isolated:
            self._fixed = self._final(Config(root=os.getcwd(), line_length=DEFAULT_LINE_LENGTH))

    def for_path(self, path: str) -> Config:
        if self._fixed is not None:
            return self._fixed
        absolute = os.path.abspath(path)
        directory = absolute if os.path.isdir(absolute) else os.path.dirname(absolute)
        if directory not in self._measured:
            config = self._nearest(directory)
            if not config.line_length:
                config = _with_length(config, self._lengths.for_directory(directory),
                                      self._lengths.source_of(directory))
            self._measured[directory] = replace(config, ruff=self._ruff(directory))
        return self._measured[directory]

    def _final(self, config: Config) -> Config:
        return apply(config, self._overrides, "command line")

    def _own(self, directory: str) -> Config | None:
        """The configuration of the directory's own pyproject.toml, if it has one."""
        candidate = os.path.join(directory, "pyproject.toml")
        found = load(candidate) if os.path.isfile(candidate) else None
        return None if found is None else self._final(found)

    def _outside_any(self) -> Config:
        """Where no directory up to the file system's root has a configuration."""
        return self._final(Config(root=os.getcwd()))


def _with_length(config: Config, length: int, source: str | None) -> Config:
    """`config` with the project's line length, declared in `source` (None: the default)."""
    origins = {**config.origins, "line_length": source} if source else config.origins
    return replace(config, line_length=length, origins=origins)


# --- the project's line length, which emitted code keeps to (wrap.py) ---------------------------------------------

DEFAULT_LINE_LENGTH = 88  # ruff's and black's
# Looked for in each directory upward, in this order (ruff's own order for its files first).
_RUFF_FILES = (".ruff.toml", "ruff.toml", "pyproject.toml")  # ruff's own order
_LENGTH_FILES = (*_RUFF_FILES, ".flake8", "setup.cfg", "tox.ini")


class LineLengths:
    """The line length of the project a file belongs to: from the nearest directory upward that has a file
    configuring ruff (`.ruff.toml`, `ruff.toml`, `[tool.ruff]` in pyproject.toml: its `line-length`, which
    may come through `extend`, else ruff's 88), black (`[tool.black] line-length`) or flake8 (`[flake8]
    max-line-length` in `.flake8`, setup.cfg or tox.ini); 88 where none does (the engine then measures the
    file's own width: rewrite/code_width.py). These are other tools'
    files: one that cannot be read or holds no valid length is passed over, never an error here."""

    def __init__(self) -> None:
        self._found = Nearest(_declared_in, lambda: (DEFAULT_LINE_LENGTH, None))  # (length, the file declaring it)

    def for_directory(self, directory: str) -> int:
        return self._found(directory)[0]

    def source_of(self, directory: str) -> str | None:
        """The file that declares the line length `for_directory` gives; None: no file does (88)."""
        return self._found(directory)[1]


def _declared_in(directory: str) -> tuple[int, str] | None:
    return next(((length, path) for path in _candidates(directory)
                 if (length := declared_line_length(path)) is not None), None)


def _ruff_rules_of(directory: str) -> ruff_rules.RuffRules | None:
    """The rules ruff checks under the directory's own ruff configuration (ruff's order: `.ruff.toml`,
    `ruff.toml`, then a pyproject.toml with `[tool.ruff]`), if it has one that can be read."""
    return next((rules for name in _RUFF_FILES if (rules := ruff_rules.rules_in(os.path.join(directory, name)))),
                None)


def _candidates(directory: str) -> list[str]:
    return [path for path in (os.path.join(directory, name) for name in _LENGTH_FILES) if os.path.isfile(path)]


def declared_line_length(path: str, extended: int = 0) -> int | None:
    """The line length the file sets for ruff, black or flake8; its tool's default (88, as ruff and black
    have it) if it configures ruff or black without one; None if it configures none of them."""
    name = os.path.basename(path)
    if not name.endswith(".toml"):
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read(path, encoding="utf-8")
        except (configparser.Error, UnicodeDecodeError):
            return None
        section = parser["flake8"] if parser.has_section("flake8") else {}
        value = section.get("max-line-length", section.get("max_line_length"))
        return _length(int(value)) if value is not None and value.strip().isdigit() else None
    document = ruff_rules.read_toml(path)
    if document is None:
        return None
    ruff = ruff_rules.ruff_table(path, document)
    tool = document.get("tool") if name == "pyproject.toml" else None
    black = tool.get("black") if isinstance(tool, dict) else None
    if isinstance(ruff, dict):
        length = _length(ruff.get("line-length"))
        if length is None and isinstance(ruff.get("extend"), str) and extended < ruff_rules.MAX_EXTENDS:
            base = os.path.join(os.path.dirname(path), os.path.expanduser(ruff["extend"]))
            length = declared_line_length(base, extended + 1) if os.path.isfile(base) else None
        if length is not None:
            return length
    if isinstance(black, dict) and _length(black.get("line-length")) is not None:
        return _length(black["line-length"])
    return DEFAULT_LINE_LENGTH if isinstance(ruff, dict) or isinstance(black, dict) else None


def _length(value) -> int | None:
    valid = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_LINE_LENGTH
    return value if valid else None
