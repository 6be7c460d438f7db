"""Which files are migrated together: a file with block pointers and the modules of the same run it imports
`@triton.jit` helpers from (transitively). Such a group is one program for the engine (program.py), so a
block pointer passed to a helper in another module is rewritten on both sides, or on neither."""

from __future__ import annotations

import ast
import os


def module_name(path: str) -> str:
    """`pkg/sub/mod.py` → "pkg.sub.mod", walking up while the directories are packages."""
    directory, file = os.path.split(os.path.abspath(path))
    parts = [] if file == "__init__.py" else [os.path.splitext(file)[0]]
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        directory, package = os.path.split(directory)
        parts.insert(0, package)
    return ".".join(parts)


def _imported_modules(data: bytes, name: str) -> set[str]:
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()  # the engine reports it when the file's own turn comes
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".")[: -node.level]
                base = ".".join(package + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}  # `from pkg import mod`
    return found


def groups(files: dict[str, bytes], candidates: set[str]) -> list[list[str]]:
    """Groups of two or more files (paths) to migrate together; every other file is migrated alone."""
    helpers = {path: data for path, data in files.items() if b"triton" in data and b"jit" in data}
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
