"""The launch-support module, `_triton_launch.py` (rules/_launch_support.py), which `migrate --write` writes
for the migrated modules to import: where it goes, how they import it, its file result.

In a package it goes next to the package's outermost `__init__.py`, and a module imports it the way it
imports its own package: relatively if it has a relative import (`from .._triton_launch import
descriptor_fits` in pkg/ops/chunk.py, which holds however the package is vendored or renamed), else
absolutely (`from pkg._triton_launch import ...`, which holds where a test loads the module by its path).
A module outside any package (no `__init__.py` beside it: a member of a namespace package, a script, a
file a test loads by its path) gets it beside itself and imports it relatively if it has a relative
import (it is then always a member of a namespace package), else in a `try` that imports it relatively
and, where the module is not imported as part of a package, by its name (engine.py). Never pasted: no
migrated module holds launch support of its own (`pasted_support` finds any that does). The module holds
the parts of rules/_launch_support.py that the modules importing it use and those an earlier run wrote
there: a second run, or another group of files of the same folder, finds it and leaves it, or adds the
parts it needs; one that an older version wrote is rewritten; a file of that name that this tool did not
write is an error, and the modules that need it are left untouched.
"""

from __future__ import annotations

import os
import re
from dataclasses import replace

from triton_migrate.analysis.packages import package_root
from triton_migrate.frontend.fileio import FileError, read_bytes
from triton_migrate.frontend.output import FileResult
from triton_migrate.rules import _launch_support as support

FILE = f"{support.MODULE}.py"


_RELATIVE = re.compile(rb"^[ \t]*from[ \t]+\.", re.M)


def import_spec(path: str, data: bytes) -> str | None:
    """What the module at `path` (its bytes: `data`) writes after `from` to import the launch support; None
    for the engine's `try` (outside a package, with no relative import)."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isfile(os.path.join(directory, "__init__.py")):
        return f".{support.MODULE}" if _RELATIVE.search(data) else None
    if _RELATIVE.search(data):
        return "." * (_depth(directory) + 1) + support.MODULE
    top = os.path.relpath(directory, package_root(directory)).split(os.sep)[0]
    return f"{top}.{support.MODULE}"


def location(path: str) -> str:
    """Where the launch support of the module at `path` goes, spelt from `path`: beside its package's
    outermost `__init__.py`, or beside the module outside a package."""
    directory = os.path.dirname(os.path.abspath(path))
    depth = _depth(directory) if os.path.isfile(os.path.join(directory, "__init__.py")) else 0
    return os.path.normpath(os.path.join(os.path.dirname(path), *[os.pardir] * depth, FILE))


def _depth(directory: str) -> int:
    """How many packages `directory` is below its outermost one."""
    return len(os.path.relpath(directory, package_root(directory)).split(os.sep)) - 1


def with_modules(results: list[FileResult]) -> list[FileResult]:
    """`results` and a result per launch-support module that their new texts import (`launch_module`): a new
    file, or an old one brought up to date. Where one cannot be written, the results that need it become
    errors."""
    wanted: dict[str, set[str]] = {}
    for result in results:
        if result.launch_module and result.new_text is not None:
            wanted.setdefault(result.launch_module, set()).update(result.launch_functions)
    made = {where: _module_result(where, functions) for where, functions in sorted(wanted.items())}
    broken = {where for where, result in made.items() if result.error}
    kept = [replace(r, new_text=None, new_data=None, error=f"needs {r.launch_module}, which cannot be written")
            if r.launch_module in broken and r.new_text is not None else r for r in results]
    return kept + [result for result in made.values() if result.new_text is not None or result.error]


def missing(where: str, functions: tuple[str, ...]) -> str | None:
    """Why the launch-support module at `where` is not as migrated code that imports `functions` from it needs
    it (absent, out of date, or a file of that name that someone else wrote), or None. For standard input,
    which writes one file only."""
    module = _module_result(where, set(functions))
    if module.error:
        return module.error
    if module.new_text is not None:
        return f"{where} is not there yet" if not module.text else f"{where} is out of date"
    return None


def _module_result(where: str, functions: set[str]) -> FileResult:
    """The module at `where`, written or brought up to date (`functions` and those it defines) unless someone
    else wrote a file of its name."""
    try:
        current = read_bytes(where).decode("utf-8") if os.path.exists(where) else ""
    except (FileError, UnicodeDecodeError):
        current = None
    if current is not None and current and support.MARK not in current[:400]:
        current = None
    if current is None:
        return FileResult(where, error=f"{where} exists and was not written by triton-migrate; rename it "
                                       "(the migrated modules beside it import their launch support from it)")
    source = support.module_source(functions | support.defined(current))
    if current == source:
        return FileResult(where, text=current)
    return FileResult(where, text=current, new_text=source, new_data=source.encode("utf-8"))


def pasted_support(source: str) -> list[str]:
    """The launch or facts helpers that a module (its `source`) defines itself, as versions before this one
    pasted them into modules outside a package: `descriptor_fits`, `stated_facts`, `_ensure_allocator`, ...
    (their docstrings say triton-migrate wrote them). None in a migrated tree but `_triton_launch.py`
    itself; the corpus measurement counts them."""
    import ast

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))
            and support.MARK in (ast.get_docstring(node) or "")]
