"""A load or store through a handle, built from its record (analysis/records.py HandleAccess): a descriptor's
`desc.load([...])` (TTD003), a compat tile's `compat.load(tile, ...)` (TTD007), and for a descriptor chosen at
launch both, on the kernel's flag (TTD009)."""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis.calls import bind
from triton_migrate.analysis.records import HandleAccess
from triton_migrate.forms import Form
from triton_migrate.syntax.forms import compat, descriptor, launch_guard, masked_pointers

from . import masked_access
from .stand_ins import StandIns


def build(access: HandleAccess, stand_ins: StandIns, updated: cst.Call) -> cst.BaseExpression:
    """What replaces the access, `updated` being its call with the edits inside it made; `stand_ins` names
    the axes and bounds of a guarded access's masked pointers (masked_access.py)."""
    through = _descriptor(access, updated) if access.form == Form.DESCRIPTOR else _tile(access, updated)
    if access.guard is None:
        return through
    return launch_guard.guarded(access.guard, through, masked_access.build(access.fallback, stand_ins, updated))


def _descriptor(access: HandleAccess, updated: cst.Call) -> cst.BaseExpression:
    if access.member == "load":
        return descriptor.load(access.language, access.handle, access.offsets, access.permutation)
    return descriptor.store(access.language, access.handle, access.offsets, access.permutation,
                            bind(updated, "store")["value"].value, access.block, access.stores_tile)


def _tile(access: HandleAccess, updated: cst.Call) -> cst.BaseExpression:
    if access.member == "load":
        return compat.load(access.shim, access.handle, access.offsets, access.checked)
    return compat.store(access.shim, access.handle, access.offsets, bind(updated, "store")["value"].value,
                        access.checked, lambda scalar: _full_block(access, scalar))


def _full_block(access: HandleAccess, scalar: cst.BaseExpression) -> cst.Call:
    """`tl.full(block, scalar, <base>.dtype.element_ty)`, for a literal scalar stored through a tile."""
    return cst.Call(cst.Attribute(access.language, cst.Name("full")),
                    [cst.Arg(cst.List([cst.Element(b) for b in access.block])), cst.Arg(scalar),
                     cst.Arg(masked_pointers.element_type(access.element))])
