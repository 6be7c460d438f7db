"""Whether anything in a project names a function: the proof that a helper no call fills is dead (TTD011).

The engine sees the files migrated together; a helper none of them calls may still be imported by a file
of the project that the run does not cover, re-exported by an `__init__.py` that never says `triton`, or
listed in `__all__`. A name that no Python file of the run or of the project mentions, anywhere (code,
comment or string), and that its own file mentions once (where it defines it), is named by nothing.
"""

from __future__ import annotations

import os
import re
from collections import Counter
from collections.abc import Iterable

from .discover import discover
from .fileio import FileError, read_bytes

# What makes a folder a project's root, nearest first: a repository, or a package's build configuration.
PROJECT_MARKERS = (".git", "pyproject.toml", "setup.py", "setup.cfg")


def project_root(path: str) -> str:
    """The nearest folder up from `path` that holds a project marker; the file's own folder if none does."""
    folder = start = os.path.dirname(os.path.abspath(path))
    while True:
        if any(os.path.exists(os.path.join(folder, marker)) for marker in PROJECT_MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent


def unnamed(candidates: dict[str, tuple[str, ...]], run_files: Iterable[str]) -> dict[str, frozenset[str]]:
    """Of each file's candidate names (path -> function names it defines), those that its own file mentions
    once and no other Python file of the run or of the file's project mentions at all. A file that cannot
    be read may mention anything: then nothing is unnamed."""
    names = {name for found in candidates.values() for name in found}
    files = {os.path.abspath(path) for path in run_files}
    for root in {project_root(path) for path in candidates}:
        files.update(os.path.abspath(path) for path in discover([root]).files)
    counts: dict[str, Counter] = {}
    for path in files:
        try:
            counts[path] = mentions(read_bytes(path), names)
        except FileError:
            return {}
    everywhere = sum(counts.values(), Counter())
    result = {}
    for path, found in candidates.items():
        own = counts.get(os.path.abspath(path), Counter())
        dead = frozenset(name for name in found if own[name] == 1 and everywhere[name] == 1)
        if dead:
            result[path] = dead
    return result


def mentions(data: bytes, names: Iterable[str]) -> Counter:
    """How many times `data` mentions each of `names` as a whole word (`m.load_if` and `"load_if"` count)."""
    alternatives = b"|".join(re.escape(name.encode()) for name in sorted(names))
    return Counter(found.decode() for found in re.findall(rb"(?<!\w)(?:" + alternatives + rb")(?!\w)", data))
