"""A range the rewrite named (`r_t = tl.arange(0, BT)`, offsets.py) because two of its values read it, where
only one still does once the repeated values are gone (repeated.py reads the kernel's `o_t` where the other
one stood: `(i_t * BT + o_t).to(tl.uint64)`): written back into that one, as a name read once is a name to
look up for nothing (offsets.py inlines a value read once in the same way).

Only a line the rewrite wrote, `name = tl.arange(...)` assigned once in the function from names the function
never assigns (its block sizes), read once, on another line the rewrite wrote: there the range is the same
wherever it is computed.
"""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis.facts import AssignmentCollector
from triton_migrate.syntax.nodes import free_names
from triton_migrate.syntax.walk import children, walk

from .blocks import RenameAndDrop, node_ids, paths_to


def inline_lone_ranges(original: cst.FunctionDef, updated: cst.FunctionDef, member_of) -> cst.FunctionDef:
    """`updated` (the rewrite of `original`) with each range named by the rewrite and read once written where
    it is read; `member_of` resolves a call's name to its `triton.language` member (TritonNames.member)."""
    kept = node_ids(original)
    collector = AssignmentCollector()
    walk(collector, updated.body)
    assigned = collector.assignments
    ranges = {}  # name -> (its line, its value)
    for line in _lines(updated):
        found = _range(line, member_of)
        if found is not None and id(line) not in kept and len(assigned.get(found[0], ())) == 1 and \
                not free_names(found[1]) & set(assigned):
            ranges[found[0]] = (line, found[1])
    if not ranges:
        return updated
    reads = _reads(updated, set(ranges))
    lone = {name: reads[name][0] for name in ranges
            if len(reads[name]) == 1 and reads[name][0][1] is not None and id(reads[name][0][1]) not in kept}
    if not lone:
        return updated
    values = {id(node): ranges[name][1] for name, (node, _) in lone.items()}
    wanted: set[int] = set()
    paths_to(updated, set(values), wanted)
    updated = cst.ensure_type(updated.visit(_Inline(values, wanted)), cst.FunctionDef)
    dropped = {id(ranges[name][0]) for name in lone}
    wanted = set()
    paths_to(updated, dropped, wanted)
    return cst.ensure_type(updated.visit(RenameAndDrop({}, dropped, wanted)), cst.FunctionDef)


def _lines(function: cst.FunctionDef) -> list[cst.SimpleStatementLine]:
    found: list[cst.SimpleStatementLine] = []
    pending: list[cst.CSTNode] = [function.body]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.SimpleStatementLine):
            found.append(node)
        else:
            pending.extend(children(node))
    return found


def _range(line: cst.SimpleStatementLine, member_of) -> tuple[str, cst.Call] | None:
    """(name, value) of `name = tl.arange(...)`."""
    if len(line.body) != 1 or not isinstance(line.body[0], cst.Assign) or len(line.body[0].targets) != 1:
        return None
    target, value = line.body[0].targets[0].target, line.body[0].value
    if isinstance(target, cst.Name) and isinstance(value, cst.Call) and member_of(value.func) == "arange":
        return target.value, value
    return None


def _reads(function: cst.FunctionDef, names: set[str]) -> dict[str, list]:
    """name -> (the Name node, the simple line holding it, or None) for each read of one of `names` (the
    targets of assignments, attributes' and keywords' names are not reads)."""
    found: dict[str, list] = {name: [] for name in names}

    class Reads(cst.CSTVisitor):
        line: cst.SimpleStatementLine | None = None

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            self.line = node

        def leave_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
            self.line = None

        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            return not isinstance(node.target, cst.Name)

        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            if node.value in found:
                found[node.value].append((node, self.line))

    function.body.visit(Reads())
    return found


class _Inline(cst.CSTTransformer):
    """The Names of `values` (id -> the value) replaced by their values, on the paths `wanted`."""

    def __init__(self, values: dict[int, cst.Call], wanted: set[int]) -> None:
        self.values, self.wanted = values, wanted

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.wanted and id(node) not in self.values

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        value = self.values.get(id(original))
        if value is None or not isinstance(original, cst.Name):
            return updated
        return value.with_changes(lpar=original.lpar, rpar=original.rpar) if original.lpar else value
