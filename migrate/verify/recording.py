"""The on-disk recording (a directory, by convention `NAME.tmv`), format version 1:

  index.json            {"format": "triton-migrate-verify", "version": 1, "environment": {triton, torch,
                         python, device, device_name}, "command": [...], "returncode": int, "root": str,
                         "launches": [launch, ...], "tuning": [{tuner, key, config, pinned}, ...] (every
                         autotuner choice, see tuning.py), "compile": {...} (compile mode only)}
  p<ns>-<pid>/          one directory per recorded process: launches.jsonl (the raw launches),
                        tuning.jsonl (its autotuners' choices), meta.json (its environment),
                        tensors/<seq>-<arg>.bin
  compile/              IR of compiled kernels (compile mode only)

A launch: {"kernel": "module:qualname", "index": n-th launch of this kernel, "seq", "pid", "source" (path
relative to the tree), "grid": [x, y, z], "options": {num_warps, ...}, "times_ms": [...], "args": {name:
arg}, and where the launch raised, "error" (and "broken": the stated fact it broke, facts.py)}; a tensor arg:
{"kind": "tensor", "dtype", "shape", "stride", "offset", "align" (data_ptr % 128), "buffer_bytes",
"digest_before" (the buffer's digest before the launch), "written", "digest" (blake2b-128 of the whole
buffer's bits, NaNs canonical), "spots": [[element, bits], ...] (only when not kept in full), "file": the
buffer's raw bits, relative to the recording, or null}; other args: {"kind": "scalar" | "constexpr", "value"}.
Launches are ordered by process start, then by launch order within the process.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from . import tuning

FORMAT, VERSION = "triton-migrate-verify", 1


class RecordingError(Exception):
    """A recording is missing, unreadable or of another format version."""


def finalize(directory: Path, command: list[str], returncode: int, root: Path) -> dict:
    """Merge the per-process logs into index.json; returns the index."""
    processes = sorted(p for p in directory.iterdir() if p.is_dir() and p.name.startswith("p"))
    launches: list[dict] = []
    environment: dict = {}
    for process in processes:
        if not environment and (process / "meta.json").is_file():
            environment = json.loads((process / "meta.json").read_text())
        log = process / "launches.jsonl"
        if log.is_file():
            launches += [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
    counts: Counter = Counter()
    for launch in launches:
        launch["index"] = counts[launch["kernel"]]
        counts[launch["kernel"]] += 1
    index = {"format": FORMAT, "version": VERSION, "environment": environment, "command": command,
             "returncode": returncode, "root": str(root), "launches": launches, "tuning": tuning.merged(processes)}
    write_index(directory, index)
    return index


def write_index(directory: Path, index: dict) -> None:
    (directory / "index.json").write_text(json.dumps(index, indent=1))


def load(directory: Path) -> dict:
    path = Path(directory) / "index.json"
    try:
        index = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise RecordingError(f"{directory}: not a readable recording ({error})") from error
    if index.get("format") != FORMAT or index.get("version") != VERSION:
        raise RecordingError(f"{directory}: format {index.get('format')!r} version {index.get('version')!r}; "
                             f"this runner reads {FORMAT!r} version {VERSION}")
    return index


def buffer_bits(directory: Path, arg: dict):
    """The raw bits of a tensor argument's buffer as a flat integer tensor, or None if only digested."""
    import torch

    from .tensors import INT_OF_SIZE

    if arg.get("file") is None:
        return None
    data = bytearray((Path(directory) / arg["file"]).read_bytes())
    itemsize = torch.empty(0, dtype=dtype_of(arg["dtype"])).element_size()
    bits = INT_OF_SIZE[itemsize]
    return torch.frombuffer(data, dtype=bits) if data else torch.empty(0, dtype=bits)


def dtype_of(name: str):
    import torch

    return getattr(torch, name)
