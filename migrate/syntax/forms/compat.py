"""The compat form (TTD007): `compat.make_tile` and the shim's `load` / `store` calls."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from ..build import member_call, movable
from .descriptor import as_list, is_scalar_literal


def make_tile(shim: cst.BaseExpression, call_args: dict, padding: str, impl) -> cst.Call:
    """`compat.make_tile(base, shape, strides, block_shape, padding[, impl])` from a make_block_ptr's
    arguments; `impl` is "auto", "emu" where a descriptor is wrong or cannot be checked for this block
    pointer, or an expression that picks one at launch (TTD009: `"auto" if USE_DESCRIPTORS else "emu"`)."""
    identity = list(range(len(call_args["block_shape"].value.elements)))
    args = [cst.Arg(movable(call_args["base"].value))] + [cst.Arg(_as_tuple(as_list(call_args[k].value, identity)))
                                                  for k in ("shape", "strides", "block_shape")]
    args.append(cst.Arg(cst.SimpleString(f'"{padding}"')))
    if not isinstance(impl, str):
        args.append(cst.Arg(impl))
    elif impl != "auto":
        args.append(cst.Arg(cst.SimpleString(f'"{impl}"')))
    return member_call(shim, "make_tile", args)


def load(shim: cst.BaseExpression, tile: str, offsets: list, checked: cst.BaseExpression) -> cst.Call:
    return member_call(shim, "load", [cst.Arg(cst.Name(tile)), cst.Arg(_tuple(offsets)), cst.Arg(movable(checked))])


def store(shim: cst.BaseExpression, tile: str, offsets: list, value: cst.BaseExpression,
          checked: cst.BaseExpression, full: Callable[[cst.BaseExpression], cst.BaseExpression]) -> cst.Call:
    """`full(value)` builds a block from a literal scalar, which the shim cannot `.to()`."""
    if is_scalar_literal(value):
        value = full(value)
    return member_call(shim, "store", [cst.Arg(cst.Name(tile)), cst.Arg(_tuple(offsets)), cst.Arg(movable(value)),
                                       cst.Arg(movable(checked))])


def _tuple(items: list) -> cst.Tuple:
    elements = [cst.Element(item) for item in items]
    if len(elements) == 1:  # `(o,)`: a one-element tuple needs its comma
        elements[0] = elements[0].with_changes(comma=cst.Comma())
    return cst.Tuple(elements)


def _as_tuple(node: cst.List) -> cst.Tuple:
    return _tuple([movable(element.value) for element in node.elements])
