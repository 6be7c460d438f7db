"""TTD003 load-store-to-descriptor: block-pointer loads and stores become descriptor methods.

What it does: it matches `tl.load(p, boundary_check=..., padding_option=..., cache_modifier=..., eviction_policy=...)`
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

The block pointer's element type, `p.dtype.element_ty` or `p.dtype.element_ty.element_ty` (typically
`tl.store(p, acc.to(p.dtype.element_ty))`), and the same spelt with `type` (AMD's attention kernels:
`p.to(V_block_ptr.type.element_ty)`: a block pointer's type is its dtype), becomes `p_desc.dtype`. On a block
pointer the first is the block type and the second its element type; `.to()` casts to the element type in both
cases, which is what a descriptor's `dtype` is.

Why: `tl.load` and `tl.store` of a block pointer have no meaning once the block pointer is a descriptor; the
descriptor's own methods read and write the same tile.

Example:

    b = tl.load(p, boundary_check=(0, 1), padding_option="zero")
    # becomes
    b = p_desc.load([p_off0, p_off1])

Fix safety: safe where it applies: a descriptor checks every dimension and pads with zero (NaN with its own
descriptor), so an access is rewritten only where no TTD1xx reason stands; the hints it drops (cache, eviction)
change no value.

Fixtures: gemm_loop_advance, cache_hints, padding_nan, two_paddings, transposed_view, kt_view_attention,
store_scalar, helper_checks_by_flags, dtype_query, dtype_only_pointer.
"""
from __future__ import annotations

CODE = "TTD003"
NAME = "load-store-to-descriptor"
SUMMARY = "`tl.load`/`tl.store` on a block pointer → `desc.load`/`desc.store`"


def never_compiles(what: str) -> str:
    """A use Triton rejects at compile time wherever it is reached (`what`), which becomes a
    `tl.static_assert(False, ...)` (decision `compile-error`)."""
    return (f"{what}: Triton rejects it at compile time wherever it is reached, and so does the `tl.static_assert` "
            "it becomes")


def impossible_check(member: str, why: str) -> str:
    """An access whose `boundary_check` Triton rejects (`why`: `dimension_outside`, DIMENSION_TWICE)."""
    return never_compiles(f"`tl.{member}` where {why}")


def dimension_outside(dimension: int, rank: int) -> str:
    return f"`boundary_check` names dimension {dimension} of a rank-{rank} block pointer"


DIMENSION_TWICE = "`boundary_check` names a dimension twice"


def on_none(member: str, why: str) -> str:
    """An access with `boundary_check` or `padding_option` on `None` (`why`: `none_here`, `always_none`)."""
    return never_compiles(f"`tl.{member}` with `boundary_check`/`padding_option` where {why}")


def none_here(name: str) -> str:
    return f"`{name}` is `None` here"


def always_none(name: str) -> str:
    """A parameter every call fills with `None`."""
    return f"every call passes `{name}` as `None`"


def no_block_pointer(why: str) -> str:
    """What the `tl.static_assert` a use of `None` as a block pointer becomes says (`why`: how it is `None`)."""
    return f"{why}: no block pointer"
