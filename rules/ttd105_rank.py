"""TTD105 rank: rank not between 1 and 5, or tuples whose elements cannot be told.

What it does: reports a block pointer whose rank is above 5, or whose tuples' elements the source does not show;
no descriptor is used for it.

Why: descriptors have ranks 1–5. A block pointer whose shape, strides, offsets or block shape have no
elements the codemod can see has a rank it cannot see either. They can be spelt out, held by a name assigned
one tuple once (`shape = (M, N)`, whose names hold one value all along), returned by a `@triton.jit` helper
that only returns a tuple of its parameters, chosen by a conditional expression between tuples of one length
(`(a, 0) if REVERSE else (b, 0)`, read element by element), or, for rank 1, a scalar (`offsets=(i * BK)`, or a
name once another part pins the rank: `shape=N, block_shape=BN, order=(0,)`), which Triton reads as one
element; anything else (a tuple built in a loop, a name assigned on several paths) is reported. Under
`--target compat`, a block pointer of rank 4 or 5 keeps masked pointers: any compat tile may be the shim's
emulation (where the Triton it runs on cannot make its descriptor), and the emulation has ranks 1 to 3.

Example:

    p = tl.make_block_ptr(x, (B, C, D, H, M, N), ...)   # rank 6
    # masked pointers (TTD006); a tuple whose elements the source does not show: left untouched

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: rank6_refused; tuple_parts_resolved, scalar_and_conditional_parts (accepted).
"""
from __future__ import annotations

CODE = "TTD105"
NAME = "rank"
SUMMARY = "rank not between 1 and 5, or tuples whose elements cannot be told"
MAX_RANK = 5
BEYOND_EMULATION = ("rank above 3 under `--target compat`: a compat tile may be the shim's emulation (where the "
                    "Triton it runs on cannot make its descriptor), which has ranks 1 to 3")


def message(rank: int) -> str:
    return f"rank {rank}: tensor descriptors have ranks 1 to {MAX_RANK}"


UNTOLD_ELEMENTS = ("shape, strides, offsets and block_shape must be tuples of one length, spelt out, in a name "
                   "assigned once, or returned by a helper that only returns one")
