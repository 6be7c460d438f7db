"""TTD101 unchecked-dimension: a `boundary_check` leaves out a dimension that may run past the shape.

What it does: reports a block-pointer access whose `boundary_check` leaves out a dimension the source does not
prove in bounds; no descriptor is used for it.

Why: a block pointer only masks the listed dimensions; an unlisted one is read or written past `shape`,
into whatever memory lies there (the next row, physical padding). A descriptor always checks every
dimension, so the two differ exactly when an unchecked dimension leaves the tensor (1,300 of
64×96 elements differed in the interpreter).

Accepted without a check: a dimension whose offset is the literal 0 on every path and whose block size is
the very same expression as its extent (`shape=(T, HEAD_DIM)`, `block_shape=(BT, HEAD_DIM)`), or both are
literals with block ≤ extent. Anything else is refused; a guard such as `EVEN_M` is a promise the caller
makes, not something the codemod can prove.

A launched kernel whose author states `in-bounds` for the tensor (TTD010), with its other facts, gets a
descriptor here all the same: the tiles lie where its grid puts them.

Example:

    tl.store(p, acc, boundary_check=(0,))   # dimension 1 unchecked, its offset not provably in bounds
    # masked pointers (TTD006), masked in dimension 0 only, as the block pointer was

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: boundary_subset_provable (accepted), boundary_subset_refused.
"""
from __future__ import annotations

CODE = "TTD101"
NAME = "unchecked-dimension"
SUMMARY = "`boundary_check` omits a dimension that is not provably in bounds"


def in_bounds(offset: int | None, shape: int | None, block: int | None, same_extent: bool) -> bool:
    """Whether an unchecked dimension stays in bounds: its offset is the literal 0 on every path (`offset`, None
    where it is not a literal) and its block fits the shape, both literals, or both the same expression
    (`same_extent`)."""
    if offset != 0:
        return False
    if shape is not None and block is not None:
        return block <= shape
    return same_extent


def message(dim: int) -> str:
    return f"dimension {dim} is not boundary-checked and not provably in bounds; a descriptor would mask it"
