"""Which files are migrated together: a file with block pointers and the modules of the same run it imports
`@triton.jit` helpers from (transitively). Such a group is one program for the engine (program.py), so a
block pointer passed to a helper in another module is rewritten on both sides, or on neither."""

from __future__ import annotations

import os
import re


def module_name(path: str) -> str:
    """`pkg/sub/mod.py` → "pkg.sub.mod", walking up while the directories are packages."""
    directory, file = os.path.split(os.path.abspath(path))
    parts = [] if file == "__init__.py" else [os.path.splitext(file)[0]]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    return ".".join(parts)


def absolute_module(importer: str, level: int, module: str) -> str:
    """What `from <level dots><module> import ...` in module `importer` names: `from ..x import y` in
    pkg.sub.mod is pkg.x."""
    if not level:
        return module
    package = importer.split(".")[:-level] if importer else []
    return ".".join(package + ([module] if module else []))


_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w \t,]*)|import[ \t]+([\w. \t,]+))",
                     re.M)


def _imported_modules(data: bytes, name: str) -> set[str]:
    """The modules a file imports, read from its import lines (no parse: this runs on every Triton file of
    the run, in the main process). A missed exotic import only means a group is not formed: the kernel's
    block pointers passed to that helper are then reported, never rewritten on one side only."""
    found = set()
    for dots, base, names, plain in _IMPORT.findall(data):
        if plain:
            found |= {part.split()[0].decode() for part in plain.split(b",") if part.strip()}
            continue
        module = absolute_module(name, len(dots), base.decode())
        found.add(module)
        found |= {f"{module}.{n.split()[0].decode()}" for n in names.split(b",") if n.strip()}  # `from pkg import mod`
    return found


_JIT_DEFINITION = re.compile(rb"^[ \t]*@[\w.]*jit\b[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*def ", re.M)


def groups(files: dict[str, bytes], candidates: set[str]) -> list[list[str]]:
    """Groups of two or more files (paths) to migrate together; every other file is migrated alone. Only
    modules that define `@jit` functions join: importing Triton's own modules, say, groups nothing."""
    helpers = {path: data for path, data in files.items() if b"jit" in data and _JIT_DEFINITION.search(data)}
    by_module = {module_name(path): path for path in helpers}
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
        for module in _imported_modules(helpers[path], module_name(path)):
            other = by_module.get(module)
            if other is not None and other != path:
                parent[find(other)] = find(path)
                pending.append(other)
    members: dict[str, list[str]] = {}
    for path in seen:
        members.setdefault(find(path), []).append(path)
    return [sorted(group) for group in members.values() if len(group) > 1]
