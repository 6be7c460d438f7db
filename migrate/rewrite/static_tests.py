"""Which `if`s of a kernel Triton may decide at compile time on what a value depends on: nothing the rewrite
writes leaves them.

Triton compiles only the branch a compile-time condition takes (`if D2 > 0:` on a constexpr): the other holds
code that may not compile for this specialisation at all (`tl.arange(0, D2)` with `D2 = 0`). A value the rewrite
shares (an offset, a mask, a block pointer's pointers) must not move out of such a branch into code that runs
where the branch does not. A run-time condition compiles both branches, so moving out of one is as safe as the
code it moves.

A value guarded so is one that reads a name the test reads, or one the test's locals are computed from (a
separate constexpr flag, `HAS_D2`, that the launcher sets from `D2`, is no name the value reads: the rewrite
cannot see the link). A test is a run-time one only where it provably reads a run-time value: a parameter not annotated
`tl.constexpr`, a loop's counter (only `tl.static_range` unrolls at compile time), or a name assigned from one
of those or from a `tl.` call that makes a tensor (`tl.program_id`, `tl.load`, ...). Anything else (a name
unpacked from a call, say) may be a compile-time constant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from triton_migrate.analysis.facts import AssignmentCollector
from triton_migrate.syntax.nodes import free_names
from triton_migrate.syntax.walk import walk

if TYPE_CHECKING:
    from typing import TypeGuard  # Python 3.10 (annotations are not evaluated: 3.9 runs this)

# Calls whose result is a tensor whatever their arguments: a name assigned one is a run-time value.
_RUNTIME_CALLS = frozenset({"program_id", "num_programs", "load", "arange", "zeros", "full", "rand", "randn",
                            "randint", "atomic_add", "atomic_cas", "atomic_xchg", "atomic_max", "atomic_min",
                            "where", "dot", "sum", "max", "min", "cumsum"})


class StaticTests:
    """The run-time names of one function, and whether an `if` there may be decided at compile time."""

    def __init__(self, function: cst.FunctionDef) -> None:
        params = [*function.params.params, *function.params.kwonly_params]
        runtime = {p.name.value for p in params if not _is_constexpr(p)}
        collector = AssignmentCollector()
        walk(collector, function.body)
        self.assignments = collector.assignments
        changed = True
        while changed:  # a name assigned from a run-time value is one
            changed = False
            for name, values in collector.assignments.items():
                if name not in runtime and any(_reads_runtime(value, runtime) for value in values):
                    runtime.add(name)
                    changed = True
        self.runtime = frozenset(runtime)
        declared = _DeclaredConstexpr()
        walk(declared, function.body)
        # a name is a compile-time constant where it is a constexpr parameter or a local, and every assignment of
        # it in the function declares one (`FLAG: tl.constexpr = ...`)
        declared_only = {name for name, sources in collector.assignments.items()
                         if declared.counts.get(name, 0) == len(sources)}
        self.constexpr = frozenset(name for name in {p.name.value for p in params if _is_constexpr(p)} | declared_only
                                   if name in declared_only or name not in collector.assignments)

    def may_be_static(self, statement: cst.CSTNode) -> TypeGuard[cst.If]:
        """Whether `statement` is an `if` whose test Triton may evaluate at compile time."""
        return isinstance(statement, cst.If) and not (free_names(statement.test) & self.runtime)

    def surely_static(self, statement: cst.CSTNode) -> bool:
        """Whether `statement` is an `if` Triton decides at compile time whatever the launch: its test reads
        only constexpr parameters and locals declared `tl.constexpr`. Triton then compiles the branch taken as
        if the `if` were not there, so what the branch binds is bound after it."""
        return isinstance(statement, cst.If) and free_names(statement.test) <= self.constexpr

    def guards(self, statement: cst.CSTNode, reads: frozenset[str]) -> bool:
        """Whether `statement` is an `if` Triton may decide at compile time on what a value reading `reads`
        depends on (`if D2 > 0:` for `D1 + tl.arange(0, D2)`; also through a local, `HAS_D2 = D2 > 0`): where
        the branch is not compiled, the value may not compile either. A value that reads nothing the test
        reads (the tile axes under `if HEAD_FIRST:`) compiles wherever the kernel does."""
        return self.may_be_static(statement) and bool(self.decided_by(free_names(statement.test)) & reads)

    def decided_by(self, names: frozenset[str]) -> frozenset[str]:
        """`names` and every name the locals among them are assigned from, transitively."""
        found, pending = set(names), list(names)
        while pending:
            for value in self.assignments.get(pending.pop(), ()):
                for name in free_names(value) - found:
                    found.add(name)
                    pending.append(name)
        return frozenset(found)


def _is_constexpr(declared: cst.Param | cst.AnnAssign) -> bool:
    annotation = declared.annotation.annotation if declared.annotation is not None else None
    return annotation is not None and cst.Module([]).code_for_node(annotation).split(".")[-1] == "constexpr"


class _DeclaredConstexpr(cst.CSTVisitor):
    """How many times each local name is assigned as `name: tl.constexpr = value`."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if isinstance(node.target, cst.Name) and node.value is not None and _is_constexpr(node):
            self.counts[node.target.value] = self.counts.get(node.target.value, 0) + 1


def _reads_runtime(value: cst.CSTNode, runtime: set[str]) -> bool:
    if isinstance(value, cst.For):  # a loop counter, unless the loop unrolls at compile time
        iterated = value.iter.func if isinstance(value.iter, cst.Call) else None
        name = iterated.attr.value if isinstance(iterated, cst.Attribute) else \
            iterated.value if isinstance(iterated, cst.Name) else None
        return name != "static_range"
    return bool(free_names(value) & runtime) or _calls_runtime(value)


def _calls_runtime(value: cst.CSTNode) -> bool:
    found = []

    class Calls(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:  # `tl.max(x)` is a tensor, the builtin `max(a, b)` may not be
            found.append(isinstance(call.func, cst.Attribute) and call.func.attr.value in _RUNTIME_CALLS)

    walk(Calls(), value)
    return any(found)
