"""What becomes of a function's `def`, built from its record (analysis/records.py Signature): removed, its
block-pointer parameters as their parts re-created on entry (TTD008), the launch guard and the allocator hook
above `@triton.jit` (TTD009, TTD010), the compile-time test of block widths first in its body (TTD107)."""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis.calls import is_jit
from triton_migrate.analysis.records import Signature
from triton_migrate.syntax.forms import block_width, helper_parts, launch_guard

from . import creation
from .stand_ins import StandIns


def build(record: Signature, stand_ins: StandIns, updated: cst.FunctionDef):
    if record.removed:
        return cst.RemovalSentinel.REMOVE
    if record.parameters:
        statements = [s for entry in record.entry for s in creation.build(entry, stand_ins)]
        body = [s if isinstance(s, cst.BaseCompoundStatement) else cst.SimpleStatementLine([s])
                for s in statements] + list(updated.body.body)
        updated = updated.with_changes(params=helper_parts.parameters(updated.params, record.parameters,
                                                                      record.language),
                                       body=updated.body.with_changes(body=body))
    else:
        updated = _decorated(record, updated)
    return _width_flag(record, updated)


def _decorated(record: Signature, function: cst.FunctionDef) -> cst.FunctionDef:
    added, params = [], function.params
    if record.guard is not None:
        guard = record.guard
        added.append(launch_guard.decorator(guard.guard, guard.flag, guard.check, list(guard.checks)))
        params = launch_guard.with_flag(params, guard.flag, record.language)
    if record.hook is not None:
        added.append(cst.Decorator(cst.Name(record.hook)))
    jit = next(i for i, d in enumerate(function.decorators) if is_jit(d))
    return function.with_changes(decorators=[*function.decorators[:jit], *added, *function.decorators[jit:]],
                                 params=params)


def _width_flag(record: Signature, function: cst.FunctionDef) -> cst.FunctionDef:
    """The function with its compile-time test of block widths (TTD107) first in its body (after its
    docstring)."""
    if not record.width_tests:
        return function
    body = list(function.body.body)
    at = 1 if body and isinstance(body[0], cst.SimpleStatementLine) and \
        isinstance(body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString) else 0
    body.insert(at, block_width.flag(record.width_flag, list(record.width_tests), record.language))
    return function.with_changes(body=function.body.with_changes(body=body))
