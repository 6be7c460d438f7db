"""The forms an access takes once decided (sites.py): the records of a descriptor access, a compat tile's,
a guarded one and masked pointers, and what each records for the creations it reads. A part of
FunctionAnalysis (shared.py)."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from triton_migrate.forms import POINTER_ARGUMENT, Form
from triton_migrate.rules import ttd118_unfollowed_use
from triton_migrate.syntax.forms import masked_pointers

from .calls import advance_arguments
from .records import ElementType, HandleAccess, MaskedAccess, NamedMaskAccess, Refusal
from .shared import Part
from .values import BlockPtr


class AccessForms(Part):
    def descriptor_access(self, call, member, bound, value: BlockPtr, offsets) -> None:
        self.handle_access(call, member, bound, value, self.descriptor_record(member, bound, value, offsets))

    def descriptor_record(self, member, bound, value: BlockPtr, offsets) -> HandleAccess:
        creation = self.books.creation_of(value)
        stored = bound["value"].value if "value" in bound else None
        return HandleAccess(Form.DESCRIPTOR, member, value.creations, value.stem, self.handle_padding(bound), offsets,
                            creation.block, self.fn.language, creation.permutation,
                            stored is not None and self.fn.facts.is_tile(stored))

    def compat_access(self, call, member, bound, value: BlockPtr, offsets) -> None:
        creation = self.books.creation_of(value)
        checked = bound["boundary_check"].value if "boundary_check" in bound else cst.Tuple([])
        self.handle_access(call, member, bound, value, HandleAccess(
            Form.COMPAT, member, value.creations, value.stem, self.handle_padding(bound), offsets, creation.block,
            self.fn.language, shim=self.fn.shim, checked=checked, element=creation.base))

    def handle_access(self, call, member, bound, value: BlockPtr, access: HandleAccess) -> None:
        """An access through a handle (descriptor or compat tile): one handle per padding."""
        for creation in value.creations:
            padding = self.handle_padding(bound) if member == "load" else "zero"
            self.fn.knowledge.paddings.setdefault(creation, set()).add(padding)
            if any(h in bound for h in ("cache_modifier", "eviction_policy")):
                self.books.creations_by_id(creation).hints_dropped = True
        self.run.expr_edits[id(call)] = (value.creations, access)

    def handle_padding(self, bound) -> str:
        return "nan" if self.accesses.literal_padding(bound) == "nan" else "zero"  # "" (unspecified) reads as zero

    def guarded_access(self, call, member, bound, value: BlockPtr, offsets, deltas, widths: bool = False) -> None:
        """Both forms, the descriptor's taken when the launch check passes (TTD009), or with `widths` where the
        compile-time test of its block widths does (TTD107: its flag is named once the analysis is over)."""
        descriptor_form = self.descriptor_record(member, bound, value, offsets)
        self.handle_access(call, member, bound, value, descriptor_form)
        pointers = self.masked_access(call, member, bound, value, offsets, deltas)
        self.run.expr_edits[id(call)] = (value.creations, replace(descriptor_form, guard=None if widths else
                                                                  self.fn.guard_flag, widths_tested=widths,
                                                                  fallback=pointers))

    def pointer_access(self, call, member, bound, value: BlockPtr, offsets, deltas) -> None:
        problem = self.pointer_problem(value, self.holds_pointers(bound, value, deltas))
        if problem is not None:
            self.books.refuse(value.creations, Refusal(ttd118_unfollowed_use.CODE, problem, call))
            return
        self.run.expr_edits[id(call)] = (value.creations, self.masked_access(call, member, bound, value, offsets,
                                                                           deltas))

    def holds_pointers(self, bound, value: BlockPtr, deltas) -> bool:
        """Whether the access can read the pointers the block pointer's name holds (`p`, `tl.advance(p, d)`)."""
        return value.pointers and isinstance(self.held(bound, deltas), cst.Name)

    def held(self, bound, deltas) -> cst.BaseExpression:
        """The block pointer the access reads: its pointer argument, or what the advance there moves."""
        pointer = bound[POINTER_ARGUMENT].value
        return advance_arguments(pointer, self.fn.names)["base"].value if deltas is not None else pointer

    def check_variants(self, bound, rank: int) -> list[tuple[cst.BaseExpression | None, set[int]]]:
        """The access's `boundary_check` variants, which sites.py read (unsupported_access refuses an access
        whose check it cannot read)."""
        variants = self.accesses.check_variants(bound, rank)
        assert variants is not None
        return variants

    def masks_at_creation(self, call, bound, value: BlockPtr, deltas) -> bool:
        """Whether block pointers merged from creations that differ in what the mask reads (fla's `if
        STATE_V_FIRST:` creating `p_h` over `(V, K)` or `(K, V)`) are masked where they are created: each
        creation assigns its mask next to its pointers (`p_h_mask = m_v[:, None] & m_k[None, :]`), as a
        careful person writes it, instead of every part it differs in. Only where the access reads the
        pointers the name holds, unmoved since they were created, of a block pointer that moves nowhere (its
        pointers leave out the offsets it moves in, which the access adds), and every access checks the same
        dimensions."""
        variants = self.check_variants(bound, len(value.dims))
        if not value.pointers or deltas is not None or len(variants) != 1 or len(value.creations) < 2 or \
                any(d.stale or not d.defs <= value.creations for d in value.dims) or \
                self.results.moving_dims(value.creations):  # its pointers leave out where it moves: the access adds it
            return False
        checked = frozenset(variants[0][1])
        creations = [self.books.creations_by_id(c) for c in self.fn.knowledge.in_order(value.creations)]
        differs = {d for d in checked if len({tuple(map(self.fn.facts.canonical_code, (c.offsets[d], c.block[d],
                                                                                        c.shape[d])))
                                                  for c in creations}) > 1}
        masks = self.fn.knowledge.creation_masks
        if not differs or any(masks.get(c, checked) != checked for c in value.creations):
            return False
        if any(all(bound.always() for bound in self.results.creation_bounds(c, checked).values())
               for c in creations):  # in bounds there: nothing to assign
            return False
        masks.update(dict.fromkeys(value.creations, checked))
        self.fn.knowledge.named.update(value.creations)
        return True

    def named_mask_access(self, member, bound, value: BlockPtr) -> NamedMaskAccess:
        """The masked access through the pointers and the mask its creations assign (masks_at_creation)."""
        return NamedMaskAccess(member, value.creations, self.fn.language, bound[POINTER_ARGUMENT].value,
                               self.fn.namer.mask(self.books.creation_of(value).name), self.accesses.padding(bound))

    def pointer_problem(self, value: BlockPtr, named: bool = False) -> str | None:
        """Why the masked-pointer form cannot follow this block pointer to the access, or None. Its base, shape
        or strides reading a name assigned since the creation are captured there (`capture_parts`) on the next
        run; a block pointer they were captured for and that still reads one cannot be followed. The base
        matters only where the access rebuilds the pointers (not `named`: they are read from the name)."""
        if not value.args_stale and not (value.base_stale and not named):
            return None
        uncaptured = {c for c in value.creations if not self.books.creations_by_id(c).captured}
        if uncaptured:  # this run's code is thrown away
            self.fn.knowledge.captured |= uncaptured
            self.run.dirty = True
            return None
        return ttd118_unfollowed_use.PARTS_CHANGED

    def merged_parts(self, value: BlockPtr, checked: set[int] | None = None,
                     kinds: tuple[str, ...] = ("base", "shape", "stride", "range")) -> tuple:
        """(base, shape, strides, blocks, ranged dimensions) at an access: a part that differs between the
        creations merged here (an `if`/`else` creating from two tensors) lives in a variable each creation
        assigns (`p_base`). A block size that differs (an `if HEAD_FIRST:` choosing `(BT, BK)` or `(BK, BT)`,
        which Triton resolves at compile time) does as its range, `p_range0 = tl.arange(0, BT)`: a tensor,
        since Triton refuses a constexpr assigned again in a loop. Only the parts of `kinds` get variables (an
        access through the pointers its name holds reads no base or stride), and of the shape only those of
        the `checked` dimensions (None: all of them)."""
        creations = [self.books.creations_by_id(c) for c in self.fn.knowledge.in_order(value.creations)]
        first = creations[0]
        rank = len(first.block)
        parts = [("base", 0, [c.described_base for c in creations])]
        parts += [(kind, d, [getattr(c, attribute)[d] for c in creations])
                  for kind, attribute in (("shape", "shape"), ("stride", "strides"), ("range", "block"))
                  for d in range(rank)]
        merged, ranged = [], set()
        for kind, d, exprs in parts:
            unread = kind not in kinds or kind == "shape" and checked is not None and d not in checked
            if unread or len({self.fn.facts.canonical_code(e) for e in exprs}) == 1:
                merged.append(exprs[0])
                continue
            if kind == "range":
                ranged.add(d)
                exprs = [masked_pointers.arange(self.fn.language, e) for e in exprs]
            for creation, expr in zip(creations, exprs):
                self.fn.knowledge.merged.setdefault(id(creation.call), {})[(kind, d)] = expr
            merged.append(cst.Name(self.fn.namer.part(first.name, kind, d)))
        return merged[0], merged[1:1 + rank], merged[1 + rank:1 + 2 * rank], merged[1 + 2 * rank:], \
            frozenset(ranged)

    def masked_access(self, call, member, bound, value: BlockPtr, offsets, deltas) -> MaskedAccess:
        """The masked access: through the pointers the block pointer's name holds where every definition
        reaching here assigned them (`tl.load(p_q, mask=...)`), else from its parts and offsets; for
        `boundary_check=A if FLAG else B` one access per variant, in a conditional expression on the same
        test (a constexpr: Triton takes the check only at compile time, and resolves such an expression then
        too), each with its own mask."""
        variants = self.check_variants(bound, len(offsets))
        checked_by_any = set().union(*(dims for _, dims in variants))
        named = self.holds_pointers(bound, value, deltas)
        pointer = bound[POINTER_ARGUMENT].value
        # `tl.advance(p, ...)` moves `p`'s
        held = self.held(bound, deltas)
        kinds = ("shape", "range", "stride") if named else ("base", "shape", "stride", "range")
        base, shape, strides, blocks, ranged = self.merged_parts(value, checked_by_any, kinds)
        (self.fn.knowledge.named if named else self.fn.knowledge.rebuilt).update(value.creations)
        axes = [masked_pointers.Axis(self.fn.language, offset, block, d in ranged, shape[d])
                for d, (offset, block) in enumerate(zip(offsets, blocks))]
        lower = [not p["nonnegative"] for p in self.moves.proven_offsets(value, deltas)]
        if deltas is not None:
            self.moves.note_moving(value, deltas)
        return MaskedAccess(member, value.creations, self.fn.language, variants, named, held, pointer, base, strides,
                            offsets, axes, shape, lower, self.accesses.padding(bound),
                            tuple(self.accesses.user_mask(bound)) or None)

    def element_type(self, query: ElementType) -> ElementType:
        """What `p.dtype.element_ty` means once the analysis is over: the dtype of the pointers `p` holds, where
        it holds them (a block pointer's `p.type.element_ty`, a block type there, would be a pointer type of
        theirs), else the descriptor's dtype where there is one (a block pointer never loaded nor stored has
        none: the base's element type)."""
        creations = query.creations
        if query.pointers and self.results.reads_pointers(creations):
            return replace(query, source="pointers")
        if Form.DESCRIPTOR in self.results.forms(creations) and self.results.uses_descriptors(creations) and \
                not self.results.is_guarded(creations):
            return replace(query, source=Form.DESCRIPTOR, handle=self.results.descriptor_name(creations, query.stem,
                                                                                            "zero"))
        first = self.run.creations[self.fn.knowledge.in_order(creations)[0]]
        return replace(query, source="base", base=first.base)
