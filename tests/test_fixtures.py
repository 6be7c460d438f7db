"""Differential tests over fixtures/: before.py vs after.py (Triton 3.8 interpreter,
bit for bit), after.py on Triton 3.9 for fully migrated fixtures, before.py vs a torch
reference, fixture metadata, and self-tests showing the comparison can fail."""

from __future__ import annotations

import functools
from pathlib import Path

import differential as D
import pytest
import torch

FIXTURE_DIRS = D.fixture_dirs()
IDS = [d.name for d in FIXTURE_DIRS]
WITH_AFTER = [d for d in FIXTURE_DIRS if (d / "after.py").is_file()]
ON_39 = [d for d in WITH_AFTER if D.fixture_config(d)["runs_on_39"]]
WITH_REFERENCE = [d for d in FIXTURE_DIRS if hasattr(D.load_harness(d), "reference")]
DATA = Path(__file__).resolve().parent / "data"


@functools.cache
def before_outputs(name: str):
    return D.run_fixture(D.FIXTURES / name, "before.py")


# ----------------------------------------------------------------------------- metadata
@pytest.mark.parametrize("case_dir", FIXTURE_DIRS, ids=IDS)
def test_fixture_metadata(case_dir):
    assert (case_dir / "README.md").is_file(), "README.md missing"
    assert (case_dir / "fixture.toml").is_file(), "fixture.toml missing"
    cfg = D.fixture_config(case_dir)
    assert isinstance(cfg["runs_on_39"], bool)
    assert cfg["expect"] in ("migrate", "refuse", "partial")
    if cfg["expect"] != "migrate" or "loud_error" in cfg:
        assert not cfg["runs_on_39"], "only fully migrated fixtures that run can run on 3.9"
    harness = D.load_harness(case_dir)
    names = [n for n, _ in harness.cases()]
    assert len(names) >= 2 and len(set(names)) == len(names)


# ----------------------------------------------------------------------------- 3.8 before vs reference
@pytest.mark.parametrize("case_dir", WITH_REFERENCE, ids=[d.name for d in WITH_REFERENCE])
def test_before_matches_reference(case_dir):
    harness = D.load_harness(case_dir)
    out = before_outputs(case_dir.name)
    msgs = []
    for name, inputs in harness.cases():
        msgs += D.compare_reference(out[name], harness.reference(inputs), f"{case_dir.name}:{name}")
    assert not msgs, "\n".join(msgs)


# ----------------------------------------------------------------------------- 3.8 before vs after
@pytest.mark.parametrize("case_dir", WITH_AFTER, ids=[d.name for d in WITH_AFTER])
def test_after_matches_before(case_dir):
    loud_error = D.fixture_config(case_dir).get("loud_error")
    if loud_error is not None:  # a limitation the codemod cannot see statically: it must fail loudly
        with pytest.raises(Exception, match=loud_error):
            D.run_fixture(case_dir, "after.py")
        return
    after = D.run_fixture(case_dir, "after.py")
    msgs = D.compare_runs(before_outputs(case_dir.name), after, f"{case_dir.name} before(3.8) vs after(3.8)")
    assert not msgs, "\n".join(msgs)


# ----------------------------------------------------------------------------- 3.9 after vs 3.8 before
WRONG_CASE = "gemm_loop_advance"
WRONG_KEY = "__wrong_after_example__"


@pytest.fixture(scope="session")
def triton39_results():
    """One subprocess on Triton 3.9 for every fully migrated fixture (plus the wrong example)."""
    res = D.run_after_on_39(ON_39, extra_jobs=[(WRONG_KEY, D.FIXTURES / WRONG_CASE, DATA / "wrong_after_example.py")])
    assert res["__triton_version__"].startswith("3.9")
    return res


@pytest.mark.parametrize("case_dir", ON_39, ids=[d.name for d in ON_39])
def test_after_on_triton39_matches_before(case_dir, triton39_results):
    got = triton39_results[case_dir.name]
    assert not isinstance(got, str), f"after.py failed on Triton 3.9:\n{got}"
    msgs = D.compare_runs(before_outputs(case_dir.name), got, f"{case_dir.name} before(3.8) vs after(3.9)")
    assert not msgs, "\n".join(msgs)


# ----------------------------------------------------------------------------- self-tests
def test_compare_detects_one_bit_flip():
    a = torch.randn(5, 7)
    b = a.clone()
    b.view(torch.int32)[3, 4] ^= 1  # lowest mantissa bit
    assert D.compare_outputs({"y": a}, {"y": a.clone()}) == []
    msgs = D.compare_outputs({"y": a}, {"y": b}, "t")
    assert len(msgs) == 1 and "(3, 4)" in msgs[0] and "1 of 35" in msgs[0]


def test_compare_detects_sentinel_and_nan_payload():
    import sys
    sys.path.insert(0, str(D.FIXTURES))
    from _harness_util import padded

    buf_a, view_a = padded((3, 5))
    view_a.fill_(1.0)
    buf_b = buf_a.clone()
    buf_b[0, 0] = 0.0  # a write into a sentinel cell
    msgs = D.compare_outputs({"y": buf_a}, {"y": buf_b})
    assert len(msgs) == 1 and "(0, 0)" in msgs[0]
    buf_c = buf_a.clone()
    buf_c[0, 1] = float("nan")  # NaN, but not the sentinel's payload
    assert D.compare_outputs({"y": buf_a}, {"y": buf_c}), "a NaN written over a sentinel must show"
    computed_a, computed_b = buf_a.clone(), buf_a.clone()
    view_index = (2, 2)  # inside the logical view
    computed_a[view_index] = float("nan")
    computed_b.view(torch.int32)[view_index] = 0x7FF77FF7  # TMA's NaN fill: another payload, still NaN
    assert D.compare_outputs({"y": computed_a}, {"y": computed_b}) == []
    assert D.compare_outputs({"y": buf_a}, {"y": buf_a.clone()}) == []  # NaN == NaN bitwise
    assert D.compare_outputs({"y": buf_a}, {"z": buf_a})  # missing output
    assert D.compare_outputs({"y": buf_a}, {"y": buf_a.double()})  # dtype change


def test_wrong_migration_is_caught():
    """A hand-written, deliberately wrong descriptor version of a fixture must fail (3.8)."""
    case_dir = D.FIXTURES / WRONG_CASE
    wrong = D.run_fixture(case_dir, str(DATA / "wrong_after_example.py"))
    msgs = D.compare_runs(before_outputs(case_dir.name), wrong, "wrong")
    assert msgs, "the harness did not notice a wrong migration"
    assert any("cells differ" in m and "first at index" in m for m in msgs)


def test_wrong_migration_is_caught_on_triton39(triton39_results):
    """... and through the Triton 3.9 subprocess path as well."""
    got = triton39_results[WRONG_KEY]
    assert not isinstance(got, str), got
    assert D.compare_runs(before_outputs(WRONG_CASE), got, "wrong(3.9)")
