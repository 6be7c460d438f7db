"""Issue 35 item 3: a verdict a user trusts and reads. In Triton's interpreter over the example project
(tests/verify_data/project): a command that fails in both runs is not verified; a launch that raised is a row of
its own; memory no launch wrote is told apart from a difference; the first differing launch is the root and
those that read its outputs say so; a migration that leaves block pointers is partly migrated; kernel names are
never cut."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from triton_migrate.verify import command
from triton_migrate.verify.compare import KernelResult
from triton_migrate.verify.report import Verdict, text

PROJECT = Path(__file__).resolve().parent / "verify_data" / "project"
OPS = PROJECT / "kernels" / "ops.py"
# The project's launches, then a failure of the program's own.
FAILS = ("import runpy, sys; sys.argv = ['bench.py', '40']; runpy.run_path('bench.py', run_name='__main__'); "
         "sys.exit(3)")
CHAIN = """
import torch
from kernels.ops import mm, scale, scale_rows

x = torch.randn(32, 32, generator=torch.Generator().manual_seed(0))
y = scale(x, 2.0)  # scale_rows launch 0
c = mm(y, x)  # reads y
h = torch.empty(64, 32)  # rows 16 to 63 no launch writes, in either run
scale_rows[(1, )](x, h, 16, 32, x.stride(0), h.stride(0), 1.0, BM=16, BN=32)
print(float(c.sum()), float(h[:16].sum()))
"""


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    (root / "chain.py").write_text(CHAIN)
    monkeypatch.chdir(root)
    return root


def _verify(tmp_path, *args):
    verdict = tmp_path / "verdict.json"
    result = CliRunner().invoke(command, ["--device", "cpu", "--json", str(verdict), *args])
    return result, json.loads(verdict.read_text())


def _migrated_by_hand(tmp_path, old: str, new: str) -> Path:
    """A --migrated file: the original module with one edit (block pointers run on Triton 3.8)."""
    source = OPS.read_text()
    assert old in source
    path = tmp_path / "hand_ops.py"
    path.write_text(source.replace(old, new))
    return path


def test_a_command_that_fails_in_both_runs_is_not_verified(project, tmp_path):
    result, verdict = _verify(tmp_path, "--", "python", "-c", FAILS)
    assert result.exit_code == 2, result.output
    assert "ERROR: the command failed in both runs (exit status 3 and 3)" in result.output
    assert result.output.rstrip().endswith("verdict: not verified")
    assert verdict["verdict"] == "not verified" and verdict["exit_status"] == 2


def test_a_launch_that_raised_is_a_row_of_its_own_with_its_error(project, tmp_path):
    broken = _migrated_by_hand(tmp_path, "tl.store(y, v * alpha", "tl.store(y, v * not_defined")
    result, verdict = _verify(tmp_path, "--migrated", f"kernels/ops.py={broken}", "--", "python", "bench.py", "40")
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("kernels.ops:scale_rows"))
    assert "1/1  RAISED" in lines[row]
    assert lines[row + 1].startswith("  launch 0: ran in original; raised in migrated: ") and \
        "not_defined" in lines[row + 1]
    kernel = next(k for k in verdict["kernels"] if k["kernel"] == "kernels.ops:scale_rows")
    assert kernel["raised"][0]["a"] is None and "not_defined" in kernel["raised"][0]["b"]


def test_unwritten_memory_and_the_root_of_a_difference(project, tmp_path):
    """The hand migration's y has one row fewer: scale_rows leaves row 31 (launch 0) and row 15 (launch 1) of
    its output unwritten, and mm, which reads y, differs because its input did."""
    short = _migrated_by_hand(tmp_path, "y = tl.make_block_ptr(y_ptr, (M, N)",
                              "y = tl.make_block_ptr(y_ptr, (M - 1, N)")
    result, verdict = _verify(tmp_path, "--keep", str(tmp_path / "keep"), "--migrated", f"kernels/ops.py={short}",
                              "--", "python", "chain.py")
    assert result.exit_code == 1, result.output
    assert "kernels.ops:scale_rows launch 0: output y_ptr: 32 elements differ (32 never written in migrated)" \
        in result.output
    assert "root: kernels.ops:scale_rows launch 0 is the first launch to differ on identical inputs" in result.output
    kernels = {k["kernel"]: k for k in verdict["kernels"]}
    assert kernels["kernels.ops:matmul"]["status"] == "inputs differ"
    assert "(a tensor it was given already differed before it ran)" in result.output
    assert verdict["root"] == {"kernel": "kernels.ops:scale_rows", "launch": 0}
    # rows 16 to 63 of h, which no launch wrote, hold the sentinel in both runs' recordings, and compare equal
    index = json.loads((tmp_path / "keep" / "original.tmv" / "index.json").read_text())
    h = [entry for entry in index["launches"] if entry["kernel"] == "kernels.ops:scale_rows"][1]["args"]["y_ptr"]
    bits = (tmp_path / "keep" / "original.tmv" / h["file"]).read_bytes()
    assert set(bits[16 * 32 * 4:]) == {0xA5} and len(bits) == 64 * 32 * 4
    launch_1 = [d for d in kernels["kernels.ops:scale_rows"]["differences"] if d["launch"] == 1]
    assert [d["count"] for d in launch_1] == [32]  # row 15 only: the unwritten rows are not differences


def test_a_migration_that_leaves_block_pointers_is_partly_migrated(project, tmp_path):
    result, verdict = _verify(tmp_path, "--target", "descriptor", "--", "python", "bench.py", "40")
    assert result.exit_code == 1, result.output
    left = verdict["left_as_block_pointers"]
    assert left > 0 and all(k["status"] == "identical" for k in verdict["kernels"])
    assert result.output.rstrip().endswith(f"verdict: partly migrated: {left} site(s) still need Triton <= 3.8 "
                                           "(every compared launch identical)")


def test_partly_migrated_counts_the_sites_that_check_counts(project, tmp_path):
    """Issue 43: verify counted the `make_block_ptr` calls left in the migrated copy (1 here), where `migrate
    --check` reports every site it cannot migrate (2: the creation and the helper's parameter it is passed to)."""
    from tests.test_cli import REFUSED, invoke

    (project / "kernels" / "refused.py").write_text(REFUSED)
    check = invoke("--no-cache", "-j1", "kernels")
    cannot = int(re.search(r"(\d+) cannot", check.stderr)[1])
    assert cannot == 2, check.stderr
    result, verdict = _verify(tmp_path, "--", "python", "bench.py", "40")
    assert result.exit_code == 1, result.output
    assert verdict["left_as_block_pointers"] == cannot
    assert f"verdict: partly migrated: {cannot} site(s) still need Triton <= 3.8" in result.output


def test_kernel_names_are_never_cut():
    name = "deepseekv3.kernels.quantization.blockwise:fp8_kernel_with_a_long_name"
    verdict = Verdict([KernelResult(name, 1, 1, 1, 1), KernelResult("short:k", 1, 1, 1, 1)])
    lines = text(verdict).splitlines()
    at = lines.index(name)
    assert lines[at + 1].split() == ["1/1", "identical"]
    assert any(line.startswith("short:k ") for line in lines)


def test_differing_bits_that_hold_the_sentinel_are_counted_as_never_written():
    from triton_migrate.verify.tensors import bits_of, difference

    a = torch.tensor([1.0, 2.0, 3.0])
    b = a.clone()
    b.view(torch.uint8)[4:8] = 0xA5  # element 1 as `torch.empty` leaves it under the recorder
    found = difference(bits_of(a), bits_of(b), torch.float32)
    assert (found["count"], found["unwritten_a"], found["unwritten_b"]) == (1, 0, 1)
