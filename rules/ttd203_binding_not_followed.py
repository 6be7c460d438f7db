"""TTD203 binding-not-followed: a block-pointer call whose callee the tool cannot tell is Triton's.

What it does: reports every `make_block_ptr(...)` call that no site of the report accounts for, and where there
is none, every `advance(base, offsets)` call that the tool does not know for Triton's: Triton is bound there in a
way the tool does not follow. The call is left as it is.

Why: the tool knows `tl.make_block_ptr` for Triton's by what binds `tl`: the imports of the module, at its top
level or in a function (a kernel factory's `import triton.language as tl`), in every branch of a `try:` or an
`if`, and the modules it imports them from (TTD202). Python binds names in more ways than any tool follows
(`tl = importlib.import_module("triton.language")`, a module passed as an argument, `globals()`), and a call the
analysis does not know for Triton's would raise on Triton 3.9 after a migration that said nothing of it. So the
report does not rest on the bindings alone: every call spelt `make_block_ptr(...)` (bare, or as an attribute of
any name) that no site accounts for is reported here, whatever binds its callee; `--check` never says "No block
pointers found" of a file that calls `make_block_ptr`. `advance` is a common method name, so only the calls
shaped as Triton's count (two arguments, `base` and `offsets`), in a file that calls `make_block_ptr` too or with
the offsets written as a tuple or list (analysis/census.py): a reader's `it.advance()` is not reported.

Fix: bind Triton as the tool follows it (`import triton.language as tl`, in the module or the function that
holds the kernel), or, for a name imported from a module that re-exports Triton, state it:
`--triton-module MODULE.tl=triton.language` (or the `triton-modules` table in the configuration; TTD202). A
call that is not Triton's (another library's `advance(a, (1, 2))`) takes `# noqa: TTD203`.

Example:

    import importlib
    tl = importlib.import_module("triton.language")
    p = tl.make_block_ptr(...)
    # left untouched, reported

Fix safety: no fix: the site is left untouched, with this code as the reason.

Fixtures: binding_not_followed; tests/test_census.py (the census over every fixture, the benchmark kernels and
the fuzz programs: no creation call goes unreported).
"""
from __future__ import annotations

CODE = "TTD203"
NAME = "binding-not-followed"
SUMMARY = "a block-pointer call whose callee the tool cannot tell is Triton's"


def message(callee: str, fix: str) -> str:
    """`callee`: the call's function as written (`tl.make_block_ptr`); `fix`: `imported_fix` or `bound_fix`."""
    return (f"block pointer not understood: Triton is bound here in a way the tool does not follow: `{callee}(...)` "
            f"is left as it is, and raises on Triton 3.9; {fix}")


def imported_fix(name: str, origin: str, statement: str) -> str:
    """For a callee whose head `name` is imported from `origin`; `statement`: how to state it
    (TTD202's `statement`)."""
    return f"`{name}` is imported from `{origin}`: if it is triton's, state it ({statement})"


def bound_fix(owner: str | None, member: str) -> str:
    """For a callee `owner.member` (`owner` None: a bare name; "" where the owner is no dotted name), bound
    otherwise than by an import."""
    if owner is None:
        return f"import it (`from triton.language import {member}`) in the module or the function"
    if owner == "triton.language":
        return "`import triton` in the module or the function"
    if not owner or "." in owner:
        return f"call it as `tl.{member}`, with `import triton.language as tl` in the module or the function"
    return f"bind `{owner}` with `import triton.language as {owner}` in the module or the function"
