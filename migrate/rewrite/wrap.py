"""Lay out what the rewrite emits within the project's line length, the way black would.

A masked-pointer address, a guarded load or a descriptor's creation is built on one line; two blocks deep in
a kernel it easily runs past the 88 or 127 columns its project allows (on flash-linear-attention, ~1,900
added lines past its 127). Each statement the rewrite created or changed (and each decorator it added) that
has a line over the limit is laid out again with black's rules (linebreaks.py). This module finds those
statements: untouched statements keep their exact text, and so does a statement with a comment inside it or
a string that spans lines (where black would need its comment handling, it is left as it is).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

import libcst as cst

from triton_migrate.syntax.walk import children

from .linebreaks import layout

# Comments that tools read as applying to their line (ruff's pragma comments, which its line length ignores).
_PRAGMA = re.compile(r"#\s*(noqa\b|type:\s*ignore|pyright:|pylint:|mypy:|nosec\b|ruff:|isort:|fmt:)")


def fit(module: cst.Module, original: cst.Module, width: int) -> cst.Module:
    """`module` (the rewrite of `original`) with every statement the rewrite created or changed laid out
    within `width` columns, where black could; everything else as it was."""
    kept: set[int] = set()
    _collect(original, kept)
    return module.visit(_Fitter(module, kept, width))


_CONTAINERS = (cst.BaseSuite, cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
               cst.Finally, cst.MatchCase)


def _collect(node: cst.CSTNode, ids: set[int]) -> None:
    """The ids of `node`'s statements, their small statements and the decorators, at every depth (libcst's
    nodes are immutable: a node the rewrite did not touch is the same object in its output)."""
    for child in children(node):
        if isinstance(child, (cst.BaseStatement, cst.BaseSmallStatement, cst.Decorator, cst.Parameters)):
            ids.add(id(child))
        if isinstance(child, cst.SimpleStatementLine):
            ids.update(id(small) for small in child.body)
        elif isinstance(child, _CONTAINERS) or isinstance(child, cst.Decorator):
            _collect(child, ids)


@dataclass(frozen=True)
class _LaidOut(cst.BaseSmallStatement):
    """A statement as `layout` laid it out, or one line as it was generated to be measured, printed as that
    text. Parsed back into nodes (or generated again) it printed the same text, which cost a tenth of a write:
    its lines break only inside brackets, where libcst prints each line that runs on after the module's
    newline and the block's indentation, as this does. The fixed-point check parses the output again."""

    code: str

    def _visit_and_replace_children(self, visitor: cst.CSTVisitor | cst.CSTTransformer) -> _LaidOut:
        return self

    def _codegen_impl(self, state, default_semicolon: bool = False) -> None:
        first, *rest = self.code.split("\n")
        state.add_token(first)
        for line in rest:
            state.add_token(state.default_newline)
            state.add_indent_tokens()
            state.add_token(line)


class _Fitter(cst.CSTTransformer):
    """Enters only statements the rewrite changed, and no expression: the cost follows the changes."""

    def __init__(self, module: cst.Module, kept: set[int], width: int) -> None:
        self.module = module
        self.kept = kept
        self.width = width
        self.indents = [""]

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self.kept or not isinstance(node, (cst.Module, *_CONTAINERS)):
            return False
        if isinstance(node, cst.IndentedBlock):
            self.indents.append(self.indents[-1] + (self.module.default_indent if node.indent is None else node.indent))
        return super().on_visit(node)

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        if id(original) not in self.kept:
            self.indents.pop()
        return updated

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if len(updated.body) != 1 or all(id(small) in self.kept for small in updated.body):
            return updated
        comment = updated.trailing_whitespace.comment
        pragma = comment is not None and _PRAGMA.match(comment.value) is not None
        extra = len(updated.trailing_whitespace.whitespace.value) + len(comment.value) if comment else 0
        text = self.module.code_for_node(updated.body[0])
        code = self._laid_out(text, 0 if pragma else extra)
        if code is None and ("\n" in text or "\r" in text):
            return updated  # lines the layout did not make (a string over lines): printed from its nodes
        if pragma and comment is not None and code is not None and "\n" in code:
            # a pragma (noqa, type: ignore) silences its own line: the first, where the statement (and the name
            # it silences) starts, as in the source; black would move it after the closing bracket
            first, rest = code.split("\n", 1)
            code = f"{first}{updated.trailing_whitespace.whitespace.value}{comment.value}\n{rest}"
            return updated.with_changes(body=(_LaidOut(code),), trailing_whitespace=updated.trailing_whitespace
                                        .with_changes(whitespace=cst.SimpleWhitespace(""), comment=None))
        return updated.with_changes(body=(_LaidOut(text if code is None else code),))

    def leave_Decorator(self, original: cst.Decorator, updated: cst.Decorator) -> cst.Decorator:
        if id(original) in self.kept:
            return updated
        code = self._laid_out("@" + self.module.code_for_node(updated.decorator), 0)
        if code is None:
            return updated
        return updated.with_changes(decorator=cst.parse_expression(code[1:], self.module.config_for_parsing))

    def leave_FunctionDef(self, original: cst.FunctionDef, updated: cst.FunctionDef) -> cst.FunctionDef:
        """A signature that gained parameters (a helper's block-pointer parts, the launch flag)."""
        if id(original.params) in self.kept:
            return updated
        header = updated.with_changes(body=cst.SimpleStatementSuite([cst.Pass()]), decorators=[], leading_lines=[])
        code = self._laid_out(self.module.code_for_node(header).rstrip()[:-len("pass")].rstrip(), 0)
        if code is None:
            return updated
        laid = cast(cst.FunctionDef, cst.parse_statement(code + " pass" + self.module.default_newline,
                                                         self.module.config_for_parsing))  # the header parsed back
        return updated.with_changes(whitespace_before_params=laid.whitespace_before_params, params=laid.params,
                                    returns=laid.returns, whitespace_before_colon=laid.whitespace_before_colon)

    def _laid_out(self, code: str, extra: int) -> str | None:
        """The code laid out from the current block's indentation, or None where it stays as it is."""
        indent = len(self.indents[-1].expandtabs(4))
        lines = code.splitlines()
        if all(indent + len(line) <= self.width for line in lines) and indent + len(lines[-1]) + extra <= self.width:
            return None
        return layout(code, indent, self.width, self.module.default_indent, extra)

