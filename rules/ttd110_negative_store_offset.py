"""TTD110 negative-store-offset: a store's offset is not provably non-negative.

What it does: reports a store whose offset is not provably non-negative; no descriptor store is used for it.

Why: a block pointer masks negative coordinates on checked dimensions and writes nothing there; on
NVIDIA Hopper/Blackwell a TMA store with any negative coordinate traps with an illegal instruction
(measured on the H100 with Triton 3.6, and the fixture negative_advance crashed
there). Loads with negative coordinates are fine (zero fill), so only stores are refused.

Proven non-negative: literals ≥ 0, `tl.program_id`, `tl.num_programs`, integer kernel arguments (taken
to be sizes and indices), sums, products and floor divisions of those, remainders of a non-negative
dividend (Triton's `%` on a tensor takes its sign; two constexprs need a non-negative divisor too), `tl.cdiv`, loop
variables of `range` with a non-negative start and step, and local names every assignment of which is
non-negative — advances included, so a negative delta on any path makes the store's offset unprovable.

A launched kernel whose author states `in-bounds` for the tensor (TTD010), with its other facts, gets a
descriptor here all the same: the tiles lie where its grid puts them.

Example:

    p = tl.advance(p, (-BM, 0))
    tl.store(p, acc, boundary_check=(0, 1))
    # masked pointers (TTD006): negative rows masked, as the block pointer did

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: negative_advance.
"""
from __future__ import annotations

CODE = "TTD110"
NAME = "negative-store-offset"
SUMMARY = "store offset not provably non-negative (TMA stores trap on negative coordinates)"


def message(dim: int) -> str:
    return f"store offset in dimension {dim} may be negative (NVIDIA TMA stores trap on negative coordinates)"
