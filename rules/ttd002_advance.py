"""TTD002 advance-to-offsets: `tl.advance` becomes integer offset arithmetic.

What it does: it matches `p = tl.advance(p, (dm, dn))`, `q = tl.advance(p, ...)`, and `tl.advance(p, ...)` used
directly as the pointer of a `tl.load`/`tl.store`; the block pointer's own method, `p = p.advance((dm, dn))`
(Triton's other spelling, as course solutions write it), alike, in `@triton.jit` code (a host object's
`.advance()` is no site).

The rewrite: a descriptor has no position, so the block pointer's position lives in integers:
`p_off1 += dn` for a self-advance (dimensions advanced by a literal 0 are left alone), `q_off0 = p_off0 + dm`
for an advance into another name, and `p_desc.load([p_off0 + dm, ...])` for an inline advance. Works for
loop-carried advances, advances inside branches, negative and run-time deltas. A copy, `k_next =
k_ptr`, is an advance by nothing. An advance of `None` (a name that is `None` there, or a parameter every call
passes as `None`: a block-pointer path kept behind a constexpr flag no caller sets) never compiles; it becomes
`tl.static_assert(False, "<why>")`, which Triton rejects there just the same (a load or store with
`boundary_check` on it alike, TTD003).

Why: a descriptor has no position to advance; the offsets a block pointer carried become the integers the
descriptor and masked-pointer accesses take.

Example:

    a = tl.advance(a, (0, BK))
    # becomes
    a_off1 += BK

Fix safety: safe: the integers are the offsets the block pointer held, on every path (branches and loops
included); an advance of `None` stays the compile error it was.

Fixtures: gemm_loop_advance, advance_in_branch, negative_advance, runtime_delta, inline_advance_load,
while_loop, nested_loops, alias_copy, helper_none_only, method_advance.
"""
from __future__ import annotations

from .ttd003_access import never_compiles

CODE = "TTD002"
NAME = "advance-to-offsets"
SUMMARY = "`tl.advance` → integer offset arithmetic"


def on_none(why: str) -> str:
    """An advance of `None` (`why`: ttd003_access's `none_here`, `always_none`)."""
    return never_compiles(f"`tl.advance` where {why}")
