"""Per-line suppressions: `# noqa: TTD101` and `# migrate: ignore[TTD101]`, and `--add-noqa`.

A suppression applies to diagnostics on its own physical line; for a call that spans lines, that is the
line where the call starts. A blanket `# noqa` (no codes) does not suppress our codes: a comment written
years ago for flake8 must not hide a block pointer that breaks on Triton 3.9. `# migrate: ignore` without
codes is ours, so it suppresses every code on its line.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from triton_migrate.outcome import Diagnostic
from triton_migrate.rules import selects

PREFIX = "TTD"
# flake8's grammar: `noqa` anywhere in the comment, codes separated by commas and/or spaces.
_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_IGNORE = re.compile(r"#\s*migrate:\s*ignore(?:\[(?P<codes>[^\]]*)\])?")
# Only suppressions that can name one of our codes matter (an unused one is warned about): a flake8-style
# noqa comment for another code (E501, say) elsewhere must not make a file cost a tokenize.
_MARKER = re.compile(rb"noqa\s*:[^\n]*\bTTD\d|migrate\s*:", re.IGNORECASE)


@dataclass(frozen=True)
class Suppression:
    line: int
    column: int  # 1-based column of the directive
    codes: tuple[str, ...]  # our codes only; empty with `blanket`
    blanket: bool = False  # `# migrate: ignore` without a list

    def covers(self, diagnostic: Diagnostic) -> bool:
        return diagnostic.line == self.line and (self.blanket or any(selects(c, diagnostic.code) for c in self.codes))


def might_have(data: bytes) -> bool:
    """The byte prefilter: a file without these bytes holds no suppression and is not tokenized."""
    # Substring tests first: a case-insensitive regex over every file of a large tree costs seconds. Each
    # test is a pass over the file (a site-packages tree has 130 MB): only the spellings `find` accepts,
    # a code in upper or lower case and `migrate:` as _IGNORE spells it.
    return any(m in data for m in (b"TTD", b"ttd", b"migrate:")) and _MARKER.search(data) is not None


def find(text: str) -> list[Suppression]:
    """The suppressions in real comments (tokenize, so that a `# noqa` inside a string does not count)."""
    found = []
    for token in _comments(text):
        line, column = token.start
        for pattern in (_NOQA, _IGNORE):
            for match in pattern.finditer(token.string):
                listed = re.split(r"[,\s]+", (match["codes"] or "").strip())
                codes = tuple(code.upper() for code in listed if code.upper().startswith(PREFIX))
                blanket = pattern is _IGNORE and match["codes"] is None
                if codes or blanket:
                    found.append(Suppression(line, column + match.start() + 1, codes, blanket))
    return found


def _comments(text: str) -> list[tokenize.TokenInfo]:
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    except (tokenize.TokenError, SyntaxError):
        return []  # the engine reports unparsable files; there is nothing to suppress in them


def unused(suppressions: list[Suppression], diagnostics: tuple[Diagnostic, ...]) -> list[tuple[Suppression, str]]:
    """(suppression, what is unused) for every listed code, or blanket directive, that matches no diagnostic."""
    from triton_migrate.rules import CODES  # not RULES: the rules' modules import libcst, a cached run need not

    stale = []
    for s in suppressions:
        on_line = {d.code for d in diagnostics if d.line == s.line}
        if s.blanket and not on_line:
            stale.append((s, "`# migrate: ignore` matches no site on this line"))
        for code in s.codes:
            if code not in CODES:
                stale.append((s, f"unknown rule code {code}"))
            elif not any(selects(code, found) for found in on_line):  # TTD108 names the codes it was split into
                stale.append((s, f"unused suppression of {code}: no such site on this line"))
    return stale


def add_noqa(text: str, wanted: dict[int, set[str]], blanket_covers: bool = False) -> tuple[str, int, list[int]]:
    """Insert `# noqa: CODE` on each line of `wanted` (line -> codes), merging into an existing `# noqa: ...`
    list. `blanket_covers`: the codes are another linter's, for which a blanket `# noqa` already covers them
    (ours it does not). Returns the new text, the number of lines changed, and the lines that cannot take a
    comment (the line ends inside a string or with a backslash continuation)."""
    lines = io.StringIO(text, newline="").readlines()
    blocked = _lines_ending_in_strings(text)
    comment_at = {t.start[0]: t.start[1] for t in _comments(text)}
    changed, refused = 0, []
    for number in sorted(wanted):
        body = lines[number - 1].rstrip("\r\n")
        ending = lines[number - 1][len(body):]
        if number in blocked or body.endswith("\\"):
            refused.append(number)
            continue
        new_body = _with_codes(body, comment_at.get(number), sorted(wanted[number]), blanket_covers)
        if new_body != body:
            lines[number - 1] = new_body + ending
            changed += 1
    return "".join(lines), changed, refused


def _with_codes(body: str, comment: int | None, codes: list[str], blanket_covers: bool) -> str:
    existing = None if comment is None else _NOQA.search(body, comment)
    if existing is not None and existing["codes"] is None and blanket_covers:
        return body
    if existing is None or existing["codes"] is None:  # a blanket noqa stays and gets our codes after it
        return f"{body}  # noqa: {', '.join(codes)}"
    listed = re.split(r"[,\s]+", existing["codes"])
    missing = [code for code in codes if code not in {c.upper() for c in listed}]
    if not missing:
        return body
    end = existing.end("codes")
    return f"{body[:end]}, {', '.join(missing)}{body[end:]}"


def _lines_ending_in_strings(text: str) -> set[int]:
    """Lines whose end lies inside a multi-line token (a triple-quoted string): a comment there would be text."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return set(range(1, text.count("\n") + 2))
    return {line for t in tokens for line in range(t.start[0], t.end[0]) if t.end[0] > t.start[0]}
