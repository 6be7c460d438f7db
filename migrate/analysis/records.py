"""What the analysis knows about each block pointer, and what it has learnt across reruns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import libcst as cst

from triton_migrate.rules import ttd103_no_unit_stride
from triton_migrate.syntax.nodes import code_of

from .values import State


@dataclass
class Creation:
    """One `make_block_ptr` call and what it describes."""

    call: cst.Call
    target: str | None
    base: cst.BaseExpression | None = None
    shape: list = field(default_factory=list)
    strides: list = field(default_factory=list)
    offsets: list = field(default_factory=list)
    block: list = field(default_factory=list)
    unit: int | None = None  # the unit-stride dimension; None: no descriptor is possible
    blockers: list = field(default_factory=list)  # planner.Obstacle: what rules out any descriptor
    hoist_before: cst.CSTNode | None = None  # the loop to create the descriptor before
    hints_dropped: bool = False
    order: list | None = None  # the literal `order`, if it is one
    anchor: cst.CSTNode | None = None  # where the report points, if not at the call (a helper's parameter)
    check: object = None  # guards.Check, or why a descriptor cannot be checked at launch (TTD009)
    loops: int = 0  # how many loops the creation is inside
    branched: bool = False  # inside an `if`: its base may be None where it is not reached
    condition: cst.IfExp | None = None  # `p = tl.make_block_ptr(...) if FLAG else None`: the whole value
    inline: bool = False  # the pointer of a load or store (`tl.load(tl.make_block_ptr(...))`), named by us
    stated: dict = field(default_factory=dict)  # fact -> where, what the user stated of its tensor (TTD010)
    stated_unit: bool = False  # its unit stride is the one stated `contiguous`, not one the source proves
    captured: bool = False  # its parts that read names assigned before an access are captured (capture_parts)
    spelt: dict = field(default_factory=dict)  # argument -> its elements, where the call has no literal tuple

    @property
    def permutation(self) -> list[int]:
        rank = len(self.block)
        return list(range(rank)) if self.unit is None else ttd103_no_unit_stride.permutation(rank, self.unit)


@dataclass
class Refusal:
    code: str
    message: str
    node: cst.CSTNode


@dataclass
class SiteForm:
    """What one access (or helper call) of some block pointers became, on the analysis' last pass over it: a
    loop's first pass may see an offset that the fixed point no longer proves, so each pass replaces the
    last, and what a block pointer became is what its sites became in the end."""

    creations: frozenset
    form: str  # "descriptor" (also a guarded one), "pointer", "compat" or "parts"
    guarded: bool = False  # a descriptor (or compat tile) chosen at launch (TTD009)
    reasons: dict = field(default_factory=dict)  # code -> message, why masked pointers
    relied: dict = field(default_factory=dict)  # fact -> where it was stated, what a descriptor relies on (TTD010)


@dataclass
class Knowledge:
    """What the analysis has learnt; it only grows (but for what each site became), so reruns terminate."""

    materialize: set = field(default_factory=set)  # (definition id, dimension)
    refused: dict = field(default_factory=dict)  # creation id -> Refusal
    parent: dict = field(default_factory=dict)  # union-find over creation ids
    paddings: dict = field(default_factory=dict)  # creation id -> {"zero", "nan"}
    placeholder_links: dict = field(default_factory=dict)  # statement id -> creation ids
    placeholder_used: set = field(default_factory=set)
    sites: dict = field(default_factory=dict)  # an access's (or helper call's) key -> SiteForm
    merged: dict = field(default_factory=dict)  # creation id -> {(kind, dim): its part}, for `p_base = ...`
    named: set = field(default_factory=set)  # creation ids whose name holds their pointers for some access
    rebuilt: set = field(default_factory=set)  # creation ids some access computes the pointers of from parts
    moving: dict = field(default_factory=dict)  # creation id -> the dimensions it advances in
    creation_masks: dict = field(default_factory=dict)  # creation id -> the dimensions its own mask checks
    stale_names: dict = field(default_factory=dict)  # creation id -> names in its base, shape, strides assigned since
    captured: set = field(default_factory=set)  # creation ids whose stale parts are captured at the creation
    rejected: str | None = None  # what is wrong with the first call Triton rejects here: the function stays whole
    # creation id -> when the analysis first met it. Ids are addresses, whose order is the allocator's:
    # "the first of these creations" must mean the first in the source, whichever parser built the tree.
    order: dict = field(default_factory=dict)

    @property
    def forms(self) -> dict:
        """Creation id -> {"descriptor", "pointer", ...}: what its sites became."""
        found: dict = {}
        for site in self.sites.values():
            for creation in site.creations:
                found.setdefault(creation, set()).add(site.form)
        return found

    @property
    def guarded(self) -> set:
        """Creation ids whose descriptors are chosen at launch (TTD009)."""
        return {creation for site in self.sites.values() if site.guarded for creation in site.creations}

    @property
    def reasons(self) -> dict:
        """Creation id -> {code: message}, why some of its sites are masked pointers."""
        return self._merged("reasons")

    @property
    def relied(self) -> dict:
        """Creation id -> {fact: where}, what its descriptors rely on (TTD010)."""
        return self._merged("relied")

    def _merged(self, attribute: str) -> dict:
        found: dict = {}
        for site in self.sites.values():
            for creation in site.creations:
                found.setdefault(creation, {}).update(getattr(site, attribute))
        return {creation: notes for creation, notes in found.items() if notes}

    def met(self, creation: int) -> None:
        self.order.setdefault(creation, len(self.order))

    def in_order(self, creations) -> list[int]:
        return sorted(creations, key=self.order.__getitem__)

    def find(self, c: int) -> int:
        while self.parent.get(c, c) != c:
            c = self.parent[c]
        return c

    def union(self, creations: frozenset[int]) -> None:
        first, *rest = self.in_order({self.find(c) for c in creations})
        for root in rest:
            self.parent[root] = first


@dataclass
class Loop:
    """A loop being analysed: its head state (for the fixed point), and the paths that leave early."""

    node: cst.CSTNode
    assigned: frozenset[str]
    head: State
    breaks: list = field(default_factory=list)
    continues: list = field(default_factory=list)


Builder = Callable[..., object]


@dataclass
class FunctionEdits:
    """What the rewrite applies to one function, by id of the node each edit replaces or goes before; the edits
    of block pointers that stay (refused) are left out."""

    function: int  # id of the FunctionDef
    expressions: dict[int, Builder] = field(default_factory=dict)  # the updated node -> what replaces it
    statements: dict[int, Builder] = field(default_factory=dict)  # () -> the statements that replace one
    before_loop: dict[int, list[Builder]] = field(default_factory=dict)  # descriptors created before a loop
    before_line: dict[int, list[Builder]] = field(default_factory=dict)  # statements before a line's
    signature: Builder | None = None  # the updated FunctionDef -> its new parameters, decorators, or removal
    accesses: dict[int, HandleAccess | MaskedAccess | NamedMaskAccess] = field(default_factory=dict)
    # how the rewrite names an axis or a bound of masked pointers until rewrite/offsets.py places it
    # (Namer.placeholder)
    placeholder: Builder | None = None


@dataclass
class HandleAccess:
    """A load or store that goes through a handle, as the analysis decided it: a descriptor (TTD003), one chosen
    at launch (TTD009), or a compat tile (TTD007). The rewrite builds its syntax from this record alone
    (rewrite/forms/handle_access.py). Its repr shows the expressions as code."""

    form: str  # "descriptor" or "compat"
    member: str  # "load" or "store"
    creations: frozenset  # the ids of the creations it reads
    stem: str  # the block pointer's stem, which names its handles
    padding: str  # the padding of the handle it reads: "zero" or "nan"
    offsets: list  # the offset in each dimension
    block: list  # the block shape
    language: cst.BaseExpression  # how the module names triton.language
    permutation: list = field(default_factory=list)  # a descriptor's order of dimensions (TTD103)
    stores_tile: bool = False  # a descriptor store of a tile (not of a scalar or a value to broadcast)
    shim: cst.BaseExpression | None = None  # a compat tile's: how migrated code names the shim
    checked: cst.BaseExpression | None = None  # a compat tile's: the `boundary_check` as given
    element: cst.BaseExpression | None = None  # a compat tile's base, whose dtype a stored literal scalar takes
    guard: str | None = None  # chosen at launch (TTD009), or by a test of its block widths: the flag
    widths_tested: bool = False  # chosen by the compile-time test of its block widths (TTD107)
    fallback: MaskedAccess | None = None  # chosen at launch: masked pointers (TTD006) otherwise
    handle: str | None = None  # the handle's name, known once the analysis is over (FunctionAnalysis.edits)

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass
class MaskedAccess:
    """A load or store on masked pointers (TTD006), as the analysis decided it: where its pointers come from,
    the parts and offsets they are computed from, the bounds each `boundary_check` variant masks. The rewrite
    builds its syntax from this record alone (rewrite/forms/masked_access.py)."""

    member: str  # "load" or "store"
    creations: frozenset  # the ids of the creations it reads
    language: cst.BaseExpression  # how the module names triton.language
    variants: list  # (test, dimensions checked): one access each, chosen on the tests (None: the last)
    named: bool  # through the pointers the block pointer's name holds (`held`), else computed here
    held: cst.BaseExpression  # the name that holds the pointers (an advance's base for `tl.advance(p, ...)`)
    pointer: cst.BaseExpression  # the access's pointer as the source spells it
    base: cst.BaseExpression
    strides: list
    offsets: list  # the offset in each dimension
    axes: list  # masked_pointers.Axis per dimension: offset, block, range
    shape: list
    lower: list  # per dimension: whether the offset may be negative (the mask checks `>= 0` too)
    padding: object  # a literal option, or the name of a constexpr holding one
    # known once the analysis is over (FunctionAnalysis.edits):
    moving: set | None = None  # the dimensions the block pointer moves in: held pointers leave them out
    created_here: bool | None = None  # the pointer is the creation (`tl.load(tl.make_block_ptr(...))`)

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass
class NamedMaskAccess:
    """A load or store on masked pointers whose mask each of its creations assigns (access_forms.py
    masks_at_creation: fla's `m_h`): it reads the pointers and the mask by their names. Built by
    rewrite/forms/masked_access.py."""

    member: str  # "load" or "store"
    creations: frozenset  # the ids of the creations it reads
    language: cst.BaseExpression  # how the module names triton.language
    held: cst.BaseExpression  # the name that holds the pointers
    mask: str  # the name that holds the mask
    padding: object  # a literal option, or the name of a constexpr holding one

    def __repr__(self) -> str:
        return _record_repr(self)


def _record_repr(record) -> str:
    """A record as a reader wants it: expressions as code, node ids (its creations, a node) left out."""
    shown = {key: _shown(value) for key, value in vars(record).items()
             if value is not None and key not in ("creations", "pointer")}
    return f"{type(record).__name__}({', '.join(f'{key}={value}' for key, value in shown.items())})"


def _shown(value):
    """A record's field as a reader wants it: expressions as code."""
    if isinstance(value, (HandleAccess, MaskedAccess, NamedMaskAccess)):
        return repr(value)
    if isinstance(value, cst.CSTNode):
        return repr(code_of(value))
    if isinstance(value, list):
        return f"[{', '.join(_shown(v) for v in value)}]"
    if isinstance(value, tuple):
        return f"({', '.join(_shown(v) for v in value)})"
    if isinstance(value, (set, frozenset)):
        return f"{{{', '.join(_shown(v) for v in sorted(value))}}}" if value else "set()"
    if hasattr(value, "__dataclass_fields__"):  # an axis
        return f"{type(value).__name__}({', '.join(f'{k}={_shown(v)}' for k, v in vars(value).items())})"
    return repr(value)
