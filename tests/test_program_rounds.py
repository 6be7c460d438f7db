"""How often the program's rounds analyse each function (issue 7: on a Triton-heavy tree the rounds were a
third of a check). A function that neither calls a helper nor is called as one is analysed once; the
others once per round that can change them, and the analysis alone stops at the first block pointer that
crosses a call. What the rounds find must not change: the migration of the same program is checked too."""

from __future__ import annotations

from collections import Counter

import pytest

from triton_migrate import engine
from triton_migrate.engine import migrate_source
from triton_migrate.policy import Policy, Statement
from triton_migrate.rules import ttd008_helper_parts

HEAD = """import triton
import triton.language as tl
"""
HELPER = """

@triton.jit
def load_row(p):
    return tl.load(p, boundary_check=(0,))
"""
KERNEL = """

@triton.jit
def kernel(x_ptr, N, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    y = {}
"""
ALONE = """

@triton.jit
def alone(z_ptr, N, BN: tl.constexpr):
    z = tl.make_block_ptr(z_ptr, (N,), (1,), (0,), (BN,), (0,))
    w = tl.load(z, boundary_check=(0,))
"""


@pytest.fixture
def analysed(monkeypatch) -> Counter:
    counts = Counter()

    class Counting(engine.FunctionAnalysis):  # complete analyses (one that meets a crossing stops there)
        def __init__(self, function, *args) -> None:
            super().__init__(function, *args)
            counts[function.name.value] += 1

    monkeypatch.setattr(engine, "FunctionAnalysis", Counting)
    return counts


@pytest.mark.parametrize("rewrite", [False, True])
@pytest.mark.parametrize("alone_first", [False, True])
def test_each_function_is_analysed_only_as_often_as_the_rounds_need(analysed, rewrite, alone_first):
    program = HELPER + KERNEL.format("load_row(x)")
    outcome = migrate_source(HEAD + (ALONE + program if alone_first else program + ALONE), verify=False,
                             rewrite=rewrite)

    kernel_line = 12 + 6 * alone_first
    assert {d.code for d in outcome.diagnostics if d.line == kernel_line} == {ttd008_helper_parts.CODE}
    assert all(d.fixed for d in outcome.diagnostics)
    # The two rounds a block pointer passed to a helper needs; once for the kernel that passes none.
    assert analysed == {"load_row": 2, "kernel": 2, "alone": 1}


def test_a_program_without_crossings_is_analysed_once_per_function(analysed):
    migrate_source(HEAD + KERNEL.format("tl.load(x, boundary_check=(0,))") + ALONE, verify=False)

    assert analysed == {"kernel": 1, "alone": 1}


REFUSED_BELOW_A_CHAIN = """import types

import triton
import triton.language as tl

checks = types.ModuleType("checks")
checks.load = (0, 1)


@triton.jit
def step_on(p, d0, d1):
    p = tl.advance(p, (d0, d1))
    return p


@triton.jit
def step_through(p, d0, d1):
    return step_on(p, d0, d1)


@triton.jit
def kernel(x_ptr, y_ptr, S0, S1, sx0, sx1, sy0, sy1, n_iter, B0: tl.constexpr, B1: tl.constexpr):
    acc = tl.zeros((B0, B1), dtype=tl.float32)
    p = tl.make_block_ptr(x_ptr, (S0, S1), (sx0, sx1), (0, 0), (B0, B1), (1, 0))
    i1 = 0
    while i1 < n_iter:
        for i2 in range(2):
            q = tl.make_block_ptr(x_ptr, (S0, S1), (sx0, sx1), (i2 * B0, -B1), (B0, B1), (1, 0))
            acc += tl.load(q, boundary_check=(1,))
        p = step_through(p, -B0, B1)
        i1 += 1
    acc += tl.load(p, boundary_check=checks.load, padding_option="zero")
    r = tl.make_block_ptr(y_ptr, (S0, S1), (sy0, sy1), (0, 0), (B0, B1), (1, 0))
    tl.store(r, acc, boundary_check=(0, 1))
"""


@pytest.mark.parametrize("target", ["auto", "compat"])
def test_a_helper_below_a_refused_chain_keeps_its_block_pointer(target):
    """Fuzz seed 30049 (issue 43): the kernel's `p` is refused (its `boundary_check` is an attribute), so
    `step_through` keeps its parameter and passes `step_on` a block pointer it does not track. An earlier round
    had settled `step_on`'s parts from it; left so, `step_on` took parts nobody passed (not a fixed point)."""
    outcome = migrate_source(REFUSED_BELOW_A_CHAIN, policy=Policy(target=target))
    assert "def step_on(p, d0, d1):" in outcome.new_source
    assert {d.code for d in outcome.refused} == {"TTD201"}


SLOW_TO_SETTLE = """import triton
import triton.language as tl


@triton.jit
def take_step4(p, d0, d1, d2):
    return tl.load(p, boundary_check=(0, 1, 2), padding_option="nan"), tl.advance(p, (d0, d1, d2))


@triton.jit(noinline=True)
def step_on(p, d0, d1, d2):
    p = tl.advance(p, (d0, d1, d2))
    return p


@triton.jit(noinline=True)
def step_through(p, d0, d1, d2):
    return step_on(p, d0, d1, d2)


@triton.jit
def shift(p, d0, d1, d2):
    return p.advance((d0, d1, d2))


@triton.jit
def kernel(x_ptr, y_ptr, S0, S1, S2, sx0, sx1, sx2, sy0, sy1, sy2, step, n_iter, flag, B0: tl.constexpr, B1: tl.constexpr, B2: tl.constexpr, FLAG: tl.constexpr, D1: tl.constexpr, D2: tl.constexpr, BCL: tl.constexpr, BCS: tl.constexpr):
    pid = tl.program_id(0)
    acc = tl.zeros((B0, B1, B2), dtype=tl.float32)
    p = tl.make_block_ptr(x_ptr, (S0, S1, S2), (sx0, sx1, sx2), (-1, S1, pid * B2 + 1), (B0, B1, B2), (2, 1, 0))
    o = tl.make_block_ptr(y_ptr, (S0, S1, S2), (sy0, sy1, sy2), (0, pid * B1 + 1, S2), (B0, B1, B2), (0, 2, 1))
    i1 = 0
    while i1 < n_iter:
        tk, p = take_step4(p, 0, B1, 0)
        acc += tl.max(tk, axis=2, keep_dims=True)
        if FLAG:
            p = step_through(p, B0, B1, -B2)
            acc += tl.load(p, boundary_check=BCL, padding_option="nan")
            acc += tl.load(shift(p, B0, -B1, -B2), boundary_check=BCL, padding_option="nan")
        p = tl.advance(p, (B0, -B1, -B2))
        i1 += 1
    pq = (p, p.advance((B0, -B1, -B2)))
    a, b = pq
    acc += tl.load(pq[1], boundary_check=BCL)
    acc += tl.load(a, boundary_check=BCL, padding_option="zero")
    acc += tl.load(p, boundary_check=(0, 1, 2), padding_option="zero")
    r = tl.make_block_ptr(y_ptr, (S0, S1, S2), (sy0, sy1, sy2), (pid * B0, 0, 0), (B0, B1, B2), (0, 2, 1))
    tl.store(r, acc, boundary_check=BCS)
"""  # noqa: E501


def test_proofs_handed_back_round_a_loop_of_helpers_settle():
    """Fuzz seed 30174 (issue 43): what is proven about the offsets the helpers hand back (`take_step4`,
    `step_through` -> `step_on`, `shift`) weakens one step per round, round the kernel's loop: it settles after
    some 36 rounds, past the 16 MAX_ROUNDS allowed (`block pointers across calls did not settle`)."""
    facts = tuple(Statement(fact, "the fuzzer's launch") for fact in ("aligned", "allocator", "contiguous",
                                                                        "aligned-rows"))
    outcome = migrate_source(SLOW_TO_SETTLE, policy=Policy(assume=facts))
    assert {d.code for d in outcome.refused} == {"TTD116", "TTD201"}


NEGATIVE_HANDED_BACK = """import triton
import triton.language as tl


@triton.jit
def walk(p, d0, REVERSE: tl.constexpr):
    if REVERSE:
        return tl.advance(p, (-d0,))
    return tl.advance(p, (d0,))


@triton.jit
def kernel(x_ptr, y_ptr, S0, B0: tl.constexpr, FLAG: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (S0,), (1,), (0,), (B0,), (0,))
    p = walk(p, -B0, FLAG)
    tl.store(y_ptr + tl.arange(0, B0), tl.load(p, boundary_check=(0,)))
"""


def test_offsets_handed_back_are_proven_after_the_advance_in_the_return():
    """Fuzz seed 30350 (issue 43): `walk` hands back `p_start0 + d0` with `d0 = -B0`. What it proved was of
    `p_start0`, from before the advance (nonnegative), so the caller's mask had no lower bound and the load read
    the element below the tensor; the mask must compare unsigned (a negative offset is out of bounds)."""
    source = migrate_source(NEGATIVE_HANDED_BACK).new_source
    assert "mask=(p_off0 + tl.arange(0, B0).to(tl.int64)).to(tl.uint64)" in source, source
