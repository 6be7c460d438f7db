"""What the analysis knows about each block pointer, and what it has learnt across reruns."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import libcst as cst

from triton_migrate.rules import ttd103_no_unit_stride

from .values import State


@dataclass
class Creation:
    """One `make_block_ptr` call and what it describes."""

    call: cst.Call
    target: Optional[str]
    base: Optional[cst.BaseExpression] = None
    shape: list = field(default_factory=list)
    strides: list = field(default_factory=list)
    offsets: list = field(default_factory=list)
    block: list = field(default_factory=list)
    unit: Optional[int] = None  # the unit-stride dimension; None: no descriptor is possible
    blockers: list = field(default_factory=list)  # planner.Obstacle: what rules out any descriptor
    hoist_before: Optional[cst.CSTNode] = None  # the loop to create the descriptor before
    hints_dropped: bool = False
    order: Optional[list] = None  # the literal `order`, if it is one
    anchor: Optional[cst.CSTNode] = None  # where the report points, if not at the call (a helper's parameter)
    check: object = None  # guards.Check, or why a descriptor cannot be checked at launch (TTD009)
    loops: int = 0  # how many loops the creation is inside
    branched: bool = False  # inside an `if`: its base may be None where it is not reached
    condition: Optional[cst.IfExp] = None  # `p = tl.make_block_ptr(...) if FLAG else None`: the whole value
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
    rejected: Optional[str] = None  # what is wrong with the first call Triton rejects here: the function stays whole
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
