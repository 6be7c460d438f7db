"""TTD118 unfollowed-use: a block pointer used where the rewrite cannot follow it (part of TTD108).

What it does: reports a block pointer compared, computed with, passed to a call the rewrite does not follow,
created outside a plain assignment, moved by deltas it cannot read, used outside a function, or whose base, shape
or strides change where the rewrite needs them unchanged; the block pointer is left untouched.

Why: everything the codemod rewrites it must model exactly. A block pointer compared, stored in a tuple that is
used otherwise than by literal indices (passed whole, `len(ps)`, a computed index, `ps = (ps[1], ps[0])`), created
outside a plain `name = tl.make_block_ptr(...)` (or `name = tl.make_block_ptr(...) if FLAG else None`, which
migrates as `if FLAG:` statements would), or advanced by deltas that are not a literal tuple, is left untouched and
reported. A tuple of block pointers read only by literal indices (`ps = (tl.make_block_ptr(...), ...)`,
`tl.load(ps[0])`, `ps = (tl.advance(ps[0], d), ps[1])`) is only its elements: such a function is migrated as the
same code with one name per element (`ps_0`, `ps_1`: analysis/tuples.py), where every block pointer of the
function then migrates; otherwise the module is migrated as written, and the tuple's report says which block
pointer stood in the way. Masked pointers recompute the addresses from the creation's parts at each access, and a
helper receives them as arguments: a part reassigned in between (and not captured at the creation) would change
what the access reads, and a helper receives block shapes as `tl.constexpr` parameters, which one call cannot fill
from two paths of different shapes.

Example:

    if p == q:                          # a block pointer compared
        ...
    # left untouched, reported

Fix safety: no fix: the site is left untouched, with this code as the reason. TTD108 selects it too.

Fixtures: tuple_of_block_pointers, helper_refused_keeps_caller (a tuple used whole), scalar_and_conditional_parts
(accepted), creation_args_reassigned (parts captured: accepted); tests/test_idioms.py (tuples refused).
"""
from __future__ import annotations

CODE = "TTD118"
NAME = "unfollowed-use"
SUMMARY = "a block pointer used where the rewrite cannot follow it"

OUTSIDE_A_FUNCTION = "block pointer used outside a function"
ADVANCE_DELTAS = "`tl.advance` deltas must be a literal tuple with one entry per dimension"
ADVANCE_RESULT_UNUSED = "`tl.advance` result used outside an assignment, load or store"
ARITHMETIC = "arithmetic on a block pointer"
CREATED_ELSEWHERE = ("block pointer created outside a plain `name = tl.make_block_ptr(...)` (or `... if FLAG else "
                     "None`) assignment or the pointer of a load or store on a line of its own")
UNFOLLOWED = "used where the rewrite cannot follow it"


def passed_to(member: str) -> str:
    return f"passed to `tl.{member}`"


def passed_as(member: str, parameter: str) -> str:
    """A block pointer given to a load or store as anything but the pointer it accesses (`mask=`, `other=`)."""
    return f"passed to `tl.{member}` as its `{parameter}`"


def zero_for_none(name: str) -> str:
    """`p == 0` where `p` is 0 on some path: its migrated parts are None there, which the test would tell apart."""
    return (f"`{name}` is `0` instead of a block pointer on some path, where its migrated parts are `None`: this "
            "test would tell them apart")


def used(name: str, how: str) -> str:
    """A block pointer read where the rewrite does not follow it (`how`: UNFOLLOWED, `passed_to`, ...)."""
    return f"block pointer `{name}` {how}"


PARTS_NEED_UNCHANGED = "passing a block pointer as parts needs its base, shape and strides unchanged at the call"
MERGED_BLOCK_SHAPES = ("the block pointers merged here have different block shapes, which a helper receives as "
                       "`tl.constexpr` parameters")
PARTS_CHANGED = "the masked-pointer form needs the base, shape and strides unchanged at the access"
