"""TTD107 narrow-block: innermost block dimension may hold fewer than 16 bytes.

Why: a descriptor's innermost block dimension must hold at least 16 bytes; `(BM, 1)`, `(BM, 8)`
with fp8/int8 or `(4,)` fp16 are rejected at trace time. Widening the block changes which elements are
masked and touched, so it is not a mechanical rewrite. Literal sizes under 16 elements are refused because
the element type is not visible in the source.

A width the launch chooses (`BK: tl.constexpr`) is known when Triton compiles the kernel, and so is the
element type: where a descriptor is plain (its other needs proven or stated, TTD010, or `--target descriptor`)
the function tests it at compile time, once at its top, and every access keeps both forms, laid out as the
launch guard's (TTD009) but with no check at launch and no parameter:

```python
def kernel(x_ptr, ..., BK: tl.constexpr):
    # a descriptor's block rows hold at least 16 bytes (128 bits)
    USE_DESCRIPTORS: tl.constexpr = BK * x_ptr.dtype.element_ty.primitive_bitwidth >= 128
    if USE_DESCRIPTORS:
        x_desc = tl.make_tensor_descriptor(x_ptr, [M, K], [stride_m, 1], [BM, BK])
    b = x_desc.load([i * BM, 0]) if USE_DESCRIPTORS else tl.load(x_ptrs, mask=x_mask, other=0.0)
```

Triton folds the test and compiles one form per width and type; a launch pays nothing. No stated fact
vouches for a width. Where a width cannot be tested at the function's top (computed in it), the accesses
use masked pointers (`--target descriptor`, which never falls back, leaves them untouched). The launch guard (TTD009) checks widths at launch with the rest (`descriptor_fits`).

Fixtures: rank1 (wide), small_last_block_refused (a literal 2), stated_facts_narrow_block (a constexpr width
under stated facts), narrow block cases in the property test.
"""

import libcst as cst

from .ttd006_masked_pointers import element_type

CODE = "TTD107"
NAME = "narrow-block"
SUMMARY = "innermost block dimension may hold fewer than 16 bytes"
UNTESTED = ("the innermost block width is not a kernel parameter's (computed in the function), so no "
            "compile-time test at its top can tell whether it holds the 16 bytes a descriptor needs")
TESTED = "masked pointers where its innermost block holds fewer than 16 bytes, which Triton tells when it compiles"
FLAG = "WIDE_BLOCKS"  # the test's name where the launch guard's flag (TTD009) is taken
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
