"""TTD007 block-pointer-to-compat: with `--target compat`, block pointers become `triton_migrate.compat` tiles.

What it does: it matches every block pointer, under `--target compat` (for projects that must run on Triton
versions or backends where neither raw descriptors nor raw block pointers are right everywhere).

The rewrite: `p = tl.make_block_ptr(base, shape, strides, offsets, block, order)` becomes
`p_tile = compat.make_tile(base, shape, strides, block, "zero")` (one tile per padding, like descriptors;
with `"emu"` added where the analysis proved a descriptor wrong for it: the TTD1xx reasons);
loads and stores become `compat.load(p_tile, (o0, o1), boundary_check)` and
`compat.store(p_tile, (o0, o1), value, boundary_check)` with the original `boundary_check` (the shim
keeps its exact semantics and falls back to its emulation where a descriptor cannot express it; tiles assigned to
one name that Triton carries through a loop are all the emulation where one of them must be, as a tile's kind is
part of its type: fixtures/carried_tile_compat); advances
are the same integer offsets as on the descriptor path. The module imports the shim as `compat` (the
engine's `Policy.compat_module` names another import path, e.g. a vendored copy). Launch through
`compat.guard` to pick the descriptor or the emulation per launch from the tensors' alignment.
Cache and eviction hints are dropped; `volatile` accesses are refused (TTD104).

Why: a project that must run on Triton versions both before and after 3.9, or on backends without descriptors,
needs one source that is right on each; the shim picks per launch.

Example:

    p = tl.make_block_ptr(x, (M, N), (stride_m, 1), (off_m, 0), (BM, BN), (1, 0))
    # becomes
    p_tile = compat.make_tile(x, (M, N), (stride_m, 1), (BM, BN), "zero")

Fix safety: safe: the shim keeps block-pointer semantics itself and falls back to its emulation where a descriptor
cannot express the access; it refuses what it cannot keep (volatile, rank above 5: TTD104, TTD105).

Fixtures: every fixture, through tests/test_compat_target.py.
"""
from __future__ import annotations

from ._migrated import Migrated, words

CODE = "TTD007"
NAME = "block-pointer-to-compat"
SUMMARY = "block pointer → `triton_migrate.compat` tile (one source for every Triton version)"


CARRIED = ("the emulation, as the tile of the same name that a loop carries from here or to here is: Triton "
           "carries one type through a loop")


def message(what: str, stem: str, notes: str) -> str:
    return f"{what} → compat tile `{stem}_tile`{notes}"



@words(order=1)
def migrated(site: Migrated) -> str | None:
    """A migrated site is this rule's where its accesses are compat tiles."""
    return message(site.what, site.stem, site.notes) if site.compat else None
