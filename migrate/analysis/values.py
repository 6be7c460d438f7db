"""The abstract values the analysis tracks per local name, and how two control-flow paths join.

A block pointer is tracked as (descriptor stem, one offset expression per dimension). Offsets stay
inline expressions for as long as they are valid; a dimension that must live in a variable (it is
advanced in place, or two paths disagree, or a name it reads was reassigned before the use) is
*materialized* at the statements that define it. The analysis learns those needs as it goes and reruns.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Union

import libcst as cst

from triton_migrate.rules import ttd109_ambiguous_value


@dataclass(frozen=True)
class Dim:
    """One dimension's offset: `expr` is None when paths disagree (a rerun will materialize it)."""

    expr: cst.BaseExpression | None
    code: str
    free: frozenset[str]  # names the expression reads
    defs: frozenset[int]  # ids of the definitions (creation or advance) that produced it
    stale: bool = False  # a name it reads was reassigned since
    aligned: bool = True  # provably a multiple of 16 bytes (checked on the unit-stride dimension)
    nonnegative: bool = True  # provably >= 0 (TMA stores trap on negative coordinates)

    def key(self) -> tuple:
        return (self.code, self.defs, self.stale, self.aligned, self.nonnegative)


@dataclass(frozen=True)
class BlockPtr:
    creations: frozenset[int]
    stem: str  # the descriptor is `<stem>_desc`
    dims: tuple[Dim, ...]
    desc_stale: bool = False  # its descriptor name was re-created while this value was live
    args_free: frozenset[str] = frozenset()  # names read by shape and strides (masked-pointer form)
    args_stale: bool = False  # one of them was reassigned since the creation
    base_free: frozenset[str] = frozenset()  # names read by the base: by accesses that rebuild the pointers
    base_stale: bool = False
    # The name that holds this value also holds its masked-pointer form's pointers: every definition that
    # reaches here (a creation, an advance of such a value) assigns them to it.
    pointers: bool = False

    def key(self) -> tuple:
        return ("bp", self.creations, self.stem, tuple(d.key() for d in self.dims), self.desc_stale,
                self.args_stale, self.base_stale, self.pointers)

    def invalidate(self, name: str) -> BlockPtr:
        if name not in self.args_free and name not in self.base_free and all(name not in d.free for d in self.dims):
            return self  # most assignments: every statement of a kernel assigns something
        dims = tuple(replace(d, stale=True) if name in d.free else d for d in self.dims)
        args_stale = self.args_stale or name in self.args_free
        base_stale = self.base_stale or name in self.base_free
        if dims == self.dims and args_stale == self.args_stale and base_stale == self.base_stale:
            return self
        return replace(self, dims=dims, args_stale=args_stale, base_stale=base_stale)


@dataclass(frozen=True)
class Placeholder:
    """`p = None` (or `p = 0`: `is_placeholder`) on a path where other paths make `p` a block pointer."""

    statements: frozenset[int]

    def key(self) -> tuple:
        return ("none", self.statements)


@dataclass(frozen=True)
class Opaque:
    """A block pointer we do not rewrite: refused, or mixed with other values across paths. Reading it
    refuses every creation it may come from, for the reason `why` says (why the paths cannot be merged)."""

    creations: frozenset[int]
    why: str = ttd109_ambiguous_value.MIXED

    def key(self) -> tuple:
        return ("mixed", self.creations, self.why)


def is_none(node: cst.BaseExpression | None) -> bool:
    return type(node) is cst.Name and node.value == "None"


def is_placeholder(node: cst.BaseExpression) -> bool:
    """`None`, or an integer literal (AMD's attention kernels: `encoded_softmax_block_ptr = 0`): what a name holds
    on the paths where no block pointer is made (`Placeholder`), and what a call passes for one."""
    return type(node) is cst.Integer or is_none(node)


class _Other:
    def key(self) -> tuple:
        return ("other",)


OTHER = _Other()
Value = Union[BlockPtr, Placeholder, Opaque, _Other]
State = dict  # local name -> Value; None stands for "this path does not continue"


def same_state(a: State | None, b: State | None) -> bool:
    """Do the two states hold the same names with values of the same key? (A loop's every pass asks; a
    value that did not change is the same object, and its key need not be built.)"""
    if a is None or b is None:
        return a is b
    return a.keys() == b.keys() and all(value is b[name] or value.key() == b[name].key() for name, value in a.items())


def creations_of(value: Value) -> frozenset[int]:
    return value.creations if isinstance(value, (BlockPtr, Opaque)) else frozenset()


def join_dims(a: Dim, b: Dim) -> Dim:
    """The offset after two paths meet; `expr` is None when they disagree."""
    agree = a.expr is not None and b.expr is not None and a.code == b.code
    return Dim(
        expr=a.expr if agree else None,
        code=a.code if agree else "<conflict>",
        free=a.free | b.free,
        defs=a.defs | b.defs,
        stale=a.stale or b.stale,
        aligned=a.aligned and b.aligned,
        nonnegative=a.nonnegative and b.nonnegative,
    )
