"""A written file's sites and warnings, where the file as written has them.

After --write the sites that are left are reported in the file as it now is, as ruff reports what is left
after --fix: the engine finds them in the source it read, and the rewrite moves them. It leaves a refused
site's code as it was, so the two texts tell where it went: a line the rewrite did not touch keeps its
text and moves by the lines added or removed above it; in lines it changed, the characters that stayed
are matched (difflib). A migrated site is gone (the grouped report still lists it): it is reported where
the code written in place of its lines starts. --check and --diff write nothing and keep the positions
of the file on disk.
"""

from __future__ import annotations

import difflib
from dataclasses import replace

from triton_migrate.frontend.output import FileResult, split_lines
from triton_migrate.outcome import SEE_LINE, Diagnostic, see_line


class Relocation:
    """Where a place of the text as read is in the text as written: (line, 1-based column) to the same."""

    def __init__(self, old: str, new: str) -> None:
        self._old, self._new = split_lines(old), split_lines(new)
        self._blocks = [op for op in _line_opcodes(self._old, self._new) if op[1] < op[2]]  # each old line in one
        self._matches: dict[tuple, list[difflib.Match]] = {}  # per changed block, its characters matched

    def place(self, line: int, column: int) -> tuple[int, int]:
        index = line - 1
        block = self._block(index)
        tag, i1, _, j1, j2 = block
        if tag == "equal":
            return j1 + index - i1 + 1, column
        offset = sum(map(len, self._old[i1:index])) + column - 1
        return _line_and_column(self._new[j1:j2], self._moved(block, offset), j1)

    def line(self, line: int) -> int:
        """Where the code on `line` (from its first character that is not blank) went."""
        text = self._old[line - 1] if line <= len(self._old) else ""
        return self.place(line, len(text) - len(text.lstrip()) + 1)[0]

    def replacement(self, line: int) -> int:
        """The first line of the code written in place of `line` (the line itself if it was kept)."""
        tag, i1, _, j1, _ = self._block(line - 1)
        return j1 + line - i1 if tag == "equal" else j1 + 1

    def _block(self, index: int) -> tuple:
        return next((op for op in self._blocks if index < op[2]), self._blocks[-1])

    def _moved(self, block: tuple, offset: int) -> int:
        """The offset in the changed lines as written of the character at `offset` in them as read."""
        if block not in self._matches:
            _, i1, i2, j1, j2 = block
            read, written = "".join(self._old[i1:i2]), "".join(self._new[j1:j2])
            self._matches[block] = difflib.SequenceMatcher(None, read, written, autojunk=False).get_matching_blocks()
        replaced_from = 0  # where the text written in place of the characters since the last match starts
        for old, new, size in self._matches[block]:
            if offset < old:
                return replaced_from
            if offset < old + size:
                return new + offset - old
            replaced_from = new + size
        return replaced_from


def _line_opcodes(old: list[str], new: list[str]) -> list[tuple]:
    """difflib's opcodes for the lines, matched only between the first and the last line that changed: the
    matcher is quadratic in the lines it compares, and a file of 50,000 like lines (a long string) whose
    kernel changed at the top kept a write busy for minutes."""
    limit = min(len(old), len(new))
    head = next((i for i in range(limit) if old[i] != new[i]), limit)
    tail = next((i for i in range(limit - head) if old[-1 - i] != new[-1 - i]), limit - head)
    matcher = difflib.SequenceMatcher(None, old[head:len(old) - tail], new[head:len(new) - tail], autojunk=False)
    middle = [(tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in matcher.get_opcodes()]
    return [("equal", 0, head, 0, head), *middle, ("equal", len(old) - tail, len(old), len(new) - tail, len(new))]


def _line_and_column(lines: list[str], offset: int, first: int) -> tuple[int, int]:
    """(line, 1-based column) of `offset` in `lines`, the first of which is line `first` + 1."""
    for number, text in enumerate(lines):
        if offset < len(text) or number == len(lines) - 1:
            return first + number + 1, offset + 1
        offset -= len(text)
    return first + 1, 1  # the lines were all removed: where they were


def as_written(result: FileResult) -> FileResult:
    """`result` of a file that was written, its positions moved into the written text."""
    if not result.diagnostics and not result.warnings:
        return replace(result, written=True)
    moved = Relocation(result.text, result.new_text)
    diagnostics = sorted((_moved(d, moved) for d in result.diagnostics), key=lambda d: (d.line, d.column, d.code))
    warnings = tuple(sorted((*moved.place(line, column), message) for line, column, message in result.warnings))
    return replace(result, diagnostics=tuple(diagnostics), warnings=warnings, written=True)


def _moved(d: Diagnostic, moved: Relocation) -> Diagnostic:
    line, column = (moved.replacement(d.line), 1) if d.fixed else moved.place(d.line, d.column)
    message = SEE_LINE.sub(lambda found: see_line(moved.line(int(found[1]))), d.message)
    return replace(d, line=line, column=column, message=message)
