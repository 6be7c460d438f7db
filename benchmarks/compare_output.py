"""Check that a change leaves the tool's output byte for byte as it was: what `migrate` prints and exits
with, in every mode below, for this checkout and for another revision (or a saved snapshot) on the same trees.

    python benchmarks/compare_output.py [--baseline REV] [TREE ...]
    python benchmarks/compare_output.py --save DIR [TREE ...]      # keep this checkout's output
    python benchmarks/compare_output.py --against DIR [TREE ...]   # compare this checkout with it
        (default trees: fixtures/, tests/realistic/ and benchmarks/kernels/)

A redesign (issue 37) or speed work (groups, caches, the walk) must not change a byte of what the tool says
or writes. The modes cover each policy: the default, `--target pointer`, `--target compat`, every fact
stated, the unsafe fixes, and the concise check. Run it on the corpus too (benchmarks/corpus/build.py lays it
out): a snapshot saved once is compared many times, so a long refactor pays for the baseline only once.
Exit status 1 if any output differs.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from check_speed import FLAGS, REPO, install_revision

MODES = (
    ["--diff"],
    ["--diff", "--target", "pointer"],
    ["--diff", "--target", "compat"],
    ["--diff", "--assume", "aligned,contiguous,aligned-rows,in-bounds,allocator"],
    ["--diff", "--unsafe-fixes"],
    ["--check", "--output-format", "concise"],
)
DEFAULT_TREES = (REPO / "fixtures", REPO / "tests" / "realistic", REPO / "benchmarks" / "kernels")

Output = dict[str, list]  # mode -> [stdout, stderr, exit status]


def outputs(command: tuple[list[str], dict], tree: Path) -> Output:
    argv, env = command
    found = {}
    for mode in MODES:
        done = subprocess.run([*argv, *mode, "--no-cache", "."], env=env, cwd=tree, capture_output=True)
        found[" ".join(mode)] = [done.stdout.decode(errors="replace"), done.stderr.decode(errors="replace"),
                                 done.returncode]
    return found


def snapshot_file(directory: Path, tree: Path) -> Path:
    """A tree of this checkout is named by its path in the checkout (another checkout finds its snapshot)."""
    label = str(tree.relative_to(REPO)) if tree.is_relative_to(REPO) else str(tree)
    return directory / f"{tree.name}-{hashlib.sha256(label.encode()).hexdigest()[:8]}.json"


def compare(before: Output, after: Output, tree: Path) -> bool:
    """Print a line per mode; whether every mode gave the same output."""
    same_everywhere = True
    for mode, old in before.items():
        same = after.get(mode) == old
        same_everywhere &= same
        print(f"{'same' if same else 'DIFFERENT':>9}  {mode:<72} {old[0].count(chr(10)):>7} lines  {tree}")
    return same_everywhere


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="*", type=Path)
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--baseline", default="main", metavar="REV")
    source.add_argument("--save", type=Path, metavar="DIR")
    source.add_argument("--against", type=Path, metavar="DIR")
    args = parser.parse_args()
    trees = [t.resolve() for t in args.trees] or list(DEFAULT_TREES)
    ours = ([sys.executable, "-m", "triton_migrate.cli", *FLAGS], dict(os.environ))
    if args.save:
        args.save.mkdir(parents=True, exist_ok=True)
        for tree in trees:
            snapshot_file(args.save, tree).write_text(json.dumps(outputs(ours, tree)))
            print(f"saved  {tree}")
        return 0
    same = True
    with tempfile.TemporaryDirectory() as scratch:
        baseline = None if args.against else install_revision(args.baseline, Path(scratch))
        for tree in trees:
            if args.against:
                before = json.loads(snapshot_file(args.against, tree).read_text())
            else:
                before = outputs(baseline, tree)
            same &= compare(before, outputs(ours, tree), tree)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
