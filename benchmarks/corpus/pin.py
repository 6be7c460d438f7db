"""Which commit of a repository to pin in repos.toml: the newest commit of its default branch (first-parent
history of HEAD) that has the most `make_block_ptr(` calls in .py files, i.e. the last state of the
repository before it started moving off block pointers.

    python benchmarks/corpus/pin.py GIT_DIR...

Prints, per repository, that count, the pinned commit and its date.
"""

from __future__ import annotations

import subprocess
import sys


def git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, text=True,
                          check=True).stdout


def calls(git_dir: str, commit: str) -> int:
    found = subprocess.run(["git", f"--git-dir={git_dir}", "grep", "-c", "-E", r"make_block_ptr\s*\(", commit,
                            "--", "*.py"], capture_output=True, text=True).stdout  # exit 1: none
    return sum(int(line.rsplit(":", 1)[1]) for line in found.splitlines())


def pin(git_dir: str) -> tuple[int, str]:
    """The count only changes at commits that add or remove the string (`log -S`): the newest state with
    the most calls lasts from such a commit to the parent of the next one."""
    history = git(git_dir, "rev-list", "--first-parent", "--reverse", "HEAD").split()
    position = {commit: i for i, commit in enumerate(history)}
    changes = sorted({c for c in git(git_dir, "log", "--first-parent", "-m", "--format=%H", "-S", "make_block_ptr",
                                     "HEAD", "--", "*.py").split() if c in position}, key=position.get)
    counts = [calls(git_dir, c) for c in changes]
    if not counts:
        return 0, ""
    last = max(i for i, n in enumerate(counts) if n == max(counts))
    end = history[position[changes[last + 1]] - 1] if last + 1 < len(changes) else history[-1]
    return counts[last], end


def main(argv: list[str]) -> int:
    for git_dir in argv:
        count, commit = pin(git_dir)
        date = git(git_dir, "log", "-1", "--format=%cs", commit).strip() if commit else "-"
        print(f"{git_dir}  {count} calls  {commit or 'none'}  {date}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
