"""`[tool.triton-migrate]` in pyproject.toml: the nearest file upward from each path wins, the CLI overrides it.

File-level keys (target, strict, unsafe-fixes, min-triton-version, kernel-targets, assume, per-file-assume,
kernel-assume, triton-modules, select, ignore, per-file-ignores, exclude, extend-exclude, line-length) come from
each file's nearest configuration; run-level keys (output-format, jobs,
respect-gitignore) from the configuration nearest to the working directory, as in ruff.

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
from triton_migrate.frontend.output import FORMATS
from triton_migrate.policy import FACTS, KERNEL_TARGETS, TARGETS, Policy, Statement

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib

TABLE = "triton-migrate"
ALL = "ALL"
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
                      line_length=self.line_length, assume=self.statements_for(path),
                      unsafe_fixes=self.unsafe_fixes)

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


def _facts(value) -> tuple[str, ...]:
    facts = _strings(value)
    for fact in facts:
        if fact not in FACTS:
            raise ValueError(f"{fact!r} is not a fact this tool knows (known: {', '.join(FACTS)})")
    return facts


def _assume(value, where: str):
    return tuple(Statement(fact, where) for fact in _facts(value))


def _per_file_assume(value, where: str):
    if not isinstance(value, dict):
        raise ValueError(f'must be a table of glob = ["FACT", ...], not {value!r}')
    return tuple((glob, tuple(Statement(fact, f'{where} "{glob}"') for fact in _facts(facts)))
                 for glob, facts in value.items())


def _kernel_assume(value, where: str):
    """`kernel = [facts]`, `"kernel.argument" = [facts]`, or `kernel = {argument = [facts]}`."""
    if not isinstance(value, dict):
        raise ValueError(f'must be a table of kernel (or "kernel.argument") = ["FACT", ...], not {value!r}')
    found = []
    for key, facts in value.items():
        entries = {f"{key}.{argument}": listed for argument, listed in facts.items()} if isinstance(facts, dict) \
            else {key: facts}
        for selector, listed in entries.items():
            kernel, _, argument = selector.partition(".")
            if not all(part.isidentifier() for part in (kernel, *([argument] if argument else []))):
                raise ValueError(f"{selector!r} is not a kernel name or `kernel.argument`")
            found += [Statement(fact, f'{where} "{selector}"', kernel, argument or None) for fact in _facts(listed)]
    return tuple(found)


def _triton_modules(value, where: str):
    """`module = {name = "triton.language", ...}`: what a module outside the run binds to triton."""
    if not isinstance(value, dict) or not all(isinstance(names, dict) for names in value.values()):
        raise ValueError('must be a table of module = {name = "triton" | "triton.language", ...}, '
                         f"not {value!r}")
    found = []
    for module, names in value.items():
        _module_path(module)
        for name, full in names.items():
            if not name.isidentifier() or full not in ("triton", "triton.language"):
                raise ValueError(f'{module}: {name!r} = {full!r}: must be a name = "triton" or "triton.language"')
            found.append((module, name, full, f'{where} "{module}.{name}"'))
    return tuple(found)


def _jobs(value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"must be a whole number ≥ 1, not {value!r}")
    return value


def _line_length(value):
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_LINE_LENGTH:
        raise ValueError(f"must be a whole number from 1 to {MAX_LINE_LENGTH}, not {value!r}")
    return value


KEYS = {  # TOML key -> (Config field, validator)
    "target": ("target", _one_of(TARGETS)),
    "strict": ("strict", _bool),
    "unsafe-fixes": ("unsafe_fixes", _bool),
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
    "line-length": ("line_length", _line_length),
    "assume": ("assume", _assume),
    "per-file-assume": ("per_file_assume", _per_file_assume),
    "kernel-assume": ("kernel_assume", _kernel_assume),
    "triton-modules": ("triton_modules", _triton_modules),
}
# their validators also take where the key was set
STATED = ("assume", "per-file-assume", "kernel-assume", "triton-modules")


def apply(config: Config, table: dict, where: str) -> Config:
    """`config` with the keys of `table` (TOML names) validated and set; `where` prefixes error messages."""
    changes = {}
    for key, value in table.items():
        if key not in KEYS:
            raise ConfigError(f"{where}: unknown key {key!r} ({_suggestion(key)})")
        name, check = KEYS[key]
        try:
            changes[name] = check(value, f"{shown_path(where)}: {key}") if key in STATED else check(value)
        except ValueError as exc:
            raise ConfigError(f"{where}: {key}: {exc}") from None
    return replace(config, **changes, origins={**config.origins, **dict.fromkeys(changes, where)})


def _suggestion(key: str) -> str:
    """`did you mean ...` for a typo (`targte`, `line_length`), else every key."""
    close = difflib.get_close_matches(key.replace("_", "-"), KEYS, n=1, cutoff=0.7)
    return f"did you mean {close[0]!r}?" if close else f"known: {', '.join(KEYS)}"


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
MAX_LINE_LENGTH = 320  # ruff's upper bound
# Looked for in each directory upward, in this order (ruff's own order for its files first).
_RUFF_FILES = (".ruff.toml", "ruff.toml", "pyproject.toml")  # ruff's own order
_LENGTH_FILES = (*_RUFF_FILES, ".flake8", "setup.cfg", "tox.ini")


class LineLengths:
    """The line length of the project a file belongs to: from the nearest directory upward that has a file
    configuring ruff (`.ruff.toml`, `ruff.toml`, `[tool.ruff]` in pyproject.toml: its `line-length`, which
    may come through `extend`, else ruff's 88), black (`[tool.black] line-length`) or flake8 (`[flake8]
    max-line-length` in `.flake8`, setup.cfg or tox.ini); 88 where none does. These are other tools'
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


# --- the documentation's configuration reference ----------------------------------------------------------------


@dataclass(frozen=True)
class KeyHelp:
    """A key as the documentation's configuration reference shows it (docs/hooks.py generates the page from
    KEYS, Config's defaults, the command line's options and this; tests/test_docs.py holds HELP to KEYS)."""

    type: str
    meaning: str  # Markdown
    unset: str | None = None  # what applies while the key is not set, where Config's default only marks that


HELP = {
    "target": KeyHelp(
        "`auto`, `descriptor`, `pointer` or `compat`",
        "`auto`: a descriptor where provably legal and safe (chosen at launch, or relying on stated facts), "
        "masked pointers otherwise; `descriptor`: a descriptor only where what it needs is proven or stated, "
        "every other site refused with the fact that would make it migratable; `pointer`: masked pointers "
        "everywhere; `compat`: tiles of the `triton_migrate.compat` shim."),
    "strict": KeyHelp(
        "bool", "No descriptor that relies on anything unproven: no launch guard, no stated fact."),
    "unsafe-fixes": KeyHelp(
        "bool",
        "Fixes that delete user code: a helper whose block-pointer parameters no call anywhere fills, which "
        "nothing in the project names (TTD011). Off by default: such a helper is kept and reported; "
        "`--diff --unsafe-fixes` shows the deletion first. A kernel is never removed."),
    "min-triton-version": KeyHelp(
        '`"X.Y"`',
        "The oldest Triton the migrated code must run on: descriptors need 3.4; `padding_option` and casting "
        "stores need 3.5."),
    "select": KeyHelp(
        'list of rule codes, prefixes or `"ALL"`',
        "The rule codes that run: a code runs if a `select` entry is a prefix of it and no `ignore` entry is "
        '(`"TTD1"` is every TTD1xx). Disabling a rewrite code (`TTD001`, `TTD006`) leaves the files that have '
        "such a site untouched."),
    "ignore": KeyHelp('list of rule codes, prefixes or `"ALL"`', "The rule codes that do not run (see `select`)."),
    "per-file-ignores": KeyHelp(
        "table: glob → codes",
        "Codes ignored in the files a gitignore-style glob matches, relative to the `pyproject.toml` (a bare "
        'name matches at any depth), added to `ignore`; `["ALL"]`: the files are not even read.'),
    "exclude": KeyHelp(
        "list of globs",
        "Skip these files (gitignore-style, relative to this file); added to the built-in list (`.git`, "
        "`.venv`, `build`, `dist`, ...). Paths named on the command line are still checked unless "
        "`--force-exclude` (inside a named directory that is excluded itself, the patterns are matched "
        "relative to it)."),
    "extend-exclude": KeyHelp("list of globs", "Added to `exclude`, as in ruff."),
    "output-format": KeyHelp(
        "`full`, `concise`, `json`, `sarif` or `github`",
        "As `--output-format`, for the default command (`migrate report` defaults to its grouped view). "
        "Applies to the whole run: read from the configuration of the working directory."),
    "jobs": KeyHelp(
        "int ≥ 1", "Worker processes, as `-j`. Applies to the whole run.", unset="one per CPU"),
    "respect-gitignore": KeyHelp(
        "bool", "Skip files that `.gitignore` files ignore. Applies to the whole run."),
    "compat-module": KeyHelp(
        "dotted module path",
        "Where `--target compat` code imports the shim from; `migrate vendor-compat mypkg/_triton_compat.py` "
        "writes a self-contained copy (triton only) so that the migrated package does not depend on this tool."),
    "kernel-targets": KeyHelp(
        "table: function → `auto`, `descriptor` or `pointer`",
        "That function's target instead of `target`; `migrate tune` measures and writes this table."),
    "line-length": KeyHelp(
        f"int 1–{MAX_LINE_LENGTH}", "Emitted code keeps within it.",
        unset="the project's ruff, black or flake8 setting, else 88"),
    "assume": KeyHelp(
        "list of facts: " + ", ".join(f"`{fact}`" for fact in FACTS),
        "Facts about the tensor arguments and launches of every kernel of the files this configuration covers, "
        "which descriptors may rely on (TTD010)."),
    "per-file-assume": KeyHelp(
        "table: glob → facts",
        "The same for the files a gitignore-style glob matches (relative to the `pyproject.toml`), added to "
        "`assume`."),
    "kernel-assume": KeyHelp(
        'table: kernel or `"kernel.argument"` → facts',
        "The same for one kernel (function name, in any file) or one of its arguments "
        '(`matmul_kernel = [...]`, `"matmul_kernel.c_ptr" = [...]` or `matmul_kernel = {c_ptr = [...]}`).'),
    "triton-modules": KeyHelp(
        'table: module → {name = `"triton"` or `"triton.language"`}',
        "What a module outside the run re-exports from Triton, for when its source cannot be found "
        '(`"vllm.triton_utils" = { tl = "triton.language", triton = "triton" }`): a stated fact, listed under '
        "the sites that rely on it (TTD202). A module whose source the run or `sys.path` holds is read, never "
        "imported, and needs no entry."),
}
