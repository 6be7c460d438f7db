"""TTD003 load-store-to-descriptor: block-pointer loads and stores become descriptor methods.

What it matches: `tl.load(p, boundary_check=..., padding_option=..., cache_modifier=..., eviction_policy=...)`
and `tl.store(p, value, boundary_check=..., ...)` on a block pointer.

The rewrite: `p_desc.load([o0, o1])` / `p_desc.store([o0, o1], value)`. A descriptor checks every
dimension against the shape, so a `boundary_check` that leaves a dimension out is only accepted when that
dimension is provably in bounds (TTD101). Padding moves to the descriptor (TTD001). Cache and eviction
hints are dropped: descriptors accept none and they are performance hints only; `volatile` is refused
(TTD104). A transposed view loads `tl.trans(...)` (`tl.permute` for rank ≥ 3) and stores the transposed
value. A scalar stored through a block pointer is broadcast; a descriptor needs a full tile, so literals
become `tl.full(block_shape, value, p_desc.dtype)` and values not provably blocks are wrapped in
`tl.broadcast_to(value, block_shape)`, a no-op on a block of that shape. An access whose
`boundary_check` Triton rejects at compile time (a dimension the block pointer lacks, or one named twice:
Intel's `store_if` names dimension 1 in the constexpr branches a rank-1 block pointer never takes) becomes
`tl.static_assert(False, "<why>")`, which Triton rejects there just the same.

Fixtures: gemm_loop_advance, cache_hints, padding_nan, two_paddings, transposed_view, kt_view_attention,
store_scalar, helper_checks_by_flags.
"""

from __future__ import annotations

import libcst as cst

from ._syntax import movable

CODE = "TTD003"
NAME = "load-store-to-descriptor"
SUMMARY = "`tl.load`/`tl.store` on a block pointer → `desc.load`/`desc.store`"


def _offsets(offsets: list[cst.BaseExpression], permutation: list[int]) -> cst.List:
    return cst.List([cst.Element(offsets[i]) for i in permutation])


def _reorder(language: cst.BaseExpression, tile: cst.BaseExpression, permutation: list[int]) -> cst.BaseExpression:
    if permutation == sorted(permutation):
        return tile
    if len(permutation) == 2:
        return cst.Call(cst.Attribute(language, cst.Name("trans")), [cst.Arg(tile)])
    dims = cst.List([cst.Element(cst.Integer(str(d))) for d in permutation])
    return cst.Call(cst.Attribute(language, cst.Name("permute")), [cst.Arg(tile), cst.Arg(dims)])


def _inverse(permutation: list[int]) -> list[int]:
    return [permutation.index(d) for d in range(len(permutation))]


def load(language: cst.BaseExpression, desc: str, offsets: list[cst.BaseExpression],
         permutation: list[int]) -> cst.BaseExpression:
    call = cst.Call(cst.Attribute(cst.Name(desc), cst.Name("load")), [cst.Arg(_offsets(offsets, permutation))])
    return _reorder(language, call, _inverse(permutation))


def store(language: cst.BaseExpression, desc: str, offsets: list[cst.BaseExpression], permutation: list[int],
          value: cst.BaseExpression, block: list[cst.BaseExpression], is_tile: bool) -> cst.Call:
    shape = cst.List([cst.Element(block[i]) for i in permutation])
    if is_scalar_literal(value):
        dtype = cst.Attribute(cst.Name(desc), cst.Name("dtype"))
        value = cst.Call(cst.Attribute(language, cst.Name("full")), [cst.Arg(shape), cst.Arg(value), cst.Arg(dtype)])
    elif is_tile:
        value = _reorder(language, value, permutation)
    else:
        original_shape = cst.List([cst.Element(b) for b in block])
        value = cst.Call(cst.Attribute(language, cst.Name("broadcast_to")), [cst.Arg(value), cst.Arg(original_shape)])
        value = _reorder(language, value, permutation)
    return cst.Call(cst.Attribute(cst.Name(desc), cst.Name("store")),
                    [cst.Arg(_offsets(offsets, permutation)), cst.Arg(movable(value))])


def is_scalar_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return is_scalar_literal(node.expression)
    return isinstance(node, (cst.Integer, cst.Float)) or (isinstance(node, cst.Name) and node.value in ("True", "False"))


def compile_error(language: cst.BaseExpression, message: str) -> cst.Call:
    """`tl.static_assert(False, "...")`: an access Triton rejects at compile time (a `boundary_check` naming a
    dimension the block pointer lacks, in a constexpr branch its callers never take) stays one, with the reason."""
    return cst.Call(cst.Attribute(language, cst.Name("static_assert")),
                    [cst.Arg(cst.Name("False")), cst.Arg(cst.SimpleString(repr(message).replace("'", '"')))])
