"""Proofs about the integer expressions of one function (offsets, indices) by structural induction: a
multiple of the block (`Aligned`), never below zero (`NonNegative`), a run-time tensor (`Runtime`). They read the
function through `Facts` (facts.py's FunctionFacts, which asks them and remembers their answers)."""

from __future__ import annotations

from typing import Callable, Protocol

import libcst as cst

from triton_migrate.syntax.nodes import canonical_code, int_value

from .triton_names import TritonNames

RANGE_MEMBERS = ("range", "static_range")


class Facts(Protocol):
    """What a proof reads of the function (FunctionFacts)."""

    names: TritonNames
    params: set[str]

    def counter_loop(self, name: cst.Name) -> cst.For | None: ...

    def assigned(self, name: str) -> bool: ...

    def every_assignment(self, name: str, holds: Callable[[cst.CSTNode, frozenset[str]], bool],
                         path: frozenset[str]) -> bool: ...


class Proof:
    """A property of integer expressions proved by structural induction; local names need every
    assignment to have it, loop variables a start and a step that have it (in their loop's body, only their
    loop's: FunctionFacts.counter_loop)."""

    def __init__(self, facts: Facts) -> None:
        self.facts = facts

    def check(self, expr: cst.CSTNode, seen: frozenset[str]) -> bool:
        literal = int_value(expr)
        if literal is not None:
            return self.literal(literal)
        # type(), not isinstance (an ABC's, a Python call): every term of every offset comes here
        if type(expr) is cst.Name:
            loop = self.facts.counter_loop(expr)
            if loop is not None and expr.value not in seen:
                return self._loop_variable(loop.iter, seen | {expr.value})
            return self.named(expr.value, seen)
        if type(expr) is cst.BinaryOperation:
            return self.binary(expr, seen)
        if type(expr) is cst.UnaryOperation:
            return self.unary(expr, seen)
        if type(expr) is cst.IfExp:
            return self.check(expr.body, seen) and self.check(expr.orelse, seen)
        if type(expr) is cst.Call:
            if isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "to" and \
                    self.facts.names.member(expr.func) is None:
                return self.check(expr.func.value, seen)  # x.to(tl.int32) keeps the value
            return self.call(self.facts.names.member(expr.func), expr.args, seen)
        return False

    def named(self, name: str, seen: frozenset[str]) -> bool:
        return self.name(name) or self.facts.every_assignment(name, self._source, seen)

    def _source(self, source: cst.CSTNode, seen: frozenset[str]) -> bool:
        if isinstance(source, cst.AugAssign):
            return self.augmented(source.operator) and self.check(source.value, seen)
        if isinstance(source, cst.For):
            return self._loop_variable(source.iter, seen)
        return self.check(source, seen)

    def _loop_variable(self, iterator: cst.BaseExpression, seen: frozenset[str]) -> bool:
        if not isinstance(iterator, cst.Call) or any(a.keyword for a in iterator.args):
            return False
        is_range = (isinstance(iterator.func, cst.Name) and iterator.func.value == "range") or \
            self.facts.names.member(iterator.func) in RANGE_MEMBERS
        args = [a.value for a in iterator.args[:3]]
        start = args[0] if len(args) > 1 else cst.Integer("0")
        step = args[2] if len(args) > 2 else cst.Integer("1")
        return is_range and self.check(start, seen) and self.check(step, seen)

    # the property itself
    def literal(self, value: int) -> bool: raise NotImplementedError
    def name(self, name: str) -> bool: raise NotImplementedError
    def binary(self, expr: cst.BinaryOperation, seen: frozenset[str]) -> bool: raise NotImplementedError
    def unary(self, expr: cst.UnaryOperation, seen: frozenset[str]) -> bool: raise NotImplementedError
    def call(self, member: str | None, args, seen: frozenset[str]) -> bool: raise NotImplementedError
    def augmented(self, operator: cst.BaseAugOp) -> bool: raise NotImplementedError


class Aligned(Proof):
    """A multiple of the innermost block dimension, or of 16 elements."""

    def __init__(self, facts: Facts, block: cst.BaseExpression) -> None:
        super().__init__(facts)
        self.block_code = canonical_code(block)
        self.block_literal = int_value(block)

    def literal(self, value: int) -> bool:
        return value % 16 == 0 or (bool(self.block_literal) and value % self.block_literal == 0)

    def name(self, name: str) -> bool:
        return name == self.block_code

    def binary(self, expr: cst.BinaryOperation, seen: frozenset[str]) -> bool:
        if isinstance(expr.operator, cst.Multiply):
            return self.check(expr.left, seen) or self.check(expr.right, seen)
        if isinstance(expr.operator, (cst.Add, cst.Subtract)):
            return self.check(expr.left, seen) and self.check(expr.right, seen)
        return isinstance(expr.operator, cst.LeftShift) and self.check(expr.left, seen)

    def unary(self, expr: cst.UnaryOperation, seen: frozenset[str]) -> bool:
        return isinstance(expr.operator, cst.Minus) and self.check(expr.expression, seen)

    def call(self, member: str | None, args, seen: frozenset[str]) -> bool:
        if member != "multiple_of" or len(args) != 2:
            return False
        hint = int_value(args[1].value)
        return (hint is not None and hint % 16 == 0) or self.check(args[0].value, seen)

    def augmented(self, operator: cst.BaseAugOp) -> bool:
        return isinstance(operator, (cst.AddAssign, cst.SubtractAssign))


class NonNegative(Proof):
    """Never below zero, where the `parameters` named are (FunctionFacts.is_nonnegative)."""

    def __init__(self, facts: Facts, parameters: frozenset[str] | set[str]) -> None:
        super().__init__(facts)
        self.parameters = parameters

    def named(self, name: str, seen: frozenset[str]) -> bool:
        # A parameter holds what it is passed until the function assigns it (`i = i - BLOCK`): both must hold.
        if name in self.facts.params:
            return name in self.parameters and (not self.facts.assigned(name) or
                                                self.facts.every_assignment(name, self._source, seen))
        return self.facts.every_assignment(name, self._source, seen)

    def literal(self, value: int) -> bool:
        return value >= 0

    def binary(self, expr: cst.BinaryOperation, seen: frozenset[str]) -> bool:
        if isinstance(expr.operator, cst.Modulo) and self.check(expr.left, seen):
            # Triton's `%` on a tensor takes the sign of the dividend (C's remainder, whatever the divisor:
            # the grouped GEMM's `pid % group_size_m`, where `group_size_m` is a `min` of a difference);
            # Python's, on two constexprs, that of the divisor
            return self.check(expr.right, seen) or any(Runtime(self.facts).check(side, seen)
                                                       for side in (expr.left, expr.right))
        closed = (cst.Add, cst.Multiply, cst.FloorDivide, cst.LeftShift, cst.RightShift)
        return isinstance(expr.operator, closed) and self.check(expr.left, seen) and self.check(expr.right, seen)

    def unary(self, expr: cst.UnaryOperation, seen: frozenset[str]) -> bool:
        return isinstance(expr.operator, cst.Plus) and self.check(expr.expression, seen)

    def call(self, member: str | None, args, seen: frozenset[str]) -> bool:
        values = [a.value for a in args]
        if member in ("program_id", "num_programs"):
            return True
        if member in ("cdiv", "minimum"):
            return all(self.check(v, seen) for v in values)
        if member in ("multiple_of", "max_contiguous"):
            return bool(values) and self.check(values[0], seen)
        return member == "maximum" and any(self.check(v, seen) for v in values)

    def augmented(self, operator: cst.BaseAugOp) -> bool:
        return isinstance(operator, (cst.AddAssign, cst.MultiplyAssign))


class Runtime(Proof):
    """A tensor at run time, never a constexpr: computed from a program id. (An integer argument may be
    specialised into a constexpr, 1 when it is 1.)"""

    def literal(self, value: int) -> bool:
        return False

    def name(self, name: str) -> bool:
        return False

    def binary(self, expr: cst.BinaryOperation, seen: frozenset[str]) -> bool:
        return self.check(expr.left, seen) or self.check(expr.right, seen)

    def unary(self, expr: cst.UnaryOperation, seen: frozenset[str]) -> bool:
        return self.check(expr.expression, seen)

    def call(self, member: str | None, args, seen: frozenset[str]) -> bool:
        return member in ("program_id", "num_programs")

    def augmented(self, operator: cst.BaseAugOp) -> bool:
        return True
