"""TTD006 block-pointer-to-masked-pointers: where no descriptor is legal and safe, plain pointer arithmetic.

What it does: it matches a block pointer, or one access of it, that cannot become a descriptor access (the reason
codes TTD1xx on the diagnostic say why), under `--target auto` (the default) or `--target pointer`.

The rewrite has the exact semantics of a block pointer (Triton 3.8's own `_block_ptr._materialize`) and
reads as a maintainer writes it by hand (flash-linear-attention's own migration, #1062):

    o_t = tl.arange(0, BT).to(tl.int64)
    m_t = tl.arange(0, BT) < tl.maximum(T, 0) - i_t * BT
    for i_k in range(tl.cdiv(K, BK)):
        o_k = i_k * BK + tl.arange(0, BK).to(tl.int64)
        p_q = q + tl.cast(i_t * BT, tl.int64) * (H*K) + (o_t[:, None] * (H*K) + o_k[None, :])
        b_q = tl.load(p_q, mask=m_t[:, None] & (tl.arange(0, BK) < tl.maximum(K, 0) - i_k * BK)[None, :])

* The block pointer becomes the pointers its name holds, read by name at each load and store and assigned where it
  was created, or lower in that block, just before the statement that first reads them, as a block pointer
  computes its addresses at the access (rewrite/sink.py: a tile's addresses held in registers through other loads
  cost the suite's batched transpose a quarter of its speed). One that moves holds them without the offsets it
  moves in, and each access adds those (`p + k_off1`; `p + tl.cast(k_off0, tl.int64) * stride` along a stride
  other than the unit one): one number per access, as a block pointer's lowering adds it, and nothing carried
  through the loop; block pointers that move alike share one offset (`off_k`, rewrite/running_offsets.py). A block
  pointer created in its access (`tl.load(tl.make_block_ptr(...))`) reads the shared ranges as a named one does,
  and so does one a helper receives as parts or hands back as offsets.
* Addresses in 64 bits, as a block pointer's, in two parts: the block's corner along its strided dimensions, one
  scalar (`tl.cast(i_t * BT, tl.int64) * stride`), plus the tile from there: the rows inside the block, widened
  once where they are defined, and the unit-stride coordinates with their offset, in 64 bits (a rank-1 tile is
  int32 inside, its offset in the corner). No 64-bit `i_t * BT + tl.arange(...)` row tile is built per element
  and held through a loop (fla's chunk_gla_fwd_kernel_o held one through its K loop: 136 registers on sm_90
  against its block pointers' 103, now 104; benchmarks/results/default-form-registers-2026-12-05.txt). The
  ranges (`o_t`) and bounds (`m_t`) are shared by every access that can read them and moved out of the loops
  that do not change them (rewrite/offsets.py); one read once is written inline.
* A mask only on the dimensions that were boundary-checked: the block's own coordinates against the room left in
  the shape past its corner, `tl.arange(0, BT) < tl.maximum(T, 0) - i_t * BT`, int32 that cannot wrap (`i_t * BT
  + tl.arange(0, BT) < T` passes coordinates past 2^31 - 1, which wrap negative; the clamp keeps a negative shape
  admitting nothing); where the offset may be negative (program ids, `tl.arange`, non-negative loop counters and
  sums and products of those are not), `0 <= coordinate < T` on the 64-bit coordinates as one unsigned
  comparison, `(i_t * BT + o_t).to(tl.uint64) < tl.maximum(T, 0)`: a negative offset wraps past every shape, and a
  negative shape, clamped at 0, admits nothing, as a block pointer's bounds do; two comparisons and an `&` made
  fla's kkt_solve kernel 7-12 % slower than its block pointers (H200; benchmarks/RESULTS.md); a bound
  its literals prove is not checked (nor a block at offset 0 as wide as its shape, `tl.arange(0, BT) < BT`), and a
  dimension of one element at offset 0 adds nothing. Block pointers merged from creations that differ in what the
  mask reads (a compile-time `if` choosing `(V, K)` or `(K, V)`) are masked where each is created (`m_h = m_v[:,
  None] & m_k[None, :]`); parts that differ otherwise are assigned on each path (`p_base`, `p_stride0`; a block
  size as its range, `p_range0 = tl.arange(0, BK)`).
* `other` from the padding option (`""` gives none, `"zero"` 0.0, `"nan"` NaN), and the access's cache, eviction
  and volatile arguments kept. A `padding_option` that is a name (Triton takes the option only at compile time: a
  constexpr, as in Triton's own `test_block_pointer.py`) keeps masked pointers, since a descriptor is created with
  one padding, and the load chooses `other` the same way at compile time: `other=float("nan") if PADDING == "nan"
  else 0.0 if PADDING == "zero" else None` (Triton resolves a conditional expression whose test is a constexpr
  statically; `None` and `""` read as no padding, as on a block pointer). Only an invalid option changes
  behaviour: it is no longer an error. A `boundary_check` chosen the same way (`boundary_check=(1,) if
  BOUNDS_CHECKS_N else ()`) gives one access per variant, in a conditional expression on the same test, each with
  its own mask.

Offsets are the same integers as on the descriptor path, so advances and loops rewrite the same way. Stores
through masked pointers never write outside the checked extent, whatever the row width, and accept any
offset sign.

Why: a descriptor is not legal everywhere a block pointer was (TTD101-TTD113 say where not), and Triton 3.9 has no
block pointers; plain pointer arithmetic with masks is legal everywhere and is what a block pointer compiled to
before 3.9.

Example:

    p = tl.make_block_ptr(x, (M, N), (stride_m, 1), (off_m, 0), (BM, BN), (1, 0))
    b = tl.load(p, boundary_check=(0,))
    # becomes, in outline (offset vectors and masks are shared by the accesses that read them)
    o_m = tl.arange(0, BM).to(tl.int64)
    b = tl.load(x + tl.cast(off_m, tl.int64) * stride_m + (o_m[:, None] * stride_m + tl.arange(0, BN)[None, :]),
                mask=(tl.arange(0, BM) < tl.maximum(M, 0) - off_m)[:, None])  # the columns at offset 0: int32

Fix safety: safe: the addresses, masks and padding are those of Triton 3.8's own block-pointer lowering, and every
fixture runs bit-identical before and after in the interpreter.

Fixtures: shared_offsets, loop_counter_reused, recreate_in_loop, gemm_loop_advance, boundary_subset_refused,
volatile_refused, rank6_refused, int64_offsets_refused, small_last_block_refused, nonunit_stride_refused,
unaligned_inner_offset_refused, negative_advance, constexpr_padding, order_per_branch, constexpr_branch_shapes,
helper_conditional_check.
"""
from __future__ import annotations

from ._migrated import Migrated, words

CODE = "TTD006"
NAME = "block-pointer-to-masked-pointers"
SUMMARY = "block pointer → masked pointer arithmetic with exact block-pointer semantics"


def target_note(tuned: bool) -> str:
    """Why every access is masked pointers where nothing stands in a descriptor's way: the target says so, as
    `migrate tune` measured (kernel-targets) or as the configuration (or `--target`) sets it."""
    if tuned:
        return "`pointer` is this kernel's target (kernel-targets, as `migrate tune` measured)"
    return "`pointer` is the configured target"


# The choice of masked pointers over a launch guard (TTD009) where a descriptor would not be faster: TTD006's own
# reason, which its message states without citing another rule.
NOT_WORTH_IT = ("a descriptor pays off for loads in a loop that feed `tl.dot` through a block pointer created "
                "before the loop; elsewhere masked pointers are as fast (H100) and keep reductions bit-identical")


def message(what: str, notes: str) -> str:
    return f"{what} → masked pointers{notes}"


@words(order=2)
def migrated(site: Migrated) -> str | None:
    """A migrated site is this rule's where its accesses are masked pointers."""
    return message(site.what, site.notes) if site.pointer else None


def for_accesses(every: bool, reasons: dict[str, str]) -> str:
    """The note that says why accesses keep masked pointers (`reasons`: code -> its message; this rule's own
    reason is said without a code: the code cited is always the reason, never the form not chosen)."""
    which = "every access" if every else "some accesses"
    cited = (text if code == CODE else f"{code} {text}" for code, text in sorted(reasons.items()))
    return f"masked pointers for {which}: " + "; ".join(cited)
