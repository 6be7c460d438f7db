"""TTD201 crosses-function: block pointer crosses a function boundary.

What it does: reports a block pointer that crosses a function boundary where the helper and its callers cannot be
migrated together, with the reason.

Why: a block pointer passed to or returned from another `@triton.jit` function, or received as a
parameter, needs the callee and every call site rewritten together; where they can be, it travels as its
parts (TTD008), and this code reports, with the reason, where they cannot: then the helper and every caller
keep their block pointers, so that no call is ever broken.

A helper that nothing in the files migrated calls keeps its block-pointer parameters and their uses when
something in the project names it: its callers, if it has any, are outside the run, and only they say what
rank and parts it receives (migrate them together). One that nothing names anywhere is dead code, and goes
(TTD011), as Intel's maintainers deleted theirs. A kernel that its module launches on a grid
(`_dkv_kernel[grid](...)`) and no `@triton.jit` function calls receives what a launch passes, tensors and
scalars: a block-pointer use of its parameter (`boundary_check`, `tl.advance`) is reported as one Triton
rejects at compile time.

A call of a name that nothing in the module binds (no import, definition, assignment or parameter, no star
import, no builtin: ROCm/aotriton's old_fwd_kernel.py calls a helper a refactoring removed) fails to compile
there on every Triton version, before any argument is evaluated: the block pointers passed to it become the
masked pointers their names hold, the call passes them on and fails as it did (reported with this code,
decision `compile-error`).

Example:

    acc = helper(acc, p)     # `helper` listed in `__all__`: callers outside the run pass block pointers too
    # the helper and every caller left as they are, reported

Fix safety: no fix: the site is left untouched, with this code as the reason.

Fixtures: helper_refused_keeps_caller, helper_mixed_callers, call_to_nothing.
"""
CODE = "TTD201"
NAME = "crosses-function"
SUMMARY = "block pointer crosses a function boundary"

PASSED = "passed to another function"  # a block pointer read as a call's argument, the call not followed
RETURNED = "returned from the function"


def returned(name: str) -> str:
    """A block pointer created here and returned: only a parameter's goes back, as offsets."""
    return (f"block pointer `{name}` returned from the function (only a parameter's block pointer can be handed back "
            "as offsets)")


def not_unpacked(callee: str) -> str:
    return (f"`{callee}` hands this block pointer back, but its result is not unpacked into names "
            "(`acc, p = helper(acc, p)`)")


def no_parts(callee: str, why: str) -> str:
    """Passed to a helper that cannot receive it as parts (`why`: what stops it)."""
    return f"passed to `{callee}`, which cannot take it as parts: {why}"


def undefined(callee: str) -> str:
    """Passed to a function that nothing defines (the pointers it became are passed instead)."""
    return f"passed to `{callee}`, which nothing defines"


def undefined_unnamed(callee: str) -> str:
    return f"passed to `{callee}`, which nothing defines, and its name does not hold its pointers there"


def undefined_call(callee: str) -> str:
    """The call itself: it never compiled, and still does not."""
    return (f"`{callee}` is defined nowhere (nothing in the module binds it): the kernel fails to compile at this call "
            "on every Triton version, and still does, given the pointers its block pointers became")
