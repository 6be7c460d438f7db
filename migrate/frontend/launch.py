"""The launch-support module, `_triton_launch.py` (rules/_launch_support.py), which `migrate --write` writes
once per package for the migrated modules to import: where it goes, how they import it, its file result.

It goes next to the package's outermost `__init__.py`, and a module imports it the way it imports its own
package: relatively if it has a relative import (`from .._triton_launch import descriptor_fits` in
pkg/ops/chunk.py, which holds however the package is vendored or renamed), else absolutely (`from
pkg._triton_launch import ...`, which holds where a test loads the module by its path). A module outside
any package (no `__init__.py` beside it: a script, a member of a namespace package) gets the functions
pasted in instead: no import of a sibling file is sure to work there. The module holds the functions its
package's modules import, and every function an earlier run wrote there (modules outside this run may
import those). A second run, or another group of files of the same package, finds the module there and
leaves it, or adds what it needs; one that an older version wrote is rewritten; a file of that name that
this tool did not write is an error, and the modules that need it are left untouched.
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
    outside a package."""
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isfile(os.path.join(directory, "__init__.py")):
        return None
    if _RELATIVE.search(data):
        return "." * (_depth(directory) + 1) + support.MODULE
    top = os.path.relpath(directory, package_root(directory)).split(os.sep)[0]
    return f"{top}.{support.MODULE}"


def location(path: str) -> str:
    """Where the launch support of a module of a package at `path` goes, spelt from `path`."""
    directory = os.path.dirname(os.path.abspath(path))
    return os.path.normpath(os.path.join(os.path.dirname(path), *[os.pardir] * _depth(directory), FILE))


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


def _module_result(where: str, functions: set[str]) -> FileResult:
    """The module at `where` holding `functions` and every function an earlier run wrote there (modules
    outside this run may import those)."""
    try:
        current = read_bytes(where).decode("utf-8") if os.path.exists(where) else ""
    except (FileError, UnicodeDecodeError):
        current = None
    if current is not None and current and support.MARK not in current[:400]:
        current = None
    if current is None:
        return FileResult(where, error=f"{where} exists and was not written by triton-migrate; rename it "
                                       "(the migrated modules of its package import their launch support "
                                       "from it)")
    source = support.module_source(sorted(functions | support.defined(current)))
    if current == source:
        return FileResult(where, text=current)
    return FileResult(where, text=current, new_text=source, new_data=source.encode("utf-8"))
