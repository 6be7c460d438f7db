"""A load or store on masked pointers (TTD006), built from its record (analysis/records.py MaskedAccess, or
NamedMaskAccess where its creations assign the mask): `tl.load(ptrs, mask=..., other=...)`, one per
`boundary_check` variant, chosen on their constexpr tests.
Axes and bounds are placeholders (stand_ins.py) that rewrite/offsets.py names and places."""

from __future__ import annotations

from typing import Callable

import libcst as cst

from triton_migrate.analysis.calls import bind
from triton_migrate.analysis.records import MaskedAccess, NamedMaskAccess
from triton_migrate.syntax.build import keyword
from triton_migrate.syntax.forms import masked_pointers as masked

from .stand_ins import StandIns

HINTS = ("cache_modifier", "eviction_policy", "volatile")  # kept by the masked-pointer form


def build(access: MaskedAccess, stand_ins: StandIns, updated: cst.Call) -> cst.BaseExpression:
    """What replaces the access, `updated` being its call with the edits inside it made."""
    placeholder = stand_ins.placeholder
    again = bind(updated, access.member)
    kept = [keyword(k, again[k].value) for k in HINTS if k in again]
    given = {k: again[k].value for k in access.given or ()}  # only where it never compiles
    ptrs = _pointers(access, placeholder)
    accesses = [masked.load(access.language, ptrs, masked.both(_mask(access, checked, placeholder),
                                                               given.get("mask")), access.padding, kept,
                            given.get("other"))
                if access.member == "load" else
                masked.store(access.language, ptrs, masked.both(_mask(access, checked, placeholder),
                                                                given.get("mask")), again["value"].value, kept)
                for _, checked in access.variants]
    chosen = accesses[-1]
    for (test, _), variant in reversed(list(zip(access.variants, accesses))[:-1]):
        chosen = cst.IfExp(test, variant, chosen)
    return chosen


def build_named(access: NamedMaskAccess, stand_ins: StandIns, updated: cst.Call) -> cst.BaseExpression:
    """An access through the pointers and the mask its creations assign by name (`stand_ins`: unused,
    nothing here is placed)."""
    again = bind(updated, access.member)
    kept = [keyword(k, again[k].value) for k in HINTS if k in again]
    mask = cst.Name(access.mask)
    if access.member == "load":
        return masked.load(access.language, access.held, mask, access.padding, kept)
    return masked.store(access.language, access.held, mask, again["value"].value, kept)


def _pointers(access: MaskedAccess, placeholder: Callable) -> cst.BaseExpression:
    if access.named:
        return masked.shifted(access.language, access.held, access.offsets, access.strides, access.moving)
    # created here (`tl.load(tl.make_block_ptr(...))`), or rebuilt from the parts a helper receives
    return masked.addresses(access.base, access.strides, access.axes, placeholder)


def _mask(access: MaskedAccess, checked: set[int], placeholder: Callable):
    bounds = {d: masked.Bound(access.axes[d], access.shape[d], access.lower[d]) for d in checked}
    return masked.mask(bounds, len(access.axes), placeholder)
