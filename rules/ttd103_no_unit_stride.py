"""TTD103 no-unit-stride: no dimension has a provable unit stride.

What it does: reports a block pointer none of whose strides is provably 1 (a literal 1, or a kernel stride
parameter that `order` names innermost); no descriptor is used for it.

Why: a descriptor's last stride must be a compile-time 1. Block pointers accept any strides, so
rank-1 views with a stride (per-head gates, `strides=(H,)`), or views whose strides are computed
expressions, have no legal descriptor.

How the unit-stride dimension is found, from the strides, never from `order` alone: a stride that is the
literal 1 (the last one wins if several are); otherwise the dimension `order[0]` names, provided its
stride is a kernel parameter whose name says it is a stride (`stride_xk`): the JIT specialises an
integer argument equal to 1 to a constant, and any other value fails loudly at compile time rather than
reading wrong data. A parameter such as `H` in `strides=(H,)` (per-head gates) is a stride of H, not 1:
refused, and so is every rank-1 view without a literal unit stride, where `order` says nothing.

In a helper that receives block pointers as parts (TTD008), a stride part counts as such a parameter when
every call site's block pointer has its unit stride in that dimension: what the caller passes there is a
literal 1 or a kernel stride parameter, which reaches the helper as the same constant.

`contiguous` stated of a tensor (TTD010) makes a view's last stride parameter its unit stride, where the view's
`order` names that last dimension innermost too (or says nothing) and every view of the tensor in the function
puts the same stride last. Where `order` names another, the view is transposed or the hint is wrong; where the
views put different strides last, one is transposed. Unless a stride is a literal 1 nothing tells which: the
fact decides nothing there (a descriptor guessed from `order` fails at launch on one of the two), and without
other proof the view keeps masked pointers. Stated on a creation's own line, `contiguous` is of that block
pointer's last dimension, whatever its `order`.

A transposed view's descriptor describes the native layout, and its load is the `tl.trans` (`tl.permute`) of
the tile read there: the same values in another layout. Where the tile (or anything computed from it, but a
`tl.dot`) reaches a reduction or a scan (`tl.sum(k, axis=1)`, `tl.max`, `tl.cumsum`, ...), a helper or the
function's return, whose result may follow the layout, the load keeps its exact form (masked pointers; with
`--target descriptor`, refused with this code): a descriptor there changed a sum by up to 3 ulp (issue 34).

Example:

    p = tl.make_block_ptr(x, (M, N), (stride_m, stride_n), (0, 0), (BM, BN), (1, 0))   # no stride known to be 1
    # masked pointers (TTD006)

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: transposed_view, kt_view_attention, helper_stride_parameters, transposed_reduction,
stated_contiguous_order_hint, stated_contiguous_transposed.
"""
from __future__ import annotations

from typing import Union

CODE = "TTD103"
NAME = "no-unit-stride"
SUMMARY = "no dimension with a provable unit stride (descriptors need a last stride of 1)"

# A stride as the rule reads it: the integer a literal is, the name a bare name is, else None.
Stride = Union[int, str, None]
LAYOUT = ("the view is transposed, and the loaded tile reaches a reduction, a scan, a helper or the return, "
          "whose result may follow its layout: the descriptor's transposed load would change its bits")


def unit_stride_dimension(strides: list[Stride], order: list[int] | None, parameters: set[str]) -> int | None:
    """The dimension whose stride is 1: the last literal 1, else the one `order` names innermost where its stride
    is a kernel stride parameter (the JIT specialises one that is 1)."""
    literal_ones = [d for d, stride in enumerate(strides) if is_one(stride)]
    if literal_ones:
        return literal_ones[-1]
    # An `order` that is not a permutation names nothing (Triton rejects it as well); a rank-1 `order` names no
    # preference: `strides=(stride_xm,)` is a strided gather.
    if not order or len(strides) == 1 or sorted(order) != list(range(len(strides))):
        return None
    fastest = strides[order[0]]
    is_stride_parameter = isinstance(fastest, str) and fastest in parameters and "stride" in fastest.lower()
    return order[0] if is_stride_parameter else None


def stated_unit_dimension(strides: list[Stride], parameters: set[str]) -> int | None:
    """The last dimension, where the user stated its tensor `contiguous` (TTD010) and its stride is a kernel
    parameter (the JIT specialises one that is 1: a descriptor needs a compile-time unit stride)."""
    last = strides[-1]
    return len(strides) - 1 if isinstance(last, str) and last in parameters else None


def hint_disagrees(strides: list[Stride], order: list[int] | None) -> bool:
    """`order` names another dimension than the last innermost: the view may be transposed (the stride parameter
    it puts last is the tensor's outer one; fixture stated_contiguous_transposed) or the hint may be wrong
    (fixture stated_contiguous_order_hint). `contiguous` stated of the tensor says that its last dimension's
    stride is 1, not which of this view's strides that is."""
    return bool(order) and sorted(order) == list(range(len(strides))) and order[0] != len(strides) - 1


def permutation(rank: int, unit: int) -> list[int]:
    """Descriptor dimension order: the original order with the unit-stride dimension moved last."""
    return [d for d in range(rank) if d != unit] + [unit]


def is_one(stride: Stride) -> bool:
    return type(stride) is int and stride == 1


def undecided_message(order: list[int], views_agree: bool) -> str:
    """`contiguous` is stated of the tensor, and the strides cannot say which of this view's is 1."""
    why = f"`order` names dimension {order[0]} innermost, not the last: a transposed view or a wrong hint" \
        if views_agree else "its views put different strides last: at least one is transposed"
    return (f"`contiguous` is stated of the tensor, but {why}, and no stride is a literal 1 to tell which; a "
            "descriptor needs a unit last stride")


MESSAGE = ("no stride is a literal 1 or a kernel parameter that `order` names as contiguous; a descriptor needs a "
           "unit last stride")
