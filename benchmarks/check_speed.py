"""Time `migrate --check` against `ruff check` on the same trees, side by side in one run, and
`migrate --write -j 2` on a copy of each tree.

    python benchmarks/check_speed.py [--baseline REV] [TREE ...]
        (default trees: this environment's site-packages, fixtures/)

The tools take turns, REPEAT rounds per tree, and the median wall time of each is kept: these machines
have slow spells, which then hit every tool alike (the ratios are the figures to read). Cold: without
caches (ruff: --no-cache; ours: the cache directory removed before each round, so a cold run pays for
writing it); warm: with the cache a cold run filled. ruff runs the lint a project would put next to ours:
TID251 with the block-pointer API banned. ruff must be on PATH (`pip install ruff`). `--baseline REV` adds
another revision of this repository (installed into a temporary folder), cold, warm and --write, to show what
a change did to the speed, in the same turns.

The tool's modules are byte-compiled first, as `pip install` leaves them: where PYTHONDONTWRITEBYTECODE is
set (these sandboxes set it), an editable checkout would otherwise be compiled again by every process.
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import shutil
import statistics
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


RUFF_CONFIG = """\
[lint]
select = ["TID251"]
[lint.flake8-tidy-imports.banned-api]
"triton.language.make_block_ptr".msg = "gone in Triton 3.9: run `migrate`"
"triton.language.advance".msg = "gone in Triton 3.9: run `migrate`"
"""


def median_times(commands: dict[str, Command], before=None) -> dict[str, float]:
    """Each command REPEAT times, taking turns; the median wall time of each. `before(name)` runs untimed
    before each run (a fresh copy to write to)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(REPEAT):
        for name, (argv, env) in commands.items():
            if before is not None:
                before(name)
            start = time.perf_counter()
            subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(found) for name, found in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--baseline", metavar="REV", help="also time this git revision")
    parser.add_argument("--no-write", action="store_true", help="skip --write (a copy of the tree each round)")
    args = parser.parse_args()
    ruff = shutil.which("ruff")
    if ruff is None:
        sys.exit("ruff is not on PATH: pip install ruff")
    compile_tool()
    trees = args.trees or [Path(sysconfig.get_paths()["purelib"]), REPO / "fixtures"]
    with tempfile.TemporaryDirectory() as scratch:
        tools = {"ours": ([sys.executable, "-m", "triton_migrate.cli", *FLAGS], dict(os.environ))}
        if args.baseline:
            tools["base"] = install_revision(args.baseline, Path(scratch))
        (Path(scratch) / "ruff.toml").write_text(RUFF_CONFIG)
        heading = f"{'tree':<32} {'files':>6} {'MB':>6} | {'ruff cold':>9} | "
        heading += " | ".join(f"{name:>5} cold  warm write" for name in tools)
        print(heading + (" | speed-up cold warm write" if args.baseline else "") + " | ours/ruff")
        for tree in trees:
            print(tree_row(tree, ruff, tools, Path(scratch), not args.no_write), flush=True)


def tree_row(tree: Path, ruff: str, tools: dict[str, Command], scratch: Path, writes: bool) -> str:
    files, size = count_python_files(tree)
    ruff_argv = [ruff, "check", "--config", str(scratch / "ruff.toml"), "--exit-zero", "--quiet", "--no-cache"]
    caches = scratch / "caches" / tree.name
    checks = {name: ([*argv, "--check", "--cache-dir", str(caches / name), str(tree)], env)
              for name, (argv, env) in tools.items()}
    cold = median_times({"ruff": ([*ruff_argv, str(tree)], dict(os.environ)), **checks},
                        before=lambda name: shutil.rmtree(caches / name, ignore_errors=True))
    for argv, env in checks.values():  # the cache of the last cold round, filled: every warm round reads it
        subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    warm = median_times(checks)
    copies = {name: scratch / "copies" / name for name in tools}

    def fresh_copy(name: str) -> None:
        shutil.rmtree(copies[name], ignore_errors=True)
        shutil.copytree(tree, copies[name], symlinks=True)

    write = median_times({name: ([*argv, "--write", "--no-cache", str(copies[name])], env)
                          for name, (argv, env) in tools.items()}, before=fresh_copy) if writes else \
        dict.fromkeys(tools, float("nan"))
    row = f"{str(tree)[-32:]:<32} {files:>6} {size / 1e6:>6.1f} | {cold['ruff']:>9.2f} | "
    row += " | ".join(f"{cold[name]:>10.2f} {warm[name]:>5.2f} {write[name]:>5.2f}" for name in tools)
    if "base" in tools:
        row += f" | {cold['base'] / cold['ours']:>15.2f}x {warm['base'] / warm['ours']:.2f}x " \
               f"{write['base'] / write['ours']:.2f}x"
    return row + f" | {cold['ours'] / cold['ruff']:>9.2f}"


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


if __name__ == "__main__":
    main()
