"""Issue 29.3, errors instead of tracebacks: each command path that lacks an optional dependency (torch, triton,
matplotlib) says so in one line and exits with its documented status (2 for `migrate verify` and `migrate
tune`: nothing could be verified), before it runs any of the user's code; the codemod itself needs none of
them. (A missing device: test_verify_units; --chart without matplotlib: test_verify_chart.)

A module is made missing in a subprocess, never uninstalled: a `sitecustomize.py` first on PYTHONPATH puts
None in `sys.modules` for each name in TM_TEST_MISSING, which makes `import name` fail and
`importlib.util.find_spec(name)` find nothing, in that process and in every Python process it starts (the
recorder chains to that sitecustomize), as when the package is not installed."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from test_reliability import KERNEL

MISSING = """import os, sys
for name in filter(None, os.environ.get("TM_TEST_MISSING", "").split(",")):
    sys.modules[name] = None
"""
RAN = "open('ran', 'w').close()"  # the user's code, which must not run
VERIFY = ["-m", "triton_migrate.verify"]
MIGRATE = ["-m", "triton_migrate.cli"]


@pytest.fixture
def without(tmp_path):
    """run(missing modules, args, env=...) in tmp_path/work, with those modules missing."""
    hiding = tmp_path / "hiding"
    hiding.mkdir()
    (hiding / "sitecustomize.py").write_text(MISSING)
    work = tmp_path / "work"
    work.mkdir()

    def run(missing: str, args: list[str], **env: str) -> subprocess.CompletedProcess:
        paths = [str(hiding)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else [])
        environment = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "TM_TEST_MISSING": missing,
                       "TRITON_INTERPRET": "1", **env}
        return subprocess.run([sys.executable, *args], cwd=work, env=environment, capture_output=True, text=True,
                              timeout=300)

    run.work = work
    return run


def one_line_error(done: subprocess.CompletedProcess, status: int, *words: str) -> str:
    assert done.returncode == status, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert all(word in done.stderr for word in words), done.stderr
    return done.stderr


@pytest.mark.parametrize("missing, args", [
    # the example: auto device detection imported torch, a ModuleNotFoundError traceback, exit 1
    ("torch", [*VERIFY, "--", "python", "-c", RAN]),
    ("torch", [*VERIFY, "--device", "cpu", "--", "python", "-c", RAN]),
    ("triton", [*MIGRATE, "verify", "--device", "cpu", "--", "python", "-c", RAN]),
    ("torch", [*MIGRATE, "verify", "record", "--out", "r.tmv", "--device", "cpu", "--", "python", "-c", RAN]),
    ("triton", [*MIGRATE, "verify", "compare", "a.tmv", "--device", "cpu", "--", "python", "-c", RAN]),
    ("torch", [*MIGRATE, "verify", "compare", "a.tmv", "b.tmv"]),  # two recordings: torch reads their tensors
    ("torch", [*MIGRATE, "verify", "cases", "cases.py", "--device", "cpu"]),
    ("triton", [*MIGRATE, "verify", "cases", "cases.py", "--device", "cpu"]),
    ("torch,triton", [*MIGRATE, "tune", "--device", "cpu", "--", "python", "-c", RAN]),
])
def test_verify_and_tune_without_torch_or_triton_say_so_and_exit_2(without, missing, args):
    for recording in ("a.tmv", "b.tmv"):
        (without.work / recording).mkdir()
    (without.work / "cases.py").write_text(RAN)  # a cases file runs code when imported
    error = one_line_error(without(missing, args), 2, "needs", "cannot import", "pip install")
    assert all(name in error for name in missing.split(","))
    assert not (without.work / "ran").exists()


def test_the_codemod_needs_neither_torch_nor_triton_nor_matplotlib(without):
    kernel = without.work / "kernel.py"
    kernel.write_text(KERNEL)
    missing = "torch,triton,matplotlib"
    diff = without(missing, [*MIGRATE, "--diff", "--no-cache", "kernel.py"])
    assert diff.returncode == 1 and "+++ b/kernel.py" in diff.stdout, diff.stderr
    assert without(missing, [*MIGRATE, "report", "--no-cache", "kernel.py"]).returncode == 0
    # --target compat emits imports of the shim, which needs triton; the codemod does not import it
    done = without(missing, [*MIGRATE, "--write", "--no-cache", "--target", "compat", "kernel.py"])
    assert done.returncode == 0 and "triton_migrate.compat" in kernel.read_text(), done.stderr
    done = without(missing, [*MIGRATE, "vendor-compat", "shim.py"])
    assert done.returncode == 0 and (without.work / "shim.py").is_file(), done.stderr
