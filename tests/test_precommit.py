"""The pre-commit round trip, for real: a throwaway hook repository made from this working tree's package files,
a throwaway project that uses both hooks, `pre-commit run` and a `git commit` that the hooks block, then pass.

pre-commit installs the hook repository into its own virtualenv with pip (`language: python`), which fetches
the dependencies (libcst, click, pathspec, setuptools) from the package index; nothing else is downloaded.
"""

import pathlib
import re
import shutil
import subprocess
import sys

from test_cli import KERNEL

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE_FILES = ["pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "migrate", "rules", "compat"]


def git(cwd, *args):
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def hook_repository(path):
    """A git repository with one commit holding the package as it is in the working tree (not this repo's .git)."""
    path.mkdir()
    for name in PACKAGE_FILES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, path / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, path / name)
    git(path, "init", "-q")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "hooks")
    return git(path, "rev-parse", "HEAD")


def pre_commit(cwd, *args):
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, capture_output=True, text=True)


def test_check_and_fix_hooks_round_trip(tmp_path, monkeypatch):
    for key, value in {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid", "GIT_COMMITTER_NAME": "t",
                       "GIT_COMMITTER_EMAIL": "t@example.invalid", "PRE_COMMIT_HOME": str(tmp_path / "cache")}.items():
        monkeypatch.setenv(key, value)
    rev = hook_repository(tmp_path / "hooks")
    project = tmp_path / "project"
    (project / "vendor").mkdir(parents=True)
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {tmp_path / 'hooks'}\n  rev: {rev}\n  hooks:\n  - id: migrate-check\n  - id: migrate-fix\n")
    (project / "pyproject.toml").write_text('[tool.triton-migrate.per-file-ignores]\n"vendor/**" = ["ALL"]\n')
    (project / "kernel.py").write_text(KERNEL)
    (project / "vendor" / "keep.py").write_text(KERNEL)  # a backend that must keep its block pointers
    git(project, "init", "-q")
    git(project, "add", "-A")

    check = pre_commit(project, "run", "migrate-check", "--all-files")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "triton-migrate (check)" in check.stdout and "kernel.py:8:9: TTD006" in check.stdout
    assert "vendor/keep.py" not in check.stdout

    assert pre_commit(project, "install").returncode == 0
    blocked = subprocess.run(["git", "commit", "-m", "wip"], cwd=project, capture_output=True, text=True)
    assert blocked.returncode != 0
    assert "files were modified by this hook" in blocked.stdout + blocked.stderr
    assert re.search(r"x = x_ptr \+ tl\.cast\(", (project / "kernel.py").read_text())  # at the file's own width
    assert (project / "vendor" / "keep.py").read_text() == KERNEL

    git(project, "add", "-A")
    passed = subprocess.run(["git", "commit", "-m", "migrated"], cwd=project, capture_output=True, text=True)
    hooks_said = passed.stdout + passed.stderr  # git shows the hook's output on stderr
    assert passed.returncode == 0, hooks_said
    assert re.search(r"^triton-migrate \(check\)\.+Passed$", hooks_said, re.M)
    assert re.search(r"^triton-migrate \(fix\)\.+Passed$", hooks_said, re.M)
    assert git(project, "status", "--porcelain") == ""
