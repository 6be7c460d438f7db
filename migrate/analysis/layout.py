"""Which loads of a function feed something whose result depends on the tile's layout, not only its values.

A transposed view (unit stride in a non-last dimension) becomes a descriptor over the native layout and a
`tl.trans` of the loaded tile (TTD003): the same values, in another layout. Element-wise work, a store and a
`tl.dot` operand see only the values; a reduction or a scan (`tl.sum`, `tl.max`, `tl.cumsum`, ...) adds up in
an order that follows the layout, so its bits may change (a `tl.sum(k, axis=1)` of such a tile differed by up to
3 ulp, issue 34). Such a load keeps its exact form.

The flow is read by name, whatever the order of the statements (an over-approximation: a name is tainted if
any of its assignments reads the tile): a name assigned from the load, or from an expression reading a tainted
name, is tainted, except through a `tl.dot`, whose result does not depend on its operands' layout. The load is
layout-sensitive if a reduction reads it or a tainted name, or if it or a tainted name leaves what the function
can see: passed to a function that is not Triton's, or returned.

Each expression is read once per function, whatever the number of loads: the names that reach a use showing
the layout are found once, backwards from those uses, and a load is sensitive if a name assigned from it is
one of them (a load's tainted names reach a use exactly when one of its first ones does).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable

import libcst as cst

from triton_migrate.syntax.walk import walk

from .facts import AssignmentCollector

REDUCTIONS = frozenset({"sum", "max", "min", "argmax", "argmin", "reduce", "cumsum", "cumprod", "associative_scan",
                        "xor_sum", "sort", "histogram", "topk", "flip", "gather"})
# Those that round in the order they combine the elements (a maximum, a sort or an integer sum never rounds): over
# a descriptor's tile, which comes in the layout its users want rather than a pointer load's, they may round
# otherwise than over the masked pointers' (TTD001's note).
ROUNDING = frozenset({"sum", "reduce", "cumsum", "cumprod", "associative_scan"})
LAYOUT_FREE = frozenset({"dot", "dot_scaled"})  # their results do not follow their operands' layout


def sensitive_loads(function: cst.FunctionDef, member: Callable[[cst.BaseExpression], str | None]) -> set[int]:
    """The ids of the `tl.load` calls in `function` whose tile reaches a layout-dependent use."""
    return _reaching(function, _Calls(member, REDUCTIONS, opaque=True), member)


def summed_loads(function: cst.FunctionDef, member: Callable[[cst.BaseExpression], str | None]) -> set[int]:
    """The ids of the `tl.load` calls in `function` whose tile reaches a sum or a scan of this function (one in a
    helper it is passed to is not seen: fla passes nearly every tile to its own `exp2`, which sums nothing)."""
    return _reaching(function, _Calls(member, ROUNDING, opaque=False), member)


def _reaching(function: cst.FunctionDef, calls: _Calls, member) -> set[int]:
    """The loads among `calls`' whose tile, or a name assigned from it, reaches one of its uses."""
    walk(calls, function.body)
    shown = _Reads(member)  # what the uses that show a tile's layout read
    for node in calls.escapes:
        walk(shown, node)
    flow = _Flow(calls.assignments, member)
    showing = flow.reaching(shown.names)
    return {id(load) for load in calls.loads
            if id(load) in shown.calls or not showing.isdisjoint(flow.assigned_from[id(load)])}


class _Reads(cst.CSTVisitor):
    """The names an expression reads and the calls it reaches (by id), other than through a `tl.dot`."""

    def __init__(self, member) -> None:
        self.member = member
        self.names: set[str] = set()
        self.calls: set[int] = set()

    def visit_Call(self, call: cst.Call) -> bool:
        self.calls.add(id(call))
        return self.member(call.func) not in LAYOUT_FREE

    def visit_Name(self, name: cst.Name) -> None:
        self.names.add(name.value)

    def visit_Attribute(self, attribute: cst.Attribute) -> bool:
        walk(self, attribute.value)  # `x.T`, `b.to(...)`: the value; an attribute's name is no read
        return False


class _Flow:
    """Every assignment read once: the names each name is assigned from, and the names assigned from each
    call (a load's tile goes first to these)."""

    def __init__(self, assignments: dict, member) -> None:
        self.sources: dict[str, set[str]] = defaultdict(set)
        self.assigned_from: dict[int, set[str]] = defaultdict(set)
        for name, values in assignments.items():
            for value in values:
                reads = _Reads(member)
                walk(reads, value.iter if isinstance(value, cst.For) else value)  # a loop's counter: its range
                self.sources[name] |= reads.names
                for call in reads.calls:
                    self.assigned_from[call].add(name)

    def reaching(self, names: set[str]) -> set[str]:
        """`names` and every name that flows into one of them (a worklist over the assignments)."""
        found, pending = set(names), list(names)
        while pending:
            for source in self.sources.get(pending.pop(), ()):
                if source not in found:
                    found.add(source)
                    pending.append(source)
        return found


class _Calls(AssignmentCollector):
    """The loads, and the expressions where a tile's layout shows: a reduction's arguments (or the tile it is
    a method of), the arguments of a call that is not Triton's, a returned value; and the assignments (one
    walk of the function)."""

    def __init__(self, member, reductions: frozenset, opaque: bool) -> None:
        super().__init__()
        self.member = member
        self.reductions = reductions
        self.opaque = opaque  # a call of a function that is not Triton's, and a return, are uses too
        self.loads: list[cst.Call] = []
        self.escapes: list[cst.CSTNode] = []

    def visit_Call(self, call: cst.Call) -> None:
        name = self.member(call.func)
        if name == "load":
            self.loads.append(call)
        receiver = call.func if isinstance(call.func, cst.Attribute) and name is None else None
        method = receiver.attr.value if receiver is not None else None
        if name in self.reductions or method in self.reductions:
            self.escapes.extend(arg.value for arg in call.args)
            if receiver is not None:
                self.escapes.append(receiver.value)
        elif name is None and method is None and self.opaque:
            self.escapes.extend(arg.value for arg in call.args)  # a helper may reduce it

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None and self.opaque:
            self.escapes.append(node.value)
