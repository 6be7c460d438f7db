"""TTD111 store-row-width: a store's row width is not provably a multiple of 16 bytes.

What it does: reports a store whose row width is not provably a multiple of 16 bytes; the store keeps masked
pointers while loads of the same block pointer may use the descriptor.

Why: NVIDIA TMA stores write whole 16-byte chunks: when `shape[-1] × itemsize` is not a multiple of 16,
a descriptor store overwrites the columns past the row end up to the next 16-byte boundary
(triton#11583). Those bytes belong to the row padding — or, for a view such as
`out[:, :N]` of a wider buffer or a slice of a concatenation buffer, to someone else's data. Measured here:
on an H100/H200 with Triton 3.6, 20 of the first 31 migrated fixtures overwrote sentinel cells past odd
row ends.

What happens: under `--target auto` the store uses masked pointers (TTD006), exactly what block-pointer
stores compiled to on every Triton before 3.9, so neither data nor speed is lost; loads of the same block
pointer still use the descriptor. A row width is proven when the innermost extent is the innermost block
size itself (a power of two of at least 16 bytes) or a literal multiple of 16. Where you know it is (rows
of 64 halves), state `aligned-rows` for the tensor (TTD010) and the store becomes a descriptor store;
under `--target descriptor` a store whose row width no one proved or stated is left untouched.

Example:

    tl.store(c, acc, boundary_check=(0, 1))   # c of shape (M, N), N any integer
    # masked pointers (TTD006); stating `aligned-rows` gives a descriptor store

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: gemm_loop_advance (C store), dtype_query.
"""
from __future__ import annotations

CODE = "TTD111"
NAME = "store-row-width"
SUMMARY = "store row width not provably a multiple of 16 bytes (TMA stores overrun the row end)"
MESSAGE = "row width not provably a multiple of 16 bytes (a TMA store would overwrite the row padding)"


def row_width_proven(width: int | None, block_width: int | None, same_extent: bool) -> bool:
    """Whether the innermost shape is a multiple of 16 elements or of the block (`width`, `block_width`: the
    literals they are, else None; `same_extent`: both are the same expression)."""
    if width is not None:
        return width % 16 == 0 or (block_width is not None and width % block_width == 0)
    return same_extent
