"""The expressions that replace one, built from their records (analysis/records.py), `updated` being the
expression with the edits inside it made: a call of a helper that receives block pointers as parts (TTD008),
`p is None` asking the base, a type query, a use that never compiles (`tl.static_assert`)."""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis.records import BaseTest, CompileError, ElementType, HelperCallParts
from triton_migrate.forms import Form
from triton_migrate.syntax.forms import descriptor, helper_parts, masked_pointers

from .stand_ins import StandIns


def compile_error(record: CompileError, stand_ins: StandIns, updated: cst.Call) -> cst.Call:
    return descriptor.compile_error(record.language, record.message)


def helper_call(record: HelperCallParts, stand_ins: StandIns, updated: cst.Call) -> cst.Call:
    return helper_parts.expand(record.call, updated, record.passed)


def base_test(record: BaseTest, stand_ins: StandIns, updated: cst.Comparison) -> cst.Comparison:
    return updated.with_changes(left=record.base)


def element_type(record: ElementType, stand_ins: StandIns, query: cst.Attribute) -> cst.BaseExpression:
    """`p.dtype.element_ty` as it is where `p` holds its pointers (`p.type.element_ty` as their dtype's), else
    the descriptor's dtype, else the base's element type."""
    if record.source == "pointers":
        if isinstance(query.value, cst.Attribute) and query.value.attr.value == "dtype":  # `p.dtype.element_ty`
            return query
        return masked_pointers.element_type(descriptor.queried_pointer(query))
    if record.source == Form.DESCRIPTOR:
        return descriptor.dtype_of(record.handle)
    return masked_pointers.element_type(record.base)
