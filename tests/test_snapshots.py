"""Each fixture's after.py and report are the reviewed expectation (snapshots, as in ruff): the engine
must reproduce them exactly, agree with the fixture's declared outcome, and be a fixed point."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import differential as D
import pytest
from test_line_length import tool
from update_snapshots import migrate_fixture, report

FIXTURE_DIRS = D.fixture_dirs()


@pytest.mark.parametrize("case_dir", FIXTURE_DIRS, ids=[d.name for d in FIXTURE_DIRS])
def test_snapshot(case_dir):
    source = (case_dir / "before.py").read_text()
    outcome = migrate_fixture(case_dir, source)
    migrated = outcome.new_source if outcome.new_source is not None else source
    assert migrated == (case_dir / "after.py").read_text()
    assert report(outcome) == (case_dir / "expected_report.txt").read_text()


@pytest.mark.parametrize("case_dir", FIXTURE_DIRS, ids=[d.name for d in FIXTURE_DIRS])
def test_declared_outcome(case_dir):
    outcome = migrate_fixture(case_dir, (case_dir / "before.py").read_text())
    migrated = [d for d in outcome.diagnostics if d.fixed]
    expect = D.fixture_config(case_dir)["expect"]
    assert outcome.diagnostics, "every fixture has block-pointer sites"
    assert bool(migrated) == (expect != "refuse")
    # A helper kept without the user's opt-in to remove it (TTD011) still holds its block pointer, but no
    # migrated code calls it: `migrate` means every site the fixture's kernels run is migrated.
    assert bool([d for d in outcome.refused if d.code != "TTD011"]) == (expect != "migrate")
    assert (outcome.new_source is not None) == (expect != "refuse")


@pytest.mark.parametrize("case_dir", FIXTURE_DIRS, ids=[d.name for d in FIXTURE_DIRS])
def test_second_run_changes_nothing_and_reports_only_refusals(case_dir):
    first = migrate_fixture(case_dir, (case_dir / "before.py").read_text())
    second = migrate_fixture(case_dir, (case_dir / "after.py").read_text())
    assert second.new_source is None
    assert [d.code for d in second.diagnostics] == [d.code for d in first.refused]


def test_no_fixture_gains_a_pyflakes_finding():
    """What the engine writes passes pyflakes wherever the source did: no assignment left unread (F841, a
    merged block pointer's shape that an unchecked load never reads), no name undefined or unused."""
    def findings(name: str) -> Counter:
        paths = [str(d / name) for d in FIXTURE_DIRS]
        done = subprocess.run([tool("ruff"), "check", "--isolated", "--no-cache", "--select", "F", "--exit-zero",
                               "--output-format", "json", *paths], capture_output=True, text=True, check=True)
        return Counter((Path(f["filename"]).parent.name, f["code"]) for f in json.loads(done.stdout))

    assert findings("after.py") - findings("before.py") == Counter()
