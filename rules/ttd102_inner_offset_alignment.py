"""TTD102 inner-offset-alignment: the innermost offset is not provably a multiple of 16 bytes.

What it does: reports an access whose offset in the unit-stride dimension is not provably a multiple of 16 bytes;
no descriptor is used for it.

Why: on NVIDIA Hopper/Blackwell a TMA access whose innermost coordinate × element size is not a multiple
of 16 bytes traps with an illegal instruction (triton#7385); the interpreter asserts "block offset
start must be 16-byte aligned". Block pointers have no such rule, so offsets like `pid * BN + 1`,
`start + i` or a causal shift by one are fine there and fatal here.

Accepted: sums and differences of multiples of the innermost block dimension (a descriptor's innermost
block dimension is a power of two of at least 16 bytes, so its multiples are 16-byte multiples), literal
multiples of 16, `tl.multiple_of(x, 16·k)`, loop variables of `range(start, stop, step)` with an aligned
start and step, and local names every assignment of which is aligned — on every path that reaches the
load or store, advances included.

Example:

    p = tl.make_block_ptr(x, (M, N), (stride_m, 1), (0, col), (BM, BN), (1, 0))   # `col` any integer
    # masked pointers (TTD006)

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: unaligned_inner_offset_refused.
"""
from __future__ import annotations

CODE = "TTD102"
NAME = "inner-offset-alignment"
SUMMARY = "innermost offset not provably a multiple of 16 bytes (TMA traps)"


def message(dim: int) -> str:
    return (f"offset in the contiguous dimension {dim} is not provably a multiple of 16 bytes (NVIDIA TMA traps on "
            "it)")
