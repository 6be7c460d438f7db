"""Block pointers of one name that meet where control flow joins (analysis.join_pointers): what is merged,
what is kept apart, and what is still refused. The fixtures name_reuse_rank, order_per_branch and
constexpr_branch_shapes run the migrated cases bit for bit; these are the limits around them."""

from __future__ import annotations

import pytest

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Policy

HEAD = "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
TWO_RANKS = HEAD + """def k(x_ptr, N, s, BM: tl.constexpr, BN: tl.constexpr, ROW: tl.constexpr):
    if ROW:
        p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    else:
        p = tl.make_block_ptr(x_ptr, (N, N), (s, 1), (0, 0), (BM, BN), (1, 0))
    v = tl.load(p, boundary_check=(0,))
    tl.store(x_ptr, tl.sum(v))
"""
TWO_ORDERS = HEAD + """def k(x_ptr, N, s, BM: tl.constexpr, BN: tl.constexpr, T: tl.constexpr):
    if T:
        p = tl.make_block_ptr(x_ptr, (N, N), (s, 1), (0, 0), (BM, BN), (1, 0))
    else:
        p = tl.make_block_ptr(x_ptr, (N, N), (1, s), (0, 0), (BM, BN), (0, 1))
    v = tl.load(p, boundary_check=(0, 1))
    tl.store(x_ptr, tl.sum(tl.sum(v, axis=1), axis=0))
"""


def codes(outcome) -> list[tuple[int, str, bool]]:
    return [(d.line, d.code, d.fixed) for d in outcome.diagnostics]


def test_a_value_of_two_ranks_that_is_read_is_still_refused():
    """Kept apart at the join only while dead: the load reads both ranks, so both creations are refused."""
    outcome = migrate_source(TWO_RANKS)
    assert codes(outcome) == [(8, "TTD109", False), (10, "TTD109", False)]
    assert all("different ranks on different paths (give each its own name)" in d.message
               for d in outcome.diagnostics)
    assert outcome.new_source in (None, TWO_RANKS)


def test_a_value_of_two_ranks_never_read_after_the_join_is_migrated():
    """The same creations, each read in its own branch only: nothing reads the merged value."""
    source = TWO_RANKS.replace("    v = tl.load(p, boundary_check=(0,))\n    tl.store(x_ptr, tl.sum(v))\n", "") \
        .replace("(0,), (BN,), (0,))\n", "(0,), (BN,), (0,))\n        tl.store(p, tl.zeros([BN], tl.float32), "
                 "boundary_check=(0,))\n") \
        .replace("(BM, BN), (1, 0))\n", "(BM, BN), (1, 0))\n        tl.store(p, tl.zeros([BM, BN], tl.float32), "
                 "boundary_check=(0, 1))\n")
    outcome = migrate_source(source)
    assert [c for _, c, fixed in codes(outcome) if not fixed] == []
    assert "make_block_ptr" not in outcome.new_source


@pytest.mark.parametrize("target, fixed", [("auto", True), ("pointer", True), ("descriptor", False)])
def test_orders_that_differ_by_path_leave_only_masked_pointers(target, fixed):
    """One descriptor has one contiguous dimension: `--target descriptor` refuses, saying why."""
    outcome = migrate_source(TWO_ORDERS, policy=Policy(target=target))
    assert [f for _, _, f in codes(outcome)] == [fixed, fixed]
    reason = "the block pointers merged here have different contiguous dimensions (`order`)"
    assert all(reason in d.message for d in outcome.diagnostics)
    if fixed:
        assert "make_tensor_descriptor" not in outcome.new_source and "make_block_ptr" not in outcome.new_source
    else:
        assert all(d.code == "TTD109" for d in outcome.diagnostics)
