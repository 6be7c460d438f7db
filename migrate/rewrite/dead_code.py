"""What a migration leaves dead in a function it rewrote, removed as a careful person would before review.

A block pointer's creation may be the only reader of a name (`v_order: tl.constexpr = (0, 1) if ... else
(1, 0)` in Triton's attention tutorial, read only by `order=`); `p = None` on the paths without a block
pointer stays behind once `p` is gone; an `if FLAG:` that only created a block pointer is left holding
`pass`. Each is dead code that the project's own lint reports (ruff F841) and a reviewer would ask about.

Only what the rewrite made dead goes: an assignment to a name that the original function read (or that the
rewrite introduced) and the rewritten one no longer reads, whose value is computed without side effects;
an `if` whose branches the rewrite emptied, whose test has none either (an emptied `else` alone goes too).
Dead code the user wrote stays, and so do comments (handed to the next statement). Only the paths down to
what is removed are rebuilt: the rest keeps its nodes, so the layout (wrap.py) sees it untouched.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from triton_migrate.analysis.invariance import PURE_MEMBERS, is_pure_call
from triton_migrate.syntax.walk import walk

from .blocks import filled, paths_to, removed

# The calls a dead value may make: what a block pointer's parts call (`tl.arange(0, BK)`, `tl.cast(x, tl.int64)`,
# `.to(tl.int64)`), and what the values they read are computed with (`n_rows = tl.num_programs(0)`, a shape
# the masked pointers no longer read), resolved as the hoisting of a descriptor out of a loop resolves the calls
# in its arguments (analysis/invariance.py).
_PARTS = frozenset({"arange", "cast"}) | PURE_MEMBERS


def drop_dead_code(original: cst.FunctionDef, updated: cst.FunctionDef, member_of) -> cst.FunctionDef:
    """`member_of` resolves a call's name to its `triton.language` member (TritonNames.member)."""
    before = None  # the original is scanned only where the rewritten function has a candidate
    while True:  # a removed line may have held the last read of another name
        scan = _Scan.of(updated)
        unread = scan.unread()
        ifs = [node for node in scan.ifs if _has_empty_else(node) or _is_removable(node, member_of)
               and not (id(node) in scan.elifs and _has_comment(node))]  # an `elif`'s comments: nowhere to go
        if not unread and not ifs:
            return updated
        before = before or _Scan.of(original)
        dead, untouched = unread - before.unread(), {id(node) for node in before.ifs}
        lines = [line for line, name, value in scan.assignments if name in dead and is_pure(value, member_of)]
        ifs = [node for node in ifs if id(node) not in untouched]
        if not lines and not ifs:
            return updated
        wanted: set[int] = set()
        paths_to(updated, {*map(id, lines), *map(id, ifs)}, wanted)
        updated = cast(cst.FunctionDef, updated.visit(_DeadCode({*map(id, lines)}, {*map(id, ifs)}, wanted)))


class _Scan(cst.CSTVisitor):
    """Names assigned by a plain `name = value` / `name: T = value`, every other mention of a name (an
    attribute or a keyword too: cheaper, and never wrong, only cautious), the lines that assign one name, and
    the `if`s (and which are an `elif`)."""

    def __init__(self) -> None:
        self.assigned: set[str] = set()
        self.mentioned: set[str] = set()
        self.assignments: list[tuple[cst.SimpleStatementLine, str, cst.BaseExpression]] = []
        self.ifs: list[cst.If] = []
        self.elifs: set[int] = set()

    @classmethod
    def of(cls, function: cst.FunctionDef) -> _Scan:
        scan = cls()
        walk(scan, function.body)
        return scan

    def unread(self) -> set[str]:
        return self.assigned - self.mentioned

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        statement = node.body[0]
        if len(node.body) != 1:
            return
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0].target, statement.value
        elif isinstance(statement, cst.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            return
        if isinstance(target, cst.Name):
            self.assignments.append((node, target.value, value))

    def visit_If(self, node: cst.If) -> None:
        self.ifs.append(node)
        if isinstance(node.orelse, cst.If):
            self.elifs.add(id(node.orelse))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        if isinstance(node.target, cst.Name):
            self.assigned.add(node.target.value)
            return False
        return True

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        if isinstance(node.target, cst.Name) and node.value is not None:
            self.assigned.add(node.target.value)
            walk(self, node.annotation)
            walk(self, node.value)
            return False
        return True

    def visit_Name(self, node: cst.Name) -> None:  # also `.attr` and `keyword=`: a name kept for nothing
        self.mentioned.add(node.value)


class _DeadCode(cst.CSTTransformer):
    def __init__(self, lines: set[int], ifs: set[int], wanted: set[int]) -> None:
        self.lines, self.ifs, self.wanted = lines, ifs, wanted

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.wanted and super().on_visit(node)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        return removed(updated) if id(original) in self.lines else updated

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return filled(updated)

    def leave_If(self, original: cst.If, updated: cst.If):
        if id(original) not in self.ifs:
            return updated
        if _has_empty_else(updated):
            return updated.with_changes(orelse=None)
        # chosen as removable: this pass can only have emptied its body further
        return removed(cst.SimpleStatementLine([cst.Pass()], leading_lines=updated.leading_lines))


def _has_empty_else(node: cst.If) -> bool:
    return isinstance(node.orelse, cst.Else) and _is_empty(node.orelse.body)


def _is_removable(node: cst.If, member_of) -> bool:
    """Nothing left to choose between, and nothing the test does."""
    return node.orelse is None and _is_empty(node.body) and is_pure(node.test, member_of)


def _has_comment(node: cst.If) -> bool:
    return any(line.comment is not None for line in node.leading_lines)


def _is_empty(block: cst.BaseSuite) -> bool:
    """A block of one bare `pass`, with no comment in it."""
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1 or block.header.comment is not None:
        return False
    line = block.body[0]
    return (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Pass)
            and line.trailing_whitespace.comment is None and all(e.comment is None for e in line.leading_lines)
            and all(e.comment is None for e in block.footer))


class _SideEffects(cst.CSTVisitor):
    def __init__(self, member_of, members: frozenset[str]) -> None:
        self.member_of, self.members = member_of, members
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        self.found = self.found or not is_pure_call(node, self.member_of, self.members)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.found = True

    def visit_Yield(self, node: cst.Yield) -> None:
        self.found = True

    def visit_Await(self, node: cst.Await) -> None:
        self.found = True


def is_pure(expression: cst.BaseExpression, member_of, members: frozenset[str] = _PARTS) -> bool:
    """Whether `expression` computes without side effects, calling only `.to(...)` and the `triton.language`
    functions of `members`."""
    visitor = _SideEffects(member_of, members)
    walk(visitor, expression)
    return not visitor.found
