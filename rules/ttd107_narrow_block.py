"""TTD107 narrow-block: innermost block dimension may hold fewer than 16 bytes.

What it does: reports a block pointer whose innermost block dimension is a literal under 16 elements; no
descriptor is used for it.

Why: a descriptor's innermost block dimension must hold at least 16 bytes; `(BM, 1)`, `(BM, 8)`
with fp8/int8 or `(4,)` fp16 are rejected at trace time. Widening the block changes which elements are
masked and touched, so it is not a mechanical rewrite. Literal sizes under 16 elements are refused because
the element type is not visible in the source.

Example:

    p = tl.make_block_ptr(x, (M, N), (stride_m, 1), (0, 0), (BM, 8), (1, 0))
    # masked pointers (TTD006)

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: rank1 (wide), narrow block cases in the property test.
"""
from __future__ import annotations

CODE = "TTD107"
NAME = "narrow-block"
SUMMARY = "innermost block dimension may hold fewer than 16 bytes"


def too_narrow(width: int | None) -> bool:
    """`width`: the innermost block dimension's elements, where it is a literal."""
    return width is not None and width < 16


def message(width: int) -> str:
    return f"innermost block dimension of {width} elements may hold fewer than the 16 bytes a descriptor needs"
