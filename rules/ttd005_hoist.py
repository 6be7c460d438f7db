"""TTD005 hoist-descriptor: a block pointer re-created in a loop gets one descriptor before the loop.

What it matches: `p = tl.make_block_ptr(...)` written directly in a `for`/`while` body (FLA style:
re-created every iteration with offsets that depend on the loop variable), where base, shape, strides and
block shape do not change inside the loop.

The rewrite: the descriptor is created once before the outermost such loop; inside the loop only the
offsets remain. On NVIDIA sm_90+ every device-side descriptor creation writes a 128-byte tensormap and
fences, so per-iteration creation costs real time. Creations under an `if` are not hoisted (their
base may be `None` on the other path), nor are creations whose arguments call anything but pure
`triton.language` functions, nor one whose name another creation gives a handle of another type (Triton
would carry the hoisted one through the other's loop, with two types, and refuse to compile).

Fixtures: recreate_in_loop, recreate_in_loop_variant_base (not hoisted), handle_name_reused (not hoisted: the
name gets a handle of another type in a later loop, at whose head a hoisted one would be live).
"""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis.facts import free_names
from triton_migrate.analysis.walk import walk

CODE = "TTD005"
NAME = "hoist-descriptor"
SUMMARY = "loop-invariant descriptor creation moved before the loop"

PURE_MEMBERS = frozenset({"program_id", "num_programs", "cdiv", "multiple_of", "max_contiguous", "minimum",
                          "maximum", "constexpr", "int32", "int64"})


class _Calls(cst.CSTVisitor):
    def __init__(self) -> None:
        self.calls: list[cst.Call] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)


def is_invariant(arguments: list[cst.BaseExpression], assigned_in_loop: frozenset[str], member_of) -> bool:
    """True when none of `arguments` can change from one iteration to the next."""
    for argument in arguments:
        if free_names(argument) & assigned_in_loop:
            return False
        calls = _Calls()
        walk(calls, argument)
        if any(not is_pure_call(call, member_of) for call in calls.calls):
            return False
    return True


def is_pure_call(call: cst.Call, member_of, members: frozenset[str] = PURE_MEMBERS) -> bool:
    """A call that has no side effect and gives the same value for the same arguments: a `.to(...)` cast,
    or a `triton.language` function of `members`, as `member_of` resolves its name."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "to" and member_of(call.func) is None:
        return True
    return member_of(call.func) in members
