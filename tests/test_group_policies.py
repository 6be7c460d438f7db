"""Issue 43 item 6: files migrated together (they share `@triton.jit` helpers) are each migrated under their own
configuration. `pkg/sub/pyproject.toml` said `target = "pointer"` and `pkg/sub/` still got descriptors when
`pkg/kern.py`, under `pkg/`'s configuration, came first in the group: the group was migrated under its first
file's policy, and swapping the two configurations flipped the output. A function is migrated under the policy
of the module that defines it, whichever module calls it.

Checked on a tree with both configurations, either way round, and as a property over generated two-level trees:
every kernel that shares nothing is migrated in the group exactly as its module alone, under its own
configuration, migrates it; the shared helper as when both modules have the helper's module's configuration."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_cli import invoke, put

HEAD = "import triton\nimport triton.language as tl\n"
SOLO = """

@triton.jit
def {name}(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_m, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1)) * 2, boundary_check=(0, 1))
"""
SOLO_1D = """

@triton.jit
def {name}(x_ptr, N, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (N,), (1,), (tl.program_id(0) * BN,), (BN,), (0,))
    tl.store(x, tl.load(x, boundary_check=(0,), padding_option="zero") + 1, boundary_check=(0,))
"""
HELPER = """

@triton.jit
def copy_tile(src, dst):
    tl.store(dst, tl.load(src, boundary_check=(0, 1)), boundary_check=(0, 1))
"""
CALLER = """

@triton.jit
def caller(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_m, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    copy_tile(x, y)
"""
SETTINGS = {"pointer": 'target = "pointer"\n', "descriptor": 'target = "descriptor"\nassume = ["aligned"]\n',
            "aligned": 'assume = ["aligned"]\n', "compat": 'target = "compat"\n', "default": ""}


def _tree(root: Path, top: str, sub: str, solo_top=SOLO, solo_sub=SOLO) -> None:
    """pkg/kern.py (its own kernel, and one passing block pointers to pkg/sub/tiles.py's helper) and
    pkg/sub/tiles.py (the helper and a kernel of its own), configured by `top` and `sub` (SETTINGS' keys)."""
    put(root, "pyproject.toml", f"[tool.triton-migrate]\n{SETTINGS[top]}")
    put(root, "pkg/sub/pyproject.toml", f"[tool.triton-migrate]\n{SETTINGS[sub]}")
    put(root, "pkg/__init__.py", "")
    put(root, "pkg/sub/__init__.py", "")
    put(root, "pkg/kern.py", HEAD + "\nfrom .sub.tiles import copy_tile\n" + solo_top.format(name="top") + CALLER)
    put(root, "pkg/sub/tiles.py", HEAD + HELPER + solo_sub.format(name="own"))


def _functions(path: Path) -> dict[str, str]:
    source = path.read_text()
    return {node.name: ast.get_source_segment(source, node) for node in ast.parse(source).body
            if isinstance(node, ast.FunctionDef)}


def _written(root: Path, *paths: str) -> dict[str, dict[str, str]]:
    """Each module's functions after `migrate --write` of `paths` (in `root`)."""
    result = invoke("--write", "-j1", "--no-cache", *(str(root / p) for p in paths))
    assert result.exit_code in (0, 1) and "error" not in result.stderr, result.stderr
    return {name: _functions(root / name) for name in ("pkg/kern.py", "pkg/sub/tiles.py")}


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(("top", "sub"), [("aligned", "pointer"), ("pointer", "aligned")])
def test_each_module_of_a_group_is_migrated_under_its_own_configuration(tree, top, sub):
    _tree(tree / "group", top, sub)
    group = _written(tree / "group", "pkg")
    descriptors = {name: "make_tensor_descriptor" in functions["own" if "tiles" in name else "top"]
                   for name, functions in group.items()}
    assert descriptors == {"pkg/kern.py": top == "aligned", "pkg/sub/tiles.py": sub == "aligned"}
    _tree(tree / "alone", top, sub)
    assert group["pkg/sub/tiles.py"]["own"] == _written(tree / "alone", "pkg/sub/tiles.py")["pkg/sub/tiles.py"]["own"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(top=st.sampled_from(sorted(SETTINGS)), sub=st.sampled_from(sorted(SETTINGS)),
       solo_top=st.sampled_from([SOLO, SOLO_1D]), solo_sub=st.sampled_from([SOLO, SOLO_1D]))
def test_a_two_level_tree_migrates_each_module_as_its_own_configuration_would(tmp_path_factory, monkeypatch, top,
                                                                             sub, solo_top, solo_sub):
    work = tmp_path_factory.mktemp("trees")
    monkeypatch.chdir(work)
    _tree(work / "group", top, sub, solo_top, solo_sub)
    group = _written(work / "group", "pkg")
    for name, kernel in (("pkg/kern.py", "top"), ("pkg/sub/tiles.py", "own")):  # sharing nothing: as alone
        _tree(work / kernel, top, sub, solo_top, solo_sub)
        assert group[name][kernel] == _written(work / kernel, name)[name][kernel], (top, sub, name)
    _tree(work / "same", sub, sub, solo_top, solo_sub)  # the shared helper: its own module's policy decides
    assert group["pkg/sub/tiles.py"]["copy_tile"] == _written(work / "same", "pkg")["pkg/sub/tiles.py"]["copy_tile"]
    shutil.rmtree(work)
