"""The result cache of check runs (ruff's `.ruff_cache`, for the same reason: CI runs the lint on every
push, and most files have not changed since the last one).

An entry is the diagnostics of one task: a file, or the files migrated together because they share
`@triton.jit` helpers (packages.py), whose results depend on every one of them. It is keyed by a digest of
the policy, the source of this tool itself (an edited checkout or a new version never reads old entries)
and the bytes of every member, with each member's path for a group (which file imports which is part of
the input): a change to any member, or a file joining or leaving the group, misses. Entries are read in
the main process, which starts no worker when every task is served, and written atomically, so parallel
workers and concurrent runs never see half an entry.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path

from triton_migrate.outcome import Diagnostic, FileOutcome

DIRECTORY = ".triton-migrate-cache"
_README = "Signature: 8a477f597d28d172789f06886806bc55\n# a cache directory of triton-migrate (CACHEDIR.TAG)\n"


@lru_cache(maxsize=1)
def tool_digest() -> str:
    """A digest of this tool's own source: the results depend on nothing else of the tool."""
    digest = hashlib.blake2b(digest_size=16)
    for folder in source_folders():
        for path in sorted(folder.rglob("*.py")):
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def package_folders(package: str) -> list[str]:
    """Where a package of this tool lies, found without importing it (the shim's imports triton)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.submodule_search_locations is None:
        raise ImportError(f"{package} is not installed")
    return list(spec.submodule_search_locations)


def source_folders() -> list[Path]:
    """The package's folder and its rules' (a wheel nests them; a checkout keeps `rules/` apart)."""
    rules = package_folders("triton_migrate.rules")
    folders = {Path(__file__).resolve().parent.parent, *(Path(p).resolve() for p in rules)}
    return sorted(f for f in folders if not any(other in f.parents for other in folders))  # each file once


def key(members: list[tuple[str, bytes]], policy) -> str:
    """`members`: (path, bytes) of the task's files; one file is keyed by its bytes alone (a copy elsewhere,
    or a renamed file, reads the same entry)."""
    digest = hashlib.blake2b(repr(policy).encode() + tool_digest().encode(), digest_size=20)
    for path, data in members:
        name = os.path.abspath(path).encode() if len(members) > 1 else b""
        digest.update(len(name).to_bytes(4, "little") + name + len(data).to_bytes(8, "little") + data)
    return digest.hexdigest()


def load(directory: str, members: list[tuple[str, bytes]], policy) -> list[FileOutcome] | None:
    """Each member's outcome (diagnostics only), in order; None: not cached, or the entry is damaged."""
    try:
        entry = json.loads((Path(directory) / tool_digest() / key(members, policy)).read_text())
        if len(entry) != len(members):
            return None
        return [FileOutcome(tuple(Diagnostic(**{**d, "requirements": tuple(d["requirements"])})
                                  for d in found["diagnostics"]), None, uncalled_helpers=tuple(found["uncalled"]))
                for found in entry]
    except (OSError, ValueError, TypeError, KeyError):
        return None  # absent, or damaged: analyse again


def store(directory: str, members: list[tuple[str, bytes]], policy, outcomes: list[FileOutcome]) -> None:
    entry = [{"diagnostics": [asdict(d) for d in outcome.diagnostics], "uncalled": list(outcome.uncalled_helpers)}
             for outcome in outcomes]
    _write(Path(directory), key(members, policy), entry)


def reachable_names(directory: str) -> Callable[[bytes], set[str] | None]:
    """reachable.reachable_names of a file's bytes, kept here between runs: a warm run parses nothing."""
    from triton_migrate.analysis.reachable import reachable_names as compute

    def remembered(data: bytes) -> set[str] | None:
        path = Path(directory) / tool_digest() / ("reachable-" + hashlib.blake2b(data, digest_size=20).hexdigest())
        try:
            found = json.loads(path.read_text())
            return None if found is None else set(found)
        except (OSError, ValueError, TypeError):
            names = compute(data)
            _write(Path(directory), path.name, None if names is None else sorted(names))
            return names

    return remembered


def has_entries(directory: str) -> bool:
    """Whether an earlier run of this version of the tool left results here."""
    return (Path(directory) / tool_digest()).is_dir()


def _write(directory: Path, name: str, value) -> None:
    """`value` as JSON, atomically: parallel workers and concurrent runs never see half an entry."""
    try:
        folder = _folder(directory)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".entry-")
        with os.fdopen(handle, "w") as file:
            json.dump(value, file)
        os.replace(temporary, folder / name)
    except OSError:
        pass  # a read-only checkout: the run is only slower


def _folder(directory: Path) -> Path:
    folder = directory / tool_digest()
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        (directory / "CACHEDIR.TAG").write_text(_README)
        (directory / ".gitignore").write_text("*\n")
    return folder
