"""TTD202 triton-imported-elsewhere: `tl` comes from another module that this run does not show to be Triton's.

What it does: reports a block pointer whose `tl` (or `triton`) comes from a module that this run does not show to
be Triton's.

Why: the tool knows `tl.make_block_ptr` for Triton's by the import that binds `tl`. A module that takes `tl`
from another module binds it as that module does, which is read from its source, never imported: a module of
the run (`from .common import tl, triton`, where common.py imports triton.language in a `try:` with a mock
fallback, as Megatron-LM's kernels do), or one found as Python would find it, in the importing file's project
or among the installed packages (`from vllm.triton_utils import tl, triton`, as vLLM and its hardware plugins
write it: `triton_utils` binds `tl` to `triton.language` under `if TYPE_CHECKING or HAS_TRITON:` and to a
placeholder under `else:`, where no kernel runs). A relative import from a package that is Triton itself
(`from .. import language as tl` in `triton/ops/`) or re-exports it (`from . import language as tl`, where the
package's `__init__.py` has `from triton import language`) alike. A name that some branch of a module imports
from another package (`except ImportError: import other_triton.language as tl`) is not Triton's there. One that
a branch takes from a module that re-exports it while another imports it from triton (`try: from
vllm.triton_utils import tl` / `except ModuleNotFoundError: import triton.language as tl`, as AMD's kernels of
an inference engine write it) is triton's, where the module's source does not show it, by assumption: each
rewrite names it (`requires: ... assumed`; fixture import_reexport_fallback).

Where that module cannot be found and is one known to re-export Triton (vLLM's `vllm.triton_utils`, SGLang's and
Aphrodite's `triton_utils`: frontend/triton_modules.py, KNOWN), its binding is assumed, and each rewrite names the
assumption (`requires: ... assumed, as vLLM re-exports it`; `known-triton-modules = false` turns it off; fixture
known_reexport_vllm). Where that module cannot be found otherwise, or binds the name to something else than `triton`
(a renamed distribution, such as tokenspeed's `tokenspeed_triton`), nothing says the calls are Triton's block
pointers: each is reported here, left as it is, rather than passed over in silence (it would stop compiling on
Triton 3.9 without a word).

Fix: run migrate over the package (both modules), install the package that has the module, import
`triton.language` in the module itself, or state it in the configuration (a stated fact: each rewrite of the
module then lists it under `requires`, and JSON marks its fix unsafe):

    [tool.triton-migrate.triton-modules]
    "vllm.triton_utils" = { tl = "triton.language", triton = "triton" }

or on the command line, `--triton-module vllm.triton_utils.tl=triton.language,vllm.triton_utils.triton=triton`.

Example:

    from .common import tl          # common.py not in the run, nor found
    p = tl.make_block_ptr(...)
    # left untouched, reported

Fix safety: no fix: the site is left untouched, with this code as the reason.

Fixtures: tl_reexported (migrated together), triton_via_package (a vLLM-like package found on disk),
relative_language (a relative import), known_reexport_vllm (vLLM not installed: a known re-export);
tests/test_groups.py and tests/test_triton_modules.py.
"""
from __future__ import annotations

CODE = "TTD202"
NAME = "triton-imported-elsewhere"
SUMMARY = "`tl` is imported from a module not known to import it from triton"


def message(name: str, origin: str, statement: str) -> str:
    """`name` (`tl`, `triton`) imported from the module `origin`; `statement`: how to state it in words."""
    return (f"`{name}` is imported from `{origin}`, which is not known to import it from triton (neither the files "
            "migrated, its project nor the installed packages have it, or it imports another package): the block "
            f"pointer is left as it is; if it is triton's, state it ({statement})")


def statement(origin: str, name: str) -> str:
    """How to state that `name` imported from `origin` is triton's: the option, or the configuration key
    for a relative import."""
    if origin.startswith("."):
        return "`triton-modules`, under the module's full name"
    return f"`--triton-module {origin}.{name}={'triton' if name == 'triton' else 'triton.language'}`"


def requirement(local: str, source: str, full: str, stated: str) -> str:
    """What a rewrite relying on a stated binding (`local` imported from `source` is `full`) relies on."""
    return f"`{local}` imported from `{source}` is `{full}`: stated ({stated})"


def known(local: str, source: str, full: str, project: str) -> str:
    """What a rewrite relies on where `local` is imported from `source`, a module `project` is known to re-export
    triton from and that this run cannot read (not installed)."""
    return (f"`{local}` imported from `{source}` is `{full}`: assumed, as {project} re-exports it (the module is not "
            "installed here; `known-triton-modules = false` turns this off)")


def assumption(local: str, source: str, full: str) -> str:
    """What a rewrite relies on where `local` is imported from `source` in one branch of the module's imports and
    from triton (as `full`) in another."""
    return f"`{local}` imported from `{source}` is `{full}`: assumed, as another import of it in the module is triton's"
