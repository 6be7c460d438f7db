"""Apply the analysis' edits to the tree: expressions in place, statements expanded to lines, descriptor
creations inserted before loops. Untouched code keeps its exact text (libcst is lossless)."""

from __future__ import annotations

from typing import Any, Callable, TypeVar

import libcst as cst
from libcst.helpers import get_full_name_for_node

from triton_migrate.analysis import records
from triton_migrate.syntax.walk import children

from .blocks import filled, lost_comments, paths_to, removed
from .forms import creation, expressions, handle_access, masked_access, signature, statements
from .forms.stand_ins import StandIns

# what builds each record's syntax: in place of an expression (record, stand-ins, the expression as updated)
_EXPRESSIONS: dict[type, Callable[[Any, StandIns, Any], cst.BaseExpression]] = {
    records.HandleAccess: handle_access.build, records.MaskedAccess: masked_access.build,
    records.NamedMaskAccess: masked_access.build_named, records.CompileError: expressions.compile_error,
    records.HelperCallParts: expressions.helper_call, records.BaseTest: expressions.base_test,
    records.ElementType: expressions.element_type}
# ... and as statements, in place of one or before a line or a loop (record, stand-ins)
_STATEMENTS: dict[type, Callable[[Any, StandIns], list]] = {
    records.CreationStatements: creation.build, records.AdvanceMove: statements.advance_move,
    records.CompileError: statements.compile_error, records.NoneAssignments: statements.none_assignments,
    records.ReturnedOffsets: statements.returned_offsets, records.UnpackedOffsets: statements.unpacked_offsets}


class Edits:
    """The edits of every function in a file, minus those of block pointers that were refused: records, by the
    id of the node each replaces or goes before, and what their builders leave to the passes (`stand_ins`)."""

    def __init__(self) -> None:
        self.expressions: dict[int, object] = {}
        self.statements: dict[int, object] = {}
        self.before: dict[int, list] = {}
        self.before_line: dict[int, list] = {}
        self.functions: dict[int, records.Signature] = {}
        self.stand_ins = StandIns()

    def collect(self, function: records.FunctionEdits) -> None:
        """Add one function's edits (FunctionAnalysis.edits)."""
        self.expressions.update(function.expressions)
        self.expressions.update(function.accesses)
        self.statements.update(function.statements)
        for loop, found in function.before_loop.items():
            self.before.setdefault(loop, []).extend(found)
        if function.signature is not None:
            self.functions[function.function] = function.signature
        for line, found in function.before_line.items():
            self.before_line.setdefault(line, []).extend(found)

    def node_ids(self) -> set[int]:
        """The ids of the nodes some edit rewrites."""
        return {*self.expressions, *self.statements, *self.before, *self.before_line, *self.functions}

    def expression(self, original: cst.CSTNode, updated: cst.BaseExpression) -> cst.BaseExpression:
        """What replaces `original` (as `updated`), if an edit replaces it."""
        record = self.expressions.get(id(original))
        return updated if record is None else _EXPRESSIONS[type(record)](record, self.stand_ins, updated)

    def built(self, record) -> list:
        """The statements a record becomes."""
        return _STATEMENTS[type(record)](record, self.stand_ins)

    def function(self, original: cst.FunctionDef, updated: cst.FunctionDef):
        """What `original` (as `updated`) becomes: its new signature, or its removal."""
        record = self.functions.get(id(original))
        return updated if record is None else signature.build(record, self.stand_ins, updated)


class _Expressions(cst.CSTTransformer):
    def __init__(self, edits: Edits, wanted: set[int] | None = None) -> None:
        self.edits = edits
        self.wanted = wanted  # None: enter every node; else skip the expressions not leading to an edit

    def on_visit(self, node: cst.CSTNode) -> bool:
        # Rebuilding an expression that holds no edit changes nothing (most of a statement the rewrite
        # builds); statements are always rebuilt, so wrap.py sees each as new, as it did.
        if self.wanted is not None and id(node) not in self.wanted and isinstance(node, cst.BaseExpression):
            return False
        return super().on_visit(node)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self.edits.expression(original, updated)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return self.edits.expression(original, updated)

    def leave_Comparison(self, original: cst.Comparison, updated: cst.Comparison) -> cst.BaseExpression:
        return self.edits.expression(original, updated)  # `p is None` on a parameter's block pointer asks its base

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        return _whole_value(original, updated)

    def leave_AnnAssign(self, original: cst.AnnAssign, updated: cst.AnnAssign) -> cst.AnnAssign:
        return _whole_value(original, updated)

    def leave_AugAssign(self, original: cst.AugAssign, updated: cst.AugAssign) -> cst.AugAssign:
        return _whole_value(original, updated)

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr) -> cst.Expr:
        return _whole_value(original, updated)

    def leave_Return(self, original: cst.Return, updated: cst.Return) -> cst.Return:
        return _whole_value(original, updated)


_Valued = TypeVar("_Valued", cst.Assign, cst.AnnAssign, cst.AugAssign, cst.Expr, cst.Return)
_Loop = TypeVar("_Loop", cst.For, cst.While)
_Lines = cst.FlattenSentinel[cst.BaseStatement]  # a statement's lines, where the rewrite puts some before it


def _whole_value(original: _Valued, updated: _Valued) -> _Valued:
    """A rewritten call that became a grouped conditional (TTD009) needs no parentheses as the whole value
    of an assignment, an expression statement or a return."""
    value = updated.value
    if isinstance(value, cst.IfExp) and value.lpar and not isinstance(original.value, cst.IfExp):
        return updated.with_changes(value=value.with_changes(lpar=[], rpar=[]))
    return updated


class Rewriter(_Expressions):
    def __init__(self, edits: Edits, finish_function: Callable) -> None:
        super().__init__(edits)
        # (original, updated) -> updated: the function passes, run on each function as it is left (passes.py)
        self.finish_function = finish_function

    def on_visit(self, node: cst.CSTNode) -> bool:
        # libcst rebuilds every node a transformer enters: only the paths down to edited nodes are entered
        # (most of the cost of a write was rebuilding code that does not change).
        if isinstance(node, cst.Module):
            self._wanted: set[int] = set()
            paths_to(node, self.edits.node_ids(), self._wanted)
        return id(node) in self._wanted and super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        # A node off the paths to the edits (a child of one on them) is as it was: no leave_ method changes it,
        # and the function passes (leave_FunctionDef) would walk each function the rewrite left alone.
        if id(original_node) not in self._wanted:
            return updated_node
        return super().on_leave(original_node, updated_node)

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        prefix = [s for record in self.edits.before_line.get(id(original), [])
                  for s in self._edited(self.edits.built(record))]
        smalls: list[cst.BaseSmallStatement | cst.BaseCompoundStatement] = []
        for before, after in zip(original.body, updated.body):
            record = self.edits.statements.get(id(before))
            smalls.extend(self._edited(self.edits.built(record)) if record is not None else [after])
        lost = lost_comments(list(original.body), prefix + smalls)
        if not prefix and not lost and not any(id(small) in self.edits.statements for small in original.body):
            return updated
        return _lines(updated, prefix, smalls, lost)

    def _edited(self, statements: list) -> list:
        found = []
        for statement in statements:
            wanted: set[int] = set()
            paths_to(statement, self.edits.expressions.keys(), wanted)
            found.append(statement.visit(_Expressions(self.edits, wanted)))
        return found

    def _insert_before(self, original: cst.CSTNode, updated: _Loop) -> _Loop | _Lines:
        found = self.edits.before.get(id(original))
        if not found:
            return updated
        smalls = [s for record in found for s in self._edited(self.edits.built(record))]
        lines: list[cst.BaseStatement] = [_line(s) for s in smalls]
        lines[0] = lines[0].with_changes(leading_lines=updated.leading_lines)
        return cst.FlattenSentinel([*lines, updated.with_changes(leading_lines=())])

    def leave_For(self, original: cst.For, updated: cst.For) -> cst.For | _Lines:
        return self._insert_before(original, updated)

    def leave_While(self, original: cst.While, updated: cst.While) -> cst.While | _Lines:
        return self._insert_before(original, updated)

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        updated = self.edits.function(original, updated)
        if not isinstance(updated, cst.FunctionDef):
            return updated
        return self.finish_function(original, updated)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        return filled(updated)


def _lines(original: cst.SimpleStatementLine, prefix: list, smalls: list, lost: list[str]):
    """One line per statement; the original's leading comments stay on the first line, and the comment that
    ended its line on the line of the first statement in its place (after the temporaries `prefix` puts
    before it: a creation's descriptor, not the offsets after it). The `lost` ones, from inside a statement
    the rewrite rebuilt (`q = tl.load(  # noqa: F821`), end that line too, before its own comment."""
    if not smalls:
        held = [*original.leading_lines, *(cst.EmptyLine(comment=cst.Comment(c)) for c in lost)]
        return removed(original.with_changes(leading_lines=held))
    trailing = original.trailing_whitespace
    if lost:
        text = "  ".join([*lost, *([trailing.comment.value] if trailing.comment else [])])
        trailing = trailing.with_changes(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(text))
    lines = [_line(s) for s in prefix + smalls]
    lines[0] = lines[0].with_changes(leading_lines=original.leading_lines)
    lines[len(prefix)] = _ending(lines[len(prefix)], trailing)
    return cst.FlattenSentinel(lines)


def _ending(line: cst.BaseStatement, trailing: cst.TrailingWhitespace) -> cst.BaseStatement:
    """`line` ending with `trailing` (a comment, and the newline); a guard's `if` ends its last line so."""
    if isinstance(line, cst.SimpleStatementLine):
        return line.with_changes(trailing_whitespace=trailing)
    block = line.body if isinstance(line, cst.BaseCompoundStatement) else None
    if trailing.comment is None or not isinstance(block, cst.IndentedBlock):
        return line
    body = list(block.body)
    body[-1] = _ending(body[-1], trailing)
    return line.with_changes(body=block.with_changes(body=body))


def _line(statement) -> cst.BaseStatement:
    """A small statement on a line of its own; a compound one (a guard's `if`, TTD009) as it is."""
    if isinstance(statement, cst.BaseCompoundStatement):
        return statement
    return cst.SimpleStatementLine([statement.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)])


def uses_name(module: cst.Module, name: str) -> bool:
    """Whether a Name in the tree spells `name`; it stops at the first (a visitor would meet every node)."""
    pending: list = [module]
    while pending:
        node = pending.pop()
        if type(node) is cst.Name:
            if node.value == name:
                return True
        else:
            pending.extend(children(node))
    return False


def add_import(module: cst.Module, dotted: str, alias: str) -> cst.Module:
    """Add `import <dotted> as <alias>` after the last import of the module's head (`_head`)."""
    return _insert_import(module, cst.parse_statement(f"import {dotted}\n" if dotted == alias else
                                                      f"import {dotted} as {alias}\n"))


def _insert_import(module: cst.Module, statement: cst.BaseStatement) -> cst.Module:
    """`statement` after the last import of the module's head (`_head`), else just before its first function
    or class."""
    body: list[cst.BaseStatement] = list(module.body)
    head = _head(body)
    imports = [i for i in range(head) if _import_of(body[i]) is not None]
    position = imports[-1] + 1 if imports else (head if head < len(body) else 0)
    body.insert(position, statement)
    return module.with_changes(body=body)


def _head(body: list) -> int:
    """How many top-level statements come before the module's first function or class. An added import goes
    there: a decorator that it binds runs when the module is imported, so an import further down (test code
    pasted below the kernels, its own `import torch` on top) binds the name too late."""
    return next((i for i, s in enumerate(body) if isinstance(s, (cst.FunctionDef, cst.ClassDef))), len(body))


def add_from_import(module: cst.Module, dotted: str, names: list[tuple[str, str]],
                    fallback: str | None = None) -> cst.Module:
    """Add `from <dotted> import name [as alias], ...` (`names`: (name, alias), sorted) where isort (ruff's
    `I` rules) puts it: among the imports of its section (those of the same top-level package, or the
    relative ones) in the module's head (`_head`), in their order; else after the head's last import, a blank
    line between.
    With `fallback`, a relative `dotted` is tried first and `from <fallback> import ...` where the module
    is not imported as part of a package (a `try` that isort leaves alone, after the imports)."""
    spelled = ", ".join(name if name == alias else f"{name} as {alias}" for name, alias in sorted(names))
    if fallback is not None:
        guarded = cst.parse_statement(
            f"try:\n    from {dotted} import {spelled}\nexcept ImportError:  # not imported as part of a package\n"
            f"    from {fallback} import {spelled}\n")
        return _insert_import(module, guarded.with_changes(leading_lines=[cst.EmptyLine()]))
    statement = cst.parse_statement(f"from {dotted} import {spelled}\n")
    new = cst.ensure_type(_import_of(statement), cst.ImportFrom)
    body = list(module.body)
    section = [i for i in range(_head(body)) if _same_section(_import_of(body[i]), new)]
    if not section:  # a section of its own, after the others (first-party or local imports)
        return _insert_import(module, statement.with_changes(leading_lines=[cst.EmptyLine()]))
    froms = [isinstance(_import_of(body[i]), cst.ImportFrom) for i in section]
    by_module = True in froms and not all(froms[froms.index(True):])
    key = _sort_key(new, by_module)
    following = next((i for i in section if _sort_key(_import_of(body[i]), by_module) > key), None)
    if following is None:
        body.insert(section[-1] + 1, statement)
    else:  # it takes the blank lines and comments above the import it goes before
        held = body[following].leading_lines
        body[following] = body[following].with_changes(leading_lines=[])
        body.insert(following, statement.with_changes(leading_lines=held))
    return module.with_changes(body=body)


def _import_of(statement) -> cst.Import | cst.ImportFrom | None:
    """The import a top-level line holds alone."""
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and \
            isinstance(statement.body[0], (cst.Import, cst.ImportFrom)):
        return statement.body[0]
    return None


def _dotted(node: cst.Import | cst.ImportFrom) -> str:
    if isinstance(node, cst.Import):
        return get_full_name_for_node(node.names[0].name) or ""
    return (get_full_name_for_node(node.module) or "") if node.module is not None else ""


def _same_section(node, new: cst.ImportFrom) -> bool:
    """Whether isort puts `node` in the section of `new`: both relative, or both of one top-level package."""
    if node is None:
        return False
    relative = isinstance(node, cst.ImportFrom) and bool(node.relative)
    if new.relative:
        return relative
    return not relative and _dotted(node).split(".")[0] == _dotted(new).split(".")[0]


def _sort_key(node, by_module: bool) -> tuple:
    """isort's order in a section (ruff's defaults): `import x` before `from x import` unless the section
    sorts by module alone (force-sort-within-sections, seen where an `import` follows a `from`); relative
    imports furthest first; modules compared without case."""
    kind = 0 if isinstance(node, cst.Import) else 1
    level = -len(node.relative) if isinstance(node, cst.ImportFrom) else 0
    name = _dotted(node).lower()
    return (0 if by_module else kind, level, name)
