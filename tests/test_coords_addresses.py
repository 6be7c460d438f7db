"""The `+coords` forms (`kernel-targets`): masked-pointer addresses from each element's coordinates, the
spelling `migrate tune` may keep for a kernel instead of the default corner + offsets inside the block.
Every fixture migrated with `--target pointer` in that spelling computes the original's bits (what the
masked-pointer form cannot do, a block pointer from two creations, stays as it was, with TTD108)."""

from __future__ import annotations

import pytest

import differential as D
from test_fixtures import before_outputs

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Policy

COORDS = Policy(target="pointer", addresses="coords")
CASES = D.default_policy_fixture_dirs()


@pytest.mark.parametrize("case_dir", CASES, ids=[d.name for d in CASES])
def test_coordinate_addresses_match_the_original(case_dir, tmp_path):
    outcome = migrate_source((case_dir / "before.py").read_text(), policy=COORDS)
    assert outcome.new_source is not None and {d.code for d in outcome.refused} <= {"TTD108"}
    assert "tl.cast(" not in outcome.new_source  # the corner spelling's widening: none of it here
    after = tmp_path / f"{case_dir.name}_coords.py"
    after.write_text(outcome.new_source)
    problems = D.compare_runs(before_outputs(case_dir.name), D.run_fixture(case_dir, str(after)),
                              f"{case_dir.name} coords")
    assert not problems, "\n".join(problems)
