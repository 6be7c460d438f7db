"""A helper given block pointers of different ranks at different calls, copied once per call signature.

Triton compiles a `@triton.jit` function once per signature, so `load_tile(p)` given a matrix's block pointer by
one kernel and a vector's by another is two functions to the compiler already. Migrated, the two take different
parts (a base, then a shape, stride, offset and block size per dimension), so they become two functions in the
source too: the calls that pass what the first call passes keep the helper, and each other group of calls calls
a copy of it, defined right after it and named after the ranks it takes (`load_tile_1d`). The copy is the
helper's own text; the engine migrates the source with its copies (program.py says which), and `Relocation`
maps what it reports back to the source as written: a site in a copy is where the helper has it."""

from __future__ import annotations

import ast
import io
import re
from dataclasses import dataclass, field
from typing import cast

BLANK = 2  # blank lines before a copy, as between top-level definitions (PEP 8)


class NotCopied(Exception):
    """The helper or a call of it is not where the text says (a layout this does not follow): no copies."""


@dataclass(frozen=True)
class _Copy:
    after: int  # the original line the copy follows: the helper's last
    first: int  # the helper's first line (its first decorator's)
    count: int  # how many lines it has
    def_line: int
    name_column: int  # 0-based, on the def line
    grown: int  # characters the copy's name adds to the helper's
    name: str  # the copy's


@dataclass
class Relocation:
    """Positions in the source with copies, mapped to the source as written."""

    copies: list[_Copy] = field(default_factory=list)  # in the order they follow one another
    renamed: dict[int, list[tuple[int, int]]] = field(default_factory=dict)  # line -> [(callee column, grown)]

    def original(self, line: int, column: int) -> tuple[int, int, str | None]:
        """(line, 1-based column) in the source as written of (line, column) in the source with copies, and the
        name of the copy it is in, if it is in one."""
        shift = 0
        for copy in self.copies:
            start = copy.after + shift + 1
            if line < start:
                break
            if line < start + BLANK + copy.count:
                offset = line - start - BLANK
                if offset < 0:
                    return copy.after, 1, copy.name
                moved = copy.first + offset
                grown = copy.grown if moved == copy.def_line and column - 1 > copy.name_column else 0
                return moved, column - grown, copy.name
            shift += BLANK + copy.count
        moved = line - shift
        return moved, column - sum(grown for at, grown in self.renamed.get(moved, ()) if column - 1 > at), None


Signature = tuple[tuple[str, "int | None"], ...]  # per block-pointer parameter, the rank its calls pass


def copies(source: str, tree: ast.Module, helpers: dict[str, list[tuple[Signature, list[tuple[int, int]]]]],
           taken: set[str]) -> tuple[str, Relocation, dict[str, list[str]]]:
    """`source` with a copy of each helper for each group of its calls after the first (name -> [(what the
    group passes, where its calls' callees start: line, 0-based column)]) and those calls renamed; its
    Relocation; and per helper the names of its copies. `taken`: the module's names, which no copy's may be."""
    lines = io.StringIO(source, newline="").readlines()
    newline = next((line[len(line.rstrip("\r\n")):] for line in lines if line.endswith(("\n", "\r"))), "\n")
    relocation, renames = Relocation(), []
    names: dict[str, list[str]] = {}
    inserted: dict[int, list[str]] = {}  # line -> the lines of the copies that follow it
    definitions = {s.name: s for s in tree.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for name, groups in sorted(helpers.items()):
        definition = definitions.get(name)
        if definition is None:
            raise NotCopied(name)
        first = min([definition.lineno] + [d.lineno for d in definition.decorator_list])
        last = cast(int, definition.end_lineno)  # ast.parse sets it
        text = lines[first - 1:last]
        if not text[-1].endswith(("\n", "\r")):
            text[-1] += newline
        names[name] = []
        for signature, calls in groups[1:]:
            copy = _unique(f"{name}_{_ranks(signature)}", taken)
            taken.add(copy)
            names[name].append(copy)
            body = list(text)
            def_index = definition.lineno - first
            found = re.search(rf"\bdef\s+({re.escape(name)})\b", body[def_index])
            if found is None:
                raise NotCopied(name)
            body[def_index] = body[def_index][:found.start(1)] + copy + body[def_index][found.end(1):]
            relocation.copies.append(_Copy(last, first, len(body), definition.lineno,
                                           found.start(1), len(copy) - len(name), copy))
            inserted.setdefault(last, []).extend([newline] * BLANK + body)
            for line, column in calls:
                relocation.renamed.setdefault(line, []).append((column, len(copy) - len(name)))
                renames.append((line, column, name, copy))
    for line, column, name, copy in sorted(renames, key=lambda r: (r[0], -r[1])):  # right to left on a line
        _rename(lines, line, column, name, copy)
    relocation.copies.sort(key=lambda c: c.after)  # stable: the copies of one helper keep their order
    out: list[str] = []
    for number, source_line in enumerate(lines, 1):
        out.append(source_line)
        out.extend(inserted.get(number, ()))
    return "".join(out), relocation, names


def _ranks(signature: Signature) -> str:
    """`1d`, `2d_1d`: the ranks a group of calls passes, one a block-pointer parameter (`none` where it passes
    no block pointer), which name its copy."""
    return "_".join(f"{rank}d" if rank else "none" for _, rank in signature)


def spelled(signature: Signature) -> str:
    """What a group of calls passes, in words: `a rank-1 block pointer in `p``."""
    return ", ".join(f"a rank-{rank} block pointer in `{param}`" if rank else f"no block pointer in `{param}`"
                     for param, rank in signature)


def _unique(name: str, taken: set[str]) -> str:
    found, number = name, 2
    while found in taken:
        found, number = f"{name}_{number}", number + 1
    return found


def _rename(lines: list[str], line: int, column: int, name: str, new: str) -> None:
    """The callee `name` at (line, column) is `new` (renames on a line go from right to left)."""
    text = lines[line - 1]
    if text[column:column + len(name)] != name:
        raise NotCopied(name)
    lines[line - 1] = text[:column] + new + text[column + len(name):]
