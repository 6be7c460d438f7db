"""TTD011 dead-helper: a helper no migrated code can call any more; removed only with `--unsafe-fixes`.

What it does: it matches two kinds of `@triton.jit` function of a module's top level:

* a helper with a parameter it uses as a block pointer (`tl.load(block_ptr, boundary_check=(0, 1))`,
  `tl.advance(block_ptr, ...)`) that no call in the files migrated fills, and that nothing in the project
  names: no call, import, launch, assignment, `__all__` entry, comment or string mentions it in any Python file
  of the run or of its project (the nearest folder up with `.git`, `pyproject.toml`, `setup.py` or
  `setup.cfg`; the file's own folder if there is none), and its own module names it only where it defines it;
* a helper that only makes and returns a block pointer (`_tile(base, ...)`), every call of which in the files
  migrated now creates what it returned itself (the call read as the creation it amounts to).

Never a kernel: a `@triton.jit` function with no block-pointer parameter (its block pointers come from a
helper's result, say) or one that is launched (`kernel[grid](...)`) is never removed, opt-in or not. A
library's kernels are its API, and their callers live in other repositories.

Why: only a caller says what rank and parts such a parameter receives (TTD008), and on Triton 3.9 no code can
create the block pointer the first kind expects, nor return the one the second makes: neither can run again as
written. Intel's maintainers deleted theirs migrating their batched flash-attention benchmark (`load_if`,
which nothing called, went with the block pointers). But deleting a function is a refactoring its maintainers
decide: a caller may live where the run cannot see (a script outside the folder migrated, another
repository).

So by default the function is kept, untouched, and each of its sites is reported with this code (decision
`untouched`) and what would make it migratable: migrate it together with its callers (they give its rank and
parts), or delete it. `--unsafe-fixes` (configuration: `unsafe-fixes = true`) removes it, with its decorators
and the comments above it, as ruff applies its unsafe fixes only on request: `migrate --diff --unsafe-fixes`
shows the removal before `--write --unsafe-fixes` makes it, and every site it held is reported with this code
(decision `removed`). Reading code from standard input, the project is unknown: nothing is removed.

Example:

    @triton.jit
    def _load_tile(block_ptr):          # nothing in the project calls or names it
        return tl.load(block_ptr, boundary_check=(0, 1))
    # kept and reported; with --unsafe-fixes, removed

Fix safety: unsafe, so opt-in: removing a function deletes user code, which only `--unsafe-fixes` does; by default
the helper is kept and reported.

Fixture: dead_helper (with the opt-in); tests/test_dead_helper.py (kept without it, a kernel launched from
outside the run kept with it).
"""
from __future__ import annotations

CODE = "TTD011"
NAME = "dead-helper"
SUMMARY = "helper no migrated code can call: kept and reported; removed only with --unsafe-fixes"
WHY = "a helper that nothing in the project calls, imports or names: no call fills its block-pointer parameters"


def kept_creator(helper: str, inlined: bool) -> str:
    """The site of a helper that only returns a block pointer, which no migrated code calls (`inlined`: every
    call now creates it itself; else none in the files migrated calls it), kept."""
    if inlined:
        return (f"`{helper}` returns a block pointer, which Triton 3.9 lacks: every call in the files migrated now "
                "creates it itself, so nothing migrated calls it; it is kept, as code outside the run may (migrate "
                "that code with it, or delete the helper: `--unsafe-fixes` removes it)")
    return (f"`{helper}` returns a block pointer, which Triton 3.9 lacks, and nothing in the files migrated calls it; "
            "it is kept, as code outside the run may: migrate that code with it (each call then creates the block "
            "pointer itself), or delete the helper")


def removed_creator(helper: str) -> str:
    return (f"removed `{helper}`, a helper that returns a block pointer, which every call in the files migrated now "
            "creates itself (`--unsafe-fixes`)")


def removed_with(helper: str) -> str:
    """A site of a dead helper, removed with it (`--unsafe-fixes`)."""
    return f"removed with `{helper}`, {WHY}"
