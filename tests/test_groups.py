"""Files migrated together (packages.py, program.py): groups follow the imports that Python would resolve,
so that files named alike in unrelated directories never join, and a file that cannot be migrated is
reported and left as it is while the rest of its group is still migrated (issue 19)."""

from __future__ import annotations

import os

import libcst as cst
import pytest
from test_cli import DIAGNOSTIC, invoke, put, snapshot

from triton_migrate.analysis.packages import groups
from triton_migrate.syntax.forms import masked_pointers

BLOCK_POINTER_API = ("make_block_ptr", "boundary_check")

HEAD = "import triton\nimport triton.language as tl\n"
# A helper that takes a block pointer, once with a scale factor: the two `utils.py` below differ.
UTILS = HEAD + """

@triton.jit
def helper(p{extra}):
    return tl.load(p, boundary_check=(0, 1)){scaled}
"""
KERNEL = HEAD + """
from utils import helper


@triton.jit
def kernel(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(y_ptr + tl.arange(0, BM)[:, None] * stride_m + tl.arange(0, BN)[None, :], helper(x{args}))
"""


def by_path(output: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for match in DIAGNOSTIC.finditer(output):
        found.setdefault(match["path"], []).append(match["code"])
    return found


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_files_named_alike_in_unrelated_directories_are_migrated_apart(tree):
    for directory, extra, scaled, args in (("a", "", "", ""), ("b", ", factor", " * factor", ", 2.0")):
        put(tree, f"{directory}/utils.py", UTILS.format(extra=extra, scaled=scaled))
        put(tree, f"{directory}/kernel.py", KERNEL.format(args=args))
    done = invoke("-j1", "--no-cache", "--write", ".")
    assert done.exit_code == 0, done.stdout + done.stderr
    migrated = {path.relative_to(tree).as_posix(): data.decode() for path, (data, _) in snapshot(tree).items()}
    for path, text in migrated.items():
        assert not any(api in text for api in BLOCK_POINTER_API), (path, text)
    # Each directory migrated as if it were the only one: run again on the originals, one at a time.
    for directory, extra, scaled, args in (("a", "", "", ""), ("b", ", factor", " * factor", ", 2.0")):
        alone = tree / "alone" / directory
        put(alone, "utils.py", UTILS.format(extra=extra, scaled=scaled))
        put(alone, "kernel.py", KERNEL.format(args=args))
        assert invoke("-j1", "--no-cache", "--write", str(alone)).exit_code == 0
        for name in ("utils.py", "kernel.py"):
            assert migrated[f"{directory}/{name}"] == (alone / name).read_text(), f"{directory}/{name}"


def test_a_file_named_like_a_sibling_package_module_is_not_imported_from_another_directory(tree):
    put(tree, "a/utils.py", UTILS.format(extra="", scaled=""))
    put(tree, "b/kernel.py", KERNEL.format(args=""))  # no utils.py beside it: `from utils` is not a/utils.py
    done = invoke("-j1", "--no-cache", "--write", ".")
    assert by_path(done.stdout)["b/kernel.py"] == ["TTD201"]
    assert (tree / "b" / "kernel.py").read_text() == KERNEL.format(args="")


# --- a file of a group fails ---------------------------------------------------------------------------------------

TILES = HEAD + """

@triton.jit
def load_tile(p):
    return tl.load(p, boundary_check=(0, 1))
"""
# Fails (see `failing`): its own helper is called from kernels.py, and it calls tiles.py's helper.
BROKEN = HEAD + """
from .tiles import load_tile


@triton.jit
def store_tile(p, v):
    tl.store(p, v, boundary_check=(0, 1))


@triton.jit
def negate(z_ptr, w_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    z = tl.make_block_ptr(z_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    w = tl.make_block_ptr(w_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(w, -load_tile(z), boundary_check=(0, 1))
"""
KERNELS = HEAD + """
from .broken import store_tile
from .tiles import load_tile


@triton.jit
def scale(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    store_tile(y, load_tile(x) * 2)


@triton.jit
def copy(a_ptr, b_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    a = tl.make_block_ptr(a_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    b = tl.make_block_ptr(b_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(b, tl.load(a, boundary_check=(0, 1)), boundary_check=(0, 1))
"""
UNRELATED = HEAD + """

@triton.jit
def fill(o_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    o = tl.make_block_ptr(o_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(o, tl.zeros((BM, BN), tl.float32), boundary_check=(0, 1))
"""


@pytest.fixture(params=["unparsable output", "exception"])
def failing(request, monkeypatch):
    """A bug in one form builder, met only by broken.py's store through `w`: either it builds code that
    does not parse (what the corpus of issue 19 met), or it raises."""
    real = masked_pointers.store

    def store(language, ptrs, *args):
        built = real(language, ptrs, *args)
        if not (isinstance(ptrs, cst.Name) and ptrs.value == "w"):
            return built
        if request.param == "exception":
            raise ValueError("a bug met in one construct")
        return built.with_changes(func=cst.Name("lambda"))

    monkeypatch.setattr(masked_pointers, "store", store)
    return request.param


def test_a_failing_file_costs_only_itself_and_the_block_pointers_crossing_into_it(tree, failing):
    put(tree, "pkg/__init__.py", "")
    sources = {"pkg/tiles.py": TILES, "pkg/broken.py": BROKEN, "pkg/kernels.py": KERNELS, "other/fill.py": UNRELATED}
    for path, source in sources.items():
        put(tree, path, source)
    done = invoke("-j1", "--no-cache", "--write", "--output-format", "concise", ".")
    assert done.exit_code == 2
    expected = "the rewritten source does not parse" if failing == "unparsable output" else "ValueError"
    assert "pkg/broken.py: error: internal error: " in done.stderr and expected in done.stderr
    assert "Could not process 1 path" in done.stderr
    text = {path: (tree / path).read_text() for path in sources}
    assert text["pkg/broken.py"] == BROKEN
    # tiles.py's helper is called from broken.py, which keeps passing it a block pointer: it stays as it is.
    assert text["pkg/tiles.py"] == TILES
    # kernels.py: `scale` hands its block pointers to helpers defined in, or called from, broken.py ...
    left = [line for line in done.stdout.splitlines() if line.startswith("pkg/kernels.py")]
    assert [line.split()[1] for line in left] == ["TTD201", "TTD201"]
    assert "defined in pkg/broken.py, which cannot be migrated" in left[1]  # y → store_tile
    assert "called from pkg/broken.py, which cannot be migrated" in left[0]  # x → load_tile
    assert text["pkg/kernels.py"].count("tl.make_block_ptr") == 2  # ... and keeps them
    # ... while `copy`, which crosses nothing, is migrated; so is the unrelated file.
    assert "    tl.store(b, tl.load(a, mask=m_mn), mask=m_mn)\n" in text["pkg/kernels.py"]
    assert not any(api in text["other/fill.py"] for api in BLOCK_POINTER_API)
    tiles = [line for line in done.stdout.splitlines() if line.startswith("pkg/tiles.py")]
    assert tiles and all("TTD201" in line and "called from pkg/broken.py" in line for line in tiles)


# --- which imports tie files together (reachable.py) -------------------------------------------------------------

MATH = HEAD + """
from triton.language.extra import libdevice


@triton.jit
def exp(x):
    return tl.exp(x.to(tl.float32))


@triton.jit
def safe_dot(a, b, allow_tf32: tl.constexpr = None):
    return tl.dot(a, b, allow_tf32=allow_tf32) + libdevice.tanh(a[0]) * b


@triton.jit
def unused(src, index):  # a parameter used nowhere could hold anything
    return None
"""


def test_helpers_no_block_pointer_can_reach_tie_no_files():
    # Every kernel file of a library imports its math helpers: that used to make one group of 81 of the
    # 101 kernel files of flash-linear-attention, analysed in one process and never cached.
    kernel = KERNEL.format(args="").replace("from utils import helper", "from utils import exp, safe_dot")
    files = {"utils.py": MATH.encode(), "a.py": kernel.encode(), "b.py": kernel.encode()}
    assert groups(files, {"a.py", "b.py"}) == []
    files["c.py"] = kernel.replace("exp, safe_dot", "unused").encode()
    assert groups(files, {"a.py", "b.py", "c.py"}) == [["c.py", "utils.py"]]


@pytest.mark.parametrize("use", ["tl.load(p)", "tl.advance(p, (0, 1))", "(p, 1)", "other(p)",
                                 "p if p is not None else q"])
def test_a_helper_that_can_take_a_block_pointer_ties_its_callers(use):
    helper = HEAD + f"\n\n@triton.jit\ndef helper(p, q):\n    return {use}\n"
    files = {"utils.py": helper.encode(), "kernel.py": KERNEL.format(args="").encode()}
    assert groups(files, {"kernel.py"}) == [["kernel.py", "utils.py"]]


def test_every_caller_of_a_helper_that_takes_parts_joins_its_group(tree):
    # `other.py` has no block pointer and imports nothing from `kernel.py`, but calls the helper that
    # kernel.py passes a block pointer: rewriting the helper to take parts without it broke its call.
    put(tree, "utils.py", UTILS.format(extra="", scaled=""))
    put(tree, "kernel.py", KERNEL.format(args=""))
    other = HEAD + "from utils import helper\n\n\n@triton.jit\ndef other(x_ptr, y_ptr):\n" \
                   "    tl.store(y_ptr, helper(x_ptr))\n"
    put(tree, "other.py", other)
    before = snapshot(tree)
    done = invoke("-j1", "--no-cache", "--write", ".")
    assert "TTD201" in done.stdout and "another value at others" in done.stdout, done.stdout
    assert snapshot(tree) == before


# --- a package that imports triton in one module and takes `tl` from it everywhere else (NVIDIA/Megatron-LM's
# ssm/ops/gdp, tokenspeed): the kernel module alone does not say what `tl` is. Its block pointers were
# silent, neither migrated nor reported.
COMMON = "try:\n    import triton\n    import triton.language as tl\nexcept ImportError:\n    tl = triton = None\n"
TAKES_TL = """from .common import tl, triton


@triton.jit
def kernel(x, y, T, BT: tl.constexpr):
    i_t = tl.program_id(0)
    p_x = tl.make_block_ptr(x, (T,), (1,), (i_t * BT,), (BT,), (0,))
    p_y = tl.make_block_ptr(y, (T,), (1,), (i_t * BT,), (BT,), (0,))
    tl.store(p_y, tl.load(p_x, boundary_check=(0,)) * 2, boundary_check=(0,))
"""


def test_a_module_joins_the_module_it_takes_triton_from():
    files = {"pkg/__init__.py": b"", "pkg/common.py": COMMON.encode(), "pkg/kernel.py": TAKES_TL.encode(),
             "pkg/other.py": TAKES_TL.replace("tl, triton", "prepare").encode()}  # imports no triton name
    assert groups(files, {"pkg/kernel.py", "pkg/other.py"}) == [["pkg/common.py", "pkg/kernel.py"]]


def test_block_pointers_on_a_tl_taken_from_another_module_are_migrated_with_it(tree):
    put(tree, "pkg/__init__.py", "")
    put(tree, "pkg/common.py", COMMON)
    put(tree, "pkg/kernel.py", TAKES_TL)
    done = invoke("-j1", "--no-cache", "--write", ".")
    assert done.exit_code == 0, done.stdout + done.stderr
    assert by_path(done.stdout) == {}  # nothing left to report
    written = (tree / "pkg/kernel.py").read_text()
    assert "make_block_ptr" not in written and "boundary_check" not in written
    assert written.startswith("from .common import tl, triton\n\n\n")  # `tl` as the module spells it


def test_block_pointers_on_a_tl_not_known_to_be_triton_are_reported_never_silent(tree):
    put(tree, "vendored/__init__.py", "")
    put(tree, "vendored/common.py", COMMON.replace("triton", "tokenspeed_triton"))
    put(tree, "vendored/kernel.py", TAKES_TL)
    put(tree, "alone/__init__.py", "")
    put(tree, "alone/kernel.py", TAKES_TL)
    before = snapshot(tree)
    # a module that takes `tl` from another distribution; one whose `.common` is nowhere
    done = invoke("-j1", "--no-cache", "--write", "vendored", "alone")
    assert by_path(done.stdout) == {os.path.join("alone", "kernel.py"): ["TTD202", "TTD202"],
                                    os.path.join("vendored", "kernel.py"): ["TTD202", "TTD202"]}, done.stdout
    assert "`tl` is imported from `.common`, which is not known to import it from triton" in done.stdout
    assert "state it (`triton-modules`, under the module's full name)" in done.stdout
    assert done.exit_code == 1 and snapshot(tree) == before


def test_the_module_tl_comes_from_is_read_where_it_is_not_in_the_run(tree):
    """The kernel module named alone: its package's `common.py`, on disk, says what `tl` is."""
    put(tree, "pkg/__init__.py", "")
    put(tree, "pkg/common.py", COMMON)
    put(tree, "pkg/kernel.py", TAKES_TL)
    done = invoke("-j1", "--no-cache", "--write", "pkg/kernel.py")
    assert done.exit_code == 0 and by_path(done.stdout) == {}, done.stdout
    assert "make_block_ptr" not in (tree / "pkg/kernel.py").read_text()


def test_each_file_s_import_lines_are_read_once_in_a_run(tree, monkeypatch):
    """A file with sites that defines a helper is asked what it imports twice in the main process (the names it
    takes triton from, then its group): its import lines are read once, before any worker has a task."""
    from triton_migrate.analysis import packages

    read = []

    class Counting:
        def findall(self, data):
            read.append(data)
            return original.findall(data)

    original = packages._IMPORT
    monkeypatch.setattr(packages, "_IMPORT", Counting())
    packages.imported_names.cache_clear()
    put(tree, "utils.py", UTILS.format(extra="", scaled=""))
    put(tree, "kernel.py", KERNEL.format(args=""))
    assert invoke("-j1", "--no-cache", ".").exit_code == 1
    assert len(read) == len(set(read)) == 2
