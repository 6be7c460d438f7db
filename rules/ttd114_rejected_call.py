"""TTD114 rejected-call: a call Triton itself rejects (part of TTD108).

What it does: reports a block-pointer call that Triton rejects at compile time, with what is wrong, and leaves it
as it is; every block pointer of the function that holds it is reported with this code too.

Why: the call never compiled, and no migration could give it a meaning: a `tl.make_block_ptr` with too many
positional arguments, an unknown keyword, an argument missing or given twice, no dimension, an `order` that is not
a permutation of the dimensions (`order=(0, 0)`), a block size that is not a positive power of two, tuples whose
lengths differ (TTD105); a `tl.load` or `tl.store` called so on a block pointer; a `tl.advance` that moves another
number of dimensions than the block pointer has; a `padding_option` that is neither "zero" nor "nan". The function
that holds such a call never compiled: it stays as it is, whole. A `boundary_check` naming a dimension the block
pointer lacks, or one twice, becomes `tl.static_assert(False, ...)` instead (TTD003, decision `compile-error`),
which Triton rejects there as it rejected the access: such an access can sit in a constexpr branch that the
callers of a helper never take.

Example:

    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (0, 0))  # `order` is no permutation
    # left as it is, and every block pointer of the function with it, reported

Fix safety: no fix: the function is left as it is, with this code as the reason. TTD108 selects it too.

Fixtures: none of its own; tests/test_invalid_programs.py generates calls Triton rejects (each refused, never an
internal error), tests/test_hostile_engine.py.
"""
from __future__ import annotations

CODE = "TTD114"
NAME = "rejected-call"
SUMMARY = "a call Triton itself rejects"


def rejected(what: str) -> str:
    """The message for a call Triton rejects: what is wrong with it."""
    return f"Triton rejects this call ({what}): it never compiled, and it is left as it is"


def in_rejected(function: str, why: str) -> str:
    """The message for a block pointer of a function that holds a call Triton rejects (`why`: what is wrong)."""
    return f"`{function}` holds a call Triton rejects ({why}), so it never compiled: it stays as it is, whole"


# What Triton rejects in a call (`rejected`'s `what`)
NO_DIMENSION = "`make_block_ptr` describes no dimension"


def order_not_permutation(order: tuple, rank: int) -> str:
    return f"`order` {order} is not a permutation of the {rank} dimensions"


def block_size_not_power(size: int) -> str:
    return f"the block size {size} is not a positive power of two"


def advance_rank(moved: int, rank: int) -> str:
    return f"`tl.advance` moves {moved} dimensions of a rank-{rank} block pointer"


def unknown_padding(option: str) -> str:
    return f"`padding_option` {option!r} is none of \"zero\", \"nan\""


def starred(member: str) -> str:
    return f"`{member}` called with *args or **kwargs"


def too_many_positional(member: str, takes: int, given: int) -> str:
    return f"`{member}` takes {takes} positional arguments, {given} are given"


def unknown_keyword(member: str, name: str, params) -> str:
    return f"`{member}` has no parameter `{name}` (it takes {', '.join(params)})"


def given_twice(member: str, name: str) -> str:
    return f"`{member}` is given `{name}` twice"


def missing(member: str, name: str) -> str:
    return f"`{member}` is missing `{name}`"
