"""Time `migrate --check` against `ruff check` on the same trees, side by side in one run, and
`migrate --write -j 2` on a copy of each tree.

    python benchmarks/check_speed.py [TREE ...]     (default: this environment's site-packages, fixtures/)

Each tool runs REPEAT times per tree, alternating, and the best wall time is kept (these machines are
noisy; the ratio is the figure to read). Cold: both without their caches; warm: both with a cache filled by
the previous run. ruff must be on PATH (`pip install ruff`).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPEAT = 5


def count_python_files(tree: Path) -> tuple[int, int]:
    files = [p for p in tree.rglob("*.py") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def best_time(command: list[str]) -> tuple[float, int]:
    best, code = float("inf"), 0
    for _ in range(REPEAT):
        start = time.perf_counter()
        code = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        best = min(best, time.perf_counter() - start)
    return best, code


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="*", type=Path)
    args = parser.parse_args()
    ruff = shutil.which("ruff")
    if ruff is None:
        sys.exit("ruff is not on PATH: pip install ruff")
    migrate = [sys.executable, "-m", "triton_migrate.cli", "--no-respect-gitignore", "-j", "2"]
    trees = args.trees or [Path(sysconfig.get_paths()["purelib"]), Path(__file__).resolve().parent.parent / "fixtures"]
    print(f"{'tree':<32} {'files':>6} {'MB':>6} | {'check cold':>10} {'ruff cold':>9} {'ratio':>5} | "
          f"{'check warm':>10} {'ruff warm':>9} | {'write -j2':>9}")
    for tree in trees:
        files, size = count_python_files(tree)
        with tempfile.TemporaryDirectory() as scratch:
            cache = ["--cache-dir", str(Path(scratch) / "migrate-cache")]
            ruff_cache = ["--cache-dir", str(Path(scratch) / "ruff-cache")]
            # ruff's default rule set: the lint a project would run next to ours.
            ruff_cmd = [ruff, "check", "--isolated", "--exit-zero", "--quiet", str(tree)]
            ruff_cold, _ = best_time([*ruff_cmd, "--no-cache"])
            ours_cold, _ = best_time([*migrate, "--check", "--no-cache", str(tree)])
            ruff_warm, _ = best_time([*ruff_cmd, *ruff_cache])
            ours_warm, _ = best_time([*migrate, "--check", *cache, str(tree)])
            write_s = best_write(migrate, tree, Path(scratch) / "copy")
        print(f"{str(tree)[-32:]:<32} {files:>6} {size / 1e6:>6.1f} | {ours_cold:>10.2f} {ruff_cold:>9.2f} "
              f"{ours_cold / ruff_cold:>5.2f} | {ours_warm:>10.2f} {ruff_warm:>9.2f} | {write_s:>9.2f}")


def best_write(migrate: list[str], tree: Path, copy: Path) -> float:
    """`migrate --write` on a fresh copy of the tree each time (the copy is not timed)."""
    best = float("inf")
    for _ in range(REPEAT):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tree, copy, symlinks=True)
        start = time.perf_counter()
        subprocess.run([*migrate, "--write", "--no-cache", str(copy)], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


if __name__ == "__main__":
    main()
