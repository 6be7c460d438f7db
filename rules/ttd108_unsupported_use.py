"""TTD108 unsupported-use: block pointer used in a way the rewrite does not model.

What it does: reports a block pointer used in a way the rewrite does not model, or a call Triton rejects; the site
is left as it is (or, for a call that never compiled, kept failing as it did).

Why: everything the codemod rewrites it must model exactly. A block pointer compared, stored in a tuple that
is used otherwise than by literal indices (passed whole, `len(ps)`, a computed index, `ps = (ps[1], ps[0])`),
created outside a plain `name = tl.make_block_ptr(...)` (or `name = tl.make_block_ptr(...) if FLAG else
None`, which migrates as `if FLAG:` statements would), or given a `boundary_check` whose dimensions the
source does not show, or a `padding_option` that is neither a literal nor a name, is left untouched and
reported. A `boundary_check` is read where it is a literal (a tuple with as many entries as the block pointer
has dimensions checks all of them, whatever their spelling: Triton compiles nothing else), a name that holds one
literal wherever the function reads it (a module's `CHECK = (0, 1)` or `tl.constexpr(...)`, a local assigned
once), a constexpr flag's choice between literals (`(0, 1) if CHECK_ROWS else (1,)`), or a helper's parameter
that its calls fill with literals. A kernel's constexpr parameter (`boundary_check=CHECK`) is refused: each
launch chooses it, no one access is exact for every value, and Triton has no compile-time `in` with which to
choose the dimensions per value (a chain of `CHECK == (0, 1)` tests over every spelling, order and duplicate
included, is no code anyone would keep); the message says how to spell it so that it migrates. A
`padding_option` that is a name (a constexpr) keeps the access off descriptors (TTD006 says why); one that holds
a literal (a module's `PADDING = tl.constexpr("zero")`) is that literal.

A load or store with a real `mask=` or `other=` on a block pointer is another matter: Triton rejects it at
compile time in every version, so the access never compiled, and no migration could make it mean anything. A
`tl.static_assert(False, "...")` goes on the line before it, which fails there just the same (reported with this
code, decision `compile-error`), and the access migrates to masked pointers with its own mask kept (and'ed with
the bounds it checks), so that what computes the mask is still read: no block-pointer API is left, and the
kernel fails to compile as it always did. On a line of several statements, where the assertion cannot go
before it, it stays as it is and is reported. `mask=None` and `other=None` are no mask (Triton 3.7 and earlier
took them so) and migrate as if absent.

A call that Triton itself rejects is reported with this code and what is wrong, and left as it is (it never
compiled, and no migration could give it a meaning): a `tl.make_block_ptr` with too many positional arguments, an
unknown keyword, an argument missing or given twice, no dimension, an `order` that is not a permutation of the
dimensions (`order=(0, 0)`), a block size that is not a positive power of two, tuples whose lengths differ
(TTD105); a `tl.load` or `tl.store` called so on a block pointer. The function that holds such a call never
compiled: it stays as it is, whole, every block pointer of it reported with this code. A `boundary_check` naming a
dimension the block pointer lacks, or one twice, becomes `tl.static_assert(False, ...)` (TTD003, decision
`compile-error`), which Triton rejects there as it rejected the access: such an access can sit in a constexpr
branch that the callers of a helper never take.

A tuple of block pointers read only by literal indices (`ps = (tl.make_block_ptr(...), ...)`, `tl.load(ps[0])`,
`ps = (tl.advance(ps[0], d), ps[1])`) is only its elements: such a function is migrated as the same code with one
name per element (`ps_0`, `ps_1`: analysis/tuples.py), where every block pointer of the function then migrates;
otherwise the module is migrated as written, and the tuple's report says which block pointer stood in the way.

Example:

    if p == q:                          # a block pointer compared
        ...
    # left untouched, reported

Fix safety: no fix: the site is left untouched (a call Triton rejects is kept rejected, decision `compile-error`),
with this code as the reason.

Fixtures: mask_none, scalar_and_conditional_parts (accepted), store_mask_never_compiled, tuple_of_block_pointers,
helper_refused_keeps_caller (a tuple used whole), boundary_check_named (names that hold a literal); property
test; tests/test_invalid_programs.py (a generator of calls Triton rejects: each refused, never an internal
error); tests/test_idioms.py (checks and tuples refused).
"""
from __future__ import annotations

CODE = "TTD108"
NAME = "unsupported-use"
SUMMARY = "block pointer used in a way the rewrite does not model"


def rejected(what: str) -> str:
    """The message for a call Triton rejects: what is wrong with it."""
    return f"Triton rejects this call ({what}): it never compiled, and it is left as it is"


def in_rejected(function: str, why: str) -> str:
    """The message for a block pointer of a function that holds a call Triton rejects (`why`: what is wrong)."""
    return f"`{function}` holds a call Triton rejects ({why}), so it never compiled: it stays as it is, whole"


def padding_chosen_at_compile_time(name: str) -> str:
    return (f"`padding_option={name}` is chosen at compile time; a descriptor (or compat tile) is created with one "
            "padding")

OUTSIDE_A_FUNCTION = "block pointer used outside a function"

ADVANCE_DELTAS = "`tl.advance` deltas must be a literal tuple with one entry per dimension"
ADVANCE_RESULT_UNUSED = "`tl.advance` result used outside an assignment, load or store"
ARITHMETIC = "arithmetic on a block pointer"
CREATED_ELSEWHERE = ("block pointer created outside a plain `name = tl.make_block_ptr(...)` (or `... if FLAG else "
                     "None`) assignment or the pointer of a load or store on a line of its own")
PARTS_NEED_UNCHANGED = "passing a block pointer as parts needs its base, shape and strides unchanged at the call"
MERGED_BLOCK_SHAPES = ("the block pointers merged here have different block shapes, which a helper receives as "
                       "`tl.constexpr` parameters")
USER_MASK = "an access with `mask=` keeps it on masked pointers"
PADDING_SPELT = "`padding_option` must be a literal or a name"


def passed_to(member: str) -> str:
    return f"passed to `tl.{member}`"


def passed_as(member: str, parameter: str) -> str:
    """A block pointer given to a load or store as anything but the pointer it accesses (`mask=`, `other=`)."""
    return f"passed to `tl.{member}` as its `{parameter}`"


def zero_for_none(name: str) -> str:
    """`p == 0` where `p` is 0 on some path: its migrated parts are None there, which the test would tell apart."""
    return (f"`{name}` is `0` instead of a block pointer on some path, where its migrated parts are `None`: this "
            "test would tell them apart")


def rejected_access(what: str) -> str:
    """An access Triton rejects, kept with a `tl.static_assert` before it."""
    return (f"{what} (every Triton version): Triton rejects it at compile time wherever it is reached, and so does "
            "the `tl.static_assert` put before it (the access migrates, its mask kept)")


def mask_on_shared_line(member: str, keyword: str) -> str:
    return (f"`tl.{member}` with `{keyword}=` on a block pointer, which Triton rejects at compile time (every "
            "version), on a line of several statements (a `tl.static_assert` that keeps it so would go before it)")


UNFOLLOWED = "used where the rewrite cannot follow it"


def used(name: str, how: str) -> str:
    """A block pointer read where the rewrite does not follow it (`how`: UNFOLLOWED, `passed_to`, ...)."""
    return f"block pointer `{name}` {how}"


PARTS_CHANGED = "the masked-pointer form needs the base, shape and strides unchanged at the access"


def masked_access(member: str, keyword: str) -> str:
    """A block-pointer access given `mask=` or `other=` (`keyword`), which Triton rejects."""
    return f"`tl.{member}` with `{keyword}=` on a block pointer"


def masked_assertion(member: str, keyword: str) -> str:
    """What the `tl.static_assert` before such an access says."""
    return f"{masked_access(member, keyword)}: Triton rejects it"


def check_parameter(check: str) -> str:
    """A `boundary_check` that is a kernel's parameter: no one access is exact for every value it may take."""
    return (f"`boundary_check` is the parameter `{check}`, which each launch (or call) chooses: no one access is exact "
            "for every value it may take, and Triton has no compile-time test of which dimensions a tuple holds (no "
            "`in`); give it as a literal, or one literal per constexpr flag (`boundary_check=(0, 1) if CHECK_ROWS "
            "else (1,)`)")


def check_unread(check: str) -> str:
    return (f"`boundary_check` is `{check}`, whose dimensions the source does not show (a literal, a name assigned one "
            "literal, a constexpr flag's choice between literals, or dimensions below the rank)")


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
