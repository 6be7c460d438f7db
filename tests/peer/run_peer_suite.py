"""Run a peer test suite (Triton's own block-pointer tests) before and after migration.

    python tests/peer/run_peer_suite.py path/to/test_block_pointer.py [-- PYTEST_ARGS]

Get the file from triton-lang/triton (`python/test/unit/language/test_block_pointer.py`, from a commit that
still has block pointers; it is third-party code, so it is not in this repository). The script copies it
twice into a temporary directory, migrates one copy with `migrate --write`, and runs pytest in Triton's CPU
interpreter on the original with the installed Triton (3.8) and on the migrated copy with Triton 3.9 first on
PYTHONPATH (`<repo>/.triton39`). It prints both counts and every test that passed before and not after;
the exit status is 1 if there is one.

The suite takes `device` and `with_allocator` from Triton's `conftest.py` and `check_type_supported` from
its `test_core.py`; small stand-ins below give what those give in the CPU interpreter.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TRITON39 = REPO / ".triton39"

CONFTEST = '''\
import pytest


@pytest.fixture
def device():
    return "cpu"


@pytest.fixture
def with_allocator():
    import torch
    import triton

    triton.set_allocator(lambda size, alignment, stream: torch.empty(size, dtype=torch.int8))
    yield
'''

TEST_CORE = '''\
def check_type_supported(dtype, device):
    """Every dtype the suite uses is supported by the CPU interpreter."""
'''


def prepare(source: Path, directory: Path) -> Path:
    directory.mkdir()
    (directory / "conftest.py").write_text(CONFTEST)
    (directory / "test_core.py").write_text(TEST_CORE)
    copy = directory / source.name
    shutil.copyfile(source, copy)
    return copy


def migrate(path: Path) -> None:
    """`migrate --write`; exit status 1 only means that some sites are left, which the counts show."""
    result = subprocess.run([sys.executable, "-m", "triton_migrate.cli", "--write", "--isolated", "--no-cache",
                             str(path)], capture_output=True, text=True)
    sys.stdout.write(result.stdout + result.stderr)
    if result.returncode not in (0, 1):
        raise SystemExit(f"migrate failed with exit status {result.returncode}")


def run_pytest(directory: Path, test_file: Path, pythonpath: list[str], extra: list[str]) -> dict[str, str]:
    """Outcome per test id: passed, failed, error or skipped."""
    report = directory / "report.xml"
    env = dict(os.environ, TRITON_INTERPRET="1")
    env["PYTHONPATH"] = os.pathsep.join(pythonpath + [str(directory)] + [p for p in [env.get("PYTHONPATH")] if p])
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                    str(test_file), *extra], cwd=directory, env=env, capture_output=True, text=True)
    return outcomes(report)


def outcomes(report: Path) -> dict[str, str]:
    found = {}
    for case in ElementTree.parse(report).iter("testcase"):
        kinds = {child.tag for child in case}
        outcome = next((k for k in ("failure", "error", "skipped") if k in kinds), "passed")
        found[case.get("name")] = {"failure": "failed"}.get(outcome, outcome)
    return found


def counts(results: dict[str, str]) -> str:
    kinds = ("passed", "failed", "error", "skipped")
    return ", ".join(f"{sum(v == k for v in results.values())} {k}" for k in kinds) + f" (of {len(results)})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("test_file", type=Path)
    parser.add_argument("pytest_args", nargs="*", help="after `--`: passed to both pytest runs")
    args = parser.parse_args(argv)
    if not (TRITON39 / "triton").is_dir():
        raise SystemExit(f"Triton 3.9 not found at {TRITON39}")
    with tempfile.TemporaryDirectory(prefix="peer_") as tmp:
        original = prepare(args.test_file, Path(tmp) / "original")
        migrated = prepare(args.test_file, Path(tmp) / "migrated")
        migrate(migrated)
        before = run_pytest(original.parent, original, [], args.pytest_args)
        after = run_pytest(migrated.parent, migrated, [str(TRITON39)], args.pytest_args)
    print(f"original on Triton 3.8: {counts(before)}")
    print(f"migrated on Triton 3.9: {counts(after)}")
    lost = sorted(name for name, outcome in before.items() if outcome == "passed" and after.get(name) != "passed")
    for name in lost:
        print(f"passes before migration, not after: {name}")
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main())
