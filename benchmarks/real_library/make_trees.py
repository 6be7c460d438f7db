"""The trees that `time_ops.py` compares, from the library's repository and a commit.

    python benchmarks/real_library/make_trees.py GIT_DIR COMMIT OUT [--tuned TABLE.toml] [--hand COMMIT]

OUT/original is COMMIT as `git archive` gives it; OUT/default is a copy migrated by `migrate --write .` run
in it, as a user would (the library's own pyproject.toml sets the line length); OUT/facts the same with
`--assume aligned` (a user who states that every tensor and row stride is 16-byte aligned); with --tuned, OUT/tuned is
a copy whose pyproject.toml gains TABLE (what `migrate tune` wrote) before the same command; with --hand,
OUT/hand is that other commit as is: the maintainers' own migration, to time beside ours; with --file-from
COMMIT:PATH, every tree's PATH is that commit's before migrating (an old version of one kernel file). Run it with the
interpreter that has this checkout installed (`.venv/bin/python`); OUT must not exist. The library itself
stays out of this repository (`.real/` is ignored).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("git_dir", type=Path, help="the library's repository (a clone, or its .git folder)")
    parser.add_argument("commit")
    parser.add_argument("out", type=Path)
    parser.add_argument("--tuned", type=Path, help="a kernel-targets table written by `migrate tune`")
    parser.add_argument("--hand", metavar="COMMIT", help="the commit where the maintainers migrated by hand")
    parser.add_argument("--file-from", metavar="COMMIT:PATH", action="append", default=[],
                        help="take PATH from COMMIT instead (repeatable)")
    return parser.parse_args(argv)


def archive(git_dir: Path, commit: str, target: Path) -> None:
    target.mkdir(parents=True)
    tar = subprocess.run(["git", f"--git-dir={git_dir}", "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(target)], input=tar, check=True)


# per tree, what `migrate --write .` is given beyond that
MIGRATE_OPTIONS = {"default": [], "facts": ["--assume", "aligned"], "tuned": []}


def migrate(tree: Path, options: list[str]) -> str:
    """`migrate --write . OPTIONS` in `tree`; its summary line."""
    command = [sys.executable, "-m", "triton_migrate.cli", "--write", "--no-cache", *options, "."]
    done = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):  # 1: some site is left, reported
        sys.exit(f"migrate failed in {tree}:\n{done.stderr}")
    return done.stderr.strip().splitlines()[-1]


def main(argv: list[str] | None = None) -> None:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    git_dir = args.git_dir / ".git" if (args.git_dir / ".git").is_dir() else args.git_dir
    if args.out.exists():
        sys.exit(f"{args.out} exists: give a new folder")
    archive(git_dir, args.commit, args.out / "original")
    for spec in args.file_from:
        path = spec.split(":", 1)[1]
        shown = subprocess.run(["git", f"--git-dir={git_dir}", "show", spec], check=True, capture_output=True)
        (args.out / "original" / path).write_bytes(shown.stdout)
    if args.hand:
        archive(git_dir, args.hand, args.out / "hand")
    trees = ["default", "facts"] + (["tuned"] if args.tuned else [])
    for name in trees:
        shutil.copytree(args.out / "original", args.out / name)
    if args.tuned:
        with open(args.out / "tuned" / "pyproject.toml", "a") as pyproject:
            pyproject.write("\n" + args.tuned.read_text())
    for name in trees:
        print(f"{name}: {migrate(args.out / name, MIGRATE_OPTIONS[name])}")


if __name__ == "__main__":
    main()
