"""A helper that nothing calls and whose block-pointer parameter nothing fills goes (TTD011), but only where
nothing in the project names it: another module that imports it (even one that never says `triton`), a
file of the project the run does not cover, an `__all__` entry, standard input. The removal itself runs bit
for bit in fixtures/dead_helper."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from test_helpers_package import migrate

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "dead_helper"
HELPER = "def load_tile_if("


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project (it has a pyproject.toml) whose package holds the fixture's module."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "__init__.py").write_text("")
    shutil.copy(FIXTURE / "before.py", tmp_path / "bench" / "kernels.py")
    return tmp_path


def codes(done: subprocess.CompletedProcess) -> list[str]:
    return [site["code"] for site in json.loads(done.stdout)]


def test_a_helper_nothing_names_is_removed_with_its_sites(project):
    done = migrate("--write", ".", cwd=project)
    written = (project / "bench" / "kernels.py").read_text()
    assert HELPER not in written and "# Loads a tile" not in written
    assert written == (FIXTURE / "after.py").read_text()
    assert "make_block_ptr" not in written and "boundary_check" not in written, done.stdout + done.stderr


def test_check_reports_each_site_it_held_as_removed(project):
    done = migrate("--output-format", "json", "bench/kernels.py", cwd=project)
    assert codes(done).count("TTD011") == 3 and "TTD201" not in codes(done), done.stdout
    assert done.returncode == 1  # sites to migrate, as for every other fix


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
    done = migrate("--write", "bench", cwd=project)
    written = (project / "bench" / "kernels.py").read_text()
    assert HELPER in written, done.stdout + done.stderr
    assert "nothing in the files migrated calls" in done.stdout, done.stdout
    assert "make_block_ptr" not in written  # the kernel and the helper it calls are migrated all the same


def test_a_cached_check_removes_it_too(project):
    cache = project / ".cache"
    first = migrate("--output-format", "json", "--cache-dir", str(cache), "bench", cwd=project)
    second = migrate("--output-format", "json", "--cache-dir", str(cache), "bench", cwd=project)
    assert codes(first) == codes(second) and "TTD011" in codes(second), second.stdout
    (project / "bench" / "__init__.py").write_text("from .kernels import load_tile_if\n")
    third = migrate("--output-format", "json", "--cache-dir", str(cache), "bench", cwd=project)
    assert "TTD011" not in codes(third) and "TTD201" in codes(third), third.stdout


def test_standard_input_has_no_project_and_removes_nothing(project):
    source = (FIXTURE / "before.py").read_text()
    done = migrate("--write", "--stdin-filename", "bench/kernels.py", "-", cwd=project, stdin=source)
    assert HELPER in done.stdout and "TTD201" in done.stderr, done.stderr
