"""Does `migrate --write` on a real library keep to the library's line length, and leave ruff nothing new?

Copies the library to a temporary directory, runs `migrate --write` there (the limit is the library's own:
its nearest ruff, black or flake8 setting, else 88), and reports, over the files it changed: how many
added lines are longer than the limit, and `ruff check` findings under the library's own configuration
before and after, per rule code.

    python benchmarks/long_lines.py .real/fla                       # flash-linear-attention: limit 127
    python benchmarks/long_lines.py LIB --migrate OTHER/bin/migrate  # another build of the tool, to compare
"""

from __future__ import annotations

import argparse
import difflib
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter

BIN = os.path.dirname(sys.executable)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("library")
    parser.add_argument("--migrate", default=os.path.join(BIN, "migrate"), help="the migrate to run")
    parser.add_argument("--ruff", default=shutil.which("ruff", path=BIN) or "ruff")
    options = parser.parse_args()

    from triton_migrate.frontend.config import LineLengths

    limit = LineLengths().for_directory(os.path.abspath(options.library))
    with tempfile.TemporaryDirectory() as scratch:
        copy = os.path.join(scratch, "lib")
        shutil.copytree(options.library, copy, symlinks=True)
        before = {path: read(path) for path in python_files(copy)}
        subprocess.run([options.migrate, "--write", "-q", "--no-cache", "--exit-zero", "."], cwd=copy, check=True,
                       stdout=subprocess.DEVNULL)
        changed = sorted(path for path, text in before.items() if read(path) != text)
        added = [line for path in changed for line in added_lines(before[path], read(path))]
        over = [line for line in added if len(line) > limit]
        findings_after, e501_after = ruff(options.ruff, copy, changed), ruff(options.ruff, copy, changed, "E501")
        for path in changed:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(before[path])
        findings_before, e501_before = ruff(options.ruff, copy, changed), ruff(options.ruff, copy, changed, "E501")
    print(f"line length {limit}: {len(changed)} files changed, {len(added)} lines added, "
          f"{len(over)} of them longer than {limit} (longest {max(map(len, added), default=0)})")
    print(f"ruff with the library's configuration: {sum(findings_before.values())} findings before, "
          f"{sum(findings_after.values())} after; new: {dict(findings_after - findings_before) or 'none'}")
    print(f"ruff --select E501 (its line length): {e501_before['E501']} findings before, {e501_after['E501']} after")


def python_files(root: str) -> list[str]:
    return [os.path.join(d, f) for d, _, files in os.walk(root) for f in files if f.endswith(".py")]


def read(path: str) -> str:
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def added_lines(before: str, after: str) -> list[str]:
    return [line[1:] for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line.startswith("+") and not line.startswith("+++")]


def ruff(executable: str, root: str, paths: list[str], select: str | None = None) -> Counter:
    """Findings per rule code of `ruff check` on `paths`, with the configuration ruff finds for them (and
    only the `select`ed rules, if given)."""
    if not paths:
        return Counter()
    only = ["--select", select] if select else []
    result = subprocess.run([executable, "check", "--no-cache", "--exit-zero", "--output-format", "concise", *only,
                             *[os.path.relpath(p, root) for p in paths]], cwd=root, capture_output=True, text=True)
    return Counter(line.split(": ", 1)[1].split(" ")[0] for line in result.stdout.splitlines()
                   if ": " in line and line.split(": ", 1)[1][:1].isalpha())


if __name__ == "__main__":
    main()
