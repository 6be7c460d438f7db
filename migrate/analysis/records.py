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
    condition: Optional[cst.IfExp] = None  # `p = tl.make_block_ptr(...) if FLAG else None`: the whole value
    inline: bool = False  # the pointer of a load or store (`tl.load(tl.make_block_ptr(...))`), named by us
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
class Knowledge:
    """What the analysis has learnt; it only grows, so reruns terminate."""

    materialize: set = field(default_factory=set)  # (definition id, dimension)
    refused: dict = field(default_factory=dict)  # creation id -> Refusal
    parent: dict = field(default_factory=dict)  # union-find over creation ids
    paddings: dict = field(default_factory=dict)  # creation id -> {"zero", "nan"}
    placeholder_links: dict = field(default_factory=dict)  # statement id -> creation ids
    placeholder_used: set = field(default_factory=set)
    forms: dict = field(default_factory=dict)  # creation id -> {"descriptor", "pointer"} used by its accesses
    reasons: dict = field(default_factory=dict)  # creation id -> {code: message} for masked-pointer accesses
    requirements: dict = field(default_factory=dict)  # creation id -> run-time conditions of its descriptors
    merged: dict = field(default_factory=dict)  # creation id -> {(kind, dim): its part}, for `p_base = ...`
    guarded: set = field(default_factory=set)  # creation ids whose descriptors are chosen at launch (TTD009)
    stale_names: dict = field(default_factory=dict)  # creation id -> names in its base, shape, strides assigned since
    captured: set = field(default_factory=set)  # creation ids whose stale parts are captured at the creation
    # creation id -> when the analysis first met it. Ids are addresses, whose order is the allocator's:
    # "the first of these creations" must mean the first in the source, whichever parser built the tree.
    order: dict = field(default_factory=dict)

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
