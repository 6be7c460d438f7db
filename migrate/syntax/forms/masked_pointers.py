"""The masked-pointer form (TTD006): addresses, masks and the `tl.load` / `tl.store` calls with exact
block-pointer semantics, built from offsets, strides, shapes and block sizes."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import partial
from typing import cast

import libcst as cst

from ..build import keyword, member_call, movable
from ..nodes import canonical_code, free_names, int_value
from .advance import operand, plus

OTHER = {"zero": "0.0", "nan": 'float("nan")'}
_BLOCK_PREFIXES = ("BLOCK_SIZE_", "BLOCK_", "BS_")
_PRODUCTS = (cst.Multiply, cst.FloorDivide, cst.Divide, cst.Modulo)
_ATOMIC = (cst.Name, cst.Integer, cst.Float, cst.Call, cst.Attribute, cst.Subscript, cst.SimpleString)


@dataclass(frozen=True)
class Axis:
    """The coordinates of a tile along one dimension, `offset + tl.arange(0, block)`; `ranged`: `block` names
    a variable that holds the range itself (block pointers merged from paths with different block sizes)."""

    language: cst.BaseExpression
    offset: cst.BaseExpression
    block: cst.BaseExpression
    ranged: bool = False
    along: cst.BaseExpression | None = None  # the extent it runs along, for its name where `block` is a literal

    def key(self) -> tuple:
        return ("axis", canonical_code(self.offset), canonical_code(self.block), self.ranged)

    def at_zero(self) -> Axis:
        """The range alone: the coordinates inside the block."""
        return replace(self, offset=cst.Integer("0"))

    def is_zero(self) -> bool:
        """One element at offset 0 (fla's `(T, 1)` columns): it adds nothing to an address."""
        return not self.ranged and int_value(self.offset) == 0 and int_value(self.block) == 1

    def parts(self) -> list[cst.BaseExpression]:
        return [self.offset, self.block]

    def reads(self) -> frozenset[str]:
        return free_names(self.offset) | free_names(self.block)

    def value(self, wide: bool, ref=None) -> cst.BaseExpression:
        """`wide`: in int64, as a block pointer scales coordinates by a stride. The range is widened, not the
        sum (`i_t * BT + tl.arange(0, BT).to(tl.int64)`): the offset is the block pointer's int32 one either
        way, and the compiler can then fold the range's constant part into each address (H100, sm_90 PTX of
        the suite's add_one: 1,159 lines against 1,529 for the sum widened, which sign-extends per element).
        `ref(Range(...))` spells the range that is widened, where given: a bound reads it too, in int32 (a
        narrow axis is that range: its own value, which a bound's range reads where it holds it)."""
        if self.ranged:
            steps = self.block
        else:
            steps = ref(Range(self.at_zero())) if ref and wide else arange(self.language, self.block)
        return plus(self.offset, converted(self.language, steps, "int64") if wide else steps)

    def stem(self) -> str:
        """What the names of this axis end with: `t` for `BT`, `k` for `BLOCK_SIZE_K`; for a literal block
        the extent's name (`k` along `K`), else the literal."""
        if type(self.block) is cst.Name:
            name = self.block.value.lstrip("_") or self.block.value  # Helion's `_BLOCK_SIZE_0` reads as `BLOCK_SIZE_0`
            short = name[1:] if name.startswith("B") and 1 < len(name) <= 3 else name  # BT, BK, BTS
            stripped = next((name[len(p):] for p in _BLOCK_PREFIXES if name.startswith(p) and len(name) > len(p)),
                            short)
            return re.sub(r"\W", "", stripped.lower()) or "x"
        if type(self.along) is cst.Name:
            return self.along.value.lower()
        literal = int_value(self.block)
        return str(literal) if literal is not None else "x"


@dataclass(frozen=True)
class Range:
    """`tl.arange(0, block)` in int32, the coordinates inside a block (`axis`, at offset 0): one value, which
    offsets.py names once where an axis widened for addresses and a bound both read it (`r_t`; fla's
    maintainers hold it as `o_i = tl.arange(0, BT)`), rather than computing the range twice."""

    axis: Axis

    def key(self) -> tuple:
        return ("range", canonical_code(self.axis.block))

    def parts(self) -> list[cst.BaseExpression]:
        return [self.axis.block]

    def reads(self) -> frozenset[str]:
        return free_names(self.axis.block)

    def value(self) -> cst.BaseExpression:
        return arange(self.axis.language, self.axis.block)

    def stem(self) -> str:
        return self.axis.stem()


@dataclass(frozen=True)
class Bound:
    """Where an axis lies inside `shape`: `axis < shape`, and `axis >= 0` too where the offset may be
    negative."""

    axis: Axis
    shape: cst.BaseExpression
    lower: bool

    def key(self) -> tuple:
        return ("bound", self.axis.key(), canonical_code(self.shape), self.lower)

    def always(self) -> bool:
        """Literals that put the whole block inside the shape, or a block at offset 0 as wide as the shape
        (`tl.arange(0, BT) < BT`, the whole of a `(T, BT)` tile's columns): nothing to check."""
        offset, block, shape = (int_value(e) for e in (self.axis.offset, self.axis.block, self.shape))
        if self.axis.ranged:
            return False
        if offset == 0 and canonical_code(self.axis.block) == canonical_code(self.shape):
            return True
        if offset is None or block is None or shape is None:
            return False
        return 0 <= offset and offset + block <= shape

    def parts(self) -> list[cst.BaseExpression]:
        return self.axis.parts() + [self.shape]

    def reads(self) -> frozenset[str]:
        return self.axis.reads() | free_names(self.shape)

    def compared(self) -> Axis | None:
        """The axis whose coordinates the mask compares, where it compares them: only for an offset that may
        be negative (`value`); an offset known to be non-negative is compared as one scalar."""
        return self.axis if self.lower else None

    def value(self, axis: cst.BaseExpression | None, ref=None) -> cst.BaseExpression:
        """`tl.arange(0, block) < tl.maximum(shape, 0) - offset`: the block's own coordinates against the room
        left in the shape from its corner, a scalar; the coordinates stay int32 and cannot wrap, where the
        sum `offset + tl.arange(0, block) < shape` wraps in int32 past 2^31 - 1 (passing the test: fixture
        coordinates_past_int32) and, widened, costs a 64-bit tile. The clamp keeps the room from wrapping
        below a negative shape, which admits nothing.

        Where the offset may be negative, `axis` (`offset + tl.arange(0, block)` in int64) is checked as
        `0 <= axis < shape` in one unsigned comparison, `axis.to(tl.uint64) < tl.maximum(shape, 0)`: a
        negative coordinate wraps past every shape, and a negative shape, clamped at 0, admits nothing, as a
        block pointer's bounds do. With two comparisons and an `&`, fla's kkt_solve kernel ran at 0.90-0.93x
        of its block pointers at three of its six configs (H200); with the one, at 0.97-1.23x at all six
        (benchmarks/RESULTS.md)."""
        if not self.lower:
            inside = ref(Range(self.axis.at_zero())) if ref and not self.axis.ranged else \
                self.axis.at_zero().value(False)
            return cst.Comparison(inside, [cst.ComparisonTarget(cst.LessThan(), self._room())])
        unsigned = converted(self.axis.language, cast(cst.BaseExpression, axis), "uint64")  # given: compared()
        return cst.Comparison(unsigned, [cst.ComparisonTarget(cst.LessThan(), self._nonnegative_shape())])

    def _room(self) -> cst.BaseExpression:
        """`tl.maximum(shape, 0) - offset`; `shape` alone at offset 0. The offset is a non-negative int32, so
        neither operand nor the difference wraps, in int32 or int64."""
        if int_value(self.axis.offset) == 0:
            return self.shape
        return cst.BinaryOperation(operand(self._nonnegative_shape()), cst.Subtract(), _subtrahend(self.axis.offset))

    def _nonnegative_shape(self) -> cst.BaseExpression:
        literal = int_value(self.shape)
        if literal is not None and literal >= 0:
            return self.shape
        return member_call(self.axis.language, "maximum", [cst.Arg(self.shape), cst.Arg(cst.Integer("0"))])

    def stem(self) -> str:
        return self.axis.stem()


def _subtrahend(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` as `a - node` reads it: in parentheses where it is a sum or anything looser than a product."""
    tight = isinstance(node, _ATOMIC + (cst.UnaryOperation,)) or node.lpar or (
        isinstance(node, cst.BinaryOperation) and isinstance(node.operator, _PRODUCTS))
    return node if tight else grouped(node)


def arange(language: cst.BaseExpression, block: cst.BaseExpression) -> cst.Call:
    """`tl.arange(0, block)`: the offsets inside a block."""
    return member_call(language, "arange", [cst.Arg(cst.Integer("0")), cst.Arg(block)])


def grouped(node: cst.BaseExpression) -> cst.BaseExpression:
    """`node` in parentheses unless it is one term already."""
    if isinstance(node, _ATOMIC) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def converted(language: cst.BaseExpression, tensor: cst.BaseExpression, dtype: str) -> cst.Call:
    """`tensor.to(tl.<dtype>)`."""
    return cst.Call(cst.Attribute(grouped(tensor), cst.Name("to")),
                    [cst.Arg(cst.Attribute(language, cst.Name(dtype)))])


def widened(language: cst.BaseExpression, value: cst.BaseExpression) -> cst.Call:
    """`tl.cast(value, tl.int64)`, which (unlike `.to`) also takes a constexpr or a Python int."""
    return member_call(language, "cast", [cst.Arg(value), cst.Arg(cst.Attribute(language, cst.Name("int64")))])


def broadcast(tensor: cst.BaseExpression, dim: int, rank: int) -> cst.BaseExpression:
    """`tensor[:, None]` and the like: a vector along dimension `dim` of a rank-`rank` tile."""
    if rank == 1:
        return tensor
    index = [cst.SubscriptElement(cst.Slice(None, None) if d == dim else cst.Index(cst.Name("None")))
             for d in range(rank)]
    return cst.Subscript(grouped(tensor), index)


def is_unit(stride: cst.BaseExpression) -> bool:
    return int_value(stride) == 1


def addresses(base: cst.BaseExpression, strides: list, axes: list[Axis], ref) -> cst.BaseExpression:
    """`base + tl.cast(i_t * BT, tl.int64) * stride + (o_t[:, None] * stride + o_k[None, :])`: the block's corner
    along its strided dimensions, one 64-bit scalar, then each element's place from there, `ref(axis, wide)`
    spelling an axis (int64 where a stride scales it). The sum is the block pointer's 64-bit address either
    way; split so, the rows inside the block do not depend on where it is, and no 64-bit `i_t * BT +
    tl.arange(...)` row tile is built and held per element (fla's `chunk_gla_fwd_kernel_o` held one through
    its K loop: 136 registers on sm_90 against its block pointers' 103, 104 so;
    benchmarks/results/default-form-registers-2026-12-05.txt). The unit stride's offset stays in the tile, in
    64 bits (`o_k = i_k * BK + tl.arange(0, BK).to(tl.int64)`): in the corner, it would leave a tile re-addressed
    in a loop over that dimension the same in every iteration, which the compiler then computes once and holds
    through the loop, two registers an element (the gla kernel at BV=128: 182 registers against 168, one CTA
    an SM fewer). A tile without a strided dimension (rank 1) is int32 inside, and its offset joins the corner."""
    scaled = {d for d, stride in enumerate(strides) if not is_unit(stride)} or set(range(len(axes)))
    corner = shifted(axes[0].language, base, [axis.offset for axis in axes], strides, scaled)
    tile = [axis.at_zero() if d in scaled else axis for d, axis in enumerate(axes)]
    return cst.BinaryOperation(corner, cst.Add(), inside(strides, tile, partial(_wide_offset, ref)))


def _wide_offset(ref, axis: Axis, wide: bool) -> cst.BaseExpression:
    """An axis with its offset, added in the tile to 64-bit addresses, is widened: its int32 sum could wrap."""
    return ref(axis, wide or int_value(axis.offset) != 0)


def inside(strides: list, axes: list[Axis], ref) -> cst.BaseExpression:
    """`(o_m[:, None] * stride + o_k[None, :])`: the terms of `addresses`, without a base, in parentheses."""
    terms = _terms(strides, axes, ref)
    expr = terms[0]
    for term in terms[1:]:
        expr = cst.BinaryOperation(expr, cst.Add(), term)
    return grouped(expr)


def _terms(strides: list, axes: list[Axis], ref) -> list[cst.BaseExpression]:
    """One term a dimension; an axis of one element at offset 0 adds nothing where another gives the tile its
    shape."""
    rank = len(axes)
    zero = {d for d, axis in enumerate(axes) if axis.is_zero()} if not all(a.is_zero() for a in axes) else set()
    terms = []
    for dim, (axis, stride) in enumerate(zip(axes, strides)):
        if dim in zero:
            continue
        term = broadcast(ref(axis, not is_unit(stride)), dim, rank)
        if not is_unit(stride):
            term = cst.BinaryOperation(term, cst.Multiply(), grouped(stride))
        terms.append(term)
    return terms


def shifted(language: cst.BaseExpression, pointers: cst.BaseExpression, offsets: list, strides: list,
            dims) -> cst.BaseExpression:
    """`pointers + a_off1` (`+ tl.cast(b_off0, tl.int64) * stride` along a stride other than the unit one, in
    64 bits as a block pointer scales its offsets): the block's offsets in `dims` added to pointers that
    leave them out. A block pointer that moves keeps its pointers where it was made, without the offsets it
    moves in: they do not change from one step to the next (the compiler keeps them out of the loop), and
    each access adds where it has moved to, one number, as a block pointer's lowering does. Pointers carried
    through the loop and moved by each advance ran the suite's GEMMs at 0.90-0.95x of the original on the
    H100 (benchmarks/RESULTS.md has this form's figures)."""
    expr = pointers
    for d in sorted(dims):
        offset, stride = offsets[d], strides[d]
        if int_value(offset) == 0:
            continue
        term = offset if is_unit(stride) else cst.BinaryOperation(widened(language, offset), cst.Multiply(),
                                                                   grouped(stride))
        expr = cst.BinaryOperation(expr, cst.Add(), operand(term))
    return expr


@dataclass(frozen=True)
class Tile:
    """The mask of a tile checked along two dimensions or more, `m_t[:, None] & m_k[None, :]`: one value,
    which offsets.py names once where several accesses read it, as it names a bound."""

    dims: tuple[int, ...]
    bounds: tuple[Bound, ...]  # one a dimension of `dims`
    rank: int

    def key(self) -> tuple:
        return ("tile", self.rank, self.dims, tuple(bound.key() for bound in self.bounds))

    def parts(self) -> list[cst.BaseExpression]:
        return [part for bound in self.bounds for part in bound.parts()]

    def reads(self) -> frozenset[str]:
        return frozenset().union(*(bound.reads() for bound in self.bounds))

    def value(self, ref) -> cst.BaseExpression:
        """`ref(bound)` spells a bound."""
        terms = [broadcast(ref(bound), dim, self.rank) for dim, bound in zip(self.dims, self.bounds)]
        result = terms[0]
        for term in terms[1:]:
            result = cst.BinaryOperation(result, cst.BitAnd(), term)
        return result

    def stem(self) -> str:
        """`tk` for the bounds `t` and `k`; `t_64` where a stem is longer than a letter."""
        stems = [bound.stem() for bound in self.bounds]
        return "".join(stems) if all(len(stem) == 1 for stem in stems) else "_".join(stems)


def mask(bounds: dict[int, Bound], rank: int, ref) -> cst.BaseExpression | None:
    """`m_t[:, None] & m_k[None, :]`: the bounds of the checked dimensions (dim -> bound; `ref(bound)` spells
    one), None if none needs checking; over two dimensions or more, `ref(Tile(...))`, one value."""
    dims = tuple(d for d in sorted(bounds) if not bounds[d].always())
    if not dims:
        return None
    if len(dims) == 1:
        return broadcast(ref(bounds[dims[0]]), dims[0], rank)
    return ref(Tile(dims, tuple(bounds[d] for d in dims), rank))


def both(condition, mask: cst.BaseExpression | None):
    """`condition & (mask)`: the bounds and a mask the source gave the access (where it never compiled)."""
    if mask is None or condition is None:
        return condition if mask is None else mask
    if not isinstance(mask, (cst.Name, cst.Attribute, cst.Subscript, cst.Call)) and not mask.lpar:
        mask = mask.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.BinaryOperation(condition, cst.BitAnd(), mask)


def load(language, ptrs: cst.BaseExpression, condition, padding: str | cst.Name, kept: list[cst.Arg],
         other: cst.BaseExpression | None = None) -> cst.Call:
    """`padding`: a literal option, or the name of a constexpr holding one; `other`: the source's own."""
    args = [cst.Arg(ptrs)]
    if condition is not None:
        args.append(keyword("mask", condition))
        if other is not None:
            args.append(keyword("other", other))
        elif isinstance(padding, cst.Name):
            args.append(keyword("other", _other_of(padding)))
        elif padding in OTHER:
            args.append(keyword("other", cst.parse_expression(OTHER[padding])))
    return member_call(language, "load", args + kept)


def _other_of(padding: cst.Name) -> cst.BaseExpression:
    """`other` for the padding option a constexpr holds: Triton evaluates a conditional expression whose
    test is a constexpr at compile time, so the load gets exactly one of NaN, 0.0 or none."""
    name = padding.value
    return cst.parse_expression(f'{OTHER["nan"]} if {name} == "nan" else {OTHER["zero"]} if {name} == "zero" '
                                'else None')


def store(language, ptrs: cst.BaseExpression, condition, value: cst.BaseExpression, kept: list[cst.Arg]) -> cst.Call:
    args = [cst.Arg(ptrs), cst.Arg(movable(value))]
    if condition is not None:
        args.append(keyword("mask", condition))
    return member_call(language, "store", args + kept)


def element_type(base: cst.BaseExpression) -> cst.Attribute:
    """`p.dtype.element_ty` of a block pointer is its base's element type."""
    if not isinstance(base, (cst.Name, cst.Attribute, cst.Call)) or base.lpar:
        base = base.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Attribute(cst.Attribute(base, cst.Name("dtype")), cst.Name("element_ty"))
