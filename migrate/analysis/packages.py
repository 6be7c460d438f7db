"""Which files are migrated together: a file with block pointers and the files of the same run it imports
`@triton.jit` helpers from (transitively). Such a group is one program for the engine (program.py), so a
block pointer passed to a helper in another file is rewritten on both sides, or on neither. A file also
joins the file it imports triton's names from (`from .common import tl`), the only place that says what `tl` is.

A module is its file: an import is resolved to a path as Python would find it, never matched by its name
alone, so that files named alike in unrelated directories (`utils.py`, `chunk.py`) never join."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterable

from .reachable import reachable_names


@functools.cache
def package_root(directory: str) -> str:
    """The directory above the outermost package that holds `directory` (itself if it is no package): the
    `sys.path` entry its absolute imports start from."""
    parent = os.path.dirname(directory)
    if parent == directory or not os.path.isfile(os.path.join(directory, "__init__.py")):
        return directory
    return package_root(parent)


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
        self._found: dict[tuple[str, int, str], str | None] = {}  # what a directory's imports name

    def __call__(self, importer: str, level: int, module: str) -> str | None:
        directory = os.path.dirname(importer)
        if (directory, level, module) not in self._found:
            self._found[(directory, level, module)] = self._locate(directory, level, module)
        return self._found[(directory, level, module)]

    def _locate(self, directory: str, level: int, module: str) -> str | None:
        here = os.path.abspath(directory)
        for _ in range(level - 1):
            here = os.path.dirname(here)
        bases = [here] if level else list(dict.fromkeys((here, package_root(here))))
        parts = module.split(".") if module else []
        for base in bases:
            stem = os.path.join(base, *parts)
            for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
                if candidate in self.by_absolute:
                    return self.by_absolute[candidate]
        return None


_IMPORT = re.compile(rb"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]*(?:\(([^)]*)\)|((?:[^\n#;\\]|\\\r?\n)*))"
                     rb"|import[ \t]+([\w. \t,]+))", re.M)
_COMMENT = re.compile(rb"#[^\n]*")
_NAME = re.compile(rb"\s*(\w+)(?:\s+as\s+(\w+))?\s*")


def _imports(data: bytes) -> set[tuple[int, str, str | None]]:
    """(level, module, name) of every import, read from its import lines (no parse: this runs on every
    Triton file of the run, in the main process): `from .m import f` gives (1, "m", "f"), `import a.b`
    (0, "a.b", None). A name that cannot be read (`*`, a line this does not follow) is None: the whole
    module. A missed exotic import only means a group is not formed: the kernel's block pointers passed to
    that helper are then reported, never rewritten on one side only."""
    return {(level, module, name) for level, module, name, _ in imported_names(data)}


@functools.lru_cache(maxsize=1024)
def imported_names(data: bytes) -> frozenset[tuple[int, str, str | None, str | None]]:
    """(level, module, name, the name it is bound to) of every import (`_imports`): `from .m import f as g`
    gives (1, "m", "f", "g"), `import a.b` (0, "a.b", None, None). Read once per file's bytes: a run asks it
    of each file with sites (triton_modules.py) and again of each that defines helpers (`groups`), in the main
    process, before any worker has a task."""
    found: set[tuple[int, str, str | None, str | None]] = set()
    for dots, base, listed, line, plain in _IMPORT.findall(data):
        if plain:
            found |= {(0, part.split()[0].decode(), None, None) for part in plain.split(b",") if part.strip()}
            continue
        text = _COMMENT.sub(b"", listed or line.replace(b"\\", b" "))
        names = [_NAME.fullmatch(part) for part in text.split(b",") if part.strip()]  # `(a, b,)` ends in a comma
        if not names or not all(names):
            found.add((len(dots), base.decode(), None, None))
        found |= {(len(dots), base.decode(), n[1].decode(), (n[2] or n[1]).decode()) for n in names if n}
    return frozenset(found)


# `import triton`, `import triton.language as tl`, `from triton import language as tl`: the names a module binds
# to triton or its members, which another module of the program may import from it (triton_names.reexported).
_TRITON_IMPORT = re.compile(rb"^[ \t]*(?:import[ \t]+(triton(?:\.\w+)*)(?:[ \t]+as[ \t]+(\w+))?"
                            rb"|from[ \t]+triton(?:\.\w+)*[ \t]+import[ \t]+\(?([\w \t,]+))", re.M)


def triton_bindings(data: bytes) -> set[str]:
    """The names a module binds by importing triton, read from its import lines (a rare spelling missed only
    leaves the importers of such a name apart: their block pointers are then reported as unresolved)."""
    found = set()
    for module, alias, listed in _TRITON_IMPORT.findall(data):
        if module:
            found.add((alias or module.split(b".")[0]).decode())
        else:
            found |= {part.split()[-1].decode() for part in listed.split(b",") if part.split()}
    return found


_JIT_DEFINITION = re.compile(rb"^[ \t]*@[\w.]*jit\b[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*def[ \t]+(\w+)", re.M)
_CLASS = re.compile(rb"^[ \t]*class[ \t]+(\w+)", re.M)


def groups(files: dict[str, bytes], candidates: set[str],
           reachable_in: Callable[[bytes], set[str] | None] = reachable_names) -> list[list[str]]:
    """Groups of two or more files (paths) to migrate together; every other file is migrated alone. A file
    joins the file it imports a `@jit` function from if a block pointer can reach that function
    (reachable.py), whichever of the two has block pointers: the callers of a helper that takes parts must
    all be rewritten with it. Importing Triton's own modules, or a library's math helpers, groups nothing.
    `reachable_in(bytes)`: reachable.reachable_names, or a cache of it."""
    helpers = {path: data for path, data in files.items() if b"jit" in data and _JIT_DEFINITION.search(data)}
    if not candidates & helpers.keys():
        return []
    locate, locate_any = Locator(helpers), Locator(files)
    reachable: dict[str, set[str] | None] = {}

    @functools.cache
    def defined(path: str) -> set[bytes]:
        """The names of a file's `@jit` functions and classes, from its text: only those can be reachable,
        and most imports name neither (the stdlib parse of a kernel module costs more than all this)."""
        data = helpers[path]
        return set(_JIT_DEFINITION.findall(data)) | set(_CLASS.findall(data) if b"class" in data else ())
    parent = {path: path for path in helpers}

    @functools.cache
    def binds(path: str) -> set[str]:
        return triton_bindings(files[path]) if b"triton" in files[path] else set()

    def find(path: str) -> str:
        parent.setdefault(path, path)
        while parent[path] != path:
            parent[path] = parent[parent[path]]
            path = parent[path]
        return path

    def reaches(path: str, name: str | None) -> bool:
        if name is not None and name.encode() not in defined(path):  # a Python function, a constant...
            return False
        if path not in reachable:
            reachable[path] = reachable_in(helpers[path])
        names = reachable[path]
        return names is None or bool(names) and (name is None or name in names)

    for path, data in helpers.items():
        imports = _imports(data)
        for target, name in _imported(path, imports, locate):
            if target != path and reaches(target, name):
                parent[find(target)] = find(path)
        # the module it takes triton from (`from .common import tl`): only there is `tl` known to be triton
        for target, name in _imported(path, imports, locate_any):
            if target != path and name in binds(target):
                parent[find(target)] = find(path)
    members: dict[str, list[str]] = {}
    for path in list(parent):
        members.setdefault(find(path), []).append(path)
    return [sorted(group) for group in members.values() if len(group) > 1 and candidates.intersection(group)]


def _imported(path: str, imports: set[tuple[int, str, str | None]], locate: Locator) -> set[tuple[str, str | None]]:
    """(file, name) for every import of a file of the run (`imports`: `_imports` of its bytes): `from m import
    f` imports f of m.py, `from pkg import m` and `import pkg.m` all of m.py (name None)."""
    found: set[tuple[str, str | None]] = set()
    for level, module, name in imports:
        whole = locate(path, level, ".".join(p for p in (module, name) if p)) if name else None
        if whole is not None:
            found.add((whole, None))
        elif (owner := locate(path, level, module)) is not None:
            found.add((owner, name))
    return found
