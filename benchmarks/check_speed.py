"""Time `migrate --check` against `ruff check` on the same trees, side by side in one run.

    python benchmarks/check_speed.py [TREE ...]     (default: this environment's site-packages, fixtures/)

Each tool runs REPEAT times per tree, alternating, and the best wall time is kept (these machines are
noisy; the ratio is the figure to read). ruff must be on PATH (`pip install ruff`).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig
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
    migrate = [sys.executable, "-m", "triton_migrate.cli", "--check", "--no-respect-gitignore"]
    trees = args.trees or [Path(sysconfig.get_paths()["purelib"]), Path(__file__).resolve().parent.parent / "fixtures"]
    print(f"{'tree':<40} {'files':>7} {'MB':>7} {'migrate s':>10} {'ruff s':>8} {'ratio':>6}")
    for tree in trees:
        files, size = count_python_files(tree)
        # ruff's default rule set, no cache: the lint a project would run next to ours.
        ruff_s, _ = best_time([ruff, "check", "--isolated", "--no-cache", "--exit-zero", "--quiet", str(tree)])
        ours_s, _ = best_time([*migrate, str(tree)])
        print(f"{str(tree)[-40:]:<40} {files:>7} {size / 1e6:>7.1f} {ours_s:>10.2f} {ruff_s:>8.2f} "
              f"{ours_s / ruff_s:>6.2f}")


if __name__ == "__main__":
    main()
