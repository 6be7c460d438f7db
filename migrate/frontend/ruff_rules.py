"""Which rules ruff checks in a file, as the project configures it: so that migrated code can carry the one
`# noqa` a rule the project asks for would need (frontend/lint_pragmas.py), and none that no rule asks for.

A configuration file (`.ruff.toml`, `ruff.toml`, `[tool.ruff]` of a pyproject.toml) and the files it `extend`s
each give one layer of selection, base first: `select` replaces the selection before it, `extend-select` adds
to it, `ignore`/`extend-ignore` remove from it, and within a layer the most specific selector naming a rule
decides (`ARG001` over `ARG0` over `ARG` over `ALL`; an ignore over a select as specific), as ruff resolves them.
Keys are read from `[lint]` (`[tool.ruff.lint]`), else from the top level, where older configurations have
them. Then `per-file-ignores` (the nearest layer's that sets it) and every layer's `extend-per-file-ignores`
remove rules from the files their globs match, relative to the directory of the file that declares them.
These are another tool's files: one that cannot be read is passed over, never an error here.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.9/3.10 only
    import tomli as tomllib

ALL = "ALL"
DEFAULT_SELECT = ("E4", "E7", "E9", "F")  # ruff's selection where nothing is configured
MAX_EXTENDS = 8  # a chain of `extend` longer than this (a cycle, say) is cut there


def read_toml(path: str) -> dict | None:
    """The document, or None if it cannot be read or is not TOML."""
    try:
        with open(path, "rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError):
        return None


def ruff_table(path: str, document: dict | None) -> dict | None:
    """What a configuration file holds for ruff: a pyproject.toml's `[tool.ruff]`, a ruff.toml's whole document;
    None if it configures no ruff."""
    if document is not None and os.path.basename(path) == "pyproject.toml":
        tool = document.get("tool")
        document = tool.get("ruff") if isinstance(tool, dict) else None
    return document if isinstance(document, dict) else None


@dataclass(frozen=True)
class Layer:
    """The selection of one configuration file; `select` None: it sets none, the one before it stands."""

    select: tuple[str, ...] | None
    extend_select: tuple[str, ...]
    ignore: tuple[str, ...]  # `ignore` and `extend-ignore`


@dataclass(frozen=True)
class PerFileIgnore:
    root: str  # the directory of the file that declares it: a relative glob is relative to it
    glob: str  # as written; `!` first: the files it does not match
    selectors: tuple[str, ...]

    def matches(self, path: str) -> bool:
        negated = self.glob.startswith("!")
        pattern = self.glob[1:] if negated else self.glob
        hit = _glob_matches(pattern, os.path.basename(path)) or \
            _glob_matches(_absolute(pattern, self.root), os.path.abspath(path), literal_prefix=self.root)
        return hit != negated


@dataclass(frozen=True)
class RuffRules:
    """A file's ruff configuration, as far as the rules it checks go; `source`: the file found (None: none, so
    ruff's defaults)."""

    source: str | None = None
    layers: tuple[Layer, ...] = ()
    per_file_ignores: tuple[PerFileIgnore, ...] = ()

    def selects(self, code: str, path: str) -> bool:
        """Whether ruff checks `code` in the file at `path`. `code` is a code of a linter whose prefix is its
        letters (`ARG001`, `F841`): its selectors are `ALL`, the letters, and each longer prefix of it."""
        selectors = _selectors_of(code)
        selected = any(s in DEFAULT_SELECT for s in selectors)
        carried: tuple[str, ...] = ()
        for layer in self.layers:
            decision = _decision(selectors, (*(layer.select or ()), *layer.extend_select), layer.ignore + carried)
            if layer.select is not None:
                selected = decision is True
            elif decision is not None:
                selected = decision
            # ruff carries the ignores of a layer that only ignores (`select = []`) over to the next one
            carried = layer.ignore if layer.select == () and not layer.extend_select else ()
        return selected and not any(set(selectors) & set(entry.selectors) and entry.matches(path)
                                    for entry in self.per_file_ignores)


NO_CONFIGURATION = RuffRules()


def _selectors_of(code: str) -> tuple[str, ...]:
    """The selectors that name `code`, least specific first: ALL, ARG, ARG0, ARG00, ARG001."""
    letters = len(code) - len(code.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    return (ALL, *(code[:end] for end in range(letters, len(code) + 1)))


def _decision(selectors: tuple[str, ...], select: tuple[str, ...], ignore: tuple[str, ...]) -> bool | None:
    """True or False as the most specific selector of `selectors` in `select` or `ignore` says (an ignore wins
    over a select as specific); None if neither names the rule."""
    decision = None
    for selector in selectors:
        decision = True if selector in select else decision
        decision = False if selector in ignore else decision
    return decision


def rules_in(path: str, extended: int = 0) -> RuffRules | None:
    """The rule selection of a configuration file and those it `extend`s; None if it configures no ruff or
    cannot be read."""
    table = ruff_table(path, read_toml(path))
    if table is None:
        return None
    base = None
    if isinstance(table.get("extend"), str) and extended < MAX_EXTENDS:
        base = rules_in(os.path.join(os.path.dirname(path), os.path.expanduser(table["extend"])), extended + 1)
    base = base or NO_CONFIGURATION
    lint = table.get("lint")
    lint = lint if isinstance(lint, dict) else {}

    def setting(key: str):  # `[lint]` first, else the top level (ruff's deprecated place for them)
        return lint.get(key, table.get(key))

    layer = Layer(_selectors(setting("select")), _selectors(setting("extend-select")) or (),
                  (*(_selectors(setting("ignore")) or ()), *(_selectors(setting("extend-ignore")) or ())))
    root = os.path.dirname(os.path.abspath(path))
    own = _per_file(setting("per-file-ignores"), root)
    extended_entries = _per_file(setting("extend-per-file-ignores"), root) or ()
    ignores = (*(base.per_file_ignores if own is None else own), *extended_entries)
    return RuffRules(path, (*base.layers, layer), ignores)


def _selectors(value) -> tuple[str, ...] | None:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        return None
    return tuple(item.strip().upper() for item in value)


def _per_file(value, root: str) -> tuple[PerFileIgnore, ...] | None:
    if not isinstance(value, dict):
        return None
    return tuple(PerFileIgnore(root, glob, selectors) for glob, codes in value.items()
                 if (selectors := _selectors(codes)) is not None)


# --- ruff's globs (the globset crate: `*` and `?` cross `/`, `**/` any depth, `[...]`, `{a,b}`) ---------------


def _absolute(pattern: str, root: str) -> str:
    """The pattern made absolute from `root`, `.` and `..` resolved, as ruff normalises it."""
    return os.path.normpath(os.path.join(root, pattern))


def _glob_matches(pattern: str, path: str, literal_prefix: str = "") -> bool:
    """`literal_prefix`: the start of `pattern` that is a path, not a glob (its characters mean themselves)."""
    literal = literal_prefix if literal_prefix and pattern.startswith(literal_prefix + os.sep) else ""
    return re.fullmatch(re.escape(literal) + _glob_regex(pattern[len(literal):]), path, re.DOTALL) is not None


def _glob_regex(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**", i) and (i == 0 or glob[i - 1] == "/") and glob[i + 2:i + 3] in ("", "/"):
            out.append(".*" if i + 2 == len(glob) else "(?:.*/)?")  # `a/**`: everything below; `**/`: any depth
            i += 3
        elif glob[i] == "*":
            out.append(".*")
            i += 1 + (glob.startswith("**", i))
        elif glob[i] == "?":
            out.append(".")
            i += 1
        elif glob[i] == "[" and "]" in glob[i + 2:]:
            end = glob.index("]", i + 2)
            body = glob[i + 1:end]
            negated = body[:1] in ("!", "^")
            out.append(("[^" if negated else "[") + re.escape(body[negated:]).replace("\\-", "-") + "]")
            i = end + 1
        elif glob[i] == "{" and "}" in glob[i:]:
            end = glob.index("}", i)
            out.append("(?:" + "|".join(_glob_regex(part) for part in glob[i + 1:end].split(",")) + ")")
            i = end + 1
        elif glob[i] == "\\" and i + 1 < len(glob):
            out.append(re.escape(glob[i + 1]))
            i += 2
        else:
            out.append(re.escape(glob[i]))
            i += 1
    return "".join(out)
