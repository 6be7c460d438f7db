import os
import subprocess
import sys
from pathlib import Path

import pytest

# Interpreter kernels of these tests run in subprocesses with an explicit environment; this default only matters
# for anything else in the session that imports triton after us (coordinated with the other test directories).
os.environ.setdefault("TRITON_INTERPRET", "1")

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
TRITON39 = REPO / ".triton39"
TRITON36 = REPO / ".triton36"  # the release measured on the H100; its compiler is stricter than 3.8's


def run_py(args, *, triton39=False, triton_dir=None, interpret=True, extra_env=None, timeout=600):
    """Run python with the venv's Triton 3.8, or the one installed in `triton_dir` (`triton39`: .triton39)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    env["TRITON_INTERPRET"] = "1" if interpret else "0"
    env.pop("TRITON_MIGRATE_COMPAT", None)
    triton_dir = TRITON39 if triton39 else triton_dir
    if triton_dir:
        assert (triton_dir / "triton").is_dir(), f"Triton target dir missing: {triton_dir} (run .ci/setup-test-env)"
        env["PYTHONPATH"] = str(triton_dir)
    env.update(extra_env or {})
    return subprocess.Popen([sys.executable, *args], env=env, cwd=str(REPO), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish(proc, timeout=600):
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, f"subprocess failed ({proc.returncode}):\n{out[-3000:]}\n{err[-6000:]}"
    return out


@pytest.fixture(scope="session")
def py():
    return run_py, finish
