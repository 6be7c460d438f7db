"""Issue 35 item 2: `migrate verify` checks the facts the migration relied on (`assume = [...]`), at every launch of
a migrated kernel, on the real arguments, before the kernel runs; a broken one is named (kernel, argument, fact,
value) instead of a misaligned-address fault. In Triton's interpreter over the example project, migrated with
the policy of the issue; tests/gpu_verify_facts.py does the same on a GPU, where the kernel would fault."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
import torch
from click.testing import CliRunner

from triton_migrate.verify import command
from triton_migrate.verify.devices import Device
from triton_migrate.verify.facts import first_broken

PROJECT = Path(__file__).resolve().parent / "verify_data" / "project"
POLICY = '[tool.triton-migrate]\nassume = ["aligned", "aligned-rows", "in-bounds", "allocator"]\n'
# Launches of the project's scale_rows on data that breaks one stated fact each.
SCRIPTS = {
    "offset.py": """
import torch
from kernels.ops import scale

x = torch.randn(32 * 32 + 1, generator=torch.Generator().manual_seed(0))[1:].view(32, 32)  # one fp32 in
print(float(scale(x, 2.0).sum()))
""",
    "rows.py": """
import torch
from kernels.ops import scale_rows

x = torch.randn(32, 64, generator=torch.Generator().manual_seed(0)).half()[:, :60]  # rows of 60 halves
y = torch.zeros(32, 64).half()[:, :60]  # aligned, with 128-byte row strides: only the rows are short
scale_rows[(2, )](x, y, 32, 60, x.stride(0), y.stride(0), 2.0, BM=16, BN=32)
print(float(y.float().sum()))
""",
}


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    (root / "pyproject.toml").write_text(POLICY)
    for name, script in SCRIPTS.items():
        (root / name).write_text(script)
    monkeypatch.chdir(root)
    return root


def _verify(tmp_path, *command_line):
    verdict = tmp_path / "verdict.json"
    result = CliRunner().invoke(command, ["--device", "cpu", "--json", str(verdict), "--", *command_line])
    return result, json.loads(verdict.read_text())


def test_a_view_one_element_into_its_storage_is_named_as_the_broken_fact(project, tmp_path):
    result, verdict = _verify(tmp_path, "python", "offset.py")
    assert result.exit_code == 1, result.output
    assert ("stated fact broken at kernels.ops:scale_rows launch 0 (the migrated kernel was not run): `x_ptr` is "
            "stated `aligned` (pyproject.toml: assume), but its data starts 4 bytes past a multiple of 16 (1 element "
            "into its storage)") in result.output
    (kernel, ) = verdict["kernels"]
    assert kernel["status"] == "RAISED" and kernel["raised"][0]["a"] is None
    assert kernel["raised"][0]["b"].startswith("stated fact broken: kernels.ops:scale_rows: `x_ptr`")


def test_rows_of_60_halves_break_aligned_rows(project, tmp_path):
    result, _ = _verify(tmp_path, "python", "rows.py")
    assert result.exit_code == 1, result.output
    assert ("`y_ptr` is stated `aligned-rows` (pyproject.toml: assume), but `N` is 60 elements, 120 bytes, not a "
            "multiple of 16") in result.output


def test_facts_that_hold_are_not_reported(project, tmp_path):
    result, verdict = _verify(tmp_path, "python", "bench.py", "40")
    assert result.exit_code == 0, result.output
    assert [k["status"] for k in verdict["kernels"]] == ["identical", "identical"]
    assert "stated fact" not in result.output


def test_a_block_row_of_8_bytes_breaks_widths(project, tmp_path):
    """`widths` stated: the descriptors are plain, with no masked pointers for a narrow launch, which `migrate
    verify` names before the migrated kernel runs (BN=4 halves: 8 bytes)."""
    (project / "pyproject.toml").write_text(POLICY.replace('"allocator"', '"allocator", "widths"'))
    (project / "narrow.py").write_text(SCRIPTS["rows.py"].replace("BN=32", "BN=4").replace(":60]", ":64]"))
    result, _ = _verify(tmp_path, "python", "narrow.py")
    assert result.exit_code == 1, result.output
    assert ("`x_ptr` is stated `widths` (pyproject.toml: assume), but `BN` is 4 elements, 8 bytes, fewer than the "
            "16 a block row needs") in result.output


class _NeedsAllocator(Device):
    def needs_allocator(self) -> bool:  # NVIDIA sm_90+, which this machine is not
        return True


def test_a_stated_allocator_is_checked_in_the_launching_thread():
    fact = {"argument": None, "fact": "allocator", "expressions": [], "where": "pyproject.toml: assume"}
    found = []
    device = _NeedsAllocator("cuda", "cuda")
    thread = threading.Thread(target=lambda: found.append(first_broken("k", [fact], {}, device)))
    thread.start()
    thread.join()
    assert found[0].detail() == ("its launching thread is stated `allocator` (pyproject.toml: assume), but none is "
                                 "set (triton.set_allocator) where this device needs one")
    assert first_broken("k", [fact], {}, Device("cpu", "cpu")) is None  # the interpreter needs none


def test_a_fact_of_an_argument_the_launch_passes_as_none_holds():
    fact = {"argument": "bias", "fact": "aligned", "expressions": ["stride"], "where": "here"}
    assert first_broken("k", [fact], {"bias": None, "stride": 3}, Device("cpu", "cpu")) is None
    assert first_broken("k", [fact], {"bias": torch.zeros(8), "stride": 3}, Device("cpu", "cpu")).value == \
        "`stride` is 3 elements, 12 bytes, not a multiple of 16"


METHOD_KERNEL = '''import triton
import triton.language as tl


class Scale:
    @staticmethod
    @triton.jit
    def rows(x_ptr, y_ptr, M, N, stride_xm, stride_ym, alpha, BM: tl.constexpr, BN: tl.constexpr):
        pid = tl.program_id(0)
        x = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (pid * BM, 0), (BM, BN), (1, 0))
        y = tl.make_block_ptr(y_ptr, (M, N), (stride_ym, 1), (pid * BM, 0), (BM, BN), (1, 0))
        tl.store(y, tl.load(x, boundary_check=(0, 1)) * alpha, boundary_check=(0, 1))
'''
METHOD_LAUNCH = """
import torch
from kernels.ops import Scale

x = torch.randn(32 * 32 + 1, generator=torch.Generator().manual_seed(0))[1:].view(32, 32)
y = torch.empty(32, 32)
Scale.rows[(2, )](x, y, 32, 32, x.stride(0), y.stride(0), 2.0, BM=16, BN=32)
print(float(y.sum()))
"""


def test_the_facts_of_a_kernel_that_is_a_method_are_checked(tmp_path, monkeypatch):
    """trident's kernels are `@triton.jit` static methods: the recorder finds their facts by the method's name."""
    root = tmp_path / "methods"
    (root / "kernels").mkdir(parents=True)
    (root / "kernels" / "__init__.py").write_text("")
    (root / "kernels" / "ops.py").write_text(METHOD_KERNEL)
    (root / "run.py").write_text(METHOD_LAUNCH)
    (root / "pyproject.toml").write_text(POLICY)
    monkeypatch.chdir(root)
    result, _ = _verify(tmp_path, "python", "run.py")
    assert result.exit_code == 1, result.output
    assert "stated fact broken at kernels.ops:Scale.rows launch 0 (the migrated kernel was not run): `x_ptr` is " \
           "stated `aligned`" in result.output
