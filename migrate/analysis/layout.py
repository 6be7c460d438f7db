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
"""

from __future__ import annotations

from typing import Callable

import libcst as cst

from triton_migrate.syntax.walk import walk

from .facts import AssignmentCollector

REDUCTIONS = frozenset({"sum", "max", "min", "argmax", "argmin", "reduce", "cumsum", "cumprod", "associative_scan",
                        "xor_sum", "sort", "histogram", "topk", "flip", "gather"})
LAYOUT_FREE = frozenset({"dot", "dot_scaled"})  # their results do not follow their operands' layout


def sensitive_loads(function: cst.FunctionDef, member: Callable[[cst.BaseExpression], str | None]) -> set[int]:
    """The ids of the `tl.load` calls in `function` whose tile reaches a layout-dependent use."""
    collector = AssignmentCollector()
    walk(collector, function.body)
    loads = _Calls(member)
    walk(loads, function.body)
    found = set()
    for load in loads.loads:
        tainted = _tainted(load, collector.assignments, member)
        if any(_reads(node, tainted, load, member) for node in loads.escapes):
            found.add(id(load))
    return found


def _tainted(load: cst.Call, assignments: dict, member) -> set[str]:
    tainted: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, values in assignments.items():
            if name not in tainted and any(_reads(value.iter if isinstance(value, cst.For) else value, tainted,
                                                  load, member) for value in values):  # a loop's counter: its range
                tainted.add(name)
                changed = True
    return tainted


def _reads(node: cst.CSTNode, tainted: set[str], load: cst.Call, member) -> bool:
    """Whether `node` reads the load's tile or a tainted name, other than through a `tl.dot`."""
    found = []

    class Reads(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> bool:
            if call is load:
                found.append(True)
                return False
            return member(call.func) not in LAYOUT_FREE

        def visit_Name(self, name: cst.Name) -> None:
            if name.value in tainted:
                found.append(True)

        def visit_Attribute(self, attribute: cst.Attribute) -> bool:
            walk(self, attribute.value)  # `x.T`, `b.to(...)`: the value; an attribute's name is no read
            return False

    walk(Reads(), node)
    return bool(found)


class _Calls(cst.CSTVisitor):
    """The loads, and the expressions where a tile's layout shows: a reduction's arguments (or the tile it is
    a method of), the arguments of a call that is not Triton's, a returned value."""

    def __init__(self, member) -> None:
        self.member = member
        self.loads: list[cst.Call] = []
        self.escapes: list[cst.CSTNode] = []

    def visit_Call(self, call: cst.Call) -> None:
        name = self.member(call.func)
        if name == "load":
            self.loads.append(call)
        method = call.func.attr.value if isinstance(call.func, cst.Attribute) and name is None else None
        if name in REDUCTIONS or method in REDUCTIONS:
            self.escapes.extend(arg.value for arg in call.args)
            if method is not None:
                self.escapes.append(call.func.value)
        elif name is None and method is None:
            self.escapes.extend(arg.value for arg in call.args)  # a helper may reduce it

    def visit_Return(self, node: cst.Return) -> None:
        if node.value is not None:
            self.escapes.append(node.value)
