"""Block widths the code states (TTD107). A descriptor's block rows need 16 bytes; where the launch chooses the
innermost width (`BK: tl.constexpr`), the kernel tests it at compile time and keeps masked pointers for the
narrow launches. A maintainer writes neither where the code says how wide its blocks are, and so does the
migration where it can read that here:

- every configuration of the kernel's `@triton.autotune` sets the width to a literal (`configs=[triton.Config(
  {"BK": 32}, ...), ...]`, lists joined with `+`, and comprehensions over literal lists: `[triton.Config({"BK":
  bk}) for bk in [32, 64]]`; or the call of a function of the module without parameters that builds such a
  list and returns it, nothing else: `configs=get_configs()`). A launch cannot pass a width a configuration
  sets (Triton raises "Conflicting meta-parameters"). A `prune_configs_by` function may return configurations
  of its own, and a `@triton.heuristics` that computes the width overrides them: none is read then;
- `tl.static_assert(BK >= 32)` (`>`, `<=`, `<` the other way round, chained; `BK >= BN` where `BN` is bounded)
  or `tl.static_assert(BK % 32 == 0)` among the statements of the function's body that every compilation
  reaches: a launch that breaks it compiles neither the original nor the migrated kernel. A block's shape is a
  power of two (Triton refuses any other), so a multiple of 32 is at least 32.

Not a kernel's default (`BK: tl.constexpr = 32`), nor the literals its launches in the migrated files pass: any
launch, in these files or not, may pass the parameter by its name.

Element types are not known here: a width proves 16 bytes for the smallest element Triton gives a descriptor,
one byte (int8, fp8). A width stated by the user (`assume = ["widths"]`) is the launch's to check (`migrate
verify`), as the other stated facts."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import libcst as cst

from triton_migrate.syntax.nodes import int_value, tuple_elements

from .triton_names import dotted_name

if TYPE_CHECKING:
    from .facts import FunctionFacts

Member = Callable[[cst.BaseExpression], "str | None"]  # TritonNames.member: `tl.static_assert` -> "static_assert"
Bound = Callable[[cst.BaseExpression], "int | None"]  # the lower bound of an expression

ROW_BYTES = 16  # a descriptor's block row
SMALLEST_ITEMSIZE = 1  # bytes: int8, fp8 (Triton refuses bool data in a descriptor)


def proven(width: cst.BaseExpression, function: cst.FunctionDef, facts: FunctionFacts) -> bool:
    """Whether the code states that a block row of `width` elements holds the 16 bytes a descriptor needs,
    whatever the element type."""
    least = lower_bound(width, function, facts)
    return least is not None and least * SMALLEST_ITEMSIZE >= ROW_BYTES


def lower_bound(width: cst.BaseExpression, function: cst.FunctionDef, facts: FunctionFacts,
                seen: frozenset[str] = frozenset()) -> int | None:
    """The least value `width` takes at any compilation of `function`, as far as its code states: a literal, a
    constexpr parameter the function never rebinds (its autotune configurations, its static assertions), or
    a product of such. `seen`: the parameters whose bounds are being sought (`BK >= BN`, `BN >= BK`)."""
    if int_value(width) is not None:
        return int_value(width)
    if isinstance(width, cst.BinaryOperation) and isinstance(width.operator, cst.Multiply):
        left, right = (lower_bound(side, function, facts, seen) for side in (width.left, width.right))
        return left * right if left is not None and right is not None and left >= 1 and right >= 1 else None
    if not isinstance(width, cst.Name) or width.value not in facts.params or facts.assigned(width.value) or \
            width.value in seen:
        return None
    name = width.value

    def other(expr: cst.BaseExpression) -> int | None:
        return lower_bound(expr, function, facts, seen | {name})

    return _greatest([configured(function, name, facts.definitions),
                      asserted(function, name, facts.names.member, other)])


def _nodes(node: cst.CSTNode):
    for child in node.children:
        yield child
        yield from _nodes(child)


# -- @triton.autotune ----------------------------------------------------------------------------

def definitions(module: cst.Module, assigned: dict[str, list]) -> dict[str, cst.FunctionDef]:
    """The functions the module defines once at its top level and binds nothing else to (`assigned`: the names
    its top level assigns)."""
    defined = [s for s in module.body if isinstance(s, cst.FunctionDef)]
    names = [d.name.value for d in defined]
    return {d.name.value: d for d in defined if names.count(d.name.value) == 1 and d.name.value not in assigned}


def _returned(function: cst.FunctionDef) -> cst.BaseExpression | None:
    """What a function without parameters returns where it does nothing else: `return [...]`, or `configs =
    [...]` then `return configs` (after a docstring)."""
    params = function.params
    if params.params or params.posonly_params or params.kwonly_params or isinstance(params.star_arg, cst.Param) or \
            params.star_kwarg is not None or function.decorators or not isinstance(function.body, cst.IndentedBlock):
        return None
    smalls = [s.body[0] if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 else None
              for s in function.body.body]
    if smalls and isinstance(smalls[0], cst.Expr) and isinstance(smalls[0].value, cst.SimpleString):
        smalls = smalls[1:]
    returned = smalls[-1].value if smalls and isinstance(smalls[-1], cst.Return) else None
    if len(smalls) == 1:
        return returned
    built = smalls[0] if len(smalls) == 2 and isinstance(smalls[0], cst.Assign) else None
    if built is None or not isinstance(returned, cst.Name) or len(built.targets) != 1 or \
            not isinstance(built.targets[0].target, cst.Name) or built.targets[0].target.value != returned.value:
        return None
    return built.value


def configured(function: cst.FunctionDef, name: str, defined: dict[str, cst.FunctionDef]) -> int | None:
    """The least value the kernel's autotune configurations give `name`, where every one sets it to a literal
    (`defined`: the module's functions that may build them)."""
    found = None
    for decorator in function.decorators:
        call = decorator.decorator
        if not isinstance(call, cst.Call):
            continue
        if _called(call) == "heuristics" and _sets(call, name):
            return None
        if _called(call) == "autotune":
            configs = _argument(call, "configs", 0)
            pruned = _argument(call, "prune_configs_by", 2) is not None
            values = _config_values(configs, name, {}, defined) if configs is not None and not pruned else None
            found = min(values) if values else None
    return found


def _called(call: cst.Call) -> str:
    return (dotted_name(call.func) or "").rpartition(".")[2]


def _argument(call: cst.Call, keyword: str, position: int) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == keyword:
            return arg.value
    positional = [arg for arg in call.args if arg.keyword is None and not arg.star]
    return positional[position].value if len(positional) > position else None


def _sets(heuristics: cst.Call, name: str) -> bool:
    """Whether a `@triton.heuristics({...})` may compute `name` (a dict it does not spell out may)."""
    table = _argument(heuristics, "values", 0)
    if not isinstance(table, cst.Dict):
        return True
    return any(not isinstance(e, cst.DictElement) or _key(e) in (None, name) for e in table.elements)


def _key(element: cst.DictElement) -> str | None:
    key = element.key
    return key.evaluated_value if isinstance(key, cst.SimpleString) else None  # type: ignore[return-value]


def _config_values(configs: cst.BaseExpression, name: str, bound: dict[str, list[int]],
                   defined: dict[str, cst.FunctionDef]) -> list[int] | None:
    """The values the configurations `configs` give `name` (None: some configuration leaves it to the launch,
    or the list is not written out). `bound`: the literal lists a comprehension's variables run over."""
    if isinstance(configs, cst.BinaryOperation) and isinstance(configs.operator, cst.Add):
        parts = [_config_values(side, name, bound, defined) for side in (configs.left, configs.right)]
        return None if parts[0] is None or parts[1] is None else parts[0] + parts[1]
    if isinstance(configs, cst.Call) and isinstance(configs.func, cst.Name) and not configs.args and \
            configs.func.value in defined:
        returned = _returned(defined[configs.func.value])
        inner = {k: v for k, v in defined.items() if k != configs.func.value}  # no recursion
        return _config_values(returned, name, {}, inner) if returned is not None else None
    if isinstance(configs, cst.ListComp):
        return _comprehension(configs, name, bound)
    elements = tuple_elements(configs)
    if elements is None:
        return None
    values: list[int] = []
    for element in elements:
        value = _config_value(element, name, bound)
        if value is None:
            return None
        values += value
    return values


def _comprehension(configs: cst.ListComp, name: str, bound: dict[str, list[int]]) -> list[int] | None:
    clause: cst.CompFor | None = configs.for_in
    bound = dict(bound)
    while clause is not None:  # an `if` only drops configurations
        elements = tuple_elements(clause.iter)
        values = [int_value(e) for e in elements] if elements is not None else [None]
        if isinstance(clause.target, cst.Name):
            bound[clause.target.value] = [v for v in values if v is not None] if None not in values else []
        else:  # `for (m, w) in ...`: read only where a configuration takes no variable of it
            bound = {k: v for k, v in bound.items() if k not in {n.value for n in _names(clause.target)}}
        clause = clause.inner_for_in
    return _config_value(configs.elt, name, bound)


def _names(node: cst.CSTNode) -> list[cst.Name]:
    return [n for n in [node, *_nodes(node)] if isinstance(n, cst.Name)]


def _config_value(config: cst.BaseExpression, name: str, bound: dict[str, list[int]]) -> list[int] | None:
    """What one `triton.Config({...}, ...)` gives `name`: a literal, or a comprehension variable's values."""
    if not isinstance(config, cst.Call) or _called(config) != "Config":
        return None
    table = _argument(config, "kwargs", 0)
    if not isinstance(table, cst.Dict) or not all(isinstance(e, cst.DictElement) for e in table.elements):
        return None
    value = next((e.value for e in reversed(table.elements) if isinstance(e, cst.DictElement) and _key(e) == name),
                 None)  # the last of a key written twice
    if value is None:
        return None
    if int_value(value) is not None:
        return [int_value(value)]  # type: ignore[list-item]
    return bound.get(value.value) or None if isinstance(value, cst.Name) else None


# -- tl.static_assert ---------------------------------------------------------------------------------

def asserted(function: cst.FunctionDef, name: str, member: Member, other: Bound) -> int | None:
    """The greatest lower bound of `name` that a `tl.static_assert` among the statements of the function's
    body states, before any statement that may return (every compilation reaches it). `other`: the lower
    bound of what `name` is compared with."""
    found: list[int | None] = []
    for statement in _body(function):
        if any(isinstance(n, cst.Return) for n in [statement, *_nodes(statement)]):
            break
        for small in statement.body if isinstance(statement, cst.SimpleStatementLine) else ():
            call = small.value if isinstance(small, cst.Expr) else None
            condition = _argument(call, "cond", 0) if isinstance(call, cst.Call) else None
            if condition is not None and member(call.func) == "static_assert":  # type: ignore[union-attr]
                found.append(_bound(condition, name, other))
    return _greatest(found)


def _greatest(bounds: list[int | None]) -> int | None:
    known = [b for b in bounds if b is not None]
    return max(known) if known else None


def _body(function: cst.FunctionDef) -> list[cst.CSTNode]:
    body = function.body
    return list(body.body) if isinstance(body, cst.IndentedBlock) else []  # `def f(): ...` on one line asserts nothing


def _bound(test: cst.BaseExpression, name: str, other: Bound) -> int | None:
    """The lower bound of `name` that `test` states: `BK >= 32`, `32 <= BK <= 128`, `BK >= BN`, `BK % 32 ==
    0`, and either side of `and`."""
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        return _greatest([_bound(test.left, name, other), _bound(test.right, name, other)])
    if not isinstance(test, cst.Comparison):
        return None
    lefts = [test.left, *(target.comparator for target in test.comparisons)]
    return _greatest([_compared(left, target.operator, target.comparator, name, other)
                      for left, target in zip(lefts, test.comparisons)])


_AT_LEAST = {cst.GreaterThanEqual: 0, cst.GreaterThan: 1}  # `BK >= n`, `BK > n`: the bound is n + this
_AT_MOST = {cst.LessThanEqual: 0, cst.LessThan: 1}  # `n <= BK`, `n < BK`


def _compared(left: cst.BaseExpression, operator: cst.BaseCompOp, right: cst.BaseExpression,
              name: str, other: Bound) -> int | None:
    def named(node: cst.BaseExpression) -> bool:
        return isinstance(node, cst.Name) and node.value == name

    kind = type(operator)
    if named(left) and kind in _AT_LEAST and (n := other(right)) is not None:
        return n + _AT_LEAST[kind]
    if named(right) and kind in _AT_MOST and (n := other(left)) is not None:
        return n + _AT_MOST[kind]
    if isinstance(left, cst.BinaryOperation) and isinstance(left.operator, cst.Modulo) and named(left.left) and \
            kind is cst.Equal and int_value(right) == 0 and (n := int_value(left.right)) is not None and n > 0:
        return n  # a multiple of n, and a block's shape, a power of two, is at least 1
    return None
