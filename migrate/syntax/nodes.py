"""Reading expressions: the literal an expression is, its code, the names it reads. Small functions over libcst
nodes, below the analysis, the rewrite and the output forms that all ask them."""

from __future__ import annotations

import ast
import functools
from collections.abc import Sequence
from typing import cast

import libcst as cst

from .walk import walk


def tuple_elements(node: cst.BaseExpression) -> list[cst.BaseExpression] | None:
    """The elements of a literal tuple or list (`(M, N)`, `[M, N]`), or None if it is anything else."""
    if isinstance(node, (cst.Tuple, cst.List)) and all(isinstance(e, cst.Element) for e in node.elements):
        return [e.value for e in node.elements]
    return None


def int_value(node: cst.BaseExpression) -> int | None:
    # type(), not isinstance (an ABC's, a Python call): asked of most expressions the analysis meets
    if type(node) is cst.Integer:
        return int(node.value, 0)
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        inner = int_value(node.expression)
        return None if inner is None else -inner
    return None


_generate = cst.Module([]).code_for_node


def leading_lines(statement: cst.BaseStatement) -> Sequence[cst.EmptyLine]:
    """The lines above a statement of a block (its comments, blank lines): every kind of statement has them,
    which libcst's base class does not declare."""
    return cast("cst.SimpleStatementLine | cst.BaseCompoundStatement", statement).leading_lines


@functools.cache
def parsed(code: str) -> cst.BaseExpression:
    """An expression parsed once per spelling (`tl`, `1`, `BLOCK_K`): nodes are immutable, so one can
    stand in any number of places."""
    return cst.parse_expression(code)


def code_of(node: cst.CSTNode) -> str:
    """The node's source text, the spelling a rewrite copies. A bare name or integer (most calls) is its
    own text: libcst's code generation costs some 50 times more."""
    if (type(node) is cst.Name or type(node) is cst.Integer) and not node.lpar:
        return node.value
    return _generate(node)


def canonical_code(node: cst.CSTNode) -> str:
    """What the node's code says, whatever its spacing and parentheses (`(a+b)` reads as `a + b`). Code
    is compared and quoted in messages in this form: a tree rebuilt from the stdlib ast (ast_tree.py) has
    neither the source's spacing nor its parentheses, and must read the same."""
    if type(node) is cst.Name:
        return node.value
    return _canonical(code_of(node))


@functools.lru_cache(maxsize=4096)
def _canonical(text: str) -> str:
    try:
        return ast.unparse(ast.parse(f"(\n{text}\n)", mode="eval"))
    except SyntaxError:  # not an expression on its own (a starred element, a slice)
        return " ".join(text.split())


class NameFinder(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()
        self.attrs: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.attrs.add(node.attr.value)
        walk(self, node.value)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        walk(self, node.value)  # skip keyword names
        return False


def free_names(expr: cst.CSTNode) -> frozenset[str]:
    finder = NameFinder()
    walk(finder, expr)
    return frozenset(finder.names)
