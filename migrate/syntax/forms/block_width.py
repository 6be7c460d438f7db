"""The compile-time test of block widths (TTD107): `BK * x_ptr.dtype.element_ty.primitive_bitwidth >= 128`, and
the constexpr flag that holds it at the top of the function."""

from __future__ import annotations

import libcst as cst

from .masked_pointers import element_type

_BITS = 128  # a descriptor's block row: 16 bytes
COMMENT = "# a descriptor's block rows hold at least 16 bytes (128 bits)"  # above the test: why 128


def fits(width: cst.BaseExpression, pointer: cst.Name, may_be_none: bool) -> cst.BaseExpression:
    """`BK * x_ptr.dtype.element_ty.primitive_bitwidth >= 128`: constexprs, which Triton folds; `x_ptr is None
    or ...` where the pointer may be None (a creation under `if HAS_BIAS:`, which a launch leaves unreached)."""
    if isinstance(width, cst.BinaryOperation) and not isinstance(width.operator, cst.Multiply):
        width = width.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    bits = cst.Attribute(element_type(pointer), cst.Name("primitive_bitwidth"))
    test = cst.Comparison(cst.BinaryOperation(width, cst.Multiply(), bits),
                          [cst.ComparisonTarget(cst.GreaterThanEqual(), cst.Integer(str(_BITS)))])
    if not may_be_none:
        return test
    absent = cst.Comparison(pointer, [cst.ComparisonTarget(cst.Is(), cst.Name("None"))])
    return cst.BooleanOperation(absent, cst.Or(), test)


def flag(name: str, tests: list[cst.BaseExpression], language: cst.BaseExpression) -> cst.SimpleStatementLine:
    """`FLAG: tl.constexpr = test and ...`, under a comment that says why."""
    if len(tests) > 1:
        tests = [t.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
                 if isinstance(t, cst.BooleanOperation) else t for t in tests]
    value = tests[0]
    for test in tests[1:]:
        value = cst.BooleanOperation(value, cst.And(), test)
    statement = cst.AnnAssign(cst.Name(name), cst.Annotation(cst.Attribute(language, cst.Name("constexpr"))), value)
    comment = cst.EmptyLine(comment=cst.Comment(COMMENT))
    return cst.SimpleStatementLine([statement], leading_lines=[comment])
