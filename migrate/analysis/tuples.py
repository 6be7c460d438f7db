"""Block pointers kept in a tuple and read by index: `ps = (tl.make_block_ptr(...), tl.make_block_ptr(...))`, then
`tl.load(ps[0], ...)`. A tuple of block pointers is only its elements, so the engine migrates such a function as
the same code with one name per element: `ps = (A, B)` reads as `ps_0 = A; ps_1 = B` and `ps[1]` as `ps_1`
(`desugared`), and everything else follows block pointers by name as usual. Only where every read of the name
is a literal index into it, and every assignment a tuple of the same length, and only where it holds block
pointers (a creation or an advance among its elements, or an element used where Triton takes one). The engine
keeps the spelling with a name per element only where every block pointer of such a function migrates; where
one does not, the module is migrated as written (its tuple reported, as before), so nothing the migration does
not rewrite is respelt.

The text changes keep every line where it was (elements are joined with `; \\` line continuations), so a
diagnostic moves only in its column (`Spelling.original`)."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import cast

from triton_migrate.syntax.ast_walk import ast_nodes

from .triton_names import TritonNames

_POINTER_USES = ("load", "store", "advance")


@dataclass
class Spelling:
    """The source with a name per tuple element, and how to read its positions and names back."""

    text: str
    edits: list[tuple[int, int, str]]  # (start, end, replacement) in the original text, in order
    functions: list[tuple[int, int]]  # the lines (first, last) of the functions respelt
    names: dict[str, str] = field(default_factory=dict)  # `ps_0` -> `ps[0]`
    tuples: list[tuple[int, int]] = field(default_factory=list)  # the lines (first, last) of the tuples respelt
    _original: str = ""

    def original(self, line: int, column: int) -> tuple[int, int]:
        """(line, 1-based column) in the source as written of (line, column) in the respelt one."""
        offset = _offset(self.text, line, column - 1)
        shift, moved = 0, None
        for start, end, new in self.edits:
            if offset < start + shift:
                break
            if offset < start + shift + len(new):
                moved = start  # inside a replacement: where it starts
                break
            shift += len(new) - (end - start)
        moved = offset - shift if moved is None else moved
        found_line = self._original.count("\n", 0, moved) + 1
        return found_line, moved - (self._original.rfind("\n", 0, moved) + 1) + 1

    def in_respelt(self, line: int) -> bool:
        return any(first <= line <= last for first, last in self.functions)

    def in_tuple(self, line: int) -> bool:
        return any(first <= line <= last for first, last in self.tuples)

    def message(self, text: str) -> str:
        """A message with each element's name as the source spells it (`ps[0]`)."""
        for name, spelt in self.names.items():
            text = text.replace(f"`{name}`", f"`{spelt}`")
        return text


# An element read by index where Triton takes a block pointer: no tuple of block pointers without one (nearly):
# `tl.load(ps[0], ...)`, or `ps[0].advance(...)` after a name. The second is searched from its `[`, and the name
# looked for just before: a pattern that starts with `\w` is tried at every character (four fifths of the search).
_INDEXED_ARGUMENT = re.compile(r"(?:load|store|advance)\(\s*\w+\s*\[\s*-?\d+\s*\]")
_INDEXED_METHOD = re.compile(r"\[\s*-?\d+\s*\]\s*\.\s*advance\(")
_WORD = re.compile(r"\w")


def may_hold(source: str) -> bool:
    """False where no tuple of block pointers can be respelt (a search, before any parse)."""
    return _INDEXED_ARGUMENT.search(source) is not None or any(
        _after_a_word(source, m.start()) for m in _INDEXED_METHOD.finditer(source))


def _after_a_word(source: str, position: int) -> bool:
    """Whether the last character before `position` that is not whitespace is a word's."""
    position -= 1
    while position >= 0 and source[position].isspace():
        position -= 1
    return position >= 0 and _WORD.match(source, position) is not None


def desugared(source: str, tree: ast.Module) -> Spelling | None:
    """The source with a name per element of each tuple of block pointers (module docstring), or None where
    it has none."""
    names = TritonNames.of_ast(tree)
    taken = {n.id for n in ast_nodes(tree) if isinstance(n, ast.Name)} | \
        {n.arg for n in ast_nodes(tree) if isinstance(n, ast.arg)}
    lines = _line_starts(source)
    edits: list[tuple[int, int, str]] = []
    functions: list[tuple[int, int]] = []
    spelt: dict[str, str] = {}
    tuples: list[tuple[int, int]] = []
    for function in (n for n in ast_nodes(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))):
        found = _respellable(function, names)
        if not found:
            continue
        before = len(edits)
        for name, (assignments, reads, arity) in found.items():
            element = {k: _fresh(f"{name}_{k}", taken) for k in range(arity)}
            assigned = [_assignment_edits(source, lines, assignment, element) for assignment in assignments]
            if not all(assigned):  # a tuple written otherwise (a comment between elements): left as written
                continue
            spelt.update({new: f"{name}[{k}]" for k, new in element.items()})
            edits += [edit for found_edits in assigned for edit in found_edits]
            tuples += [(assignment.lineno, _last_line(assignment)) for assignment in assignments]
            for read, index in reads:
                edits.append((_start(lines, read), _end(lines, read), element[index % arity]))
        if len(edits) > before:
            functions.append((function.lineno, _last_line(function)))
    if not edits:
        return None
    edits.sort()
    text, last = [], 0
    for start, end, new in edits:
        text.append(source[last:start] + new)
        last = end
    text.append(source[last:])
    return Spelling("".join(text), edits, functions, spelt, tuples, source)


def _respellable(function: ast.FunctionDef | ast.AsyncFunctionDef, names: TritonNames) -> dict:
    """name -> (its assignments, its reads with their index, the tuple's length) for the names of `function`
    that hold a tuple of block pointers and are only ever read by a literal index."""
    assigned: dict[str, list[ast.Assign]] = {}  # (each a tuple's)
    reads: dict[str, list[tuple[ast.Subscript, int]]] = {}
    other, holds = set(), set()
    parameters = {a.arg for a in ast_nodes(function.args) if isinstance(a, ast.arg)}
    subscripts = {id(n.value) for n in ast_nodes(function) if isinstance(n, ast.Subscript)}
    for node in ast_nodes(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Tuple) \
                and not any(isinstance(e, ast.Starred) for e in node.value.elts):
            assigned.setdefault(node.targets[0].id, []).append(node)
            if any(_is_site(e, names) for e in node.value.elts):
                holds.add(node.targets[0].id)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and isinstance(node.ctx, ast.Load):
            index = _index(node.slice)
            if index is None:
                other.add(node.value.id)
            else:
                reads.setdefault(node.value.id, []).append((node, index))
        elif isinstance(node, ast.Name) and id(node) not in subscripts and not _is_target_of(node, assigned):
            other.add(node.id)
        elif isinstance(node, ast.Call) and _pointer_use(node, names):
            method = _method_advance(node, names)
            pointer = cast(ast.Attribute, node.func).value if method else node.args[0] if node.args else None
            if isinstance(pointer, ast.Subscript) and isinstance(pointer.value, ast.Name):
                holds.add(pointer.value.id)
    found = {}
    for name, assignments in assigned.items():
        arities = {len(cast(ast.Tuple, a.value).elts) for a in assignments}
        if name in other or name in parameters or name not in holds or len(arities) != 1:
            continue
        arity = arities.pop()
        uses = reads.get(name, [])
        if arity and all(-arity <= index < arity for _, index in uses) and \
                not any(_reads_another_element(a, name, arity) for a in assignments):
            found[name] = (assignments, uses, arity)
    return found


def _reads_another_element(assignment: ast.Assign, name: str, arity: int) -> bool:
    """`ps = (ps[1], ps[0])`: assigned one by one, the second element would read the new first one."""
    return any(isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name
               and (index := _index(node.slice)) is not None and index % arity != k
               for k, element in enumerate(cast(ast.Tuple, assignment.value).elts) for node in ast_nodes(element))


def _is_target_of(node: ast.Name, assigned: dict) -> bool:
    return any(node is a.targets[0] for found in assigned.values() for a in found)


def _index(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and type(node.operand.value) is int:
        return -node.operand.value
    return None


def _is_site(node: ast.expr, names: TritonNames) -> bool:
    return isinstance(node, ast.Call) and (names.ast_member(node.func) in ("make_block_ptr", "advance")
                                           or _method_advance(node, names))


def _method_advance(node: ast.Call, names: TritonNames) -> bool:
    func = node.func
    return isinstance(func, ast.Attribute) and func.attr == "advance" and names.ast_member(func) is None


def _pointer_use(node: ast.Call, names: TritonNames) -> bool:
    return names.ast_member(node.func) in _POINTER_USES or _method_advance(node, names)


_BETWEEN = re.compile(r"\s*,?\s*")


def _assignment_edits(source: str, lines: list[int], node: ast.Assign, element: dict[int, str]) -> list:
    """`ps = (A, B)` → `ps_0 = A; ps_1 = B`, each newline the tuple had kept (a `\\` continuation before it, so
    that A and B stay on their lines); [] where anything but commas and blanks lies between the elements (a
    comment: the engine then migrates the module as written)."""
    target, value = node.targets[0], cast(ast.Tuple, node.value)
    starts = [_start(lines, e) for e in value.elts]
    ends = [_end(lines, e) for e in value.elts]
    opening = source[_end(lines, target):starts[0]]
    if not re.fullmatch(r"\s*=\s*\(?\s*", opening):
        return []
    edits = [(_start(lines, target), starts[0], _kept_lines("", source[_start(lines, target):starts[0]])
              + f"{element[0]} = ")]
    for k in range(1, len(starts)):
        between = source[ends[k - 1]:starts[k]]
        if not _BETWEEN.fullmatch(between) or "," not in between:
            return []
        edits.append((ends[k - 1], starts[k], _kept_lines("; ", between) + f"{element[k]} = "))
    closing = source[ends[-1]:_end(lines, value)]
    if not re.fullmatch(r"\s*,?\s*\)?", closing):
        return []
    kept = _kept_lines(" ", closing.replace(")", "")) if "\n" in closing else ""
    edits.append((ends[-1], _end(lines, value), kept))
    return edits


def _kept_lines(separator: str, replaced: str) -> str:
    """`separator`, then for each newline of `replaced` a continued line, and the indentation after the last."""
    if "\n" not in replaced:
        return separator
    continued = separator.rstrip() + " \\\n" if separator else "\\\n"
    return continued + "\\\n" * (replaced.count("\n") - 1) + replaced.rpartition("\n")[2]


def _fresh(name: str, taken: set[str]) -> str:
    while name in taken:
        name += "_"
    taken.add(name)
    return name


def _line_starts(source: str) -> list[int]:
    starts = [0]
    starts += [m.end() for m in re.finditer("\n", source)]
    return starts


def _at(lines: list[int], line: int, column: int) -> int:
    """The offset of an ast position (1-based line, UTF-8 byte column: ASCII around block pointers)."""
    return lines[line - 1] + column


def _start(lines: list[int], node: ast.expr | ast.stmt) -> int:
    return _at(lines, node.lineno, node.col_offset)


def _end(lines: list[int], node: ast.expr | ast.stmt) -> int:
    return _at(lines, _last_line(node), cast(int, node.end_col_offset))


def _last_line(node: ast.expr | ast.stmt) -> int:
    return cast(int, node.end_lineno)  # ast.parse sets the end of every node


def _offset(text: str, line: int, column: int) -> int:
    start = 0
    for _ in range(line - 1):
        start = text.index("\n", start) + 1
    return start + column
