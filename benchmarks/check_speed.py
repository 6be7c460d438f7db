"""Time `migrate --check` against `ruff check` on the same trees, side by side in one run, and
`migrate --write -j 2` on a copy of each tree.

    python benchmarks/check_speed.py [--baseline REV] [TREE ...]
        (default trees: this environment's site-packages, fixtures/)

The tools take turns, REPEAT rounds per tree, and the best wall time of each is kept: these machines
have slow spells, which then hit every tool alike (the ratios are the figures to read). Cold: without
caches; warm: with a cache that the previous round filled. ruff must be on PATH (`pip install ruff`).
`--baseline REV` adds the `--check` of another revision of this repository (installed into a temporary
folder), to show what a change did to the speed, in the same turns.

The tool's modules are byte-compiled first, as `pip install` leaves them: where PYTHONDONTWRITEBYTECODE is
set (these sandboxes set it), an editable checkout would otherwise be compiled again by every process.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

REPEAT = 5
REPO = Path(__file__).resolve().parent.parent
FLAGS = ["--no-respect-gitignore", "-j", "2"]

Command = tuple[list[str], dict]  # argv, environment


def count_python_files(tree: Path) -> tuple[int, int]:
    files = [p for p in tree.rglob("*.py") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def best_times(commands: dict[str, Command]) -> dict[str, float]:
    """Each command REPEAT times, taking turns; the best wall time of each."""
    best = dict.fromkeys(commands, float("inf"))
    for _ in range(REPEAT):
        for name, (argv, env) in commands.items():
            start = time.perf_counter()
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--baseline", metavar="REV", help="also time the --check of this git revision")
    args = parser.parse_args()
    ruff = shutil.which("ruff")
    if ruff is None:
        sys.exit("ruff is not on PATH: pip install ruff")
    compile_tool()
    trees = args.trees or [Path(sysconfig.get_paths()["purelib"]), REPO / "fixtures"]
    with tempfile.TemporaryDirectory() as scratch:
        migrate = ([sys.executable, "-m", "triton_migrate.cli", *FLAGS], dict(os.environ))
        baseline = install_revision(args.baseline, Path(scratch)) if args.baseline else None
        heading = f"{'tree':<32} {'files':>6} {'MB':>6} | {'check cold':>10} {'ruff cold':>9} {'ratio':>5} | "
        heading += f"{args.baseline[:10]:>10} {'speed-up':>8} | " if baseline else ""
        print(heading + f"{'check warm':>10} {'ruff warm':>9} | {'write -j2':>9}")
        for tree in trees:
            print(tree_row(tree, ruff, migrate, baseline, Path(scratch)), flush=True)


def tree_row(tree: Path, ruff: str, migrate: Command, baseline: Command | None, scratch: Path) -> str:
    files, size = count_python_files(tree)
    argv, env = migrate
    # ruff's default rule set: the lint a project would run next to ours.
    ruff_argv = [ruff, "check", "--isolated", "--exit-zero", "--quiet", str(tree)]
    cold = {"ours": ([*argv, "--check", "--no-cache", str(tree)], env),
            "ruff": ([*ruff_argv, "--no-cache"], dict(os.environ))}
    if baseline is not None:
        cold["baseline"] = ([*baseline[0], "--check", "--no-cache", str(tree)], baseline[1])
    cold_s = best_times(cold)
    caches = scratch / "caches" / tree.name
    warm_s = best_times({"ours": ([*argv, "--check", "--cache-dir", str(caches / "ours"), str(tree)], env),
                         "ruff": ([*ruff_argv, "--cache-dir", str(caches / "ruff")], dict(os.environ))})
    write_s = best_write(migrate, tree, scratch / "copy")
    row = f"{str(tree)[-32:]:<32} {files:>6} {size / 1e6:>6.1f} | {cold_s['ours']:>10.2f} {cold_s['ruff']:>9.2f} " \
          f"{cold_s['ours'] / cold_s['ruff']:>5.2f} | "
    if baseline is not None:
        row += f"{cold_s['baseline']:>10.2f} {cold_s['baseline'] / cold_s['ours']:>7.2f}x | "
    return row + f"{warm_s['ours']:>10.2f} {warm_s['ruff']:>9.2f} | {write_s:>9.2f}"


def compile_tool() -> None:
    for package in ("triton_migrate", "triton_migrate.rules", "triton_migrate.compat"):  # found, not imported
        for folder in importlib.util.find_spec(package).submodule_search_locations:
            compileall.compile_dir(folder, quiet=1)


def install_revision(revision: str, scratch: Path) -> Command:
    """`migrate` of another revision, installed (compiled) into a folder of its own, ahead on the path."""
    source, target = scratch / "baseline-source", scratch / "baseline"
    source.mkdir()
    archive = subprocess.run(["git", "-C", str(REPO), "archive", revision], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(target), str(source)], check=True)
    compileall.compile_dir(str(target), quiet=1)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")])}
    return [sys.executable, "-m", "triton_migrate.cli", *FLAGS], env


def best_write(migrate: Command, tree: Path, copy: Path) -> float:
    """`migrate --write` on a fresh copy of the tree each time (the copy is not timed)."""
    argv, env = migrate
    best = float("inf")
    for _ in range(REPEAT):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(tree, copy, symlinks=True)
        start = time.perf_counter()
        subprocess.run([*argv, "--write", "--no-cache", str(copy)], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


if __name__ == "__main__":
    main()
