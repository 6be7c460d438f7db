"""The launch support (rules/_launch_support.py, frontend/launch.py): the host code guarded kernels call at
launch is a module of its own, `_triton_launch.py`, written once per package beside the outermost
`__init__.py` and imported as the module imports its own package (relatively if it does so), or, for a
folder that is no package (a namespace package, scripts), beside the migrated files, imported relatively or
else by its name. Never pasted into a kernel module. A second run, or another group of the same package,
reuses it; a file of that name that the tool did not write stops the write."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import differential as D
import pytest
from test_cli import invoke, put, snapshot, tree  # noqa: F401 (tree is a fixture)

from triton_migrate.engine import MigrationContext, migrate_source
from triton_migrate.frontend.launch import pasted_support
from triton_migrate.rules import _launch_support as launch_support

GUARDED = (D.FIXTURES / "launch_guard" / "before.py").read_text()
MODULE = launch_support.module_source()  # every part
GUARD_MODULE = launch_support.module_source(("descriptor_fits", "launch_guard"))  # what guarded kernels import
HOOKED = (D.FIXTURES / "stated_facts_gemm" / "before.py").read_text()  # gets @with_allocator
REPO = Path(__file__).resolve().parent.parent
SIBLING = ("try:\n    from ._triton_launch import descriptor_fits, launch_guard\nexcept ImportError:  # not imported "
           "as part of a package\n    from _triton_launch import descriptor_fits, launch_guard\n")


def package(root, name="fla_like"):
    """A package with kernels two levels down, one level down, and a script beside it outside any package."""
    for directory in (name, f"{name}/ops", f"{name}/ops/gla"):
        put(root, f"{directory}/__init__.py", "")
    put(root, f"{name}/utils.py", "SCALE = 1\n")
    put(root, f"{name}/ops/gla/chunk.py",
        GUARDED.replace("\n\n\n", "\nfrom ...utils import SCALE  # noqa: F401\n\n\n", 1))
    put(root, f"{name}/ops/fused.py", GUARDED)
    put(root, "bench/gemm.py", GUARDED)


def test_one_module_per_package_imported_as_the_package_is_and_one_beside_a_script(tree):
    package(tree)
    result = invoke("--write", "--isolated", ".")
    assert result.exit_code == 0, result.stderr
    assert (tree / "fla_like" / "_triton_launch.py").read_text() == GUARD_MODULE
    assert sorted(str(p.relative_to(tree)) for p in tree.rglob("_triton_launch.py")) == \
        ["bench/_triton_launch.py", "fla_like/_triton_launch.py"]
    chunk, fused = (tree / "fla_like/ops/gla/chunk.py").read_text(), (tree / "fla_like/ops/fused.py").read_text()
    assert "from ..._triton_launch import descriptor_fits, launch_guard\n" in chunk
    assert "from fla_like._triton_launch import descriptor_fits, launch_guard\n" in fused  # nothing relative
    assert (tree / "bench/_triton_launch.py").read_text() == GUARD_MODULE
    script = (tree / "bench/gemm.py").read_text()
    assert SIBLING in script and "def " not in script.split("@launch_guard")[0]
    assert all(not pasted_support(p.read_text()) for p in tree.rglob("*.py"))


NAMESPACE_KERNEL = GUARDED.replace("import triton\n",
                                   "import triton\n\nfrom .constants import SCALE  # noqa: F401\n", 1)


def test_a_namespace_package_imports_it_relatively_and_runs_as_a_member_and_as_a_script(tree):
    """A folder of kernels without `__init__.py`: a module with a relative import gets a relative one; one
    without, the `try` that works imported as a member of the folder and run with the folder on sys.path."""
    put(tree, "kernels/constants.py", "SCALE = 1\n")
    put(tree, "kernels/relative.py", NAMESPACE_KERNEL)
    put(tree, "kernels/plain.py", GUARDED)
    assert invoke("--write", "--isolated", "kernels").exit_code == 0
    assert (tree / "kernels/_triton_launch.py").read_text() == GUARD_MODULE
    assert "from ._triton_launch import descriptor_fits, launch_guard\n" in (tree / "kernels/relative.py").read_text()
    assert SIBLING in (tree / "kernels/plain.py").read_text()
    imports = ["import kernels.relative, kernels.plain",  # members of the namespace package
               "import sys; sys.path.insert(0, 'kernels'); import plain"]  # a script's folder on sys.path
    for statement in imports:
        done = subprocess.run([sys.executable, "-c", statement + "; print('ok')"], cwd=tree, capture_output=True,
                              text=True, env={"TRITON_INTERPRET": "1", "PATH": ""})
        assert done.stdout == "ok\n", (statement, done.stderr[-2000:])


def test_a_second_run_and_another_group_reuse_the_module(tree):
    package(tree)
    assert invoke("--write", "--isolated", "fla_like/ops/gla").exit_code == 0
    before = snapshot(tree)
    put(tree, "fla_like/ops/other.py", GUARDED)  # another run, on another part of the package
    result = invoke("--write", "--isolated", "fla_like/ops/other.py")
    assert result.exit_code == 0, result.stderr
    after = snapshot(tree)
    assert after[tree / "fla_like/_triton_launch.py"] == before[tree / "fla_like/_triton_launch.py"]  # untouched
    assert "from fla_like._triton_launch import descriptor_fits, launch_guard\n" in \
        (tree / "fla_like/ops/other.py").read_text()
    again = invoke("--diff", "--isolated", ".")
    assert "fla_like/_triton_launch.py" not in again.stdout  # nothing to change in the package's module


def test_a_new_kernel_in_a_migrated_module_reuses_its_import(tree):
    package(tree)
    invoke("--write", "--isolated", "fla_like/ops/fused.py", "bench/gemm.py")
    for path in ("fla_like/ops/fused.py", "bench/gemm.py"):
        migrated = (tree / path).read_text()
        second = GUARDED.split("\n\n\n", 1)[1].replace("varlen_project_kernel", "second_kernel")
        put(tree, path, migrated + "\n\n" + second)
        assert invoke("--write", "--isolated", path).exit_code == 0
        text = (tree / path).read_text()
        assert text.count("import descriptor_fits") == (2 if path.startswith("bench") else 1), path
        assert "descriptor_fits_2" not in text and text.count("lambda args: descriptor_fits(") == 2


def test_the_module_holds_the_parts_its_package_imports_and_keeps_those_written_before(tree):
    """A package of hooked kernels gets no guard; a later run that needs the guard adds it and keeps the hook;
    one that needs only the guard again keeps both (issue 45: the module is most of a small diff)."""
    put(tree, "pkg/__init__.py", "")
    put(tree, "pkg/gemm.py", HOOKED)
    assert invoke("--write", "--isolated", "pkg").exit_code == 0
    hooked_only = (tree / "pkg/_triton_launch.py").read_text()
    assert hooked_only == launch_support.module_source(("with_allocator",))
    assert "def with_allocator" in hooked_only and "launch_guard" not in hooked_only
    put(tree, "pkg/guarded.py", GUARDED)
    assert invoke("--write", "--isolated", "pkg/guarded.py").exit_code == 0
    assert (tree / "pkg/_triton_launch.py").read_text() == MODULE
    put(tree, "pkg/guarded2.py", GUARDED)
    assert invoke("--write", "--isolated", "pkg/guarded2.py").exit_code == 0
    assert (tree / "pkg/_triton_launch.py").read_text() == MODULE


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
    assert (tree / "fla_like/_triton_launch.py").read_text() == GUARD_MODULE


def test_stdin_imports_it_as_written_and_writes_nothing_else(tree):
    package(tree)
    result = invoke("--write", "--isolated", "--stdin-filename", "fla_like/ops/fused.py", "-", stdin=GUARDED)
    assert "from fla_like._triton_launch import descriptor_fits, launch_guard\n" in result.stdout
    assert "def descriptor_fits" not in result.stdout
    assert not (tree / "fla_like/_triton_launch.py").exists()
    assert ("warning: fla_like/ops/fused.py: the migrated code imports its launch support from "
            "fla_like/_triton_launch.py, which standard input does not write (fla_like/_triton_launch.py is not "
            "there yet); `migrate --write fla_like/ops/fused.py` writes it") in result.stderr


def test_stdin_says_nothing_of_a_module_that_is_there(tree):
    package(tree)
    assert invoke("--write", "--isolated", "fla_like").exit_code == 0
    result = invoke("--write", "--isolated", "--stdin-filename", "fla_like/ops/fused.py", "-", stdin=GUARDED)
    assert "from fla_like._triton_launch import descriptor_fits, launch_guard\n" in result.stdout
    assert "launch support" not in result.stderr


def test_pasted_support_finds_what_earlier_versions_pasted():
    """The corpus measurement's check: a module that defines launch or facts helpers of ours itself."""
    old = (REPO / "fixtures" / "launch_guard" / "after.py").read_text()
    assert pasted_support(old) == []
    pasted = ('"""Kernels."""\n\nimport triton\n\n\ndef descriptor_fits(tensor, width):\n    """Whether a tensor '
              'descriptor fits.\n\n    Written by triton-migrate (TTD009).\n    """\n    return True\n\n\n'
              'def _ensure_allocator():\n    """Written by triton-migrate."""\n')
    assert pasted_support(pasted) == ["descriptor_fits", "_ensure_allocator"]
    assert pasted_support(MODULE) == []  # the module of its own defines them, undocumented as pasted


@pytest.mark.parametrize("fixture, module, imported", [
    ("launch_guard", "ops.gla.chunk", "from ..._triton_launch import descriptor_fits, launch_guard\n"),
    ("stated_facts_gemm", "ops.gemm", "from launch_support_pkg._triton_launch import with_allocator\n"),
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
    new = migrate_source(GUARDED, migration=MigrationContext.alone(launch=launch)).new_source
    assert migrate_source(new, migration=MigrationContext.alone(launch=launch)).new_source is None  # a fixed point
    assert new.count("import descriptor_fits") == (2 if launch is None else 1)  # the `try` imports it twice


RUFF = Path(sys.executable).with_name("ruff")
SORTED = {  # module -> its imports before the kernel, as isort (ruff `I`) sorts them
    "fla_like/ops/absolute.py": "import torch\nimport triton\nimport triton.language as tl\n\n"
                                "from fla_like.ops.utils import prepare  # noqa: F401\n"
                                "from fla_like.utils import SCALE  # noqa: F401\n",
    "fla_like/ops/relative.py": "import triton\nimport triton.language as tl\n\n"
                                "from ..utils import SCALE  # noqa: F401\nfrom .x import y  # noqa: F401\n",
    "fla_like/ops/mixed.py": "import triton\nimport triton.language as tl\n\n"
                             "from fla_like.ops import utils  # noqa: F401\nimport fla_like.utils  # noqa: F401\n",
}


@pytest.mark.parametrize("force_sort", [False, True])
def test_the_added_import_lands_where_ruffs_isort_puts_it(tree, force_sort):
    """Under a project's ruff configuration with isort (`I`) selected, the migrated modules have no I001: the
    import of the launch support goes among the imports of its section, in their order (issue 34)."""
    put(tree, "pyproject.toml", '[tool.ruff.lint]\nselect = ["I"]\n\n[tool.ruff.lint.isort]\n'
                                f'known-first-party = ["fla_like"]\n'
                                f'force-sort-within-sections = {str(force_sort).lower()}\n')
    for directory in ("fla_like", "fla_like/ops"):
        put(tree, f"{directory}/__init__.py", "")
    put(tree, "fla_like/utils.py", "SCALE = 1\n")
    put(tree, "fla_like/ops/x.py", "y = 1\n")
    put(tree, "fla_like/ops/utils.py", "prepare = 1\n")
    kernel = GUARDED.split("\n\n\n", 1)[1]
    for path, imports in SORTED.items():
        if path.endswith("mixed.py") and not force_sort:
            imports = imports.replace("from fla_like.ops import utils  # noqa: F401\n"
                                      "import fla_like.utils  # noqa: F401\n",
                                      "import fla_like.utils  # noqa: F401\n"
                                      "from fla_like.ops import utils  # noqa: F401\n")
        put(tree, path, f"{imports}\n\n{kernel}")
    assert subprocess.run([str(RUFF), "check", "--no-cache", "."], cwd=tree, capture_output=True).returncode == 0
    assert invoke("--write", "--isolated", "fla_like").exit_code == 0
    assert "from fla_like._triton_launch import" in (tree / "fla_like/ops/absolute.py").read_text()
    checked = subprocess.run([str(RUFF), "check", "--no-cache", "--output-format", "concise", "."], cwd=tree,
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout


ON_EACH_TRITON = '''
import sys, threading
sys.path.insert(0, sys.argv[1])
import torch, triton, triton.language as tl
from triton.runtime import _allocation
import _triton_launch as support

@support.launch_guard({"FLAG": lambda args: support.descriptor_fits(args["x"], 16, args["n"])})
@triton.jit
def copy(x, y, n, FLAG: tl.constexpr = False):
    o = tl.arange(0, 16)
    tl.store(y + o, tl.load(x + o) + (1 if FLAG else 2))

hooked = support.with_allocator(triton.jit(copy.fn.fn))
seen = {}
def launch(name, x, user=None):
    if user is not None:
        triton.set_allocator(user)
    y = torch.zeros(16)
    copy[(1,)](x, y, 16)
    hooked[(1,)](x, torch.zeros(16), 16)
    seen[name] = (y[0].item(), _allocation._allocator.get())
def users(size, alignment, stream):
    raise AssertionError("not called")
storage = torch.zeros(17)
for name, x, user in (("aligned", storage[:16], None), ("mid-storage", storage[1:], None),
                      ("user", storage[:16], users)):
    thread = threading.Thread(target=launch, args=(name, x, user))
    thread.start()
    thread.join()
assert seen["aligned"][0] == 1.0 and seen["aligned"][1] is support._scratch, seen
assert seen["mid-storage"][0] == 2.0 and seen["mid-storage"][1] is support._scratch, seen  # the hook's
assert seen["user"] == (1.0, users), seen
print(triton.__version__)
'''


@pytest.mark.parametrize("where", [".triton36", None, ".triton39"])
def test_the_module_works_on_each_supported_triton(tmp_path, where):
    """Its one private read (the current allocator) and its public calls, in the interpreter: the guard picks
    the form per launch, each launching thread gets the module's allocator, a user's is kept."""
    (tmp_path / f"{launch_support.MODULE}.py").write_text(MODULE)
    environment = {"TRITON_INTERPRET": "1", "PATH": ""}
    if where is not None:
        environment["PYTHONPATH"] = str(REPO / where)
    done = subprocess.run([sys.executable, "-c", ON_EACH_TRITON, str(tmp_path)], capture_output=True, text=True,
                          env=environment)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.startswith({".triton36": "3.6", None: "3.8", ".triton39": "3.9"}[where])


@pytest.mark.parametrize(("launch", "late"), [(None, "import math\n"), (".._triton_launch", "from .late import x\n"),
                                              ("pkg._triton_launch", "import pkg.late\n")])
def test_the_added_import_precedes_the_kernels_it_decorates_when_an_import_comes_after_them(launch, late):
    """A module whose test code, pasted below the kernels, imports again (TritonBench, GEAK-eval): the import
    of the launch support goes above the kernels, whose `@launch_guard` runs when the module is imported."""
    new = migrate_source(f"{GUARDED}\n\n{late}", migration=MigrationContext.alone(launch=launch)).new_source
    assert new.index("import descriptor_fits") < new.index("@launch_guard") < new.index(late)


def test_no_snapshot_holds_a_pasted_helper():
    """The snapshots are migrated modules too (issue 35): one that an older version wrote, with the launch
    or facts helpers pasted in, is stale."""
    pasted = {d.name: pasted_support((d / "after.py").read_text()) for d in sorted(D.FIXTURES.iterdir())
              if (d / "after.py").is_file()}
    assert {name: names for name, names in pasted.items() if names} == {}


# What no text of a generated module can satisfy for every project: type annotations (ANN: the module is glue
# over Triton's untyped runtime), docstring conventions (D, DOC: projects pick conflicting ones, D203/D211 and
# D212/D213), a project's copyright header (CPY), the signatures Triton's protocols impose (ARG: a pre-run hook
# takes the launch's arguments, an allocator an alignment it leaves to torch) and the one private read that has
# no public API (SLF001: the current allocator). `--isolated`: no configuration of this repository applies.
IGNORED = "ANN,D,DOC,CPY,ARG,SLF001"


@pytest.mark.parametrize("select, target", [("ALL", "py39"), ("ALL", "py313"), ("B,UP,SIM,RUF", "py39"),
                                            ("B,UP,SIM,RUF", "py310")])
@pytest.mark.parametrize("parts", [launch_support.CALLED, ("launch_guard",), ("with_allocator",)])
def test_a_projects_ruff_finds_nothing_in_the_module(tmp_path, select, target, parts):
    """A project that selects B (zip without strict=, which py39 cannot spell), UP, SIM, RUF or ALL lints the
    module `migrate --write` adds to its tree: it must pass, at the oldest Python we support and a recent one,
    whichever parts it holds (ALL's F821 and F401: each part's imports are its own)."""
    (tmp_path / f"{launch_support.MODULE}.py").write_text(launch_support.module_source(parts))
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "--isolated", "--no-cache", "--select", select,
                           "--ignore", IGNORED, "--target-version", target, "--output-format", "concise", "."],
                          capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
