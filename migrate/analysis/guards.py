"""What a descriptor needs checked when its kernel is launched, written as host code over the launch's
arguments (`args["K"]`), for the guard of TTD009.

A device-side descriptor is legal on NVIDIA sm_90+ only if its base address is 16-byte aligned, every
stride but the unit one is a multiple of 16 bytes, and its innermost block holds at least 16 bytes. The
source cannot prove the first (a view may start mid-storage), and often not the others (`q + (bos * H +
i_h) * K` with a run-time `K`). What it can do is name, for each term, a *witness*: a value computed from
the kernel's arguments that the term is always a multiple of (`K` for `(bos * H + i_h) * K`, whatever `bos`
is). If every witness × itemsize is a multiple of 16 and the tensor's data is aligned, so is the
descriptor; the launch checks exactly that. A term without a witness makes the site unguardable.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

from triton_migrate.rules import ttd009_launch_guard
from triton_migrate.syntax.nodes import canonical_code, int_value

from .facts import FunctionFacts

_EXACT_OPERATORS = {cst.Add: "+", cst.Subtract: "-", cst.Multiply: "*", cst.FloorDivide: "//"}
_ARGUMENT = re.compile(r'args(?:\["(\w+)"\]|\.get\("(\w+)", [^()]*\))')


def spelled(code: str) -> str:
    """Host code over `args` as the kernel spells it, over its parameter names: `args["H"] * args["K"]` is
    `H * K`, `args.get("BK", 64)` is `BK` (a launch binds the default)."""
    return _ARGUMENT.sub(lambda match: match[1] or match[2], code)


@dataclass(frozen=True)
class Check:
    """One tensor's launch-time condition: `tensor`'s data 16-byte aligned, `width` elements of it at
    least 16 bytes, each of `multiples` (element counts) a multiple of 16 bytes, and `unit_stride` (if the
    unit stride is an argument, which the JIT specialises only when it is 1) equal to 1."""

    tensor: str
    width: str
    multiples: tuple[str, ...]
    unit_stride: str | None = None


class Arguments:
    """The launch's view of a kernel's parameters: what `args` holds, or the parameter's default."""

    def __init__(self, function: cst.FunctionDef) -> None:
        params = (*function.params.params, *function.params.kwonly_params)
        self.defaults = {p.name.value: p.default for p in params}

    def with_names(self, names) -> Arguments:
        """These arguments and `names`, parameters without a default (a helper's block-pointer parts)."""
        more = object.__new__(Arguments)
        more.defaults = {**dict.fromkeys(names), **self.defaults}
        return more

    def host(self, expr: cst.BaseExpression) -> str | None:
        """`expr` as host code over the arguments, if it is computed from them alone."""
        literal = int_value(expr)
        if literal is not None:
            return str(literal)
        if isinstance(expr, cst.Name) and expr.value in self.defaults:
            default = self.defaults[expr.value]
            if default is None:
                return f'args["{expr.value}"]'
            constant = int_value(default)
            return None if constant is None else f'args.get("{expr.value}", {constant})'
        if isinstance(expr, cst.BinaryOperation) and type(expr.operator) in _EXACT_OPERATORS:
            left, right = self.host(expr.left), self.host(expr.right)
            if left is None or right is None:
                return None
            return f"{_grouped(expr.left, left)} {_EXACT_OPERATORS[type(expr.operator)]} {_grouped(expr.right, right)}"
        return None


def _grouped(node: cst.BaseExpression, code: str) -> str:
    return f"({code})" if isinstance(node, cst.BinaryOperation) else code


def launch_check(base: cst.BaseExpression, strides: list, block: list, unit: int, facts: FunctionFacts,
                 arguments: Arguments, row_width: cst.BaseExpression | None = None,
                 unchecked: bool = False) -> Check | str:
    """The check that makes a descriptor for this block pointer legal, or why none can be written.
    `row_width`: the shape's innermost extent, when a store must not overrun the row (NVIDIA TMA stores
    write up to the next 16 bytes) and it is not proven a multiple of 16 bytes. `unchecked`: what stated
    facts cover where nothing checks them (TTD010, a kernel whose `allocator` is stated: no hook), in which a
    value no launch could compute stands for itself (its code) instead of making the check impossible."""
    root = _root_and_terms(base, facts, arguments, frozenset())
    if isinstance(root, str):
        return root

    def host(expr: cst.BaseExpression) -> str | None:
        return arguments.host(expr) or (canonical_code(expr) if unchecked else None)

    tensor, terms = root
    width = host(block[unit])
    if width is None:
        return ttd009_launch_guard.width_unchecked(canonical_code(block[unit]))
    unit_stride = None if int_value(strides[unit]) == 1 else host(strides[unit])
    if unit_stride is None and int_value(strides[unit]) != 1:
        return ttd009_launch_guard.unit_stride_unchecked(canonical_code(strides[unit]))
    multiples = []
    if row_width is not None:
        width_code = host(row_width)
        if width_code is None:
            return ttd009_launch_guard.row_width_unchecked(canonical_code(row_width))
        multiples.append(width_code)
    for term in [s for d, s in enumerate(strides) if d != unit] + terms:
        needed = _requirements(term, block[unit], facts, arguments, frozenset())
        if isinstance(needed, str) and unchecked:
            needed = [canonical_code(term)]
        if isinstance(needed, str):
            return needed
        multiples += [witness for witness in needed if witness not in multiples]
    return Check(tensor, width, tuple(multiples), unit_stride)


def root_argument(base: cst.BaseExpression, facts: FunctionFacts, arguments: Arguments) -> str | None:
    """The pointer argument a block pointer's base starts from, if it can be told."""
    root = _root_and_terms(base, facts, arguments, frozenset())
    return None if isinstance(root, str) else root[0]


def _requirements(term, block, facts: FunctionFacts, arguments: Arguments, seen: frozenset) -> list | str:
    """Witnesses that together make `term` a multiple of 16 bytes (a sum needs each summand's, a local name
    its value's), or why there are none."""
    if facts.is_aligned(term, block):
        return []  # a multiple of the block width, which the check holds to 16 bytes
    if isinstance(term, cst.Call) and isinstance(term.func, cst.Attribute) and term.func.attr.value == "to":
        return _requirements(term.func.value, block, facts, arguments, seen)  # `x.to(tl.int64)` keeps the value
    if isinstance(term, cst.BinaryOperation) and isinstance(term.operator, (cst.Add, cst.Subtract)):
        left = _requirements(term.left, block, facts, arguments, seen)
        right = _requirements(term.right, block, facts, arguments, seen)
        return left if isinstance(left, str) else right if isinstance(right, str) else left + right
    witness = _witness(term, facts, arguments, seen)
    source = _single_source(term, facts) if witness is None and isinstance(term, cst.Name) and \
        term.value not in seen else None
    if source is not None:
        return _requirements(source, block, facts, arguments, seen | {term.value})
    if witness is None:
        return ttd009_launch_guard.term_unchecked(canonical_code(term))
    if witness.isdigit() and int(witness) % 2:  # odd: no element of 8 bytes or less makes it 16
        return ttd009_launch_guard.term_never_aligned(canonical_code(term))
    return [witness]


def _single_source(name: cst.Name, facts: FunctionFacts) -> cst.BaseExpression | None:
    """The value of a local name assigned once, as an expression (not `+=`, not a loop variable)."""
    sources = facts.assignments.get(name.value, [])
    if len(sources) == 1 and isinstance(sources[0], cst.BaseExpression):
        return sources[0]
    return None


def _root_and_terms(base, facts: FunctionFacts, arguments: Arguments, seen: frozenset):
    """(the pointer parameter the base starts from, the terms added to it), or why they cannot be told."""
    terms: list[cst.BaseExpression] = []
    while isinstance(base, cst.BinaryOperation) and isinstance(base.operator, (cst.Add, cst.Subtract)):
        terms.insert(0, base.right)
        base = base.left
    if not isinstance(base, cst.Name) or base.value in seen:
        return ttd009_launch_guard.base_unchecked(canonical_code(base))
    name = base.value
    sources = facts.assignments.get(name, [])
    if name in arguments.defaults:
        for source in sources:  # `q += offset` moves the parameter itself
            moved = _moved_by(name, source)
            if moved is None:
                return ttd009_launch_guard.argument_reassigned(name)
            terms.append(moved)
        return name, terms
    if len(sources) != 1 or not isinstance(sources[0], cst.BaseExpression):
        return ttd009_launch_guard.base_of_several(name)
    found = _root_and_terms(sources[0], facts, arguments, seen | {name})
    return found if isinstance(found, str) else (found[0], found[1] + terms)


def _moved_by(name: str, source: cst.CSTNode) -> cst.BaseExpression | None:
    """E for `name += E`, `name -= E` or `name = name + E`."""
    if isinstance(source, cst.AugAssign) and isinstance(source.operator, (cst.AddAssign, cst.SubtractAssign)):
        return source.value
    if isinstance(source, cst.BinaryOperation) and isinstance(source.operator, (cst.Add, cst.Subtract)) and \
            isinstance(source.left, cst.Name) and source.left.value == name:
        return source.right
    return None


def _witness(expr: cst.BaseExpression, facts: FunctionFacts, arguments: Arguments, seen: frozenset) -> str | None:
    """Host code for a value that `expr` is always a multiple of (the larger, the likelier the check holds)."""
    exact = arguments.host(expr)
    if exact is not None:
        return exact
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, cst.Multiply):
        factors = [w for w in (_witness(expr.left, facts, arguments, seen),
                               _witness(expr.right, facts, arguments, seen)) if w is not None]
        return " * ".join(f"({f})" if " " in f else f for f in factors) or None
    if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.Add, cst.Subtract)):
        left = _witness(expr.left, facts, arguments, seen)
        return left if left is not None and left == _witness(expr.right, facts, arguments, seen) else None
    if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
        return _witness(expr.expression, facts, arguments, seen)
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "to":
        return _witness(expr.func.value, facts, arguments, seen)
    if isinstance(expr, cst.Call) and facts.names.member(expr.func) == "multiple_of" and len(expr.args) == 2:
        return arguments.host(expr.args[1].value)
    if isinstance(expr, cst.Name) and expr.value not in seen:
        source = _single_source(expr, facts)
        return None if source is None else _witness(source, facts, arguments, seen | {expr.value})
    return None
