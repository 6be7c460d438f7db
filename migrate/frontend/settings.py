"""Every setting of `[tool.triton-migrate]`, defined once: its TOML key, the `Config` field it sets, how its
value is checked, its type and meaning for the documentation, and its command-line option (`Option`). The
configuration's validation (config.apply), the options of every command that migrates (options.py), the
overrides the command line makes (runs.resolve), `--help`, the configuration reference and the options of
docs/commands.md (docs/hooks.py), and the keys `migrate verify` reports (verify/report.py) all come from SETTINGS.
Nothing here imports click: options.py turns an `Option` into a click option."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from triton_migrate.frontend.output import FORMATS
from triton_migrate.policy import FACTS, KERNEL_TARGETS, MAX_LINE_LENGTH, TARGETS, Statement

ALL = "ALL"


@dataclass(frozen=True)
class Option:
    """A setting's command-line option. `kind`: "choice" (one of `choices`), "switch" (`--key/--no-key`),
    "list" (comma-separated, repeatable), "int" (from `low` to `high`) or "text"."""

    help: str
    kind: str = "text"
    metavar: str | None = None
    choices: tuple[str, ...] = ()
    low: int | None = None
    high: int | None = None
    name: str | None = None  # where it is not `--KEY` (`--triton-module`)
    short: str | None = None  # `-j`
    # The option's value as the TOML value it overrides (`--triton-module MODULE.NAME=WHAT`), raising ValueError
    to_toml: Callable | None = None
    # It changes what a file becomes: `migrate verify` and `migrate tune` take it too (not which sites are
    # reported, nor how the run goes)
    migrates: bool = True


def _as_written(value) -> str:
    """A field's value as the user writes it in TOML: `true`, `120`, `pointer`."""
    return str(value).lower() if isinstance(value, bool) else str(value)


@dataclass(frozen=True)
class Setting:
    key: str  # in [tool.triton-migrate]
    field: str  # Config's
    check: Callable  # the TOML value -> the field's value, raising ValueError; `stated`: also takes where it was set
    type: str  # Markdown, for the reference
    meaning: str  # Markdown
    option: Option | None = None  # None: set in pyproject.toml only
    unset: str | None = None  # what applies while it is not set, where Config's default only marks that
    stated: bool = False  # a fact the user states: each value remembers where it was set
    # The field's value as the user writes it, the way back from `check` (the verdict's policy lines)
    written: Callable[[Any], str] = _as_written

    @property
    def flag(self) -> str | None:
        """The option as the command line spells it (`--line-length`), or None."""
        return None if self.option is None else f"--{self.option.name or self.key}"

    @property
    def parameter(self) -> str | None:
        """The option's name among a command's parameters (`line_length`)."""
        return None if self.flag is None else self.flag[2:].replace("-", "_")


# --- validation: one function per kind of value, given the raw TOML value and returning the field's value ---------


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


def _version_as_written(value) -> str:
    return ".".join(map(str, value))


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


def _kernel_targets_as_written(value) -> str:
    return ", ".join(f"{kernel} = {target}" for kernel, target in value) or "none"


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


def _triton_modules_table(entries: list[str]) -> dict:
    """`--triton-module vllm.triton_utils.tl=triton.language` as the configuration's table."""
    table: dict[str, dict[str, str]] = {}
    for entry in entries:
        named, equals, full = entry.partition("=")
        module, dot, name = named.strip().rpartition(".")
        if not (equals and dot and module and name):
            raise ValueError(f"--triton-module {entry!r}: expected MODULE.NAME=triton or MODULE.NAME=triton.language")
        table.setdefault(module, {})[name] = full.strip()
    return table


def _jobs(value):
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"must be a whole number ≥ 1, not {value!r}")
    return value


def _line_length(value):
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_LINE_LENGTH:
        raise ValueError(f"must be a whole number from 1 to {MAX_LINE_LENGTH}, not {value!r}")
    return value


# --- the table ----------------------------------------------------------------------------------------------------

_CODES = 'list of rule codes, prefixes or `"ALL"`'
_FACTS = ", ".join(FACTS)

SETTINGS = (
    Setting(
        "target", "target", _one_of(TARGETS), "`auto`, `descriptor`, `pointer` or `compat`",
        "`auto`: a descriptor where provably legal and safe (chosen at launch, or relying on stated facts), "
        "masked pointers otherwise; `descriptor`: a descriptor only where what it needs is proven or stated, "
        "every other site refused with the fact that would make it migratable; `pointer`: masked pointers "
        "everywhere; `compat`: tiles of the `triton_migrate.compat` shim.",
        Option("What to emit: descriptors where safe else masked pointers (auto), only descriptors where proven or "
               "stated (the rest untouched), only masked pointers, or the compat shim's tiles.", "choice",
               choices=TARGETS)),
    Setting(
        "strict", "strict", _bool, "bool",
        "No descriptor that relies on anything unproven: no launch guard, no stated fact.",
        Option("Refuse descriptors whose safety depends on run-time values (strides, alignment), checked at launch "
               "or stated.", "switch")),
    Setting(
        "unsafe-fixes", "unsafe_fixes", _bool, "bool",
        "Fixes that delete user code: a helper whose block-pointer parameters no call anywhere fills, which "
        "nothing in the project names (TTD011). Off by default: such a helper is kept and reported; "
        "`--diff --unsafe-fixes` shows the deletion first. A kernel is never removed.",
        Option("Also apply fixes that delete code: a helper whose block-pointer parameters nothing fills, or that "
               "returns a block pointer every call now creates itself (TTD011); never a kernel.", "switch")),
    Setting(
        "min-triton-version", "min_triton", _version, '`"X.Y"`',
        "The oldest Triton the migrated code must run on: descriptors need 3.4; `padding_option` and casting "
        "stores need 3.5.",
        Option("The oldest Triton the migrated code must run on.", metavar="X.Y"), written=_version_as_written),
    Setting(
        "select", "select", _codes, _CODES,
        "The rule codes that run: a code runs if a `select` entry is a prefix of it and no `ignore` entry is "
        '(`"TTD1"` is every TTD1xx). Disabling a rewrite code (`TTD001`, `TTD006`) leaves the files that have '
        "such a site untouched.",
        Option("Rule codes or prefixes to enable (comma-separated; replaces the configuration's).", "list",
               metavar="CODES", migrates=False)),
    Setting(
        "ignore", "ignore", _codes, _CODES, "The rule codes that do not run (see `select`).",
        Option("Rule codes or prefixes to disable (comma-separated; replaces the configuration's).", "list",
               metavar="CODES", migrates=False)),
    Setting(
        "per-file-ignores", "per_file_ignores", _per_file_ignores, "table: glob → codes",
        "Codes ignored in the files a gitignore-style glob matches, relative to the `pyproject.toml` (a bare "
        'name matches at any depth), added to `ignore`; `["ALL"]`: the files are not even read.'),
    Setting(
        "exclude", "exclude", _strings, "list of globs",
        "Skip these files (gitignore-style, relative to this file); added to the built-in list (`.git`, "
        "`.venv`, `build`, `dist`, ...). Paths named on the command line are still checked unless "
        "`--force-exclude` (inside a named directory that is excluded itself, the patterns are matched "
        "relative to it). `--exclude PATTERN` adds to it."),
    Setting("extend-exclude", "extend_exclude", _strings, "list of globs", "Added to `exclude`, as in ruff."),
    Setting(
        "output-format", "output_format", _one_of(FORMATS), "`full`, `concise`, `json`, `sarif` or `github`",
        "As `--output-format`, for the default command (`migrate report` defaults to its grouped view). "
        "Applies to the whole run: read from the configuration of the working directory."),
    Setting(
        "jobs", "jobs", _jobs, "int ≥ 1", "Worker processes, as `-j`. Applies to the whole run.",
        Option("Worker processes [default: one per CPU].", "int", metavar="N", low=1, short="-j", migrates=False),
        unset="one per CPU"),
    Setting(
        "respect-gitignore", "respect_gitignore", _bool, "bool",
        "Skip files that `.gitignore` files ignore. Applies to the whole run.",
        Option("Skip files that .gitignore files ignore [default: respect].", "switch", migrates=False)),
    Setting(
        "compat-module", "compat_module", _module_path, "dotted module path",
        "Where `--target compat` code imports the shim from; `migrate vendor-compat mypkg/_triton_compat.py` "
        "writes a self-contained copy (triton only) so that the migrated package does not depend on this tool."),
    Setting(
        "kernel-targets", "kernel_targets", _kernel_targets, "table: function → `auto`, `descriptor` or `pointer`",
        "That function's target instead of `target`; `migrate tune` measures and writes this table.",
        written=_kernel_targets_as_written),
    Setting(
        "line-length", "line_length", _line_length, f"int 1–{MAX_LINE_LENGTH}", "Emitted code keeps within it.",
        Option("Keep emitted code within N columns [default: the project's ruff, black or flake8 setting, else the "
               "file's own width where wider than 88, else 88].",
               "int", metavar="N", low=1, high=MAX_LINE_LENGTH),
        unset="the project's ruff, black or flake8 setting, else the file's own width where wider than 88, else 88"),
    Setting(
        "assume", "assume", _assume, "list of facts: " + ", ".join(f"`{fact}`" for fact in FACTS),
        "Facts about the tensor arguments and launches of every kernel of the files this configuration covers, "
        "which descriptors may rely on (TTD010).",
        Option("Facts about every kernel's tensor arguments and launches that descriptors may rely on "
               f"(comma-separated: {_FACTS}; replaces the configuration's `assume`).", "list", metavar="FACTS"),
        stated=True),
    Setting(
        "per-file-assume", "per_file_assume", _per_file_assume, "table: glob → facts",
        "The same for the files a gitignore-style glob matches (relative to the `pyproject.toml`), added to "
        "`assume`.", stated=True),
    Setting(
        "kernel-assume", "kernel_assume", _kernel_assume, 'table: kernel or `"kernel.argument"` → facts',
        "The same for one kernel (function name, in any file) or one of its arguments "
        '(`matmul_kernel = [...]`, `"matmul_kernel.c_ptr" = [...]` or `matmul_kernel = {c_ptr = [...]}`).',
        stated=True),
    Setting(
        "triton-modules", "triton_modules", _triton_modules,
        'table: module → {name = `"triton"` or `"triton.language"`}',
        "What a module outside the run re-exports from Triton, for when its source cannot be found "
        '(`"vllm.triton_utils" = { tl = "triton.language", triton = "triton" }`): a stated fact, listed under '
        "the sites that rely on it (TTD202). A module whose source the run or `sys.path` holds is read, never "
        "imported, and needs no entry.",
        Option("A name that a module outside the run binds to triton (comma-separated, e.g. "
               "vllm.triton_utils.tl=triton.language; replaces the configuration's `triton-modules`).", "list",
               metavar="MODULE.NAME=WHAT", name="triton-module", to_toml=_triton_modules_table),
        stated=True),
    Setting(
        "known-triton-modules", "known_triton_modules", _bool, "bool",
        "Take the modules known to re-export Triton (vLLM's `vllm.triton_utils`, SGLang's and Aphrodite's "
        "`triton_utils`: `frontend/triton_modules.py`, KNOWN) at their word where they are not installed: each "
        "rewrite that relies on one names it as an assumption (TTD202). A module found on disk is read instead; "
        "`triton-modules` states another.",
        Option("Where a module known to re-export Triton (vllm.triton_utils) is not installed, assume its "
               "binding and say so [default: on].", "switch")),
)
BY_KEY = {setting.key: setting for setting in SETTINGS}
BY_FIELD = {setting.field: setting for setting in SETTINGS}
