"""Which files are migrated together: a file with block pointers and the files of the same run it imports
`@triton.jit` helpers from (transitively). Such a group is one program for the engine (program.py), so a
block pointer passed to a helper in another file is rewritten on both sides, or on neither.

A module is its file: an import is resolved to a path as Python would find it, never matched by its name
alone, so that files named alike in unrelated directories (`utils.py`, `chunk.py`) never join."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable
from typing import Optional


@functools.lru_cache(maxsize=None)
def _package_root(directory: str) -> str:
    """The directory above the outermost package that holds `directory` (itself if it is no package): the
    `sys.path` entry its absolute imports start from."""
    parent = os.path.dirname(directory)
    if parent == directory or not os.path.isfile(os.path.join(directory, "__init__.py")):
        return directory
    return _package_root(parent)


def absolute_module(importer: str, level: int, module: str) -> str:
    """What `from <level dots><module> import ...` in module `importer` (a dotted name) names: `from ..x
    import y` in pkg.sub.mod is pkg.x."""
    if not level:
        return module
    package = importer.split(".")[:-level] if importer else []
    return ".".join(package + ([module] if module else []))


class Locator:
    """The file of the run an import names, as Python would find it: an absolute import from the importing
    file's own directory (a script's is on `sys.path`) or from its package root; a relative one from its
    package. A name that resolves to no file of the run is no module of the program."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.by_absolute = {os.path.abspath(path): path for path in paths}

    def __call__(self, importer: str, level: int, module: str) -> Optional[str]:
        here = os.path.dirname(os.path.abspath(importer))
        for _ in range(level - 1):
            here = os.path.dirname(here)
        bases = [here] if level else list(dict.fromkeys((here, _package_root(here))))
        parts = module.split(".") if module else []
        for base in bases:
            stem = os.path.join(base, *parts)
            for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
                if candidate in self.by_absolute:
                    return self.by_absolute[candidate]
        return None


_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w \t,]*)|import[ \t]+([\w. \t,]+))",
                     re.M)


def _imported_modules(data: bytes) -> set[tuple[int, str]]:
    """(level, module) of every module a file imports, read from its import lines (no parse: this runs on
    every Triton file of the run, in the main process). A missed exotic import only means a group is not
    formed: the kernel's block pointers passed to that helper are then reported, never rewritten on one side
    only."""
    found = set()
    for dots, base, names, plain in _IMPORT.findall(data):
        if plain:
            found |= {(0, part.split()[0].decode()) for part in plain.split(b",") if part.strip()}
            continue
        module = base.decode()
        found.add((len(dots), module))
        for name in names.split(b","):  # `from pkg import mod`
            if name.strip():
                found.add((len(dots), ".".join(p for p in (module, name.split()[0].decode()) if p)))
    return found


_JIT_DEFINITION = re.compile(rb"^[ \t]*@[\w.]*jit\b[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*def ", re.M)


def groups(files: dict[str, bytes], candidates: set[str]) -> list[list[str]]:
    """Groups of two or more files (paths) to migrate together; every other file is migrated alone. Only
    modules that define `@jit` functions join: importing Triton's own modules, say, groups nothing."""
    helpers = {path: data for path, data in files.items() if b"jit" in data and _JIT_DEFINITION.search(data)}
    locate = Locator(helpers)
    parent = {path: path for path in helpers}

    def find(path: str) -> str:
        while parent[path] != path:
            parent[path] = parent[parent[path]]
            path = parent[path]
        return path

    pending, seen = [p for p in candidates if p in helpers], set()
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        for level, module in _imported_modules(helpers[path]):
            other = locate(path, level, module)
            if other is not None and other != path:
                parent[find(other)] = find(path)
                pending.append(other)
    members: dict[str, list[str]] = {}
    for path in seen:
        members.setdefault(find(path), []).append(path)
    return [sorted(group) for group in members.values() if len(group) > 1]
