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

import libcst as cst

from .blocks import filled, paths_to, removed
from .walk import walk

# Calls in a dead value that cannot have side effects (a block pointer's parts: `tl.arange(0, BK)`).
_PURE_CALLS = frozenset({"arange", "cast", "to"})


def drop_dead_code(original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
    unread_before = _unread_assigned(original)
    untouched = {id(node) for node in _Ifs.of(original)}
    while True:  # a removed line may have held the last read of another name
        targets = _Targets.of(updated, _unread_assigned(updated) - unread_before, untouched)
        if not targets.lines and not targets.ifs:
            return updated
        wanted: set[int] = set()
        paths_to(updated, {*map(id, targets.lines), *map(id, targets.ifs)}, wanted)
        updated = updated.visit(_DeadCode(targets, wanted))


class _Names(cst.CSTVisitor):
    """Names assigned by a plain `name = value` / `name: T = value`, and every other mention of a name."""

    def __init__(self) -> None:
        self.assigned: set[str] = set()
        self.mentioned: set[str] = set()

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

    def visit_Attribute(self, node: cst.Attribute) -> bool:  # `.attr` names no variable
        walk(self, node.value)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:  # nor does a keyword
        walk(self, node.value)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.mentioned.add(node.value)


def _unread_assigned(function: cst.FunctionDef) -> set[str]:
    names = _Names()
    walk(names, function.body)
    return names.assigned - names.mentioned


class _Ifs(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.If] = []

    @classmethod
    def of(cls, function: cst.FunctionDef) -> list[cst.If]:
        ifs = cls()
        walk(ifs, function.body)
        return ifs.found

    def visit_If(self, node: cst.If) -> None:
        self.found.append(node)


class _Targets(cst.CSTVisitor):
    """The lines that assign a `dead` name a pure value; the `if`s other than the `untouched` ones (the
    user's, as written) that lose an empty `else` or go altogether."""

    def __init__(self, dead: frozenset[str], untouched: set[int]) -> None:
        self.dead, self.untouched = dead, untouched
        self.lines: list[cst.SimpleStatementLine] = []
        self.ifs: list[cst.If] = []

    @classmethod
    def of(cls, function: cst.FunctionDef, dead, untouched) -> _Targets:
        targets = cls(frozenset(dead), untouched)
        walk(targets, function.body)
        return targets

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        if len(node.body) == 1 and _assigns_pure(node.body[0], self.dead):
            self.lines.append(node)
        return False

    def visit_If(self, node: cst.If) -> None:
        if id(node) not in self.untouched and (_has_empty_else(node) or _is_removable(node)):
            self.ifs.append(node)


class _DeadCode(cst.CSTTransformer):
    def __init__(self, targets: _Targets, wanted: set[int]) -> None:
        self.lines = {id(line) for line in targets.lines}
        self.ifs = {id(node) for node in targets.ifs}
        self.wanted = wanted

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
        if not _is_removable(updated):
            return updated
        return removed(cst.SimpleStatementLine([cst.Pass()], leading_lines=updated.leading_lines))


def _has_empty_else(node: cst.If) -> bool:
    return isinstance(node.orelse, cst.Else) and _is_empty(node.orelse.body)


def _is_removable(node: cst.If) -> bool:
    """Nothing left to choose between, and nothing the test does."""
    return node.orelse is None and _is_empty(node.body) and _is_pure(node.test)


def _assigns_pure(statement: cst.BaseSmallStatement, names: frozenset[str]) -> bool:
    if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
        target, value = statement.targets[0].target, statement.value
    elif isinstance(statement, cst.AnnAssign) and statement.value is not None:
        target, value = statement.target, statement.value
    else:
        return False
    return isinstance(target, cst.Name) and target.value in names and _is_pure(value)


def _is_empty(block: cst.BaseSuite) -> bool:
    """A block of one bare `pass`, with no comment in it."""
    if not isinstance(block, cst.IndentedBlock) or len(block.body) != 1 or block.header.comment is not None:
        return False
    line = block.body[0]
    return (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Pass)
            and line.trailing_whitespace.comment is None and all(e.comment is None for e in line.leading_lines)
            and all(e.comment is None for e in block.footer))


class _SideEffects(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        pure = isinstance(node.func, cst.Attribute) and node.func.attr.value in _PURE_CALLS
        self.found = self.found or not pure

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self.found = True

    def visit_Yield(self, node: cst.Yield) -> None:
        self.found = True

    def visit_Await(self, node: cst.Await) -> None:
        self.found = True


def _is_pure(expression: cst.BaseExpression) -> bool:
    visitor = _SideEffects()
    walk(visitor, expression)
    return not visitor.found
