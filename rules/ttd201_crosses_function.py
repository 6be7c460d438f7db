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
from __future__ import annotations

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


# A block-pointer use left as it is that no creation of the function answers for (`origin`: where it comes from)
def untracked_advance(origin: str) -> str:
    return f"`tl.advance` on {origin}"


def untracked_access(member: str, origin: str) -> str:
    return f"`tl.{member}` with `boundary_check`/`padding_option` on {origin}"


def frozen_callers(why: str) -> str:
    """Appended to an orphan's message where the helper's callers cannot be migrated (`why`)."""
    return f"; its callers cannot pass it as parts: {why}"


def tuple_kept(why: str) -> str:
    """Appended to the refusals on the lines of a tuple of block pointers that is not respelt (`why`)."""
    return (" (a tuple read only by literal indices is followed as one name per element where every block "
            f"pointer of its function then migrates; here, {why})")


def not_followed(code: str) -> str:
    return f"`{code}`, which is not a block pointer the migration follows (one kept in a tuple, or a call's result)"


def mixed_returns(name: str, helper: str) -> str:
    """`name` assigned what `helper` returns: a block pointer on one compile-time branch, something else on another."""
    return (f"`{name}`, what `{helper}` returns: a block pointer on one compile-time branch and something else on "
            "another, which the call leaves to a constexpr it does not spell (pass a literal, `True` or `False`, for "
            "the condition at each call: each is then read as the creation it amounts to)")


def not_created_here(name: str) -> str:
    return f"`{name}`, which is not a block pointer created in this function (a parameter or a call result)"


def launched_parameter(name: str, kernel: str) -> str:
    """A parameter of a kernel its module launches on a grid, and no `@triton.jit` function calls."""
    return (f"the parameter `{name}` of `{kernel}`, a kernel this module launches (`{kernel.rpartition('.')[2]}[...]"
            "(...)`) and no `@triton.jit` function of the files migrated calls: a launch passes tensors and scalars, "
            "never a block pointer (Triton rejects this use at compile time)")


def uncalled_parameter(name: str, helper: str) -> str:
    return (f"the parameter `{name}` of `{helper}`, which nothing in the files migrated calls: its callers, if any, "
            "are elsewhere and give its rank and parts (migrate them together); if none, it is dead code, which "
            "`--unsafe-fixes` removes where nothing in the project names it (TTD011)")


def unfilled_parameter(name: str) -> str:
    return f"the parameter `{name}`, to which no call site passes a block pointer"


def unpassable_parameter(name: str, why: str) -> str:
    """A block-pointer parameter its callers cannot pass as parts (`why`: one of the reasons below)."""
    return f"the block-pointer parameter `{name}`, which its callers cannot pass as parts: {why}"


# Why a helper cannot take a block pointer as parts (`no_parts`'s, `unpassable_parameter`'s `why`)
UNSETTLED = "no call site passes it a block pointer whose parts are known"
RANKS_DIFFER = "receives block pointers of different ranks at different call sites"
AS_VALUE = ("it is used as a value (a function pointer or `constexpr` callable), so it may be called with block "
            "pointers where the migration cannot see")
PUBLIC = "it is public API (`__all__`): callers outside the migrated files would break"
UNSEEN_CALLS = ("some of its call sites are in code the migration does not analyse (outside a function with block "
                "pointers)")
MIXED_ARGUMENTS = "it receives a block pointer at some call sites and another value at others"
CALLER_REFUSED = "one of its callers' block pointers cannot be migrated"
RETURNS_DIFFER = "its return statements hand back block pointers differently"


def defined_in_frozen(module: str, why: str) -> str:
    return f"it is defined in {module}, which cannot be migrated ({why})"


def called_from_frozen(module: str, why: str) -> str:
    return f"it is called from {module}, which cannot be migrated ({why})"


def refused_inside(message: str) -> str:
    """The helper refuses the block pointer it re-creates from the parameter (`message`: why)."""
    return f"in the helper, {message}"
