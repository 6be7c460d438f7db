"""Flow-insensitive facts about the local names of one function, for proofs about offsets.

A name has a property (say, "is a multiple of the block width") when *every* assignment to it in the
function has it; cycles (`k = k + BK`) are assumed to hold, which is sound because the base case of
each cycle is an assignment we check too. The proofs themselves are proofs.py's; this module gathers what
they read (assignments, loop counters, module constants) and remembers their answers per node.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Callable

import libcst as cst

from triton_migrate.syntax.build import movable, movable_elements
from triton_migrate.syntax.nodes import NameFinder, canonical_code, free_names, int_value, tuple_elements
from triton_migrate.syntax.walk import children, walk

from .calls import string_value
from .proofs import Aligned, NonNegative
from .stated import Inline
from .triton_names import TritonNames
from .values import is_none

# triton.language functions whose result is a block (tile), whatever their arguments.
TILE_MEMBERS = frozenset({"load", "zeros", "zeros_like", "full", "dot", "dot_scaled", "arange", "trans", "permute",
                          "broadcast_to", "reshape", "view", "expand_dims", "join", "cat", "rand", "randn",
                          "randint", "cumsum", "cumprod", "flip", "sort", "interleave"})
# ... and those that reduce a block, possibly to a scalar.
REDUCTIONS = frozenset({"sum", "max", "min", "reduce", "argmax", "argmin", "xor_sum", "reduce_or"})


class AssignmentCollector(cst.CSTVisitor):
    """Every assignment to every local name, with its right-hand side (a subclass may switch
    `assignments` per function to collect a whole module in one pass)."""

    def __init__(self) -> None:
        self.assignments: dict[str, list[cst.CSTNode]] = defaultdict(list)

    def _targets(self, target: cst.BaseExpression, source: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.assignments[target.value].append(source)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                # A name unpacked from a tuple has no single right-hand side we can reason about.
                self._targets(element.value, cst.Name("__unknown__"))

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            pairs = _unpacked(target.target, node.value)
            if pairs is None:
                self._targets(target.target, node.value)
            for name, value in pairs or ():
                self._targets(name, value)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._targets(node.target, node.value if node.value is not None else cst.Name("__unknown__"))

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._targets(node.target, node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._targets(node.target, node.value)

    def visit_For(self, node: cst.For) -> None:
        self._targets(node.target, node)

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            if item.asname is not None:
                self._targets(item.asname.name, cst.Name("__unknown__"))


def _unpacked(target: cst.BaseExpression, value: cst.BaseExpression):
    """`a, b = x, y` (fla's `i_k, i_v = tl.program_id(0), tl.program_id(1)`): the pairs, or None."""
    kinds = (cst.Tuple, cst.List)
    if not isinstance(target, kinds) or not isinstance(value, kinds) or len(target.elements) != len(value.elements):
        return None
    if any(isinstance(e, cst.StarredElement) for e in [*target.elements, *value.elements]):
        return None
    return [(t.value, v.value) for t, v in zip(target.elements, value.elements)]


def is_literal(node: cst.BaseExpression) -> bool:
    """A value a `boundary_check` or `padding_option` may be spelt as: an integer, a string, `None`, or a tuple
    or list of integers."""
    elements = tuple_elements(node)
    return (int_value(node) is not None or string_value(node) is not None or is_none(node)
            or elements is not None and all(int_value(e) is not None for e in elements))


def module_constants(module: cst.Module, assigned: dict[str, list], names) -> dict[str, cst.BaseExpression]:
    """The names the module assigns once (`assigned`: every assignment the scan met at its top level, class
    bodies included), at its top level, a literal or `tl.constexpr(<literal>)`: `CHECK = (0, 1)` is `(0, 1)` in
    every function that reads it and does not bind it itself."""
    found = {}
    for statement in module.body:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 \
            else None
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            target, value = small.targets[0].target, small.value
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            target, value = small.target, small.value
        else:
            continue
        if isinstance(value, cst.Call) and names.member(value.func) == "constexpr" and len(value.args) == 1 \
                and value.args[0].keyword is None:
            value = value.args[0].value
        if isinstance(target, cst.Name) and len(assigned.get(target.value, ())) == 1 and is_literal(value):
            found[target.value] = value
    return found


class FunctionFacts:
    """What the code of one function says, whatever the analysis makes of it: one per function, shared by
    its analyses (reruns, and the rounds of a program), which ask the same questions again and again."""

    def __init__(self, function: cst.FunctionDef, names: TritonNames,
                 assignments: dict[str, list[cst.CSTNode]], launched: bool = False, inline: Inline | None = None,
                 bound_nowhere: frozenset[str] = frozenset(), named_by: str | None = None,
                 grid_launched: bool = False, constants: dict[str, cst.BaseExpression] | None = None,
                 definitions: dict[str, cst.FunctionDef] | None = None,
                 called_elsewhere: Callable[[], bool] = lambda: False) -> None:
        """`assignments`: the function's, as an AssignmentCollector gathered them (the module scan does).
        `launched`: what the module says of it: a `@triton.jit` kernel no function of the module calls.
        `inline`: the facts its comments state (`# migrate: assume[...]`). `bound_nowhere`: the names the module
        calls and nothing binds (a call of one never compiles). `named_by`: where it is not `launched` because an
        attribute call has its name (`ReLU.backward(...)` on line 70), that call. `grid_launched`: the module
        launches it on a grid (`kernel[grid](...)`). `constants`: the module's names assigned once, at its top
        level, a literal (`CHECK = tl.constexpr((0, 1))`: `module_constants`). `definitions`: the functions the
        module defines once, at its top level, which a decorator may call (`configs=get_configs()`: widths.py).
        `called_elsewhere`: whether another module of the run may call it (asked only when an answer hangs on it)."""
        self.assignments = assignments
        self.constants = constants or {}
        self.definitions = definitions or {}
        self.launched = launched
        self.called_elsewhere = called_elsewhere
        self.named_by = named_by
        self.grid_launched = grid_launched
        self.bound_nowhere = bound_nowhere
        self.inline = inline or Inline()
        self.params = {p.name.value for p in (*function.params.params, *function.params.kwonly_params)}
        self.names = names
        self._function = function
        self._counters: dict[int, cst.For] | None = None
        # id(node) -> (node, answer), per question: holding the node keeps its id from being reused
        self._free: dict[int, tuple] = {}
        self._code: dict[int, tuple] = {}
        self._int64: dict[int, tuple] = {}
        self._int64_terms: dict[int, tuple] = {}
        self._nonnegative: dict[tuple, tuple] = {}  # (id(expr), the parameters taken as >= 0) -> (expr, answer)
        self._dot_loops: dict[int, tuple] = {}  # id(loop) -> (loop, whether it calls tl.dot)
        self._loop_assignments: dict[int, tuple] = {}
        self._loop_flows: dict[int, tuple] = {}
        self._movable: dict[int, tuple] = {}
        self._elements: dict[int, tuple] = {}
        self._aligned: dict[tuple[int, str], tuple] = {}  # (id(expr), the block's code) -> (expr, answer)

    def constant(self, name: str) -> cst.BaseExpression | None:
        """The literal a name holds wherever the function reads it: a local assigned once, a literal (`check =
        (0, 1)`), or a module constant the function does not rebind; None otherwise (a parameter: each call or
        launch chooses it)."""
        if name in self.params:
            return None
        local = self.assignments.get(name, [])
        if len(local) == 1 and isinstance(local[0], cst.BaseExpression) and is_literal(local[0]):
            return local[0]  # (an augmented assignment or a loop is no literal)
        return self.constants.get(name) if not local else None

    def free_names(self, expr: cst.CSTNode) -> frozenset[str]:
        return _remembered(self._free, expr, free_names)

    def canonical_code(self, expr: cst.CSTNode) -> str:
        return _remembered(self._code, expr, canonical_code)

    def movable(self, expr: cst.BaseExpression) -> cst.BaseExpression:
        """syntax/build.movable, once per node: a multi-line argument costs a code generation."""
        return _remembered(self._movable, expr, movable)

    def movable_elements(self, expr: cst.BaseExpression) -> list | None:
        found = _remembered(self._elements, expr, movable_elements)
        return None if found is None else list(found)  # the caller's own list, as movable_elements gives

    def assigned_in(self, loop: cst.CSTNode) -> frozenset[str]:
        """The names a loop (its body, target and else) assigns."""
        return _remembered(self._loop_assignments, loop, assigned_names)

    def assigned(self, name: str) -> bool:
        return name in self.assignments

    def counter_loop(self, name: cst.Name) -> cst.For | None:
        """The loop whose counter this Name reads: the innermost `for` around it whose target it spells, in
        the loop's body, which does not assign it (there, of the name's assignments, only the loop's reaches).
        None elsewhere."""
        if self._counters is None:
            self._counters = {}
            walk(_Counters(self._counters, {}), self._function.body)
        return self._counters.get(id(name))

    def every_assignment(self, name: str, holds: Callable[[cst.CSTNode, frozenset[str]], bool],
                         path: frozenset[str]) -> bool:
        """Does `holds` hold for every assignment to `name`? Names already on `path` are cycles: assumed."""
        if name in path:
            return True
        if name not in self.assignments:
            return False
        return all(holds(source, path | {name}) for source in self.assignments[name])

    # -- multiples of 16 bytes -------------------------------------------------------------

    def is_aligned(self, expr: cst.BaseExpression, block: cst.BaseExpression) -> bool:
        """Is `expr` provably a multiple of the innermost block dimension (or of 16 elements)?

        A descriptor's innermost block dimension is a power of two of at least 16 bytes (Triton
        checks that at trace time), so any multiple of it is a multiple of 16 bytes as well.
        """
        key = (id(expr), self.canonical_code(block))  # the proof reads the block only through its code
        found = self._aligned.get(key)
        if found is None:
            found = self._aligned[key] = (expr, Aligned(self, block).check(expr, frozenset()))
        return found[1]

    def is_nonnegative(self, expr: cst.BaseExpression, parameters: frozenset[str] | None = None) -> bool:
        """Is `expr` provably >= 0, where of the function's integer parameters those in `parameters` are (None:
        all of them, as a launched kernel's are taken to be: sizes, indices)? A helper's parameter is what its
        calls pass: `shift(p, -BLOCK)`."""
        key = (id(expr), parameters)
        found = self._nonnegative.get(key)
        if found is None:
            proof = NonNegative(self, self.params if parameters is None else parameters)
            found = self._nonnegative[key] = (expr, proof.check(expr, frozenset()))
        return found[1]

    # -- what a loaded tile feeds ---------------------------------------------------------------

    def calls_dot(self, loop: cst.CSTNode) -> bool:
        """Does `loop` call `tl.dot` (a loop whose loads Triton pipelines)?"""
        return bool(_remembered(self._dot_loops, loop, lambda node: bool(_dot_arguments(node, self.names))))

    def feeds_dot(self, load: cst.Call, line, loop: cst.CSTNode) -> bool:
        """Does the tile `load` reads reach a `tl.dot` in `loop`: inside its arguments on the same line, or
        through names the loop assigns (`a = tl.load(...)`, `a = a.to(tl.float16)`, `acc += tl.dot(a, b)`)?"""
        if line is None:
            return False
        statement = line.body[0]
        dots, edges = _remembered(self._loop_flows, loop, lambda node: _flows(node, self.names))
        if any(_contains(argument, load) for argument in _dot_arguments(statement, self.names)):
            return True
        if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1 and
                isinstance(statement.targets[0].target, cst.Name)):
            return False
        reached = {statement.targets[0].target.value}
        for _ in range(len(edges)):
            grown = reached | {target for target, sources in edges if sources & reached}
            if grown == reached:
                break
            reached = grown
        return bool(dots & reached)

    # -- tiles -------------------------------------------------------------------------------

    def is_tile(self, expr: cst.CSTNode, path: frozenset[str] = frozenset()) -> bool:
        """Is `expr` certainly a block rather than a scalar? False when unsure."""
        if isinstance(expr, cst.Call):
            member = self.names.member(expr.func)
            if member in REDUCTIONS:
                return False
            if member in TILE_MEMBERS or (isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "load"):
                return True
        if isinstance(expr, cst.Name):
            return expr.value not in path and any(self.is_tile(source, path | {expr.value})
                                                  for source in self.assignments.get(expr.value, ()))
        if isinstance(expr, cst.AugAssign):
            return self.is_tile(expr.value, path)
        if isinstance(expr, cst.Attribute):
            return self.is_tile(expr.value, path)
        if isinstance(expr, cst.For):
            return False  # a loop variable
        return any(self.is_tile(child, path) for child in children(expr))

    # -- int64 taint -------------------------------------------------------------------------

    def mentions_int64(self, expr: cst.CSTNode) -> bool:
        return _remembered(self._int64, expr, self._mentions_int64)

    def _mentions_int64(self, expr: cst.CSTNode, seen: set[str] | None = None) -> bool:
        seen = set() if seen is None else seen
        direct, names = _remembered(self._int64_terms, expr, _int64_terms)
        return direct or any(self._every_assignment_any(name, seen) for name in names)

    def _every_assignment_any(self, name: str, seen: set[str]) -> bool:
        if name in seen or name not in self.assignments:
            return False
        seen.add(name)
        # A loop variable is int64 only if its range is: the loop's body says nothing about it.
        return any(self._mentions_int64(source.iter if isinstance(source, cst.For) else source, seen)
                   for source in self.assignments[name])


def _int64_terms(expr: cst.CSTNode) -> tuple[bool, frozenset[str]]:
    """Whether `expr` names `int64` itself, and the names it reads (every assignment they reach is asked in
    turn, for each offset: each walked once)."""
    finder = NameFinder()
    walk(finder, expr)
    return "int64" in finder.attrs or "int64" in finder.names, frozenset(finder.names)


def assigned_names(body: cst.CSTNode) -> frozenset[str]:
    collector = AssignmentCollector()
    walk(collector, body)
    return frozenset(collector.assignments)


DOTS = frozenset({"dot", "dot_scaled"})


def _dot_arguments(node: cst.CSTNode, names: TritonNames) -> list:
    """The arguments of every `tl.dot` call in `node`."""
    found: list[cst.BaseExpression] = []

    class Dots(cst.CSTVisitor):
        def visit_Call(self, call: cst.Call) -> None:
            if names.member(call.func) in DOTS:
                found.extend(argument.value for argument in call.args)

    walk(Dots(), node)
    return found


def _flows(loop: cst.CSTNode, names: TritonNames) -> tuple:
    """(the names `tl.dot` reads in the loop, (target, names its value reads) for each assignment there)."""
    dots = frozenset().union(*(free_names(argument) for argument in _dot_arguments(loop, names)))
    edges = []

    class Assignments(cst.CSTVisitor):
        def visit_Assign(self, node: cst.Assign) -> None:
            for target in node.targets:
                if isinstance(target.target, cst.Name):
                    edges.append((target.target.value, free_names(node.value)))

    walk(Assignments(), loop)
    return dots, tuple(edges)


def _contains(node: cst.CSTNode, target: cst.CSTNode) -> bool:
    return node is target or any(_contains(child, target) for child in children(node))


def _remembered(memo: dict[int, tuple], node: cst.CSTNode, compute: Callable):
    found = memo.get(id(node))
    if found is None:
        found = memo[id(node)] = (node, compute(node))
    return found[1]


class _Counters(cst.CSTVisitor):
    """Fills `found` (id of a Name -> the loop whose counter it reads, FunctionFacts.counter_loop); `loops`:
    name -> the loop whose body this walk is in and whose counter that name is."""

    def __init__(self, found: dict[int, cst.For], loops: dict[str, cst.For]) -> None:
        self.found, self.loops = found, loops

    def visit_Name(self, node: cst.Name) -> None:
        loop = self.loops.get(node.value)
        if loop is not None:
            self.found[id(node)] = loop

    def visit_For(self, node: cst.For) -> bool:
        walk(self, node.iter)
        if node.orelse is not None:
            walk(self, node.orelse)
        inner = dict(self.loops)
        for name in free_names(node.target):
            inner.pop(name, None)
        if isinstance(node.target, cst.Name) and node.target.value not in assigned_names(node.body):
            inner[node.target.value] = node
        walk(_Counters(self.found, inner), node.body)
        return False
