"""How results are shown: full, concise, json (ruff's fields plus ours), sarif 2.1.0 (with fixes), github
annotations; diffs, statistics, the fix enumeration and the grouped report. Pure functions of the results."""

from __future__ import annotations

import difflib
import functools
import io
import json
import os
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

import click

from triton_migrate import __version__
from triton_migrate.outcome import Diagnostic

FORMATS = ("full", "concise", "json", "sarif", "github")
DOCUMENTS = ("json", "sarif")  # formats whose output is one document, so no diff or other text beside it
TOOL = "triton-migrate"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_FIX_MESSAGE = "Migrate the block pointers in this file (one fix for the whole file)"


@dataclass(frozen=True)
class FileResult:
    path: str  # as shown to the user
    diagnostics: tuple[Diagnostic, ...] = ()  # enabled and not suppressed, sorted
    text: str = ""  # the source as read
    new_text: str | None = None  # the migrated source, only when it differs and may be written
    new_data: bytes | None = None  # new_text encoded as the file was
    warnings: tuple[tuple[int, int, str], ...] = ()  # (line, column, message): unused suppressions, notes
    suppressed: int = 0  # sites hidden by a suppression comment (noqa, `migrate: ignore`)
    error: str | None = None
    written: bool = False  # new_text was written: the positions are in it (written.as_written moved them)
    launch_module: str | None = None  # the launch-support module new_text imports, to write with it (launch.py)
    launch_functions: tuple[str, ...] = ()  # what new_text imports from launch_module (FileOutcome's)
    uncalled_helpers: tuple[str, ...] = ()  # FileOutcome's: kept until nothing in the project is shown to name them
    stated_facts: tuple = ()  # FileOutcome's: per function, what its descriptors rely on (`migrate verify` checks it)
    summing: tuple = ()  # FileOutcome's: the functions that sum what a descriptor loads (`migrate verify` expects)

    @property
    def shown_text(self) -> str:
        """The text the positions are in."""
        return self.new_text if self.written and self.new_text is not None else self.text

    @property
    def left(self) -> int:
        """The shown sites that stay block pointers: those --write cannot migrate, or leaves as they are with
        their file (a suppression holds it back). What a check counts as "cannot", --write as "left", and
        `migrate verify` as still needing Triton <= 3.8 (which adds the suppressed ones)."""
        return sum(not d.fixed for d in self.diagnostics)


# --- which sites a mode lists ------------------------------------------------------------------------------------


def listed(result: FileResult, mode: str, fmt: str) -> list[Diagnostic]:
    """check and report list every site; --write lists what is left. --diff shows migrated sites in the patch
    in text formats, while the other formats list them with their fix."""
    only_refused = mode == "write" or (mode == "diff" and fmt in ("full", "concise"))
    return [d for d in result.diagnostics if not (only_refused and d.fixed)]


def render(results: list[FileResult], fmt: str, mode: str, color: bool) -> str:
    sites = [(r, d) for r in results for d in listed(r, mode, fmt)]
    if fmt == "json":
        return json.dumps([_json_site(r, d) for r, d in sites], indent=2, ensure_ascii=False) + "\n"
    if fmt == "sarif":
        return json.dumps(_sarif(sites), indent=2, ensure_ascii=False) + "\n"
    line = {"full": _full, "concise": _concise, "github": _github}[fmt]
    return "".join(line(r, d, color) for r, d in sites)


# --- text ------------------------------------------------------------------------------------------------------------


def _concise(result: FileResult, d: Diagnostic, color: bool) -> str:
    where = f"{result.path}:{d.line}:{d.column}:"
    where = click.style(where, bold=True) if color else where
    code = click.style(d.code, fg="green" if d.fixed else "red", bold=True) if color else d.code
    return f"{where} {code} {'[*] ' if d.fixed else ''}{d.message}\n"


def _full(result: FileResult, d: Diagnostic, color: bool) -> str:
    """The concise line, the source line with a caret, then what was decided and what it relies on."""
    source = _line(result.shown_text, d.line).rstrip("\r\n").expandtabs(1)
    gutter = " " * len(str(d.line))
    caret = click.style("^", fg="red", bold=True) if color else "^"
    frame = f"{gutter} |\n{d.line} | {source}\n{gutter} | {' ' * (d.column - 1)}{caret}\n"
    notes = [f"{gutter} = decision: {d.decision}"] if d.decision else []
    notes += [f"{gutter} = requires: {r}" for r in d.requirements]
    return _concise(result, d, color) + frame + "".join(f"{n}\n" for n in notes) + "\n"


def _line(text: str, number: int) -> str:
    lines = _lines_of(text)
    return lines[number - 1] if 0 < number <= len(lines) else ""


@functools.lru_cache(maxsize=1)
def _lines_of(text: str) -> list[str]:
    """A file's lines, split once for all its sites (a kernel file has dozens), not once per site."""
    return io.StringIO(text, newline="").readlines()


def _github(result: FileResult, d: Diagnostic, _color: bool) -> str:
    """GitHub workflow commands, shaped as ruff's `github` format."""
    props = {"title": f"{TOOL} ({d.code})", "file": result.path, "line": d.line, "col": d.column}
    head = ",".join(f"{key}={_escape(str(value), prop=True)}" for key, value in props.items())
    requires = f" (requires: {'; '.join(d.requirements)})" if d.requirements else ""
    message = f"{result.path}:{d.line}:{d.column}: {d.code} {d.message}{requires}"
    return f"::error {head}::{_escape(message)}\n"


def _escape(value: str, prop: bool = False) -> str:
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if prop else value


def unified_diff(path: str, old: str, new: str, color: bool) -> str:
    name = path.replace(os.sep, "/").lstrip("/")
    lines = difflib.unified_diff(split_lines(old), split_lines(new), f"a/{name}", f"b/{name}")
    text = "".join(line if line.endswith(("\n", "\r")) else f"{line}\n\\ No newline at end of file\n" for line in lines)
    return _color_diff(text) if color else text


def _color_diff(text: str) -> str:
    # Longest prefixes first: `+++`/`---` are file headers, not added or removed lines.
    styles: dict[str, dict[str, Any]] = {"+++": {"bold": True}, "---": {"bold": True}, "@@": {"fg": "cyan"},
                                         "+": {"fg": "green"}, "-": {"fg": "red"}}
    out = []
    for line in text.splitlines(keepends=True):
        style = next((s for prefix, s in styles.items() if line.startswith(prefix)), None)
        out.append(click.style(line.rstrip("\n"), **style) + "\n" if style else line)
    return "".join(out)


def split_lines(text: str) -> list[str]:
    # newline="" splits on \n, \r\n and \r only (not on form feeds) and keeps each ending as it is.
    return io.StringIO(text, newline="").readlines()


# --- fixes: the file's edits, derived from the same line hunks as the diff ------------------------------------------


@dataclass(frozen=True)
class Edit:
    start: tuple[int, int]  # (row, column), 1-based
    end: tuple[int, int]  # exclusive
    content: str


def edits(old: str, new: str) -> list[Edit]:
    """Line-granular replacements that turn `old` into `new`, in order, non-overlapping."""
    old_lines, new_lines = split_lines(old), split_lines(new)
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    return [
        Edit(_position(old_lines, i1), _position(old_lines, i2), "".join(new_lines[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


def _position(lines: list[str], index: int) -> tuple[int, int]:
    """Where line `index` (0-based) starts; past the last line: the end of the text."""
    if index < len(lines):
        return index + 1, 1
    if not lines:
        return 1, 1
    last = lines[-1]
    if last.endswith(("\n", "\r")):
        return len(lines) + 1, 1
    return len(lines), len(last) + 1


def _fix_owner(result: FileResult) -> Diagnostic | None:
    """The migration of a file is one change; its edits hang on the file's first migrated site. A written
    file's fix is applied: it has none left."""
    if result.new_text is None or result.written:
        return None
    return next((d for d in result.diagnostics if d.fixed), None)


def _applicability(result: FileResult) -> str:
    # A fix that relies on run-time conditions (requirements), or that deletes a function (TTD011, opted in),
    # is what ruff calls unsafe.
    fixed = [d for d in result.diagnostics if d.fixed]
    return "unsafe" if any(d.requirements or d.decision == "removed" for d in fixed) else "safe"


# --- json: ruff's fields, plus decision and requirements ------------------------------------------------------------


def _json_site(result: FileResult, d: Diagnostic) -> dict:
    return {
        "code": d.code,
        "message": d.message,
        "filename": os.path.abspath(result.path) if result.path != "-" else "-",
        "location": {"row": d.line, "column": d.column},
        "end_location": _end_of_line(result, d),
        "fix": _json_fix(result, d),
        "url": None,  # no hosted rule pages yet; `migrate --explain CODE` has the text
        "noqa_row": d.line,
        "decision": d.decision or None,
        "requirements": list(d.requirements),
    }


def _end_of_line(result: FileResult, d: Diagnostic) -> dict:
    return {"row": d.line, "column": len(_line(result.shown_text, d.line).rstrip("\r\n")) + 1}


def _json_fix(result: FileResult, d: Diagnostic) -> dict | None:
    owner = _fix_owner(result)
    if not d.fixed or owner is None or result.new_text is None:  # (an owner has new text)
        return None
    if d is not owner:
        message = f"migrated together with the site at line {owner.line} (one fix per file)"
        return {"applicability": _applicability(result), "message": message, "edits": []}
    return {
        "applicability": _applicability(result),
        "message": _FIX_MESSAGE,
        "edits": [
            {"content": e.content, "location": _rc(e.start), "end_location": _rc(e.end)}
            for e in edits(result.text, result.new_text)
        ],
    }


def _rc(position: tuple[int, int]) -> dict:
    return {"row": position[0], "column": position[1]}


# --- sarif 2.1.0 ---------------------------------------------------------------------------------------------------


def _sarif(sites: list[tuple[FileResult, Diagnostic]]) -> dict:
    from triton_migrate.rules import RULES

    codes = list(RULES)
    rules = [
        {
            "id": code,
            "name": rule.NAME,
            "shortDescription": {"text": rule.SUMMARY},
            "fullDescription": {"text": rule.__doc__.strip()},
            "help": {"text": f"migrate --explain {code}"},
        }
        for code, rule in RULES.items()
    ]
    driver = {"name": TOOL, "version": __version__, "rules": rules}
    root = {"uri": f"{_file_uri(os.getcwd())}/"}
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "originalUriBaseIds": {"SRCROOT": root},
                  "results": [_sarif_result(r, d, codes) for r, d in sites]}],
    }


def _file_uri(path: str) -> str:
    return "file://" + ("" if path.startswith("/") else "/") + path.replace(os.sep, "/")


def _sarif_result(result: FileResult, d: Diagnostic, codes: list[str]) -> dict:
    artifact = {"uri": result.path.replace(os.sep, "/"), "uriBaseId": "SRCROOT"}
    end = _end_of_line(result, d)
    region = {"startLine": d.line, "startColumn": d.column, "endLine": end["row"], "endColumn": end["column"]}
    found = {
        "ruleId": d.code,
        "level": "warning" if d.fixed else "error",  # a migratable site is work; a refused one needs a person
        "message": {"text": d.message},
        "locations": [{"physicalLocation": {"artifactLocation": artifact, "region": region}}],
        "properties": {"decision": d.decision or None, "requirements": list(d.requirements)},
    }
    if d.code in codes:
        found["ruleIndex"] = codes.index(d.code)
    if d is _fix_owner(result) and result.new_text is not None:  # (an owner has new text)
        replacements = [
            {"deletedRegion": _region(e), "insertedContent": {"text": e.content}}
            for e in edits(result.text, result.new_text)
        ]
        found["fixes"] = [{"description": {"text": _FIX_MESSAGE},
                           "artifactChanges": [{"artifactLocation": artifact, "replacements": replacements}]}]
    return found


def _region(e: Edit) -> dict:
    return {"startLine": e.start[0], "startColumn": e.start[1], "endLine": e.end[0], "endColumn": e.end[1]}


# --- statistics, fix enumeration, grouped report ----------------------------------------------------------------------


def statistics(results: list[FileResult], mode: str, fmt: str) -> str:
    from triton_migrate.rules import RULES

    counts = Counter((d.code, d.fixed) for r in results for d in listed(r, mode, fmt))
    rows = [
        {"code": code, "name": RULES[code].NAME if code in RULES else "", "count": n, "fixable": fixed}
        for (code, fixed), n in sorted(counts.items())
    ]
    if fmt in DOCUMENTS:
        return json.dumps(rows, indent=2) + "\n"
    width = max((len(str(row["count"])) for row in rows), default=1)
    return "".join(
        f"{row['count']:>{width}}\t{row['code']}\t{'[*] ' if row['fixable'] else '[ ] '}{row['name']}\n" for row in rows
    )


def fixes_enumeration(results: list[FileResult]) -> str:
    """ruff's --show-fixes: what --write changed, per file and code."""
    lines = []
    for result in results:
        counts = Counter(d.code for d in result.diagnostics if d.fixed and result.new_text is not None)
        if counts:
            lines.append(f"{result.path}:\n")
            lines += [f"    {n} × {code}\n" for code, n in sorted(counts.items())]
    return f"Migrated:\n{''.join(lines)}" if lines else ""


def grouped_report(results: list[FileResult]) -> str:
    """`migrate report`: every site with what was done and what it relies on, then counts by reason."""
    from triton_migrate.rules import RULES

    sites = [(r, d) for r in results for d in r.diagnostics]
    if not sites:
        return "No block-pointer sites found.\n"
    out = [f"{len(sites)} block-pointer site{'s' if len(sites) != 1 else ''}:\n"]
    where = [f"{r.path}:{d.line}:{d.column}" for r, d in sites]
    width = max(map(len, where))
    for place, (_, d) in zip(where, sites):
        out.append(f"  {place:<{width}}  {d.code}  {d.decision or '-':<10}  {d.message}\n")
        out += [f"      requires: {req}\n" for req in d.requirements]
    by_code: dict[str, Counter] = defaultdict(Counter)
    for _, d in sites:
        by_code[d.code][d.decision or "-"] += 1
    out.append("\nBy reason:\n")
    for code in sorted(by_code):
        total = sum(by_code[code].values())
        split = ", ".join(f"{decision} {n}" for decision, n in sorted(by_code[code].items()))
        name = RULES[code].NAME if code in RULES else ""
        out.append(f"  {total:>5}  {code}  {name:<34} ({split})\n")
    required = sum(len(d.requirements) for _, d in sites)
    if required:
        out.append(f"\n{required} stated fact{'s' if required != 1 else ''} relied on above: the migrated code is "
                   "correct only if every launch meets them (`migrate verify` checks at each launch it records those "
                   "that the arguments decide).\n")
    return "".join(out)
