"""What a run records as it goes: refusals, uses left alone or that never compile, offsets that must
live in variables, and the creation a block pointer stands for. A part of FunctionAnalysis (shared.py)."""

from __future__ import annotations

import libcst as cst

from triton_migrate.rules import (
    ttd109_ambiguous_value,
    ttd114_rejected_call,
    ttd201_crosses_function,
)

from .records import CompileError, Creation, Refusal
from .shared import CrossesFunctions, Part
from .values import (
    BlockPtr,
    Dim,
    Opaque,
)


class Bookkeeping(Part):
    def mark(self, definitions: frozenset[int], dim: int) -> None:
        for definition in definitions:
            if (definition, dim) not in self.fn.knowledge.materialize:
                self.fn.knowledge.materialize.add((definition, dim))
                self.run.dirty = True

    def refuse(self, creations: frozenset[int], refusal: Refusal) -> None:
        for creation in creations:
            if creation not in self.fn.knowledge.refused:
                self.fn.knowledge.refused[creation] = refusal
                self.cross_check(refusal)

    def refuse_ambiguous(self, value: Opaque, node: cst.Name) -> None:
        self.refuse(value.creations, Refusal(ttd109_ambiguous_value.CODE,
                                             ttd109_ambiguous_value.held(node.value, value.why), node))

    def orphan(self, node: cst.CSTNode, message: str, pointer: cst.BaseExpression | None = None,
               code: str = ttd201_crosses_function.CODE) -> None:
        """A block-pointer use left as it is that no creation of this function answers for (`code`: TTD201, a
        block pointer from elsewhere; TTD114, a call Triton rejects)."""
        if isinstance(pointer, cst.Name) and pointer.value in self.fn.facts.params:
            self.run.orphan_parameters.add(pointer.value)
        if any(o.node is node for o in self.run.orphans):
            return  # met again on a loop's next pass: one site, one diagnostic
        self.run.orphans.append(Refusal(code, message, node))
        self.cross_check(self.run.orphans[-1])

    def cross_check(self, refusal: Refusal) -> None:
        if refusal.code == ttd201_crosses_function.CODE:
            self.needs_program()

    def needs_program(self) -> None:
        """What becomes of a block pointer here depends on another function: without the program, stop."""
        if self.fn.context is None:
            raise CrossesFunctions

    def creations_by_id(self, creation: int) -> Creation:
        return self.run.creations[creation]

    def creation_of(self, value: BlockPtr) -> Creation:
        return self.run.creations[self.fn.knowledge.in_order(value.creations)[0]]

    def reject(self, what: str, call: cst.Call) -> Refusal:
        """A call Triton rejects (`what` is wrong with it): the function never compiled, so it stays as it is,
        whole (the next run refuses its every block pointer, naming this call)."""
        if self.fn.knowledge.rejected is None:
            self.fn.knowledge.rejected = what
            self.run.dirty = True
        return Refusal(ttd114_rejected_call.CODE, ttd114_rejected_call.rejected(what), call)

    def never_compiles(self, call: cst.Call, code: str, message: str, assertion: str,
                       owners: frozenset = frozenset()) -> None:
        """A block-pointer use that Triton rejects at compile time wherever it is reached (`message`, from its
        rule: ttd003_access.never_compiles): one on `None`
        (tritonbench keeps a block-pointer path behind `if not ENABLE_TMA:` whose callers all pass `None`), or with
        a `mask=` (MInference's output store). It becomes `tl.static_assert(False, "<assertion>")`, rejected there
        just the same, and the block-pointer API goes. `owners`: the block pointers whose rewrite this is."""
        if not any(use.node is call for use in self.run.dead_uses):
            self.run.dead_uses.append(Refusal(code, message, call))
        self.run.expr_edits[id(call)] = (owners, CompileError(self.fn.language, assertion))

    def settle(self, value: BlockPtr) -> BlockPtr:
        """A value used here is one block pointer from now on, whatever path made it (joins of different
        orders wait for a use: statements.py, join_pointers)."""
        if len(value.creations) > 1:
            self.fn.knowledge.union(value.creations)
        return value

    def use_dim(self, dim: Dim, d: int) -> None:
        if dim.stale or dim.expr is None:
            self.mark(dim.defs, d)
