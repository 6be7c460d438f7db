"""Issue 34: the block-pointer fuzzer (tests/fuzz/) — a bounded, seeded run, and tests of the fuzzer itself.

The long run is `python tests/fuzz/campaign.py` (its figures: benchmarks/RESULTS.md). The seeded run here keeps
to seeds whose kernels pass today; the classes the others show are findings (see KNOWN_FAILING), not hidden:
every feature of the grammar stays in the seeds that run.
"""

from __future__ import annotations

import collections
import re

import pytest
from fuzz import grammar, invalid, runner

# Seeds of grammar.generate that pass in every policy today (measured: 30 kernels, about 60 s on 2 busy cores).
SEEDS = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14, 16, 17, 18, 19, 21, 22, 25, 28, 30, 31, 32, 33, 34, 35, 36,
         39, 40]
# Seeds below 41 left out, and why (the fuzzer's findings; the lead decides): rank 4-5 kernels under
# --target compat (the shim emulates ranks 1-3 only), descriptors for blocks under 16 bytes on stated facts.
KNOWN_FAILING = {0: "compat rank", 13: "facts narrow", 15: "facts narrow", 20: "compat rank", 23: "compat rank",
                 24: "compat rank", 26: "compat rank", 27: "compat rank", 29: "facts narrow", 37: "compat rank",
                 38: "compat rank, facts narrow"}
INVALID_SEEDS = 40


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    checker = runner.Runner(str(tmp_path_factory.mktemp("fuzz")))
    yield checker
    checker.worker.close()


def test_seeded_kernels_match_in_every_policy_on_38_and_39(work):
    programs = [grammar.generate(seed) for seed in SEEDS]
    verdicts = work.check(programs)
    failures = [f"seed {seed}: {v.klass()}\n{v.detail[-1500:]}" for seed, vs in zip(SEEDS, verdicts) for v in vs
                if v.failed]
    assert not failures, "\n\n".join(failures)
    outcomes = collections.Counter(v.outcome for vs in verdicts for v in vs)
    assert outcomes["identical"] >= 12, outcomes  # the run compares migrated kernels, not only refusals
    assert len(verdicts) * 4 == sum(outcomes.values())


REQUIRED = ({f"rank:{r}" for r in range(1, 6)} | grammar.all_orders(1) | grammar.all_orders(2)
            | grammar.all_orders(3) | grammar.all_orders(4)
            | {"bc:literal", "bc:constexpr", "bc:attribute", "bc:subset", "bc:none",
               "padding:none", "padding:zero", "padding:nan", "start:negative", "start:past-end",
               "create:top", "create:loop", "create:branch", "create:both-branches-constexpr",
               "create:both-branches-runtime", "create:helper", "guard:zero-dim", "guard:zero-dim-launched-0",
               "advance:function", "advance:method", "advance:loop", "advance:branch", "advance:inline",
               "helper:take", "helper:advance", "helper:advance_assign", "helper:copy", "helper:return",
               "helper:return_advance", "helper:take_advance", "helper:store", "helper:inline", "helper:noinline",
               "helper:two-levels", "tuple", "store:row-padding", "reduce:sum", "reduce:max", "reduce:cumsum",
               "transpose", "layout:permuted", "make:keywords"})


def test_the_generator_covers_every_feature():
    seen = collections.Counter(f for seed in range(600) for f in grammar.generate(seed).features)
    assert not REQUIRED - set(seen), sorted(REQUIRED - set(seen))
    assert all(seen[f] >= 5 for f in REQUIRED if not f.startswith("order:")), seen
    assert len(grammar.all_orders(5) & set(seen)) >= 80  # of 120; the campaign draws them all
    in_the_run = set().union(*(grammar.generate(seed).features for seed in SEEDS))
    assert {"bc:constexpr", "bc:attribute", "advance:method", "tuple", "guard:zero-dim", "transpose",
            "helper:noinline", "create:both-branches-constexpr"} <= in_the_run


def test_the_same_choices_give_the_same_program():
    program = grammar.generate(7)
    assert grammar.generate(prefix=program.choices) == program
    assert grammar.generate(prefix=[]).source != program.source  # all zeros: the simplest kernel


# A kernel whose rows past the end are masked off by the migrated kernel: reading one more row reads a marker.
PLANTED = '''import triton
import triton.language as tl


@triton.jit
def kernel(x_ptr, y_ptr, S0, S1, sx0, sx1, sy0, sy1, step, n_iter, flag, B0: tl.constexpr, B1: tl.constexpr,
           FLAG: tl.constexpr, D1: tl.constexpr, D2: tl.constexpr, BCL: tl.constexpr, BCS: tl.constexpr):
    pid = tl.program_id(0)
    p = tl.make_block_ptr(x_ptr, (S0, S1), (sx0, sx1), (pid * B0, 0), (B0, B1), (1, 0))
    acc = tl.load(p, boundary_check=(0, 1), padding_option="zero")
    r = tl.make_block_ptr(y_ptr, (S0, S1), (sy0, sy1), (pid * B0, 0), (B0, B1), (1, 0))
    tl.store(r, acc, boundary_check=(0, 1))
'''
PLANTED_LAUNCH = {"rank": 2, "grid": 2,
                  "tensors": {t: {"shape": [5, 4], "perm": [0, 1], "margins": [2, 4]} for t in ("x", "y")},
                  "scalars": {"step": 0, "n_iter": 0, "flag": 0},
                  "constexprs": {"B0": 4, "B1": 4, "FLAG": 0, "D1": 0, "D2": 0, "BCL": (), "BCS": ()}}


def planted_program() -> grammar.Program:
    return grammar.Program(PLANTED, PLANTED, PLANTED_LAUNCH, (), frozenset(), [])


def test_the_planted_program_passes_unplanted(work):
    assert [v.outcome for v in work.check([planted_program()], "pointer")[0]] == ["identical"]


def test_a_mask_changed_in_the_migrated_kernel_is_caught_on_38(work, monkeypatch):
    real = runner.migrate

    def loosened(source, policy):
        outcome, detail, new_source = real(source, policy)
        assert re.search(r" < S0\b", new_source), new_source
        return outcome, detail, re.sub(r" < S0\b", " <= S0", new_source, count=1)

    monkeypatch.setattr(runner, "migrate", loosened)
    [verdict] = work.check([planted_program()], "pointer")[0]
    assert verdict.outcome == "diff-3.8", verdict
    assert "cells differ" in verdict.detail


def test_a_difference_only_39_shows_is_caught(work, monkeypatch):
    """The 3.9 run is compared, not only made: a kernel wrong on 3.9 alone (one output cell) is flagged."""
    real = runner.migrate
    wrong_on_39 = '''
if triton.__version__.startswith("3.9"):
    _kernel = kernel

    class _Planted:
        def __getitem__(self, grid):
            def launch(*args, **kwargs):
                _kernel[grid](*args, **kwargs)
                args[1][0, 0] = 12345.0
            return launch

    kernel = _Planted()
'''

    def planted(source, policy):
        outcome, detail, new_source = real(source, policy)
        return outcome, detail, new_source + wrong_on_39

    monkeypatch.setattr(runner, "migrate", planted)
    [verdict] = work.check([planted_program()], "pointer")[0]
    assert verdict.outcome == "diff-3.9", verdict


def test_a_write_into_the_margin_is_caught(work, monkeypatch):
    """A store that lost its boundary check writes past the tensor's last row: the sentinels there show it."""
    unchecked = PLANTED.replace("tl.store(r, acc, boundary_check=(0, 1))", "tl.store(r, acc)")
    assert unchecked != PLANTED
    monkeypatch.setattr(runner, "migrate", lambda source, policy: ("migrated", "", unchecked))
    [verdict] = work.check([planted_program()], "pointer")[0]
    assert verdict.outcome == "diff-3.8", verdict
    assert "[y]" in verdict.detail


def test_invalid_programs_are_rejected_by_triton(tmp_path):
    kinds = collections.Counter()
    for seed in range(INVALID_SEEDS):
        source, kind, launch = invalid.generate(seed)
        path = tmp_path / f"invalid_{seed}.py"
        path.write_text(source)
        result = runner.run_file(path, launch)
        assert isinstance(result, str), f"Triton 3.8 ran an 'invalid' kernel ({kind}):\n{source}"
        kinds[kind] += 1
    assert set(kinds) == set(invalid.KINDS), kinds


# Invalid seeds the codemod refuses today; the others are findings (an internal KeyError for a
# make_block_ptr call without its `order`, and calls migrated as if they were valid).
INVALID_FINDINGS = {5: "boundary-out-of-range migrated", 6: "mask-with-block-pointer migrated",
                    9: "boundary-out-of-range migrated", 20: "missing-argument KeyError",
                    27: "missing-argument KeyError", 29: "boundary-out-of-range migrated",
                    30: "order-not-permutation migrated", 31: "mask-with-block-pointer migrated",
                    39: "missing-argument migrated"}
REFUSED_INVALID = [seed for seed in range(INVALID_SEEDS) if seed not in INVALID_FINDINGS]


def test_invalid_programs_are_refused():
    results = {seed: invalid.check(invalid.generate(seed)) for seed in REFUSED_INVALID}
    assert all(r.startswith("refused") for r in results.values()), results
