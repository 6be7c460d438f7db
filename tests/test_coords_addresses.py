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


# A loop over chunks, FLA's style: `p_x` re-created in every iteration, `p_w` created before the loop and moved.
CHUNKS = """\
import triton
import triton.language as tl


@triton.jit
def chunks(x_ptr, w_ptr, y_ptr, T, D, stride_t, BT: tl.constexpr, BD: tl.constexpr):
    acc = tl.zeros((BT, BD), dtype=tl.float32)
    p_w = tl.make_block_ptr(w_ptr, (T, D), (stride_t, 1), (0, 0), (BT, BD), (1, 0))
    for i_t in range(tl.cdiv(T, BT)):
        p_x = tl.make_block_ptr(x_ptr, (T, D), (stride_t, 1), (i_t * BT, 0), (BT, BD), (1, 0))
        acc += tl.load(p_x, boundary_check=(0, 1)) * tl.load(p_w, boundary_check=(0, 1))
        p_w = tl.advance(p_w, (BT, 0))
    p_y = tl.make_block_ptr(y_ptr, (T, D), (stride_t, 1), (0, 0), (BT, BD), (1, 0))
    tl.store(p_y, acc, boundary_check=(0, 1))
"""


def test_by_default_a_block_pointer_recreated_in_its_loop_takes_coordinates():
    # The corner form's offsets inside the block are loop-invariant: the compiler hoists them out of the
    # loop, where they hold registers all through it. Worth it for a block pointer that moves, not for one
    # created anew in each iteration (sites.corner_addresses).
    lines = [line.strip() for line in migrate_source(CHUNKS, policy=Policy(target="pointer")).new_source.splitlines()]
    assert "p_x_ptrs = x_ptr + p_x_rows.to(tl.int64)[:, None] * stride_t + p_x_cols[None, :]" in lines
    assert "+ tl.cast(p_w_off0, tl.int64) * stride_t" in lines  # moved through the loop: the corner form
    assert "p_y_ptrs = y_ptr + (" in lines  # created outside any loop: the corner form too


def test_the_corner_form_everywhere_is_a_kernel_target():
    assert Policy().for_kernel_target("auto+corner") == Policy(addresses="corner")
    assert Policy().for_kernel_target("pointer") == Policy(target="pointer")  # the default spelling: auto
    lines = [line.strip() for line in
             migrate_source(CHUNKS, policy=Policy(target="pointer", addresses="corner")).new_source.splitlines()]
    assert "+ tl.cast(i_t * BT, tl.int64) * stride_t" in lines and not any("p_x_rows.to(" in line for line in lines)


CORNER = Policy(addresses="corner")


@pytest.mark.parametrize("case_dir", CASES, ids=[d.name for d in CASES])
def test_corner_addresses_match_the_original(case_dir, tmp_path):
    source = (case_dir / "before.py").read_text()
    outcome = migrate_source(source, policy=CORNER)
    if outcome.new_source == migrate_source(source).new_source:
        return  # the default's own output, which test_fixtures runs
    after = tmp_path / f"{case_dir.name}_corner.py"
    after.write_text(outcome.new_source)
    problems = D.compare_runs(before_outputs(case_dir.name), D.run_fixture(case_dir, str(after)),
                              f"{case_dir.name} corner")
    assert not problems, "\n".join(problems)
