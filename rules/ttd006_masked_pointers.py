"""TTD006 block-pointer-to-masked-pointers: where no descriptor is legal and safe, plain pointer arithmetic.

What it matches: a block pointer, or one access of it, that cannot become a descriptor access (the reason
codes TTD1xx on the diagnostic say why), under `--target auto` (the default) or `--target pointer`.

The rewrite has the exact semantics of a block pointer (Triton 3.8's own `_block_ptr._materialize`):
addresses in 64 bits (as a block pointer's), a mask only on the dimensions that were boundary-checked
(`0 <= offset + tl.arange(0, BLOCK) < shape`, the lower bound dropped where the offset is provably
non-negative), `other` from the padding option (`""` gives none, `"zero"` 0.0, `"nan"` NaN), and the
access's cache, eviction and volatile arguments kept. A `padding_option` that is a name (Triton takes the
option only at compile time: a constexpr, as in Triton's own `test_block_pointer.py`) keeps masked pointers,
since a descriptor is created with one padding, and the load chooses `other` the same way at compile time:
`other=float("nan") if PADDING == "nan" else 0.0 if PADDING == "zero" else None` (Triton resolves a
conditional expression whose test is a constexpr statically; `None` and `""` read as no padding, as on a
block pointer). Only an invalid option changes behaviour: it is no longer an error. A `boundary_check`
chosen the same way (`boundary_check=(1,) if BOUNDS_CHECKS_N else ()`) gives one access per variant, in a
conditional expression on the same test, each with its own mask. Offsets are the same integers as on the descriptor
path, so advances and loops rewrite the same way. Stores through masked pointers never write outside the
checked extent, whatever the row width, and accept any offset sign. Block pointers merged from several
paths need no common `order`, and their parts that differ are assigned on each path (`p_base`,
`p_stride0`; a block size as its range, `p_range0 = tl.arange(0, BK)`).

The address is the block's corner plus the offsets inside the block. The second part does not change as
the block pointer moves, so a loop computes it once (the staged attention of the benchmarks: 0.94x ->
0.98x of the original on the H100):

    a_rows = pid_m * BM + tl.arange(0, BM)
    a_cols = a_off1 + tl.arange(0, BK)
    a_ptrs = a_ptr + tl.cast(pid_m * BM, tl.int64) * stride_am + a_off1 + (tl.arange(0, BM).to(tl.int64)[:, None] * stride_am + tl.arange(0, BK)[None, :])
    a_mask = (a_rows[:, None] < M) & (a_cols[None, :] < K)
    a = tl.load(a_ptrs, mask=a_mask, other=0.0)

A block pointer re-created in each iteration of the loop that accesses it spells each address from the
element's coordinates instead: there the hoisted offsets would hold registers through the loop (fla's
`chunk_fwd_kernel_h` at K=100: 0.96x -> 1.12x). The coordinates stay int32, as in the corner form (a name
assigned before a loop and inside it must keep its type), and are widened where a stride scales them:

    x_rows = i_t * BT + tl.arange(0, BT)
    x_ptrs = x_ptr + x_rows.to(tl.int64)[:, None] * stride_xt + x_cols[None, :]

A kernel whose `kernel-targets` form ends in `+corner` or `+coords` (`migrate tune` measures them) takes
one spelling for every access.

Fixtures: recreate_in_loop, boundary_subset_refused, volatile_refused, rank6_refused, int64_offsets_refused,
small_last_block_refused, nonunit_stride_refused, unaligned_inner_offset_refused, negative_advance,
constexpr_padding, order_per_branch, constexpr_branch_shapes, helper_conditional_check.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from triton_migrate.analysis.calls import int_value

from ._syntax import keyword, member_call, movable
from .ttd002_advance import operand, plus

CODE = "TTD006"
NAME = "block-pointer-to-masked-pointers"
SUMMARY = "block pointer → masked pointer arithmetic with exact block-pointer semantics"
OTHER = {"zero": "0.0", "nan": 'float("nan")'}


@dataclass(frozen=True)
class Tile:
    """Everything a masked-pointer access needs, as source expressions."""

    language: cst.BaseExpression
    base: cst.BaseExpression
    shape: list
    strides: list
    block: list
    offsets: list
    checked: set
    nonnegative: list  # per dimension: the offset is provably >= 0
    corner: bool = True  # addresses as corner + offsets inside the block; False: from each element's coordinates
    # Dimensions whose `block` entry names `tl.arange(0, B)` itself: block pointers merged from an
    # `if HEAD_FIRST:` with different block shapes, where each branch assigns its own range.
    ranged: frozenset = frozenset()


def temporary_names(stem: str, rank: int) -> list[str]:
    """Names for the coordinates of each dimension, then the pointers and the mask."""
    axes = ["idx"] if rank == 1 else ["rows", "cols"] if rank == 2 else [f"i{d}" for d in range(rank)]
    return [f"{stem}_{n}" for n in axes + ["ptrs", "mask"]]


def coordinates(tile: Tile) -> list[cst.BaseExpression]:
    """`offset + tl.arange(0, B)` per dimension, for the mask and, without `corner`, the addresses. They
    stay int32 in both forms: a name assigned before a loop and again inside it must keep its type there,
    and one block pointer can take both forms (sites.corner_addresses)."""
    return [plus(offset, _arange(tile, dim)) for dim, offset in enumerate(tile.offsets)]


def _arange(tile: Tile, dim: int) -> cst.BaseExpression:
    if dim in tile.ranged:
        return tile.block[dim]
    return arange(tile.language, tile.block[dim])


def arange(language: cst.BaseExpression, block: cst.BaseExpression) -> cst.Call:
    """`tl.arange(0, block)`: the offsets inside a block."""
    return member_call(language, "arange", [cst.Arg(cst.Integer("0")), cst.Arg(block)])


def _broadcast(coordinate: cst.BaseExpression, dim: int, rank: int) -> cst.BaseExpression:
    if rank == 1:
        return coordinate
    index = [cst.SubscriptElement(cst.Slice(None, None) if d == dim else cst.Index(cst.Name("None")))
             for d in range(rank)]
    if not isinstance(coordinate, (cst.Name, cst.Call, cst.Attribute)) or coordinate.lpar:
        coordinate = coordinate.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Subscript(coordinate, index)


def pointers_and_mask(tile: Tile, coords: list) -> tuple[cst.BaseExpression, cst.BaseExpression | None]:
    """The addresses, and the mask (None when no dimension is checked)."""
    return _from_corner(tile) if tile.corner else _from_coordinates(tile, coords), mask(tile, coords)


def _from_corner(tile: Tile) -> cst.BaseExpression:
    """`base + offset * stride ... + (tl.arange(0, B) * stride ...)`: the block's corner, then the offsets
    inside the block, in int64 wherever a stride scales them (a block pointer addresses in 64 bits). The
    part inside the block does not change when the block pointer moves, so in a loop the compiler computes
    it once and each step adds one offset per element."""
    rank = len(tile.block)
    corner = tile.base
    for offset, stride in zip(tile.offsets, tile.strides):
        if int_value(offset) != 0:
            term = offset if int_value(stride) == 1 else _scaled(_widened(tile, offset), stride)
            corner = cst.BinaryOperation(corner, cst.Add(), operand(term))
    inside = None
    for dim, stride in enumerate(tile.strides):
        if int_value(stride) == 1:
            term = _broadcast(_arange(tile, dim), dim, rank)
        else:
            term = _scaled(_broadcast(_to_int64(tile, _arange(tile, dim)), dim, rank), stride)
        inside = term if inside is None else cst.BinaryOperation(inside, cst.Add(), term)
    if isinstance(inside, cst.BinaryOperation) and isinstance(inside.operator, cst.Add):
        inside = inside.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BinaryOperation(corner, cst.Add(), inside)


def _from_coordinates(tile: Tile, coords: list) -> cst.BaseExpression:
    """`base + rows.to(tl.int64)[:, None] * stride + cols[None, :]`: each element's address from its
    coordinates, in int64 wherever a stride scales them (the sum is widened, which is exact for dimensions
    under 2**31 elements, assumed everywhere (README), and faster than widening the range first)."""
    rank = len(coords)
    expr = tile.base
    for dim, (coordinate, stride) in enumerate(zip(coords, tile.strides)):
        if int_value(stride) == 1:
            term = _broadcast(coordinate, dim, rank)
        else:
            term = _scaled(_broadcast(_to_int64(tile, _paren_sum(coordinate)), dim, rank), stride)
        expr = cst.BinaryOperation(expr, cst.Add(), term)
    return expr


def _int64(tile: Tile) -> cst.Attribute:
    return cst.Attribute(tile.language, cst.Name("int64"))


def _to_int64(tile: Tile, tensor: cst.BaseExpression) -> cst.Call:
    """`tensor.to(tl.int64)`; `tensor` must already be parenthesised where that is needed."""
    return cst.Call(cst.Attribute(tensor, cst.Name("to")), [cst.Arg(_int64(tile))])


def _widened(tile: Tile, value: cst.BaseExpression) -> cst.Call:
    """`tl.cast(value, tl.int64)`, which (unlike `.to`) also takes a constexpr or a Python int."""
    return member_call(tile.language, "cast", [cst.Arg(value), cst.Arg(_int64(tile))])


def _scaled(term: cst.BaseExpression, stride: cst.BaseExpression) -> cst.BinaryOperation:
    return cst.BinaryOperation(term, cst.Multiply(), _paren_sum(stride))


def _paren_sum(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)) and not node.lpar:
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node


def mask(tile: Tile, coords: list) -> cst.BaseExpression | None:
    """None exactly when no dimension is checked (sites.py names a mask temporary on that)."""
    rank = len(coords)
    terms = []
    for dim in sorted(tile.checked):
        coordinate = _broadcast(coords[dim], dim, rank)
        if not tile.nonnegative[dim]:
            terms.append(cst.Comparison(coordinate, [cst.ComparisonTarget(cst.GreaterThanEqual(), cst.Integer("0"))]))
        terms.append(cst.Comparison(coordinate, [cst.ComparisonTarget(cst.LessThan(), tile.shape[dim])]))
    if not terms:
        return None
    result = terms[0]
    for term in terms[1:]:
        result = cst.BinaryOperation(_paren(result), cst.BitAnd(), _paren(term))
    return result


def _paren(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, cst.Comparison):
        return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node


def load(tile: Tile, ptrs: cst.BaseExpression, condition, padding: str | cst.Name, kept: list[cst.Arg]) -> cst.Call:
    """`padding`: a literal option, or the name of a constexpr holding one."""
    args = [cst.Arg(ptrs)]
    if condition is not None:
        args.append(keyword("mask", condition))
        if isinstance(padding, cst.Name):
            args.append(keyword("other", _other_of(padding)))
        elif padding in OTHER:
            args.append(keyword("other", cst.parse_expression(OTHER[padding])))
    return member_call(tile.language, "load", args + kept)


def _other_of(padding: cst.Name) -> cst.BaseExpression:
    """`other` for the padding option a constexpr holds: Triton evaluates a conditional expression whose
    test is a constexpr at compile time, so the load gets exactly one of NaN, 0.0 or none."""
    name = padding.value
    return cst.parse_expression(f'{OTHER["nan"]} if {name} == "nan" else {OTHER["zero"]} if {name} == "zero" '
                                'else None')


def store(tile: Tile, ptrs: cst.BaseExpression, condition, value: cst.BaseExpression, kept: list[cst.Arg]) -> cst.Call:
    args = [cst.Arg(ptrs), cst.Arg(movable(value))]
    if condition is not None:
        args.append(keyword("mask", condition))
    return member_call(tile.language, "store", args + kept)


def element_type(base: cst.BaseExpression) -> cst.Attribute:
    """`p.dtype.element_ty` of a block pointer is its base's element type."""
    if not isinstance(base, (cst.Name, cst.Attribute, cst.Call)) or base.lpar:
        base = base.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Attribute(cst.Attribute(base, cst.Name("dtype")), cst.Name("element_ty"))
