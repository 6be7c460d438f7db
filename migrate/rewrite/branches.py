"""A guarded access (TTD009) that does not fit on one line becomes an `if`/`else` statement, as a person
writes it: the descriptor's access under `if USE_DESCRIPTORS:`, the masked pointers' under `else:`.

The rewrite builds a guarded access as a conditional expression, `x = p_desc.load([...]) if USE_DESCRIPTORS
else tl.load(p, mask=...)`, which may sit anywhere in an expression. Where it is a statement's whole value and
the statement runs past the line length, black would wrap it in parentheses over five lines; an `if`/`else`
takes four and reads as the hand-written kernel plus a branch. Consecutive such statements share one `if`
(a GEMM's two loads), unless a comment stands between them: it would land in one branch only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import libcst as cst

from triton_migrate.syntax.walk import walk

from .blocks import paths_to

if TYPE_CHECKING:
    from typing import TypeGuard  # Python 3.10 (annotations are not evaluated: 3.9 runs this)

_code = cst.Module([]).code_for_node


def split(module: cst.Module, flag: str, width: int) -> cst.Module:
    """`module` with every guarded statement on `flag` that is wider than `width` columns split. Only the
    paths down to those are rebuilt: every other statement keeps its nodes, so that the layout (wrap.py)
    sees it untouched."""
    guarded: set[int] = set()
    walk(_Guarded(flag, guarded), module)
    wanted: set[int] = set()
    if not paths_to(module, guarded, wanted):
        return module
    return module.visit(_Splitter(flag, width, module.default_indent, wanted))


class _Guarded(cst.CSTVisitor):
    """The lines whose one statement's whole value is a guarded access."""

    def __init__(self, flag: str, found: set[int]) -> None:
        self.flag = flag
        self.found = found

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        if len(node.body) == 1 and _is_guard(getattr(node.body[0], "value", None), self.flag):
            self.found.add(id(node))
        return False


class _Splitter(cst.CSTTransformer):
    def __init__(self, flag: str, width: int, indent: str, wanted: set[int]) -> None:
        self.flag = flag
        self.width = width
        self.indent = indent
        self.wanted = wanted
        self.depth = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.wanted and super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        if id(original_node) not in self.wanted:
            return updated_node
        return super().on_leave(original_node, updated_node)

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> bool:
        self.depth += 1
        return True

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        self.depth -= 1
        body, changed = [], False
        for statement in updated.body:
            branches = self._branches(statement)
            if branches is None:
                body.append(statement)
                continue
            changed = True
            line = cast(cst.SimpleStatementLine, statement)  # (only a simple line has branches)
            previous = body[-1] if body else None
            if _joins(previous, self.flag) and not line.leading_lines:
                body[-1] = _extended(previous, line, branches)
            else:
                body.append(_branched(line, self.flag, branches))
        return updated.with_changes(body=body) if changed else updated

    def _branches(self, line: cst.CSTNode):
        """(descriptor statement, masked-pointer statement) for a guarded line too wide to stay one, else None."""
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        statement = line.body[0]
        value = getattr(statement, "value", None)
        if not isinstance(statement, (cst.Assign, cst.AugAssign, cst.Expr)) or not _is_guard(value, self.flag):
            return None
        columns = len(self.indent) * (self.depth + 1) + len(_code(statement))
        if columns <= self.width:
            return None
        return tuple(statement.with_changes(value=branch.with_changes(lpar=[], rpar=[]) if branch.lpar else branch)
                     for branch in (value.body, value.orelse))


def _is_guard(value, flag: str) -> TypeGuard[cst.IfExp]:
    return isinstance(value, cst.IfExp) and isinstance(value.test, cst.Name) and value.test.value == flag


def _branched(line: cst.SimpleStatementLine, flag: str, branches: tuple) -> cst.If:
    descriptor, pointers = branches
    body = cst.IndentedBlock([line.with_changes(body=[descriptor], leading_lines=[])])
    orelse = cst.Else(cst.IndentedBlock([cst.SimpleStatementLine([pointers])]))
    return cst.If(cst.Name(flag), body, orelse=orelse, leading_lines=line.leading_lines)


def _joins(previous, flag: str) -> TypeGuard[cst.If]:
    """Whether `previous` is an `if FLAG: ... else: ...` this pass made (the guard's, with an else)."""
    return isinstance(previous, cst.If) and isinstance(previous.test, cst.Name) and previous.test.value == flag \
        and isinstance(previous.orelse, cst.Else)


def _extended(branch: cst.If, line: cst.SimpleStatementLine, branches: tuple) -> cst.If:
    descriptor, pointers = line.with_changes(body=[branches[0]]), cst.SimpleStatementLine([branches[1]])
    body = branch.body.with_changes(body=[*branch.body.body, descriptor])
    otherwise = cast(cst.Else, branch.orelse)  # (_joins saw it)
    orelse = otherwise.body.with_changes(body=[*otherwise.body.body, pointers])
    return branch.with_changes(body=body, orelse=otherwise.with_changes(body=orelse))
