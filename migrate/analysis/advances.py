"""Offsets through `tl.advance` and copies: what a block pointer's offsets are at each use, what is proven
about them, and the statements that keep them in variables. A part of FunctionAnalysis (shared.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, cast

import libcst as cst

from triton_migrate.rules import (
    ttd002_advance,
    ttd003_access,
    ttd106_int64_offsets,
    ttd114_rejected_call,
    ttd118_unfollowed_use,
    ttd201_crosses_function,
)
from triton_migrate.syntax.forms import advance
from triton_migrate.syntax.nodes import canonical_code, int_value

from . import planner
from .calls import (
    UnboundCall,
    advance_arguments,
    advanced_base,
    member_called,
)
from .records import AdvanceMove, OffsetStep, Refusal
from .shared import Part
from .values import (
    OTHER,
    BlockPtr,
    Dim,
    Opaque,
    State,
    Value,
)

if TYPE_CHECKING:
    from .seams import Moved


class Advances(Part):
    def advance(self, node, name: str, call: cst.Call, state: State) -> Value:
        resolved = self.advanced_pointer(call, state)
        if resolved is None and any(use.node is call for use in self.run.dead_uses):  # the whole line asserts
            _, error = self.run.expr_edits.pop(id(call))
            self.run.stmt_edits[id(node)] = (frozenset(), error)
        if resolved is None:
            return self.untracked_advance(call, state)
        source, deltas = resolved
        base = cast(cst.Name, advanced_base(call, self.fn.names))  # a tracked block pointer is read of a name
        return self.moved(node, name, base.value, source, deltas, state)

    def copy(self, node, name: str, source: BlockPtr, state: State) -> Value:
        """`k_next = k_ptr`: the same block pointer under another name, whose offsets then move on their own. A
        copy is an advance by nothing: the new name's offsets are the source's, in variables of its own where
        it is moved or the source is."""
        return self.moved(node, name, node.value.value, self.books.settle(source),
                          [cst.Integer("0")] * len(source.dims), state)

    def moved(self, node, name: str, base_name: str, source: BlockPtr, deltas, state: State) -> Value:
        """`name = tl.advance(base_name, deltas)`, or `name = base_name` (a copy: deltas of 0)."""
        dims, steps = [], []
        for d, (dim, delta) in enumerate(zip(source.dims, deltas)):
            new, step = self.advance_dim(id(node), name, base_name, d, dim, delta, source, state)
            dims.append(new)
            steps.extend(step)
        self.note_moving(source, deltas)
        # `q = p` for `q = tl.advance(p, ...)` (or a copy) where some access reads the pointers `q` holds: they
        # leave the offsets it moves in out, so an advance leaves them as they are (`shifted`)
        pointers = (name, base_name) if source.pointers and name != base_name else None
        self.run.stmt_edits[id(node)] = (source.creations, AdvanceMove(source.creations, tuple(steps), pointers))
        return replace(source, dims=tuple(dims))

    def note_moving(self, value: BlockPtr, deltas) -> None:
        """The dimensions this block pointer moves in: its pointers leave their offsets out (`shifted`). What an
        earlier access of this run decided without knowing it (`masks_at_creation`) is decided again."""
        self.note_moving_dims(value.creations, {d for d, delta in enumerate(deltas) if int_value(delta) != 0})

    def note_moving_dims(self, creations, moving: set[int]) -> None:
        """These block pointers move in the dimensions `moving` (an advance, a helper that hands them back)."""
        for creation in creations if moving else ():
            known = self.fn.knowledge.moving.setdefault(creation, set())
            self.run.dirty = self.run.dirty or not moving <= known
            known.update(moving)

    def untracked_advance(self, call: cst.Call, state: State) -> Value:
        """Advancing a block pointer we do not rewrite keeps it untouched (and reported once)."""
        base = advanced_base(call, self.fn.names)
        known = state.get(base.value) if isinstance(base, cst.Name) else None
        return known if isinstance(known, Opaque) else OTHER

    def advance_dim(self, definition, name, base_name, d, dim: Dim, delta, source: BlockPtr, state):
        """The offset in dimension `d` after `name = tl.advance(base_name, ...)`, and the steps that move it."""
        step = self.creating.proofs(self.books.creation_of(source), d, delta)
        proofs = {"aligned": dim.aligned and step["aligned"], "nonnegative": dim.nonnegative and step["nonnegative"]}
        if name == base_name and int_value(delta) == 0:
            return dim, []
        self.books.use_dim(dim, d)
        if name == base_name:
            var = self.fn.namer.offset(name, d)
            if dim.code != var:
                self.books.mark(dim.defs, d)
            self.flow.invalidate(var, state)
            new = Dim(cst.Name(var), var, frozenset({var}), frozenset({definition}), **proofs)
            return new, [OffsetStep(var, delta, increment=True)]
        expr = advance.plus(dim.expr, delta) if dim.expr is not None else delta
        new = self.creating.define_dim(definition, name, d, expr, proofs, state)
        return new, ([OffsetStep(new.code, expr, increment=False)] if new.code != canonical_code(expr) else [])

    def advanced_pointer(self, call: cst.Call, state: State) -> Moved | None:
        """(block pointer, deltas) for `tl.advance(p, deltas)`, or None (reported) if it is not one we track."""
        try:
            bound = advance_arguments(call, self.fn.names)
        except UnboundCall:
            self.flow.visit_children(call, state)
            return None
        base, offsets = bound["base"].value, bound.get("offsets")
        value = state.get(base.value) if isinstance(base, cst.Name) else None
        if offsets is not None:
            self.flow.visit(offsets.value, state)
        if not isinstance(value, BlockPtr):
            if isinstance(value, Opaque) and isinstance(base, cst.Name):  # (a value is read of a name only)
                self.books.refuse_ambiguous(value, base)
            elif (why := self.crossing.none_pointer(base, state)) is not None:
                self.books.never_compiles(call, ttd002_advance.CODE, ttd002_advance.on_none(why),
                                          ttd003_access.no_block_pointer(why))
            elif isinstance(base, cst.Name):
                self.books.orphan(call, ttd201_crosses_function.untracked_advance(self.crossing.untracked_origin(base)),
                                  base)
            else:
                self.flow.visit(base, state)
                if not self.is_site_call(base):  # a creation or an advance there is reported where it is
                    self.books.orphan(call, ttd201_crosses_function.untracked_advance(
                        self.crossing.untracked_origin(base)))
            return None
        value = self.books.settle(value)
        deltas = self.fn.facts.movable_elements(offsets.value) if offsets is not None else None
        if deltas is not None and len(deltas) != len(value.dims):
            self.books.refuse(value.creations, self.books.reject(
                ttd114_rejected_call.advance_rank(len(deltas), len(value.dims)), call))
            return None
        if deltas is None:
            self.books.refuse(value.creations, Refusal(ttd118_unfollowed_use.CODE,
                                                 ttd118_unfollowed_use.ADVANCE_DELTAS, call))
            return None
        if any(self.fn.facts.mentions_int64(delta) for delta in deltas):
            blocker = planner.Obstacle(ttd106_int64_offsets.CODE, ttd106_int64_offsets.ADVANCED)
            for creation in value.creations:
                self.books.creations_by_id(creation).blockers.append(blocker)
            if planner.descriptors_only(self.fn.policy):
                self.books.refuse(value.creations, Refusal(blocker.code, blocker.message, call))
                return None
        return value, deltas

    def offsets(self, value: BlockPtr, deltas) -> list | None:
        for d, dim in enumerate(value.dims):
            self.books.use_dim(dim, d)
        if any(dim.expr is None for dim in value.dims):
            return None  # paths disagree: the rerun materializes these dimensions
        if deltas is None:
            return [dim.expr for dim in value.dims]
        return [advance.plus(dim.expr, delta) for dim, delta in zip(value.dims, deltas)]

    def proven_offsets(self, value: BlockPtr, deltas) -> list[dict]:
        creation = self.books.creation_of(value)
        proven = []
        for d, dim in enumerate(value.dims):
            step = self.creating.proofs(creation, d, deltas[d]) if deltas is not None else {"aligned": True,
                                                                                   "nonnegative": True}
            proven.append({"aligned": dim.aligned and step["aligned"],
                           "nonnegative": dim.nonnegative and step["nonnegative"]})
        return proven

    @staticmethod
    def static_offset(value: BlockPtr, deltas, d: int):
        """The offset expression in `d` if it is the same as before an inline advance, else None."""
        return value.dims[d].expr if deltas is None or int_value(deltas[d]) == 0 else None

    def pointer(self, pointer: cst.BaseExpression, state: State) -> Moved | None:
        if isinstance(pointer, cst.Name):
            value = state.get(pointer.value)
            if isinstance(value, BlockPtr):
                return self.books.settle(value), None
            if isinstance(value, Opaque):
                self.books.refuse_ambiguous(value, pointer)
            return None
        if isinstance(pointer, cst.Call) and member_called(pointer, self.fn.names) == "advance":
            return self.advanced_pointer(pointer, state)
        return None

    def is_site_call(self, node: cst.BaseExpression) -> bool:
        """`tl.make_block_ptr(...)` or `tl.advance(...)`."""
        return type(node) is cst.Call and member_called(node, self.fn.names) in ("make_block_ptr", "advance")
