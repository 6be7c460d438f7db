"""Loop invariance: whether an expression gives the same value on every iteration of a loop (the
descriptor of a block pointer re-created in a loop is created once before it, TTD001), and which calls are pure."""

from __future__ import annotations

import libcst as cst

from triton_migrate.syntax.nodes import free_names
from triton_migrate.syntax.walk import walk

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
