"""One comment where a kernel's masks first clamp an extent (`tl.maximum(T, 0)`) or test a coordinate
unsigned (`.to(tl.uint64) < ...`): a reader who did not write them asks why, and a block pointer's
`boundary_check` said nothing of it (masked_pointers.Bound.value has the reasons). Once a function, above
the first statement (in source order) of the rewrite's that holds such a bound.
"""

from __future__ import annotations

import re
import textwrap

import libcst as cst

from triton_migrate.syntax.nodes import canonical_code, int_value
from triton_migrate.syntax.walk import children

from .blocks import node_ids, paths_to


def explain_bounds(original: cst.FunctionDef, updated: cst.FunctionDef, line_length: int,
                   indent: str) -> cst.FunctionDef:
    """`updated` (the rewrite of `original`) with the comment above its first clamped or unsigned bound,
    in lines of at most `line_length` columns where it can be cut (`indent`: one level's)."""
    found = _first(updated, node_ids(original))
    if found is None:
        return updated
    statement, depth, comment = found
    room = line_length - len(indent.expandtabs()) * depth
    one = f"# {'; '.join(comment)}"
    lines = [one] if len(one) <= room else [
        f"{'#   ' if index else '# '}{line}" for phrase in comment
        for index, line in enumerate(textwrap.wrap(phrase, max(room - 4, 20)))]
    wanted: set[int] = set()
    paths_to(updated, {id(statement)}, wanted)
    return cst.ensure_type(updated.visit(_Comment(statement, lines, wanted)), cst.FunctionDef)


def _first(function: cst.FunctionDef, authored: set[int]) -> tuple[cst.BaseStatement, int, list[str]] | None:
    """The first statement the rewrite wrote or changed that holds a bound, how deep it is indented, and
    the comment it gets."""
    pending: list[tuple[cst.CSTNode, int]] = [(function.body, 0)]
    while pending:
        node, depth = pending.pop()
        if isinstance(node, cst.SimpleStatementLine) and id(node) not in authored:
            comment = _comment(node)
            if comment is not None:
                return node, depth, comment
            continue
        depth += isinstance(node, cst.IndentedBlock)
        pending.extend((child, depth) for child in reversed(children(node)))
    return None


def _comment(line: cst.SimpleStatementLine) -> list[str] | None:
    """The comment for the bounds of `line`, phrase by phrase: its first clamp, and what an unsigned test
    does where it has one."""
    clamps, unsigned = [], False
    pending: list[cst.CSTNode] = [line]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
            unsigned = unsigned or _is_unsigned(node.left)
            clamps += _clamps(node.comparisons[0].comparator)
        pending.extend(reversed(children(node)))
    if not clamps:
        return None
    clamp = canonical_code(clamps[0])
    shape = canonical_code(clamps[0].args[0].value)
    clamped = f"{clamp}: {CLAMPED} {shape} < 0, as with block pointers"
    return [clamped, UNSIGNED] if unsigned else [clamped]


CLAMPED = "none in bounds where"
UNSIGNED = "unsigned, a coordinate below 0 is out of bounds too"


def is_written_here(comment: str) -> bool:
    """Whether a comment line is (a line of) the one this pass writes."""
    return comment.startswith(("#   ", f"# {UNSIGNED}")) or \
        re.match(rf"# \S+\.maximum\(.*\): {CLAMPED} ", comment) is not None


def _is_unsigned(node: cst.BaseExpression) -> bool:
    """`(...).to(tl.uint64)`."""
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "to" \
        and len(node.args) == 1 and isinstance(node.args[0].value, cst.Attribute) and \
        node.args[0].value.attr.value == "uint64"


def _clamps(node: cst.BaseExpression) -> list[cst.Call]:
    """`tl.maximum(shape, 0)`, alone or less an offset: what a bound compares a coordinate with."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Subtract):
        node = node.left
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "maximum" \
            and len(node.args) == 2 and int_value(node.args[1].value) == 0:
        return [node]
    return []


class _Comment(cst.CSTTransformer):
    def __init__(self, statement: cst.BaseStatement, lines: list[str], wanted: set[int]) -> None:
        self.statement, self.lines, self.wanted = statement, lines, wanted

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.wanted and node is not self.statement

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        if original is self.statement and isinstance(updated, cst.SimpleStatementLine):
            comments = [cst.EmptyLine(comment=cst.Comment(line)) for line in self.lines]
            return updated.with_changes(leading_lines=[*updated.leading_lines, *comments])
        return updated
