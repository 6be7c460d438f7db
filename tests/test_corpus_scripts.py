"""The corpus scripts (benchmarks/corpus): what build.py lays out and what measure.py counts as broken or
silent. They decide the published figures, so their own mistakes would hide the tool's."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks" / "corpus"))

import build  # noqa: E402
import measure  # noqa: E402

KERNEL = b"import triton.language as tl\nfrom .helpers import inner\n\n\ndef k(x):\n    p = tl.make_block_ptr(x)\n"


def test_build_takes_the_kernels_their_imports_and_their_packages():
    files = {
        "pkg/__init__.py": b"from . import everything\n",
        "pkg/ops/__init__.py": b"",
        "pkg/ops/kernel.py": KERNEL,
        "pkg/ops/helpers.py": b"from pkg.utils import common\n",
        "pkg/utils/__init__.py": b"",
        "pkg/utils/common.py": b"import triton\n",
        "pkg/everything.py": b"",
        "pkg/unrelated.py": b"",
        "vendored/triton/core.py": b"def make_block_ptr(base):\n    pass\n",
        "docs/mention.py": b"# make_block_ptr is gone in 3.9\n",
    }
    seeds, chosen = build.select(files, exclude=["vendored/**"])
    assert seeds == ["pkg/ops/kernel.py"]
    assert chosen == {"pkg/ops/kernel.py", "pkg/ops/helpers.py", "pkg/utils/common.py", "pkg/utils/__init__.py",
                      "pkg/ops/__init__.py", "pkg/__init__.py"}


def test_an_absolute_import_resolves_from_the_scripts_own_folder():
    files = {"scripts/run.py": b"from local import f\nx = tl.make_block_ptr(a)\n", "scripts/local.py": b"",
             "local.py": b""}
    assert build.select(files, exclude=[])[1] == {"scripts/run.py", "scripts/local.py"}


def test_a_removed_creation_whose_use_remains_is_broken_output(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    for tree, body in ((before, "    p = tl.make_block_ptr(x)\n    helper(p)\n"), (after, "    helper(p)\n")):
        (tree / "r").mkdir(parents=True)
        (tree / "r" / "k.py").write_text(f"import triton.language as tl\n\n\ndef k(x, helper):\n{body}")
    assert measure.broken(before, after) == ([], ["r/k.py: k:p"])
    assert measure.broken(before, before) == ([], [])


def test_only_calls_in_code_count_as_block_pointers_left():
    source = b"# tl.make_block_ptr(x) in a comment\ns = 'tl.advance(p, (1,))'\np = tl.advance(p, (1, 0))\n"
    assert measure.block_pointer_calls(source) == [3]


def test_only_calls_of_triton_form_count_not_other_libraries_methods_of_the_same_name():
    source = b"""def make_block_ptr(self, state):
    return indexing.make_block_ptr(state)
guide.advance(token)
p = tl.make_block_ptr(a, (n,), (1,), (0,), (B,), (0,))
p = p.advance((B,))
q = tl.advance(base=p, offsets=(B,))
"""
    assert measure.block_pointer_calls(source) == [4, 5, 6]


def test_a_comment_lost_counts_and_a_comment_moved_or_joined_does_not(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    (before / "r").mkdir(parents=True)
    (after / "r").mkdir(parents=True)
    (before / "r" / "k.py").write_text("x = f(  # noqa: F821\n    1,  # one\n)  # the call\n# kept\n")
    (after / "r" / "k.py").write_text("# kept\nx = f(1)  # noqa: F821  # the call\n")
    assert measure.lost_comments(before, after) == ["r/k.py: # one"]
    assert measure.lost_comments(before, before) == []


def test_a_pyflakes_finding_the_rewrite_added_counts_and_the_sources_own_does_not(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    for tree, extra in ((before, ""), (after, "    p_shape0 = n\n")):
        (tree / "r").mkdir(parents=True)
        (tree / "r" / "k.py").write_text(f"import os\n\n\ndef k(n):\n{extra}    return n\n")  # os: F401 in both
    assert measure.new_pyflakes_findings(before, after) == ["r/k.py: F841"]
    assert measure.new_pyflakes_findings(before, before) == []


def test_build_lays_out_the_configuration_that_governs_the_files_and_what_it_extends():
    configs = {
        "pyproject.toml": b"[tool.black]\nline-length = 100\n",
        "pkg/ruff.toml": b'extend = "../lint/base.toml"\n',
        "lint/base.toml": b"line-length = 120\n",
        "pkg/sub/setup.cfg": b"[isort]\nprofile = black\n",
        "other/tox.ini": b"[isort]\n",  # a sibling folder's: it governs nothing laid out
    }
    assert build.configs_for({"pkg/sub/k.py"}, configs) == {"pyproject.toml", "pkg/ruff.toml", "lint/base.toml",
                                                            "pkg/sub/setup.cfg"}
    assert build.configs_for({"top.py"}, configs) == {"pyproject.toml"}


def _repository(tree, files):
    for path, text in files.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_text(text)


def test_the_linters_a_repository_configures_for_itself_are_found_where_they_look(tmp_path):
    _repository(tmp_path, {
        "a/pyproject.toml": "[tool.ruff.lint]\nselect = ['I']\n",
        "b/setup.cfg": "[flake8]\nmax-line-length = 100\n[tool:isort]\nprofile = black\n",
        "c/pyproject.toml": "[tool.black]\nline-length = 100\n",
        "d/src/.isort.cfg": "[settings]\n",
        "d/src/pkg/ruff.toml": "line-length = 100\n",
        "e/pyproject.toml": "not toml [",
    })
    assert measure.configured_linters(tmp_path) == {"a": ["ruff"], "b": ["isort"], "c": [], "d": ["isort", "ruff"],
                                                    "e": []}


SORTED = "import os\n\nimport triton\n\nfrom r.util import f\n\n\ndef k():\n    return os, triton, f\n"
# An import added after the project's own, where neither ruff's `I` nor isort would put it.
MISPLACED = SORTED.replace("from r.util import f\n", "from r.util import f\nfrom r._launch import fits\n").replace(
    "return os,", "return fits, os,")


def test_an_import_the_projects_sorter_would_move_is_a_new_finding_of_its_own_ruff(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    for tree, source in ((before, SORTED), (after, MISPLACED)):
        _repository(tree, {"r/pyproject.toml": "[tool.ruff.lint]\nselect = ['I', 'F']\n", "r/r/k.py": source,
                           "r/r/__init__.py": "", "r/r/util.py": "def f():\n    pass\n"})
    assert measure.new_lint_findings(before, after, {"r": ["ruff"]}) == (["r/r/k.py: I001"], [])
    assert measure.new_lint_findings(before, before, {"r": ["ruff"]}) == ([], [])
    # The project's selection decides, not ruff's defaults: a project that does not sort imports has no I001.
    (after / "r" / "pyproject.toml").write_text("[tool.ruff.lint]\nselect = ['F']\n")
    assert measure.new_lint_findings(before, after, {"r": ["ruff"]}) == ([], [])


def test_an_import_the_projects_sorter_would_move_is_a_new_finding_of_its_own_isort(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    for tree, source in ((before, SORTED), (after, MISPLACED)):
        _repository(tree, {"r/.isort.cfg": "[settings]\nprofile = black\nknown_first_party = r\n", "r/r/k.py": source})
    assert measure.new_lint_findings(before, after, {"r": ["isort"]}) == (["r/r/k.py: isort"], [])
    assert measure.new_lint_findings(before, before, {"r": ["isort"]}) == ([], [])


def test_a_configuration_ruff_cannot_read_leaves_the_repository_unchecked_not_clean(tmp_path):
    _repository(tmp_path, {"r/ruff.toml": "line-length = 'long'\n", "r/k.py": SORTED})
    findings, unchecked = measure.new_lint_findings(tmp_path, tmp_path, {"r": ["ruff"]})
    assert findings == [] and len(unchecked) == 1 and unchecked[0].startswith("r: ruff: ")


def test_a_corpus_below_a_configuration_would_inherit_it(tmp_path):
    (tmp_path / "setup.cfg").write_text("[flake8]\n")
    assert measure.inherited_configuration(tmp_path / "corpus" / "work") == tmp_path / "setup.cfg"


def test_a_function_the_rewrite_deleted_counts_and_one_it_added_does_not(tmp_path):
    before, after = tmp_path / "before", tmp_path / "after"
    source = ("import triton\n\n\n@triton.jit\ndef _tile(x):\n    pass\n\n\n"
              "class Op:\n    def forward(self):\n        pass\n")
    _repository(before, {"r/k.py": source})
    _repository(after, {"r/k.py": source.replace("def _tile(x):", "def _tile_0(x):")})
    assert measure.removed_functions(before, after) == ["r/k.py: _tile"]
    assert measure.removed_functions(after, before) == ["r/k.py: _tile_0"]
    assert measure.removed_functions(before, before) == []


def test_build_lays_out_a_commits_kernels_with_the_configuration_above_them(tmp_path):
    import subprocess

    repo = tmp_path / "mirror"
    _repository(repo, {"pyproject.toml": "[tool.ruff.lint]\nselect = ['I']\n", "pkg/__init__.py": "",
                       "pkg/k.py": KERNEL.decode().replace("from .helpers import inner\n", ""),
                       "docs/conf/setup.cfg": "[isort]\n", "docs/conf/build.py": "pass\n"})
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "c"], check=True)
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    record = build.build({"name": "o/r", "commit": commit}, repo, tmp_path / "out")
    out = tmp_path / "out" / "o__r"
    laid_out = sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file())
    assert laid_out == ["pkg/__init__.py", "pkg/k.py", "pyproject.toml"]
    assert record["configs"] == ["pyproject.toml"]


def test_a_module_that_holds_a_pasted_launch_helper_counts_and_the_support_module_does_not(tmp_path):
    helper = 'def descriptor_fits(t):\n    """Written by triton-migrate: whether a descriptor may read `t`."""\n'
    (tmp_path / "r" / "pkg").mkdir(parents=True)
    (tmp_path / "r" / "pkg" / "_triton_launch.py").write_text(helper)
    (tmp_path / "r" / "pkg" / "clean.py").write_text("from ._triton_launch import descriptor_fits\n")
    (tmp_path / "r" / "pkg" / "old.py").write_text(f"import torch\n\n\n{helper}")
    assert measure.pasted_helpers(tmp_path) == ["r/pkg/old.py: descriptor_fits"]


# A re-export that is not in the built-in table (vLLM's is: fixtures/known_reexport_vllm).
REEXPORTED_KERNEL = """from plugin_utils.triton_utils import tl, triton


@triton.jit
def k(x, n, B: tl.constexpr):
    p = tl.make_block_ptr(x, (n,), (1,), (0,), (B,), (0,))
    tl.store(p, tl.load(p, boundary_check=(0,)) + 1, boundary_check=(0,))
"""


def test_the_arguments_repos_toml_states_for_a_repository_are_given_to_it_alone(tmp_path):
    stated = ["--triton-module", "plugin_utils.triton_utils.tl=triton.language,plugin_utils.triton_utils.triton=triton"]
    records = [{"dir": "plugin", "migrate_args": stated}, {"dir": "other", "migrate_args": []},
               {"dir": "more"}]
    assert measure.groups(records) == [([], ["more", "other"]), (stated, ["plugin"])]
    corpus, work = tmp_path / "corpus", tmp_path / "work"
    for folder in ("plugin", "other"):
        (corpus / folder).mkdir(parents=True)
        (corpus / folder / "k.py").write_text(REEXPORTED_KERNEL)
    work.mkdir()
    run = measure.survey(corpus, work, 1, measure.groups(records[:2]))
    decided = sorted((s["filename"], s["migrated"], s["code"] == "TTD202") for s in run["sites"])
    assert decided == [("other/k.py", False, True), ("plugin/k.py", True, False)]
    rows = measure.table(run, {"errors": []}, corpus, {"plugin": "p", "other": "o"}, {}, {},
                         {"plugin": stated})
    assert [r["stated"] for r in rows] == [f"`{' '.join(stated)}`", ""]
