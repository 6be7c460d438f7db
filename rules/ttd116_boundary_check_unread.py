"""TTD116 boundary-check-unread: a `boundary_check` whose dimensions the source does not show (part of TTD108).

What it does: reports a block-pointer access whose `boundary_check` is neither a literal nor a name that holds
one; the block pointer is left untouched.

Why: an access is exact only for the dimensions it checks. A `boundary_check` is read where it is a literal (a
tuple with as many entries as the block pointer has dimensions checks all of them, whatever their spelling:
Triton compiles nothing else), a name that holds one literal wherever the function reads it (a module's
`CHECK = (0, 1)` or `tl.constexpr(...)`, a local assigned once), a constexpr flag's choice between literals
(`(0, 1) if CHECK_ROWS else (1,)`), or a helper's parameter that its calls fill with literals. A kernel's
constexpr parameter (`boundary_check=CHECK`) is refused: each launch chooses it, no one access is exact for every
value, and Triton has no compile-time `in` with which to choose the dimensions per value; the message says how to
spell it so that it migrates.

Example:

    x = tl.load(p, boundary_check=CHECK)   # CHECK: a constexpr parameter of the kernel
    # left untouched, reported

Fix safety: no fix: the site is left untouched, with this code as the reason. TTD108 selects it too.

Fixtures: boundary_check_named (names that hold a literal, accepted); tests/test_idioms.py (checks refused).
"""
from __future__ import annotations

CODE = "TTD116"
NAME = "boundary-check-unread"
SUMMARY = "a `boundary_check` whose dimensions the source does not show"


def check_parameter(check: str) -> str:
    """A `boundary_check` that is a kernel's parameter: no one access is exact for every value it may take."""
    return (f"`boundary_check` is the parameter `{check}`, which each launch (or call) chooses: no one access is exact "
            "for every value it may take, and Triton has no compile-time test of which dimensions a tuple holds (no "
            "`in`); give it as a literal, or one literal per constexpr flag (`boundary_check=(0, 1) if CHECK_ROWS "
            "else (1,)`)")


def check_unread(check: str) -> str:
    return (f"`boundary_check` is `{check}`, whose dimensions the source does not show (a literal, a name assigned one "
            "literal, a constexpr flag's choice between literals, or dimensions below the rank)")
