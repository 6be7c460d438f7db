"""The advance form (TTD002): a block pointer's position as integers, `tl.advance` as their arithmetic."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from ..nodes import int_value

if TYPE_CHECKING:
    from typing import TypeGuard  # Python 3.10 (annotations are not evaluated: 3.9 runs this)

_ATOMIC = (cst.Name, cst.Integer, cst.Attribute, cst.Call, cst.Subscript, cst.UnaryOperation)
_ADDITIVE = (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Modulo)


def operand(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node`, parenthesised unless `a + node` already parses as intended."""
    if node.lpar or isinstance(node, _ATOMIC):
        return node
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _ADDITIVE):
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def plus(base: cst.BaseExpression, delta: cst.BaseExpression) -> cst.BaseExpression:
    if int_value(delta) == 0:
        return base
    if int_value(base) == 0:
        return delta
    if _negated(delta):  # `off - BLOCK`, not `off + -BLOCK`
        return cst.BinaryOperation(operand(base), cst.Subtract(), operand(delta.expression))
    return cst.BinaryOperation(operand(base), cst.Add(), operand(delta))


def _negated(delta: cst.BaseExpression) -> TypeGuard[cst.UnaryOperation]:
    return isinstance(delta, cst.UnaryOperation) and isinstance(delta.operator, cst.Minus) and not delta.lpar


def increment(var: str, delta: cst.BaseExpression) -> cst.AugAssign:
    """`var += delta` (`var -= d` for a negated delta reads better)."""
    if _negated(delta):
        return cst.AugAssign(cst.Name(var), cst.SubtractAssign(), delta.expression)
    return cst.AugAssign(cst.Name(var), cst.AddAssign(), delta)


def assign(var: str, value: cst.BaseExpression) -> cst.Assign:
    return cst.Assign([cst.AssignTarget(cst.Name(var))], value)
