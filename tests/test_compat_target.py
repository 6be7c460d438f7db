"""`--target compat`: every fixture migrated onto the triton_migrate.compat shim computes the original's
bits in the Triton 3.8 interpreter, and on Triton 3.9 where block pointers are gone."""

from __future__ import annotations

import differential as D
import pytest
from test_fixtures import before_outputs
from update_snapshots import migrate_fixture

from triton_migrate.policy import Policy

COMPAT = Policy(target="compat")
CANDIDATES = D.default_policy_fixture_dirs()
OUTCOMES = {d.name: migrate_fixture(d, (d / "before.py").read_text(), policy=COMPAT) for d in CANDIDATES}
# volatile, rank above 5, a user's mask, a constexpr padding
UNSUPPORTED_BY_THE_SHIM = {"TTD104", "TTD105", "TTD115", "TTD117"}


def refused(outcome) -> set[str]:
    """The codes of the sites left that a kernel runs: a helper kept unopted (TTD011) is called by none."""
    return {d.code for d in outcome.refused if d.code != "TTD011"}


CASES = [d for d in CANDIDATES if not refused(OUTCOMES[d.name])]


def test_compat_target_refuses_only_what_the_shim_cannot_do():
    left = {name: refused(outcome) for name, outcome in OUTCOMES.items() if refused(outcome)}
    assert left and all(codes <= UNSUPPORTED_BY_THE_SHIM for codes in left.values()), left


def test_a_tile_of_rank_4_or_5_keeps_masked_pointers_and_says_why():
    """Any compat tile may become the shim's emulation (where its Triton cannot make the descriptor), which has
    ranks 1 to 3: rank5's tiles, whose descriptor nothing rules out, keep masked pointers with TTD105 as the
    reason (a rank-4 tile emitted as "emu" raised in the fuzzer, seed 27)."""
    diagnostics = OUTCOMES["rank5"].diagnostics
    assert diagnostics and all(d.code == "TTD006" and "TTD105 rank above 3 under `--target compat`" in d.message
                               for d in diagnostics), [d.message for d in diagnostics]


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    """Each fixture's before.py migrated with --target compat, written next to a copy of its harness."""
    root = tmp_path_factory.mktemp("compat_target")
    paths = {}
    for case_dir in CASES:
        outcome = OUTCOMES[case_dir.name]
        # TTD008: a block pointer handed to a helper travels as its parts, the helper makes the compat tile; code
        # that never compiles, in any target (a block-pointer use of `None`, a call to a function that nothing
        # binds), is a compile-error, and what it passes on is left as masked pointers; a dead helper is kept (TTD011)
        never_compiles = any(d.decision == "compile-error" for d in outcome.diagnostics)
        # a tile of rank 4 or 5 with no legal descriptor is masked pointers (TTD006): the shim emulates ranks 1 to 3
        assert outcome.new_source is not None and (never_compiles or all(d.code in ("TTD006", "TTD007", "TTD008",
                                                                                    "TTD011")
                                                                         for d in outcome.diagnostics))
        paths[case_dir.name] = root / f"{case_dir.name}_compat.py"
        paths[case_dir.name].write_text(outcome.new_source)
        for module in D.fixture_config(case_dir).get("modules", []):  # imported by name, from beside it
            (root / module).write_text((case_dir / module).read_text())
    return paths


@pytest.mark.parametrize("case_dir", CASES, ids=[d.name for d in CASES])
def test_compat_target_matches_original_on_38(case_dir, migrated):
    after = D.run_fixture(case_dir, str(migrated[case_dir.name]))
    problems = D.compare_runs(before_outputs(case_dir.name), after, f"{case_dir.name} compat (3.8)")
    assert not problems, "\n".join(problems)


def test_compat_target_matches_original_on_39(migrated):
    jobs = [(d.name, d, migrated[d.name]) for d in CASES]
    results = D.run_after_on_39([], extra_jobs=jobs)
    assert results["__triton_version__"].startswith("3.9")
    problems = []
    for case_dir in CASES:
        got = results[case_dir.name]
        if isinstance(got, str):
            problems.append(f"{case_dir.name}: failed on 3.9:\n{got[-600:]}")
        else:
            problems += D.compare_runs(before_outputs(case_dir.name), got, f"{case_dir.name} compat (3.9)")
    assert not problems, "\n".join(problems)
