"""File discovery: recursion, sorting, default excludes, --exclude and .gitignore (git semantics)."""

import os
import subprocess

import pytest

from triton_migrate.frontend import discover as discover_module
from triton_migrate.frontend.discover import DEFAULT_EXCLUDES, _Layer, _spec, discover


def make(root, *names):
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_recursive_sorted_python_files_only(tree):
    make(tree, "b.py", "a.py", "pkg/z.py", "pkg/sub/y.py", "notes.txt", "pkg/stub.pyi")
    assert discover(["."]).files == ["a.py", "b.py", "pkg/sub/y.py", "pkg/z.py"]


def test_default_excludes(tree):
    skipped = [".venv/x.py", "venv/x.py", "build/x.py", "dist/x.py", "node_modules/x.py", ".git/x.py",
               "lib/site-packages/x.py", "pkg/__pycache__/x.py", ".tox/x.py", ".eggs/x.py", ".mypy_cache/x.py"]
    make(tree, "keep.py", *skipped)
    assert discover(["."]).files == ["keep.py"]


def test_root_and_nested_gitignore(tree):
    make(tree, "a.py", "gen_a.py", "gen/x.py", "sub/gen_b.py", "sub/keep.py", "sub/local.py", "sub/deep/local.py")
    (tree / ".gitignore").write_text("gen_*.py\ngen/\n# a comment\n")
    # The nested file re-includes one name ignored at the root and ignores one of its own.
    (tree / "sub" / ".gitignore").write_text("!gen_b.py\n/local.py\n")
    assert discover(["."]).files == ["a.py", "sub/deep/local.py", "sub/gen_b.py", "sub/keep.py"]


def test_no_respect_gitignore(tree):
    make(tree, "a.py", "ignored.py")
    (tree / ".gitignore").write_text("ignored.py\n")
    assert discover(["."], respect_gitignore=False).files == ["a.py", "ignored.py"]


def test_ignored_directories_are_not_walked(tree, monkeypatch):
    make(tree, "a.py", "gen/x.py", "gen/deeper/y.py", ".venv/lib/z.py")
    (tree / ".gitignore").write_text("gen/\n")
    walked = []
    real_scandir = os.scandir

    def spy(path):
        walked.append(os.path.relpath(path, tree))
        return real_scandir(path)

    monkeypatch.setattr(discover_module.os, "scandir", spy)
    assert discover(["."]).files == ["a.py"]
    assert walked == ["."]


def test_exclude_patterns(tree):
    make(tree, "a.py", "gen_a.py", "src/legacy/x.py", "src/new/legacy/y.py", "src/ok.py")
    found = discover(["."], exclude=("gen_*.py", "/src/legacy/"))
    assert found.files == ["a.py", "src/new/legacy/y.py", "src/ok.py"]
    # Patterns stay relative to the working directory when a subdirectory is walked.
    assert discover(["src"], exclude=("/src/legacy/",)).files == ["src/new/legacy/y.py", "src/ok.py"]


def test_exclude_cannot_be_undone_by_gitignore(tree):
    make(tree, "a.py", "gen.py")
    (tree / ".gitignore").write_text("!gen.py\n")
    assert discover(["."], exclude=("gen.py",)).files == ["a.py"]


def test_explicit_files_are_always_included(tree):
    make(tree, ".venv/x.py", "ignored.py", "script")
    (tree / ".gitignore").write_text("ignored.py\n")
    found = discover([".venv/x.py", "ignored.py", "script"], exclude=("ignored.py",))
    assert found.files == [".venv/x.py", "ignored.py", "script"]


def test_parent_gitignore_applies_inside_the_repository(tree):
    make(tree, "repo/sub/a.py", "repo/sub/skip.py")
    (tree / "repo" / ".git").mkdir()
    (tree / "repo" / ".gitignore").write_text("skip.py\n")
    assert discover(["repo/sub"]).files == ["repo/sub/a.py"]


def test_gitignore_above_the_walked_tree_ignored_outside_a_repository(tree):
    make(tree, "outer/sub/a.py", "outer/sub/skip.py")
    (tree / "outer" / ".gitignore").write_text("skip.py\n")
    assert discover(["outer/sub"]).files == ["outer/sub/a.py", "outer/sub/skip.py"]


def test_missing_path_and_duplicates(tree):
    make(tree, "a.py")
    found = discover([".", "a.py", "./a.py", "nope.py"])
    assert found.files == ["a.py"]
    assert found.errors == [("nope.py", "No such file or directory")]


def test_directory_named_like_a_module_is_walked(tree):
    make(tree, "odd.py/inner.py")
    assert discover(["."]).files == ["odd.py/inner.py"]


def test_broken_symlink_is_listed_so_that_it_gets_reported(tree):
    os.symlink(tree / "missing.py", tree / "dangling.py")
    assert discover(["."]).files == ["dangling.py"]


def test_absolute_paths_stay_absolute(tree):
    make(tree, "pkg/a.py")
    assert discover([str(tree / "pkg")]).files == [str(tree / "pkg" / "a.py")]


def test_a_directory_named_explicitly_is_walked_even_if_excluded_by_default(tmp_path, monkeypatch):
    kernel_dir = tmp_path / ".venv" / "lib" / "site-packages" / "pkg"
    kernel_dir.mkdir(parents=True)
    (kernel_dir / "k.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    assert discover(["."]).files == []
    found = discover([os.path.join(".venv", "lib", "site-packages")]).files
    assert [os.path.basename(f) for f in found] == ["k.py"]


# --- hostile trees ------------------------------------------------------------------------------------------------


def test_a_tree_deeper_than_the_recursion_limit(tree):
    import sys

    depth = sys.getrecursionlimit() + 100
    directory = tree
    for _ in range(depth):  # one mkdir at a time: os.makedirs itself recurses
        directory = directory / "d"
        directory.mkdir()
    (directory / "k.py").write_text("x = 1\n")
    try:
        found = discover(["."])
    finally:  # pytest's own clean-up (shutil.rmtree) recurses, and would fail on this tree
        subprocess.run(["rm", "-rf", str(tree / "d")], check=True)
    assert found.files == [os.path.join(*["d"] * depth, "k.py")]
    assert found.errors == []


def test_invalid_gitignore_lines_are_skipped_as_git_does(tree):
    make(tree, "a.py", "skip.py", "keep.py")
    (tree / ".gitignore").write_text("\\\n[z-a]\n!\nskip.py\n")
    assert discover(["."]).files == ["a.py", "keep.py"]


def test_invalid_exclude_pattern_is_reported_and_the_rest_applies(tree):
    make(tree, "a.py", "gen.py")
    found = discover(["."], exclude=("\\", "gen.py"))
    assert found.files == ["a.py"]
    assert found.errors == [("--exclude \\", "invalid pattern, ignored")]


def test_symlinked_directory_loops_are_not_followed(tree):
    make(tree, "pkg/a.py")
    (tree / "pkg" / "loop").symlink_to(tree)
    (tree / "pkg" / "self").symlink_to(".")
    assert discover(["."]).files == ["pkg/a.py"]


def test_special_files_named_py_are_listed_so_that_they_get_reported(tree):
    os.mkfifo(tree / "pipe.py")
    (tree / "zero.py").symlink_to("/dev/zero")
    assert discover(["."]).files == ["pipe.py", "zero.py"]


def test_write_temporaries_are_never_discovered(tree):
    make(tree, "k.py", ".k.py.triton-migrate-x1y2z3.tmp")
    assert discover(["."], respect_gitignore=False).files == ["k.py"]


def test_an_entry_that_vanishes_while_listed_is_treated_as_a_file(tree):
    class Vanished:
        def is_dir(self, follow_symlinks=True):
            raise FileNotFoundError(2, "No such file or directory")

    assert discover_module._is_dir(Vanished()) is False


def test_thousands_of_files(tree):
    for i in range(3000):
        (tree / f"m{i:04d}.py").write_text("")
    found = discover(["."])
    assert len(found.files) == 3000 and found.files[0] == "m0000.py" and found.files[-1] == "m2999.py"


def test_one_regex_decides_as_the_patterns_one_by_one():
    # discover.py matches a path against all of a file's patterns in one search: the last matching pattern
    # must still win, `!` re-include, and `name/` match directories only.
    lines = [*DEFAULT_EXCLUDES, "*.log", "!keep.log", "gen_*/", "/top.py", "a/**/b", "!a/x/b", "[z-a]"]
    spec, _ = _spec(lines)
    layer = _Layer("/r", spec)
    paths = ["keep.log", "x.log", "d/keep.log", "gen_x", "gen_x/y.py", "top.py", "s/top.py", "a/b", "a/x/b",
             "a/y/z/b", ".git", "src/.venv", "src/build/x.py", "ok.py", "dist"]
    for path in paths:
        for is_dir in (False, True):
            rel = path + ("/" if is_dir else "")
            expected = None
            for pattern in spec.patterns:
                if pattern.include is not None and pattern.match_file(rel) is not None:
                    expected = pattern.include
            assert layer.decision(f"/r/{path}", is_dir) is expected, (path, is_dir)
