"""TTD001 block-pointer-to-descriptor: `tl.make_block_ptr` becomes `tl.make_tensor_descriptor`.

What it does: it matches `name = tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)`, with
positional or keyword arguments and any import alias of `triton.language`.

The rewrite: `name_desc = tl.make_tensor_descriptor(base, [shape], [strides], [block_shape])`. The
descriptor carries no position, so the offsets become plain integers: inline expressions where the
block pointer never moves, `name_off<d>` variables where it is advanced or where control-flow paths
disagree. One descriptor is created per distinct padding (`name_desc_nan` for `padding_option="nan"`).
Contiguity comes from the strides, not from `order`: when the unit stride
is not the last one, the descriptor describes the native layout with the dimensions permuted and every
load/store transposes (TTD003). `order` is only used to pick the unit-stride dimension when no stride
is a literal 1 (a stride passed as a kernel argument equal to 1 is specialised to a constant by the
JIT; any other value then fails loudly at compile time instead of silently reading wrong data).

A block pointer re-created in a loop (`p = tl.make_block_ptr(...)` directly in a `for`/`while` body, FLA style:
offsets that depend on the loop variable) whose base, shape, strides and block shape do not change inside the
loop gets one descriptor, created before the outermost such loop; inside the loop only the offsets remain. On
NVIDIA sm_90+ every device-side descriptor creation writes a 128-byte tensormap and fences, so per-iteration
creation costs real time. Creations under an `if` are not hoisted (their base may be `None` on the other
path), nor are creations whose arguments call anything but pure `triton.language` functions, nor one whose
name another creation gives a handle of another type (Triton would carry the hoisted one through the other's
loop, with two types, and refuse to compile).

Why: Triton 3.9 removes block pointers; a tensor descriptor is what replaces them where it is legal, and on NVIDIA
sm_90+ it loads through the TMA unit.

Example:

    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (pid_m * BM, 0), (BM, BK), (1, 0))
    # becomes
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BM, BK])

Fix safety: safe: a plain descriptor is reported with this code only where nothing it needs rests on the launch or
on a stated fact (a helper's block pointer whose every need is proven, one no access reads); where something does,
the code is TTD009 or TTD010, and where anything else stands in the way the block pointer keeps masked pointers
(TTD006) or is left untouched, with the TTD1xx reason.

Bits: a descriptor's load gives the block pointer's values, and a `tl.dot` of them the same bits (the same
mma.sync/wgmma instructions over the same operands, no rounding to tf32 in either form). What can change is the
order of a sum: the TMA writes the tile to shared memory, from where it is read in the register layout its users
want (a `tl.dot`'s, in fla's KDA kernels), where a pointer load's tile comes in the coalesced layout the load
chose. A `tl.sum` (or `tl.cumsum`, `tl.reduce`, a scan) of anything computed from the tile then adds up in
another order, and fuses other products into FMAs. On the H100 a KDA kernel of fla with stated facts differed
from the original in 1.36 M of 16.8 M elements (at most 6e-7); compiled for sm_90, the statements that round
otherwise are such sums (`tl.sum(b_dk2 * b_k, 1)`, the forward substitution's `tl.sum(b_a[:, None] * b_Ai, 0)`;
benchmarks/experiments/descriptor_dot_bits.py). Such a site says so (`a sum of what it loads may round otherwise
than the original`).

Fixtures: gemm_loop_advance, keyword_args, alias_module, rank1, rank3_batched, rank5, recreate_in_loop,
recreate_in_loop_variant_base (not hoisted), handle_name_reused (not hoisted: the name gets a handle of another
type in a later loop, at whose head a hoisted one would be live).
"""
from __future__ import annotations

from ._migrated import Migrated, words

CODE = "TTD001"
NAME = "block-pointer-to-descriptor"
SUMMARY = "`tl.make_block_ptr` → `tl.make_tensor_descriptor` with integer offsets"


# Notes on a migrated block pointer, in the parentheses after its message (TTD001 and the forms beside it).
TRANSPOSED = "transposed view: loads and stores permute"
HOISTED = "descriptor created once before the loop"
HINTS_DROPPED = "cache/eviction hints dropped"  # by a descriptor's or a compat tile's accesses
# A descriptor load whose tile reaches a sum or a scan (analysis/layout.py's ROUNDING): see "Bits" above.
SUMMED = "a sum of what it loads may round otherwise than the original: the tile comes in another layout"


def message(what: str, stem: str, notes: str) -> str:
    """`what`: the block pointer, in words; `notes`: what follows in parentheses, or nothing."""
    return f"{what} → tensor descriptor `{stem}_desc`{notes}"



@words(order=5)
def migrated(site: Migrated) -> str | None:
    """A migrated site is this rule's where a plain descriptor, what no rule before it words."""
    return message(site.what, site.stem, site.notes)
