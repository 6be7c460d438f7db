"""Bind the arguments of the Triton calls we rewrite, positional or keyword, to parameter names."""

from __future__ import annotations

import ast
import functools

import libcst as cst

from triton_migrate.forms import POINTER_ARGUMENT
from triton_migrate.rules import ttd114_rejected_call

from .triton_names import dotted_name

SIGNATURES = {
    "make_block_ptr": ("base", "shape", "strides", "offsets", "block_shape", "order"),
    "advance": ("base", "offsets"),
    "load": (POINTER_ARGUMENT, "mask", "other", "boundary_check", "padding_option", "cache_modifier",
             "eviction_policy", "volatile"),
    "store": (POINTER_ARGUMENT, "value", "mask", "boundary_check", "cache_modifier", "eviction_policy"),
}


def is_jit(decorator: cst.Decorator) -> bool:
    """`@triton.jit`, `@jit` or `@triton.jit(...)`."""
    expression = decorator.decorator
    name = dotted_name(expression.func if isinstance(expression, cst.Call) else expression) or ""
    return name.split(".")[-1] == "jit"


def is_kernel(function: cst.FunctionDef) -> bool:
    """A `@triton.jit` function that can be launched: jit, and not `noinline=True` (a helper's mark)."""
    jit = next((d.decorator for d in function.decorators if is_jit(d)), None)
    if jit is None:
        return False
    return not isinstance(jit, cst.Call) or not any(
        a.keyword is not None and a.keyword.value == "noinline" and bool_value(a.value) for a in jit.args)


class UnboundCall(Exception):
    """The call uses *args/**kwargs or unknown keywords: we cannot tell which argument is which."""


# The parameters of the Triton calls we rewrite that have no default: a call without one fails, as Python does.
REQUIRED = {
    "make_block_ptr": SIGNATURES["make_block_ptr"],
    "advance": SIGNATURES["advance"],
    "load": (POINTER_ARGUMENT,),
    "store": (POINTER_ARGUMENT, "value"),
}


def bind(call: cst.Call, member: str, params: tuple[str, ...] | None = None, complete: bool = True
         ) -> dict[str, cst.Arg]:
    """Parameter name -> argument for a call of `member`: a Triton member (SIGNATURES), or a function whose
    `params` are given (a `@triton.jit` helper). A call Python would refuse to bind (too many arguments, an
    unknown keyword, a parameter given twice, a required one of a Triton member missing) raises UnboundCall,
    which says what is wrong; `complete=False` lets a call we built ourselves leave out what carries no
    meaning (a helper's re-created block pointer, without `order`)."""
    triton_member = params is None
    params = SIGNATURES[member] if params is None else params
    bound: dict[str, cst.Arg] = {}
    for index, arg in enumerate(call.args):
        if arg.star:
            raise UnboundCall(ttd114_rejected_call.starred(member))
        if arg.keyword is None and index >= len(params):
            raise UnboundCall(ttd114_rejected_call.too_many_positional(member, len(params), _count(call)))
        name = arg.keyword.value if arg.keyword is not None else params[index]
        if name not in params:
            raise UnboundCall(ttd114_rejected_call.unknown_keyword(member, name, params))
        if name in bound:
            raise UnboundCall(ttd114_rejected_call.given_twice(member, name))
        bound[name] = arg
    missing = [name for name in REQUIRED.get(member, ()) if triton_member and complete and name not in bound]
    if missing:
        raise UnboundCall(ttd114_rejected_call.missing(member, missing[0]))
    return bound


def _count(call: cst.Call) -> int:
    return sum(1 for arg in call.args if arg.keyword is None)


def member_called(call: cst.Call, names) -> str | None:
    """The `triton.language` member a call in `@triton.jit` code calls (`names`: the module's TritonNames):
    `tl.load(...)` calls "load", and `p.advance(offsets)`, a block pointer's own method (Triton's other spelling of
    `tl.advance(p, offsets)`, as course solutions write it), calls "advance"."""
    member = names.member(call.func)
    if member is None and is_method_advance(call, names):
        return "advance"
    return member


def is_method_advance(call: cst.Call, names) -> bool:
    """`p.advance(...)` on anything but a name of Triton's (`tl.advance` is the function)."""
    func = call.func
    return type(func) is cst.Attribute and func.attr.value == "advance" and names.member(func) is None and \
        not (type(func.value) is cst.Name and func.value.value in names.bound)


def advance_arguments(call: cst.Call, names) -> dict[str, cst.Arg]:
    """`base` and `offsets` of `tl.advance(p, offsets)` or of `p.advance(offsets)` (`base`: `p`)."""
    func = call.func
    if is_method_advance(call, names) and isinstance(func, cst.Attribute):  # (the one implies the other)
        return {"base": cst.Arg(func.value), **bind(call, "advance", ("offsets",))}
    return bind(call, "advance")


def advanced_base(call: cst.Call, names) -> cst.BaseExpression | None:
    """The block pointer an advance moves (`p` of `tl.advance(p, d)` or `p.advance(d)`), None if unbound."""
    try:
        return advance_arguments(call, names)["base"].value
    except (UnboundCall, KeyError):
        return None


def string_value(node: cst.BaseExpression) -> str | None:
    if type(node) is cst.SimpleString:
        value = _evaluated(node.value)
        return value if isinstance(value, str) else None
    return None


@functools.lru_cache(maxsize=1024)
def _evaluated(literal: str):
    """libcst's `evaluated_value` (a `compile` per call), for the few literals kernels spell again and again."""
    return ast.literal_eval(literal)


def bool_value(node: cst.BaseExpression) -> bool | None:
    if isinstance(node, cst.Name) and node.value in ("True", "False"):
        return node.value == "True"
    return None
