"""A package whose kernels import block-pointer helpers from another module (issue 4): one `migrate --write`
on the directory migrates both sides, the interpreter outputs stay bit-identical on Triton 3.8 and 3.9, and
the `noinline=True` helper, which the interpreter ignores, compiles on its own for sm_80, sm_90 and gfx942."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import differential as D
import pytest
import torch

PACKAGE = Path(__file__).resolve().parent / "data" / "helper_package"
BLOCK_POINTER_API = ("make_block_ptr", "tl.advance", "boundary_check")


def migrate(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "triton_migrate.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, input=stdin)


def outputs(root: Path, name: str, triton39: bool = False) -> dict:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(root)}
    if triton39:
        env["PYTHONPATH"] += os.pathsep + str(D.TRITON39)
    done = subprocess.run([sys.executable, "run.py", name], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return torch.load(root / name)


def same_bits(a: dict, b: dict) -> list[str]:
    return [k for k in a if a[k].shape != b[k].shape or not torch.equal(a[k].view(torch.int32), b[k].view(torch.int32))]


@pytest.fixture(scope="module")
def migrated(tmp_path_factory):
    root = tmp_path_factory.mktemp("package")
    shutil.copytree(PACKAGE, root, dirs_exist_ok=True)
    before = outputs(root, "before.pt")
    originals = {p: p.read_text() for p in (root / "pkg").glob("*.py")}
    done = migrate("--write", ".", cwd=root)
    return root, before, originals, done


def test_one_write_migrates_kernels_and_helpers_together(migrated):
    root, _, originals, done = migrated
    assert done.returncode == 0, done.stdout + done.stderr
    for path in (root / "pkg" / "kernels.py", root / "pkg" / "tiles.py"):
        text = path.read_text()
        assert text != originals[path] and not any(api in text for api in BLOCK_POINTER_API), path.name
    assert "TTD008" in migrate("report", ".", cwd=PACKAGE).stdout


def test_migrated_package_is_bit_identical_on_38_and_39(migrated):
    root, before, _, _ = migrated
    assert not same_bits(before, outputs(root, "after38.pt"))
    assert not same_bits(before, outputs(root, "after39.pt", triton39=True))


def test_the_comparison_sees_a_changed_helper(migrated, tmp_path):
    """Self-test: a one-character slip in the migrated helper changes the outputs."""
    root, before, _, _ = migrated
    shutil.copytree(root, tmp_path, dirs_exist_ok=True)
    tiles = tmp_path / "pkg" / "tiles.py"
    tiles.write_text(tiles.read_text().replace("* factor", "* (factor + 1)"))
    assert same_bits(before, outputs(tmp_path, "wrong.pt"))


def test_kernels_alone_are_left_untouched_when_their_helpers_are_not_migrated(tmp_path):
    shutil.copytree(PACKAGE, tmp_path, dirs_exist_ok=True)
    kernels = tmp_path / "pkg" / "kernels.py"
    original = kernels.read_bytes()
    done = migrate("--write", "pkg/kernels.py", cwd=tmp_path)
    assert done.returncode == 1 and "TTD201" in done.stdout
    assert kernels.read_bytes() == original


@pytest.mark.parametrize("target", [("cuda", 80, 32), ("cuda", 90, 32), ("hip", "gfx942", 64)],
                         ids=["sm_80", "sm_90", "gfx942"])
def test_noinline_helper_compiles_as_a_call(migrated, target):
    root, _, _, _ = migrated
    script = f"""
import sys, triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from pkg import kernels
sig = dict(x_ptr="*fp32", y_ptr="*fp32", M="i32", N="i32", stride_xm="i32", stride_ym="i32", factor="fp32",
           BM="constexpr", BN="constexpr")
ttgir = triton.compile(ASTSource(kernels.scale, sig, {{(7,): 16, (8,): 32}}), target=GPUTarget{target!r}).asm["ttgir"]
print("calls", ttgir.count("tt.call"), "tma", ttgir.count("async_tma_copy"))
"""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    done = subprocess.run([sys.executable, "-c", script], cwd=root, env={**env, "PYTHONPATH": str(root)},
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    calls, tma = (int(x) for x in done.stdout.split()[1::2])
    assert calls >= 1  # the helper stays a function of its own
    assert tma == 0  # a helper has no launch to check a descriptor at (TTD009): masked pointers, on every target


def test_a_kernel_that_another_module_calls_proves_its_offsets_from_that_call(tmp_path):
    """No block pointer crosses a call in row_package: tiles.py's `rows_from` creates its own at the row its
    caller passes, and its module launches it nowhere else. Taken as a launched kernel (its integer arguments
    >= 0), its migrated loads lost their lower bound, and the first program read the 16 rows above the view
    where the block pointer read zeros. The call in kernels.py decides: bit-identical on 3.8 and 3.9."""
    shutil.copytree(PACKAGE.with_name("row_package"), tmp_path, dirs_exist_ok=True)
    before = outputs(tmp_path, "before.pt")
    done = migrate("--write", ".", cwd=tmp_path)
    assert done.returncode == 0 and "make_block_ptr" not in (tmp_path / "pkg" / "tiles.py").read_text(), done.stdout
    assert not same_bits(before, outputs(tmp_path, "after38.pt"))
    assert not same_bits(before, outputs(tmp_path, "after39.pt", triton39=True))
