"""The launch support (rules/_launch_support.py, frontend/launch.py): the host code guarded kernels call at
launch is written once per package, `_triton_launch.py` beside the outermost `__init__.py`, and imported as
the module imports its own package (relatively if it does so); a module outside any package gets it pasted
in. A second run, or another group of the same
package, reuses it; a file of that name that the tool did not write stops the package's write."""

from __future__ import annotations

import importlib
import sys

import pytest
from test_cli import invoke, put, snapshot, tree  # noqa: F401 (tree is a fixture)

import differential as D
from triton_migrate.engine import migrate_source
from triton_migrate.rules import _launch_support as launch_support

GUARDED = (D.FIXTURES / "launch_guard" / "before.py").read_text()
MODULE = launch_support.module_source(["descriptor_fits"])  # what package()'s guarded kernels import


def package(root, name="fla_like"):
    """A package with kernels two levels down, one level down, and a script beside it outside any package."""
    for directory in (name, f"{name}/ops", f"{name}/ops/gla"):
        put(root, f"{directory}/__init__.py", "")
    put(root, f"{name}/utils.py", "SCALE = 1\n")
    put(root, f"{name}/ops/gla/chunk.py", GUARDED.replace("\n\n\n", "\nfrom ...utils import SCALE  # noqa: F401\n\n\n", 1))
    put(root, f"{name}/ops/fused.py", GUARDED)
    put(root, "bench/gemm.py", GUARDED)


def test_one_module_per_package_imported_as_the_package_is_and_pasted_into_a_script(tree):
    package(tree)
    result = invoke("--write", "--isolated", ".")
    assert result.exit_code == 0, result.stderr
    assert (tree / "fla_like" / "_triton_launch.py").read_text() == MODULE
    assert "def descriptor_fits(" in MODULE and "stated_facts" not in MODULE  # nothing the package does not call
    assert sorted(p.name for p in tree.rglob("_triton_launch.py")) == ["_triton_launch.py"]
    chunk, fused = (tree / "fla_like/ops/gla/chunk.py").read_text(), (tree / "fla_like/ops/fused.py").read_text()
    assert "from ..._triton_launch import descriptor_fits\n" in chunk and "def descriptor_fits" not in chunk
    assert "from fla_like._triton_launch import descriptor_fits\n" in fused  # it imports nothing relatively
    script = (tree / "bench/gemm.py").read_text()
    assert "import" not in script.split("def descriptor_fits")[0].replace("import triton", "")
    assert "def descriptor_fits(" in script and "def _ensure_allocator(" in script


def test_a_second_run_and_another_group_reuse_the_module(tree):
    package(tree)
    assert invoke("--write", "--isolated", "fla_like/ops/gla").exit_code == 0
    before = snapshot(tree)
    put(tree, "fla_like/ops/other.py", GUARDED)  # another run, on another part of the package
    result = invoke("--write", "--isolated", "fla_like/ops/other.py")
    assert result.exit_code == 0, result.stderr
    after = snapshot(tree)
    assert after[tree / "fla_like/_triton_launch.py"] == before[tree / "fla_like/_triton_launch.py"]  # untouched
    assert "from fla_like._triton_launch import descriptor_fits\n" in (tree / "fla_like/ops/other.py").read_text()
    again = invoke("--diff", "--isolated", ".")
    assert "_triton_launch" not in again.stdout.split("bench/gemm.py")[0]  # nothing to add to the package


def test_a_new_kernel_in_a_migrated_module_reuses_its_import(tree):
    package(tree)
    invoke("--write", "--isolated", "fla_like/ops/fused.py", "bench/gemm.py")
    for path in ("fla_like/ops/fused.py", "bench/gemm.py"):
        migrated = (tree / path).read_text()
        second = GUARDED.split("\n\n\n", 1)[1].replace("varlen_project_kernel", "second_kernel")
        put(tree, path, migrated + "\n\n" + second)
        assert invoke("--write", "--isolated", path).exit_code == 0
        text = (tree / path).read_text()
        assert text.count("import descriptor_fits") + text.count("def descriptor_fits") == 1, path
        assert "descriptor_fits_2" not in text and text.count("lambda args: descriptor_fits(") == 2


def test_diff_shows_the_new_module_and_a_foreign_file_of_its_name_stops_the_write(tree):
    package(tree)
    result = invoke("--diff", "--isolated", "fla_like")
    assert "+++ b/fla_like/_triton_launch.py" in result.stdout and "+def descriptor_fits(" in result.stdout
    put(tree, "fla_like/_triton_launch.py", "LAUNCH = 1\n")
    before = snapshot(tree)
    result = invoke("--write", "--isolated", "fla_like")
    assert result.exit_code == 2
    assert "fla_like/_triton_launch.py exists and was not written by triton-migrate" in result.stderr
    assert "fla_like/ops/fused.py: error: needs fla_like/_triton_launch.py" in result.stderr
    assert snapshot(tree) == before


def test_an_older_module_of_ours_is_brought_up_to_date(tree):
    package(tree)
    put(tree, "fla_like/_triton_launch.py", f'"""{launch_support.MARK}, long ago."""\n')
    assert invoke("--write", "--isolated", "fla_like").exit_code == 0
    assert (tree / "fla_like/_triton_launch.py").read_text() == MODULE


def test_the_module_grows_with_what_later_runs_import_and_never_loses_a_function(tree):
    package(tree)
    assert invoke("--write", "--isolated", "fla_like/ops/fused.py").exit_code == 0
    put(tree, "fla_like/ops/gemm.py", (D.FIXTURES / "stated_facts_gemm" / "before.py").read_text())
    assert invoke("--write", "--isolated", "fla_like/ops/gemm.py").exit_code == 0
    grown = (tree / "fla_like/_triton_launch.py").read_text()
    assert grown == launch_support.module_source(["descriptor_fits", "stated_facts"])
    assert invoke("--write", "--isolated", "fla_like/ops/gla").exit_code == 0  # guarded kernels only
    assert (tree / "fla_like/_triton_launch.py").read_text() == grown  # gemm.py still imports stated_facts


def test_stdin_pastes_it(tree):
    package(tree)
    result = invoke("--write", "--isolated", "--stdin-filename", "fla_like/ops/fused.py", "-", stdin=GUARDED)
    assert "def descriptor_fits(" in result.stdout and "_triton_launch" not in result.stdout
    assert not (tree / "fla_like/_triton_launch.py").exists()


@pytest.mark.parametrize("fixture, module, imported", [
    ("launch_guard", "ops.gla.chunk", "from ..._triton_launch import descriptor_fits\n"),
    ("stated_facts_gemm", "ops.gemm", "from launch_support_pkg._triton_launch import stated_facts\n"),
])
def test_the_migrated_package_runs_bit_for_bit(tree, monkeypatch, fixture, module, imported):
    """Imported as a package (the import resolves), in the interpreter, against the original."""
    name = "launch_support_pkg"
    package(tree, name)
    case = D.FIXTURES / fixture
    put(tree, f"{name}/ops/gemm.py", (D.FIXTURES / "stated_facts_gemm" / "before.py").read_text())
    assert invoke("--write", "--isolated", name).exit_code == 0
    assert imported in (tree / name / f"{module.replace('.', '/')}.py").read_text()
    monkeypatch.syspath_prepend(str(tree))
    harness = D.load_harness(case)
    try:
        migrated = importlib.import_module(f"{name}.{module}")
        after = {case_name: {k: D._bit_copy(v) for k, v in harness.run(migrated, inputs).items()}
                 for case_name, inputs in harness.cases()}
    finally:
        for loaded in [m for m in sys.modules if m.startswith(name)]:
            del sys.modules[loaded]
    assert not D.compare_runs(D.run_fixture(case, "before.py"), after, "package")


@pytest.mark.parametrize("launch", [None, ".._triton_launch"])
def test_the_engine_binds_no_support_name_twice(launch):
    new = migrate_source(GUARDED, launch=launch).new_source
    assert migrate_source(new, launch=launch).new_source is None  # a fixed point
    assert new.count("descriptor_fits") == new.count("descriptor_fits(") + (launch is not None)
