"""What a creation's statement becomes, built from its record (analysis/records.py CreationStatements): its
handles (a descriptor, TTD001, or a compat tile, TTD007, per padding), under the conditions that hold where
it exists, then the variables its masked pointers read (TTD006)."""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis.calls import bind
from triton_migrate.analysis.records import CreationStatements, HandleCreation
from triton_migrate.syntax.forms import advance, compat, descriptor, launch_guard
from triton_migrate.syntax.forms import masked_pointers as masked
from triton_migrate.syntax.nodes import code_of, int_value

from .stand_ins import StandIns


def build(record: CreationStatements, stand_ins: StandIns) -> list:
    """The statements, in order: the handles, then the parts, offsets, pointers and mask."""
    statements = [advance.assign(handle.target, _handle(handle)) for handle in record.handles]
    if record.present is not None:
        base = cst.Name(record.present)
        statements = [_present_only(s, base) for s in statements]
    if record.condition is not None:
        statements = [_conditional(s, record.condition, record.call) for s in statements]
    if statements and record.only_with is not None:
        statements = [launch_guard.only_with(record.only_with, statements)]
    parts = [advance.assign(name, value) for name, value in record.parts]
    stand_ins.running.update(record.running)
    if record.pointers is not None:
        name, base, strides, axes = record.pointers
        parts.append(advance.assign(name, masked.addresses(base, list(strides), list(axes), stand_ins.placeholder)))
    if record.mask is not None:
        name, bounds, rank = record.mask
        parts.append(advance.assign(name, masked.mask(bounds, rank, stand_ins.placeholder)))
    if record.condition is not None:
        parts = [_conditional(statement, record.condition, record.call) for statement in parts]
    return statements + parts


def _handle(handle: HandleCreation) -> cst.Call:
    """`tl.make_tensor_descriptor(...)` or `compat.make_tile(...)` for one padding."""
    if handle.shim is not None:
        impl = handle.impl if handle.guard is None else launch_guard.guarded(
            handle.guard, cst.SimpleString('"auto"'), cst.SimpleString('"emu"'), grouped=False)
        return compat.make_tile(handle.shim, bind(_spelt(handle), "make_block_ptr", complete=False), handle.padding,
                                impl)
    # continuation lines aligned with the call's parenthesis move with it
    shift = len(f"{handle.target} = {code_of(handle.function)}") - len(f"{handle.source} = "
                                                                        f"{code_of(handle.call.func)}")
    spelt = _spelt(handle)
    return descriptor.descriptor_call(spelt, bind(spelt, "make_block_ptr"), handle.function, handle.permutation,
                                      handle.padding, shift)


def _spelt(handle: HandleCreation) -> cst.Call:
    """The creation's call with the tuples it takes from elsewhere (a name assigned one, a helper's result)
    spelt out."""
    call = handle.call
    if not handle.spelt:
        return call
    bound = bind(call, "make_block_ptr", complete=False)
    spelt = {id(bound[key]): cst.Tuple([cst.Element(e) for e in elements]) for key, elements in handle.spelt.items()}
    return call.with_changes(args=[arg.with_changes(value=spelt[id(arg)]) if id(arg) in spelt else arg
                                   for arg in call.args])


def _present_only(statement: cst.Assign, base: cst.Name) -> cst.Assign:
    """`p_desc = ... if p_base is not None else None` (a test Triton decides at compile time)."""
    test = cst.Comparison(base, [cst.ComparisonTarget(cst.IsNot(), cst.Name("None"))])
    return statement.with_changes(value=cst.IfExp(test, statement.value, cst.Name("None")))


def _conditional(statement: cst.Assign, condition: cst.IfExp, call: cst.Call) -> cst.Assign:
    """`name = value` evaluated only where `condition` (`p = tl.make_block_ptr(...) if FLAG else None`)
    creates its block pointer: `name = value if FLAG else None`; a literal offset needs no condition."""
    value = statement.value
    if int_value(value) is not None:
        return statement
    if isinstance(value, (cst.IfExp, cst.Lambda)):
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    side = "body" if condition.body is call else "orelse"
    return statement.with_changes(value=condition.with_changes(**{side: value}))
