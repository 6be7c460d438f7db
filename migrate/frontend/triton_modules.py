"""Triton re-exported by a module outside the run: which names a file imports from another module bind to
triton, read from that module's source without importing it, or stated in the configuration.

vLLM and its hardware plugins import Triton as `from vllm.triton_utils import tl, triton`: the module is
installed, not among the files migrated, and binds `tl` to `triton.language` under `if TYPE_CHECKING or
HAS_TRITON:` (a placeholder otherwise, where no kernel runs). Packages that re-export Triton's modules are
imported relatively too (`from .. import language as tl`). The module an import names is found as Python
would find it (relative to the importing file's package, from its directory or package root, then on
`sys.path`), and its import lines say what it binds (triton_names.TritonNames, a chain of such modules
followed); nothing is imported or executed. Where it cannot be found, the configuration can state it
(`triton-modules`), and the rewrite then relies on it as on a stated fact (the report's `requires`).
Where neither the source nor a statement says, the modules known to re-export Triton (KNOWN: vLLM's
`triton_utils` first) are taken at their word, as an assumption each rewrite names; `known-triton-modules =
false` turns that off. The engine lets a module of the run that binds the same name decide first.
"""

from __future__ import annotations

import ast
import functools
import os
import re
import sys
import warnings
from collections.abc import Sequence

from triton_migrate.analysis.borrowed import Borrowed
from triton_migrate.analysis.packages import (
    absolute_module,
    imported_names,
    package_root,
)

# Stated in the configuration: (module, name, what it is: "triton" or "triton.language", where it was stated).
Stated = tuple[tuple[str, str, str, str], ...]
_CHAIN = 4  # how many modules a re-export is followed through
_BOTH = {"tl": "triton.language", "triton": "triton"}
# Modules that bind `tl` and `triton` to Triton's wherever Triton is installed (a placeholder elsewhere, where no
# kernel runs), as their released sources do: module -> (its names, the project). Used only where the module
# cannot be found: a source found on disk is read instead, and one that shows something else wins.
KNOWN = {
    "vllm.triton_utils": (_BOTH, "vLLM"),  # `from vllm.triton_utils import tl, triton`: vLLM and its plugins
    "sglang.srt.triton_utils": (_BOTH, "SGLang"),  # adapted from vLLM's
    "aphrodite.triton_utils": (_BOTH, "Aphrodite"),  # a vLLM fork
}


def imported(path: str, data: bytes, stated: Stated = (), search: Sequence[str] | None = None,
             known: bool = True) -> tuple[Borrowed, ...]:
    """The names the file at `path` (its bytes: `data`) imports from other modules that bind them to triton,
    from the modules it takes a name it spells a block-pointer call on from (`tl.make_block_ptr`, `tl.advance`;
    `triton` too, which the rewrite may call). `search`: where installed modules are looked for (`sys.path` by
    default); `known`: whether KNOWN applies."""
    found = []
    importer = _dotted(path)
    names = sorted((entry for entry in imported_names(data) if entry[2] is not None), key=str)
    spelling = _spelling_sites(data)
    wanted = {(level, module) for level, module, _, local in names if local in spelling}
    for level, module, name, local in names:
        if (level, module) not in wanted or level == 0 and _is_triton(module):
            continue
        source = "." * level + module
        target = absolute_module(importer, level, module) if level else module
        if _is_triton(target):  # `from .. import language` inside Triton's own package
            full = _bound_by_triton(target, name)
            binding = Borrowed(local, full, source) if full is not None else None
        else:
            # what the module's source shows needs no one's word; the statement covers what it does not, and
            # what is known of a module that is not there, what neither does
            paths = tuple(sys.path if search is None else search)
            located = _locate(os.path.dirname(os.path.abspath(path)), level, module, paths)
            binding = _read(located, name, local, source, paths) or _stated(stated, target, name, local, source) \
                or (_known(target, name, local, source) if known and located is None else None)
        if binding is not None:
            found.append(binding)
    return tuple(found)


_MEMBER = re.compile(rb"\b(?:make_block_ptr|advance)\b")
_REACH = 80  # how far before a member its owner is looked for
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_" + bytes(range(0x80, 0x100)))
_SPACE = frozenset(b" \t\n\r\f\v")


def _spelling_sites(data: bytes) -> set[str]:
    """The names the file spells a block-pointer call on (`tl` of `tl.make_block_ptr`, `triton` of
    `triton.language.advance`). One pass over the members' occurrences and a look just before each: a search
    for each imported name over the whole file cost a third of a check of a tree without kernels, where a
    few large files (Triton's own) import hundreds of names; and a regex tried at each of the bytes before a
    member, half the time of a job in the main process."""
    owners = set()
    for member in _MEMBER.finditer(data):
        owner = _owner(data, member.start(), max(0, member.start() - _REACH))
        if owner:
            owners.add(owner.decode("utf-8", "replace"))  # a name may be spelt in any script
    return owners


def _owner(data: bytes, end: int, floor: int) -> bytes | None:
    """The name before `.` (or before `.language.`) that ends at `end`, read back no further than `floor`."""
    dot = _dot_before(data, end, floor)
    if dot is None:
        return None
    start = _word_before(data, dot, floor)
    if start == dot:
        return None
    outer = _dot_before(data, start, floor) if data[start:dot] == b"language" else None
    if outer is not None:  # `triton.language.advance`: the owner is `triton`, where a name is written there
        first = _word_before(data, outer, floor)
        if first < outer:
            return data[first:outer]
    return data[start:dot]


def _dot_before(data: bytes, end: int, floor: int) -> int | None:
    """Where the text before the `.` that ends just before `end` ends (whitespace around the dot passed over);
    None if no `.` is there."""
    at = _back(data, end, floor, _SPACE)
    if at == floor or data[at - 1] != ord("."):
        return None
    return _back(data, at - 1, floor, _SPACE)


def _word_before(data: bytes, end: int, floor: int) -> int:
    return _back(data, end, floor, _WORD_BYTES)


def _back(data: bytes, end: int, floor: int, kinds: frozenset) -> int:
    """The first of the bytes of `kinds` that run up to `end`, from `floor` on."""
    while end > floor and data[end - 1] in kinds:
        end -= 1
    return end


def _is_triton(module: str) -> bool:
    return module == "triton" or module.startswith("triton.")


def _bound_by_triton(module: str, name: str) -> str | None:
    """"triton.language" where `from <module> import <name>` binds it, `module` being triton's own."""
    from triton_migrate.analysis.triton_names import (
        TritonNames,  # libcst: only where an import needs it
    )

    names = TritonNames()
    names.imported_from(module, name, name)
    return names.module_aliases.get(name)


def _stated(stated: Stated, module: str, name: str, local: str, source: str) -> Borrowed | None:
    for stated_module, stated_name, full, where in stated:
        if (stated_module, stated_name) == (module, name):
            return Borrowed(local, full, source, where)
    return None


def _known(module: str, name: str, local: str, source: str) -> Borrowed | None:
    names, project = KNOWN.get(module, ({}, ""))
    return Borrowed(local, names[name], source, project, assumed=True) if name in names else None


def _read(located: str | None, name: str, local: str, source: str, search: tuple[str, ...]) -> Borrowed | None:
    full = _bound_in(located, search, _CHAIN).get(name) if located is not None else None
    return Borrowed(local, full, source) if full is not None else None


def _bound_in(path: str, search: tuple[str, ...], depth: int) -> dict[str, str]:
    """`_bindings` of the module at `path` as it is now (a run embedded in a longer process, `migrate verify`'s
    or a test's, may see it change)."""
    try:
        status = os.stat(path)
    except OSError:
        return {}
    return _bindings(path, status.st_mtime_ns, status.st_size, search, depth)


def _locate(directory: str, level: int, module: str, search: tuple[str, ...]) -> str | None:
    """The file of `module` as an import in `directory` names it, as Python would find it (a package's
    `__init__.py`, or the module's `.py`): a relative import from the importer's package; an absolute one
    from its directory (a script's is on `sys.path`), its package root, then `search`."""
    here = directory
    for _ in range(level - 1):
        here = os.path.dirname(here)
    bases = [here] if level else list(dict.fromkeys((here, package_root(here), *map(os.path.abspath, search))))
    parts = module.split(".") if module else []
    for base in bases:
        stem = os.path.join(base, *parts)
        for candidate in (os.path.join(stem, "__init__.py"), stem + ".py"):
            if os.path.isfile(candidate):
                return candidate
    return None


@functools.lru_cache(maxsize=256)
def _bindings(path: str, _mtime: int, _size: int, search: tuple[str, ...], depth: int) -> dict[str, str]:
    """Local name -> "triton" or "triton.language" for what the module at `path` binds to them: its own imports,
    and the names it imports from such a module (followed `depth` modules on)."""
    from triton_migrate.analysis.triton_names import (  # libcst: only once one is read
        TritonNames,
        module_imports,
    )

    try:
        with open(path, "rb") as handle, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found = dict(TritonNames.exported_by(tree).module_aliases)
    if depth <= 1:
        return found
    directory = os.path.dirname(path)
    for statement in module_imports(tree):
        if statement.level == 0 and _is_triton(statement.module or ""):
            continue
        located = _locate(directory, statement.level, statement.module or "", search)
        chained = _bound_in(located, search, depth - 1) if located is not None else {}
        for alias in statement.names:
            if alias.name in chained:
                found.setdefault(alias.asname or alias.name, chained[alias.name])
    return found


def _dotted(path: str) -> str:
    """The module's dotted name from its path: below the directory above its outermost package."""
    absolute = os.path.abspath(path)
    relative = os.path.relpath(os.path.splitext(absolute)[0], package_root(os.path.dirname(absolute)))
    parts = relative.split(os.sep)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
