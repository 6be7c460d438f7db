"""Check that a change leaves the tool's output byte for byte as it was: `migrate --diff` and `migrate
--check` of this checkout and of another revision on the same tree, stdout and stderr compared.

    python benchmarks/compare_output.py [--baseline REV] [TREE ...]
        (default: --baseline main, trees fixtures/ and tests/realistic/)

Speed work (groups, caches, the walk) must not change a byte of what the tool says or writes; run this on a
real library too (flash-linear-attention: 612 files, 2,504 sites). Exit status 1 if any output differs.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from check_speed import FLAGS, REPO, install_revision

MODES = (["--diff"], ["--check", "--output-format", "concise"])


def outputs(command: tuple[list[str], dict], tree: Path) -> dict[str, tuple[bytes, bytes, int]]:
    argv, env = command
    found = {}
    for mode in MODES:
        done = subprocess.run([*argv, *mode, "--no-cache", "."], env=env, cwd=tree, capture_output=True)
        found[" ".join(mode)] = (done.stdout, done.stderr, done.returncode)
    return found


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--baseline", default="main", metavar="REV")
    args = parser.parse_args()
    trees = [t.resolve() for t in args.trees] or [REPO / "fixtures", REPO / "tests" / "realistic"]
    differ = False
    with tempfile.TemporaryDirectory() as scratch:
        baseline = install_revision(args.baseline, Path(scratch))
        ours = ([sys.executable, "-m", "triton_migrate.cli", *FLAGS], dict(os.environ))
        for tree in trees:
            before, after = outputs(baseline, tree), outputs(ours, tree)
            for mode in before:
                same = before[mode] == after[mode]
                differ |= not same
                lines = before[mode][0].count(b"\n")
                print(f"{'same' if same else 'DIFFERENT':>9}  {mode:<32} {lines:>7} lines  {tree}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
