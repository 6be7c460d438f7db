"""A helper that nothing calls and whose block-pointer parameter nothing fills goes (TTD011) only with the
user's opt-in (`--unsafe-fixes`), and even then only where nothing in the project names it: another module
that imports it (even one that never says `triton`), a file of the project the run does not cover, an
`__all__` entry, standard input. Without the opt-in it is kept and reported. A kernel is never removed, opt-in
or not: the issue's `add_one_kernel`, whose block pointers come from a helper called inside the access and
which a script outside the folder migrated launches. The removal itself runs bit for bit in
fixtures/dead_helper."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import differential as D
import pytest
import torch
from test_helpers_package import migrate

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "dead_helper"
HELPER = "def load_tile_if("


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project (it has a pyproject.toml) whose package holds the fixture's module; its ruff keeps the 88
    columns the fixture's after.py is written at (else the module's own width, 118, would be the limit)."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'bench'\n[tool.ruff]\nline-length = 88\n")
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "__init__.py").write_text("")
    shutil.copy(FIXTURE / "before.py", tmp_path / "bench" / "kernels.py")
    return tmp_path


def codes(done: subprocess.CompletedProcess) -> list[str]:
    return [site["code"] for site in json.loads(done.stdout)]


def test_without_the_opt_in_it_is_kept_and_says_what_removes_it(project):
    done = migrate("--write", ".", cwd=project)
    written = (project / "bench" / "kernels.py").read_text()
    assert HELPER in written and "# Loads a tile" in written, done.stdout + done.stderr
    assert "--unsafe-fixes" in done.stdout and done.returncode == 1, done.stdout


def test_the_diff_shows_the_removal_before_the_write_makes_it(project):
    before = (project / "bench" / "kernels.py").read_text()
    done = migrate("--diff", "--unsafe-fixes", ".", cwd=project)
    assert f"\n-{HELPER}" in done.stdout and "-# Loads a tile" in done.stdout, done.stdout
    assert (project / "bench" / "kernels.py").read_text() == before


def test_the_configuration_opts_in_too(project):
    (project / "pyproject.toml").write_text("[project]\nname = 'bench'\n[tool.triton-migrate]\nunsafe-fixes = true\n")
    migrate("--write", ".", cwd=project)
    assert HELPER not in (project / "bench" / "kernels.py").read_text()


def test_a_helper_nothing_names_is_removed_with_its_sites(project):
    done = migrate("--write", "--unsafe-fixes", ".", cwd=project)
    written = (project / "bench" / "kernels.py").read_text()
    assert HELPER not in written and "# Loads a tile" not in written
    assert written == (FIXTURE / "after.py").read_text()
    assert "make_block_ptr" not in written and "boundary_check" not in written, done.stdout + done.stderr


def test_check_reports_each_site_it_held_as_removed(project):
    done = migrate("--output-format", "json", "--unsafe-fixes", "bench/kernels.py", cwd=project)
    assert codes(done).count("TTD011") == 3 and "TTD201" not in codes(done), done.stdout
    assert done.returncode == 1  # sites to migrate, as for every other fix
    fixes = [site["fix"] for site in json.loads(done.stdout) if site["fix"] and site["fix"]["edits"]]
    assert [fix["applicability"] for fix in fixes] == ["unsafe"]  # it deletes a function, as ruff would say


@pytest.mark.parametrize("where, text", [
    ("bench/__init__.py", "from .kernels import load_tile_if\n"),  # a re-export that never says triton
    ("tools/loads.py", "import bench.kernels as k\nLOAD = k.load_tile_if\n"),  # outside the run below
    ("bench/kernels.py", None),  # its own module lists it
])
def test_a_helper_something_names_is_kept_and_reported(project, where, text):
    path = project / where
    path.parent.mkdir(exist_ok=True)
    if text is None:
        path.write_text(path.read_text() + '\n__all__ = ["load_tile_if"]\n')
    else:
        path.write_text(text)
    done = migrate("--write", "--unsafe-fixes", "bench", cwd=project)
    written = (project / "bench" / "kernels.py").read_text()
    assert HELPER in written, done.stdout + done.stderr
    assert "nothing in the files migrated calls" in done.stdout, done.stdout
    assert "make_block_ptr" not in written  # the kernel and the helper it calls are migrated all the same


def test_a_cached_check_removes_it_too(project):
    cache = project / ".cache"
    first = migrate("--output-format", "json", "--unsafe-fixes", "--cache-dir", str(cache), "bench", cwd=project)
    second = migrate("--output-format", "json", "--unsafe-fixes", "--cache-dir", str(cache), "bench", cwd=project)
    assert codes(first) == codes(second) and "TTD011" in codes(second), second.stdout
    (project / "bench" / "__init__.py").write_text("from .kernels import load_tile_if\n")
    third = migrate("--output-format", "json", "--unsafe-fixes", "--cache-dir", str(cache), "bench", cwd=project)
    assert "TTD011" not in codes(third) and "TTD201" in codes(third), third.stdout


def test_standard_input_has_no_project_and_removes_nothing(project):
    source = (FIXTURE / "before.py").read_text()
    done = migrate("--write", "--unsafe-fixes", "--stdin-filename", "bench/kernels.py", "-", cwd=project,
                   stdin=source)
    assert HELPER in done.stdout and "TTD201" in done.stderr, done.stderr


# --- a kernel is never removed ------------------------------------------------------------------------------------

TILE_KERNEL = """import triton
import triton.language as tl


@triton.jit
def _tile(base, rows, cols, row0, BR: tl.constexpr, BC: tl.constexpr):
    return tl.make_block_ptr(base, (rows, cols), (cols, 1), (row0, 0), (BR, BC), (1, 0))


@triton.jit
def add_one_kernel(a, b, R, C, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    v = tl.load(_tile(a, R, C, pid * BR, BR, BC), boundary_check=(0, 1), padding_option="zero")
    tl.store(_tile(b, R, C, pid * BR, BR, BC), v + 1.0, boundary_check=(0, 1))
"""
# Outside the folder migrated, and no project marker above it: nothing the run reads launches the kernel.
LAUNCH = """import sys
import torch
from pkg.kern import add_one_kernel

a = torch.arange(35, dtype=torch.float32).reshape(7, 5)
b = torch.full((8, 5), -7.0)  # a sentinel row below the output
add_one_kernel[(2,)](a, b, 7, 5, BR=4, BC=8)
torch.save(b, sys.argv[1])
"""


def launched(root: Path, name: str, triton39: bool = False) -> torch.Tensor:
    env = {**os.environ, "TRITON_INTERPRET": "1", "PYTHONPATH": str(root)}
    if triton39:
        env["PYTHONPATH"] += os.pathsep + str(D.TRITON39)
    done = subprocess.run([sys.executable, "launch.py", name], cwd=root, env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return torch.load(root / name)


@pytest.mark.parametrize("opt_in", [(), ("--unsafe-fixes",)], ids=["default", "unsafe-fixes"])
def test_a_kernel_launched_from_outside_is_migrated_never_removed(tmp_path, opt_in):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "kern.py").write_text(TILE_KERNEL)
    (tmp_path / "launch.py").write_text(LAUNCH)
    before = launched(tmp_path, "before.pt")
    done = migrate("--write", *opt_in, "pkg/", cwd=tmp_path)
    written = (tmp_path / "pkg" / "kern.py").read_text()
    assert "def add_one_kernel(" in written, done.stdout + done.stderr
    kernel = written[written.index("def add_one_kernel("):]
    assert "make_block_ptr" not in kernel and "_tile(" not in kernel, written  # its accesses are migrated
    assert ("def _tile(" in written) == (not opt_in), written  # the helper every call inlined: only opted in
    assert ("1 of them in helpers kept, which `--unsafe-fixes` may remove" in done.stderr) == (not opt_in), done.stderr
    for triton39 in (False, True):
        after = launched(tmp_path, "after.pt", triton39)
        assert torch.equal(before.view(torch.int32), after.view(torch.int32)), (before, after)
