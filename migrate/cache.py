"""The per-file result cache of check runs (ruff's `.ruff_cache`, for the same reason: CI runs the lint on
every push, and most files have not changed since the last one).

An entry is the diagnostics of one file, keyed by a digest of its bytes, the policy, and the source of
this tool itself (an edited checkout or a new version never reads old entries). Only results that do
not depend on other files are kept: a file migrated with others that share its helpers is always analysed.
Entries are written atomically, so parallel workers and concurrent runs never see half an entry.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import tempfile
from dataclasses import asdict
from functools import lru_cache
from pathlib import Path

from .outcome import Diagnostic, FileOutcome

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


def source_folders() -> list[Path]:
    """The package's folder and its rules' (a wheel nests them; a checkout keeps `rules/` apart)."""
    rules = importlib.util.find_spec(f"{__package__}.rules").submodule_search_locations  # found, not imported
    folders = {Path(__file__).resolve().parent, *(Path(p).resolve() for p in rules)}
    return sorted(f for f in folders if not any(other in f.parents for other in folders))  # each file once


def key(data: bytes, policy) -> str:
    return hashlib.blake2b(data + repr(policy).encode() + tool_digest().encode(), digest_size=20).hexdigest()


def load(directory: str, data: bytes, policy) -> FileOutcome | None:
    try:
        entry = json.loads((Path(directory) / tool_digest() / key(data, policy)).read_text())
        return FileOutcome(tuple(Diagnostic(**{**d, "requirements": tuple(d["requirements"])}) for d in entry), None)
    except (OSError, ValueError, TypeError, KeyError):
        return None  # absent, or damaged: analyse again


def store(directory: str, data: bytes, policy, outcome: FileOutcome) -> None:
    try:
        folder = _folder(Path(directory))
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=".entry-")
        with os.fdopen(handle, "w") as file:
            json.dump([asdict(d) for d in outcome.diagnostics], file)
        os.replace(temporary, folder / key(data, policy))
    except OSError:
        pass  # a read-only checkout: the run is only slower


def _folder(directory: Path) -> Path:
    folder = directory / tool_digest()
    if not folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        (directory / "CACHEDIR.TAG").write_text(_README)
        (directory / ".gitignore").write_text("*\n")
    return folder
