"""What a finished analysis hands to the rewriter and the report: which block pointers are refused, how
each is rewritten, and the statements that create descriptors. A part of FunctionAnalysis (shared.py)."""

from __future__ import annotations

import libcst as cst

from triton_migrate.forms import Form, Origin
from triton_migrate.syntax.forms import masked_pointers
from triton_migrate.syntax.nodes import canonical_code

from . import guards, planner, tiles
from .records import (
    Creation,
    CreationStatements,
    HandleAccess,
    HandleCreation,
    NoneAssignments,
    Refusal,
    Signature,
)
from .shared import Part

PART_ORDER = ("base", "shape", "stride", "range")


class Results(Part):
    def class_of(self, creation: int) -> list[int]:
        root = self.fn.knowledge.find(creation)
        return self.fn.knowledge.in_order(c for c in self.run.creations if self.fn.knowledge.find(c) == root)

    def descriptor_loads(self, creation: int) -> set[int]:
        """The ids of the load calls that may read this block pointer's tile through a descriptor."""
        return {key for key, (_, edit) in self.run.expr_edits.items() if isinstance(edit, HandleAccess)
                and edit.form == Form.DESCRIPTOR and edit.member == "load" and creation in edit.creations}

    def is_refused(self, creations) -> bool:
        return any(self.fn.knowledge.refused.get(member) is not None
                   for creation in creations for member in self.class_of(creation))

    def refusal_for(self, creation: int) -> Refusal | None:
        return next((self.fn.knowledge.refused[m] for m in self.class_of(creation) if m in self.fn.knowledge.refused),
                    None)

    def paddings(self, creations) -> set[str]:
        found = set()
        for creation in creations:
            for member in self.class_of(creation):
                found |= self.fn.knowledge.paddings.get(member, set())
        return found or {"zero"}

    def descriptor_name(self, creations, stem: str, padding: str) -> str:
        """The handle (descriptor or compat tile) of these block pointers, named from `stem`, for a padding."""
        paddings = self.paddings(creations)
        return self.fn.namer.descriptor(stem, padding if padding in paddings else min(paddings), paddings,
                                        self.handle_kind)

    @property
    def handle_kind(self) -> str:
        return "tile" if planner.uses_shim(self.fn.policy) else "desc"

    def forms(self, creations) -> set[str]:
        """How the accesses of these block pointers are rewritten: a descriptor, masked pointers or both."""
        members = [m for c in creations for m in self.class_of(c)]
        found = set().union(*(self.fn.knowledge.forms.get(m, set()) for m in members))
        if found:
            return found
        if planner.uses_shim(self.fn.policy):
            return {Form.COMPAT}
        blocked = any(self.run.creations[m].blockers for m in members) or planner.pointers_only(self.fn.policy)
        return {Form.POINTER if blocked else Form.DESCRIPTOR}  # never accessed: what it would be

    def target_origin(self, creations) -> Origin | None:
        """Where the target came from, where it alone made these block pointers masked pointers (TTD006's note):
        as their sites' decisions say (the function's, for one never accessed); None where obstacles decided."""
        members = {m for c in creations for m in self.class_of(c)}
        origins = {site.origin for site in self.fn.knowledge.sites.values() if site.creations & members}
        return planner.target_origin(self.fn.policy, next(iter(origins), self.fn.origin))

    def uses_descriptors(self, creations) -> bool:
        """Whether these block pointers need handles: descriptors, or compat tiles. One that is never loaded
        or stored through (a helper that only moves its block pointer) needs none: creating it would cost
        a device-side descriptor for nothing."""
        recorded = set().union(*(self.fn.knowledge.forms.get(m, set()) for c in creations for m in self.class_of(c)))
        return bool(recorded & {Form.DESCRIPTOR, Form.COMPAT})

    def reads_pointers(self, creations) -> bool:
        """Whether some masked access reads these block pointers' pointers from the name that holds them, so
        that their creations and advances assign them (access_forms.holds_pointers)."""
        return any(m in self.fn.knowledge.named for c in creations for m in self.class_of(c))

    def moving_dims(self, creations) -> set[int]:
        """The dimensions these block pointers move in (an advance, or an access through one)."""
        return {d for c in creations for m in self.class_of(c) for d in self.fn.knowledge.moving.get(m, ())}

    def creation_pointers(self, creation: Creation) -> tuple:
        """(name, base, strides, axes): the addresses of the block where it is created (`q + o_t[:, None] * (H*K)
        + o_k[None, :]`), without the offsets of the dimensions it moves in (each access adds those: ttd006's
        `shifted`)."""
        moving = self.moving_dims({id(creation.call)})
        axes = [masked_pointers.Axis(self.fn.language, cst.Integer("0") if d in moving else offset, block,
                                     along=shape)
                for d, (offset, block, shape) in enumerate(zip(creation.offsets, creation.block, creation.shape))]
        return creation.target, creation.base, tuple(creation.strides), tuple(axes)

    def creation_bounds(self, creation: Creation, checked: frozenset[int]) -> dict[int, masked_pointers.Bound]:
        """Where the block lies inside its shape, as created, in each `checked` dimension: the bounds of its mask
        (`m_v[:, None] & m_k[None, :]`, access_forms.masks_at_creation)."""
        return {d: masked_pointers.Bound(
            masked_pointers.Axis(self.fn.language, creation.offsets[d], creation.block[d],
                                 along=creation.shape[d]),
            creation.shape[d],
            not self.fn.is_nonnegative(creation.offsets[d])) for d in checked}

    def is_guarded(self, creations) -> bool:
        """Whether these block pointers' descriptors are chosen at launch (TTD009), masked pointers otherwise."""
        members = [m for c in creations for m in self.class_of(c)]
        return any(m in self.fn.knowledge.guarded for m in members) and \
            all(isinstance(self.launch.launch_check(self.run.creations[m]), guards.Check) for m in members)

    def class_notes(self, creation: int, notes: dict) -> dict:
        return {key: text for m in self.class_of(creation) for key, text in notes.get(m, {}).items()}

    def is_hoisted(self, creation: Creation) -> bool:
        return creation.hoist_before is not None and len(self.class_of(id(creation.call))) == 1 and \
            self.uses_descriptors({id(creation.call)}) and not self.shares_handle_name(creation)

    def shares_handle_name(self, creation: Creation) -> bool:
        """Whether another creation of the function assigns a handle of another type to the same name. Created
        before its loop, the handle would be live at the head of the other's loop (fla's based backward:
        `p_q` over `(T, K)` in one loop, over `(K, T)` in the next), which Triton then carries through that
        loop, as a descriptor in and a pointer out, and refuses to compile. A handle's padding is part of its
        type too (a compat tile re-made with "nan" in the loop that one made with "zero" before it carries)."""
        def kind(c: Creation) -> tuple:
            impl = self.compat_impl(c) if planner.uses_shim(self.fn.policy) else None
            paddings = tuple(sorted(self.paddings({id(c.call)})))
            return (self.fn.facts.canonical_code(c.described_base), *map(self.fn.facts.canonical_code, c.block), impl,
                    paddings)

        return any(kind(other) != kind(creation) for other in self.same_name_handles(creation))

    def same_name_handles(self, creation: Creation) -> list[Creation]:
        """The other creations of the function whose handles take this one's name."""
        stem = self.fn.namer.stem(creation.name)
        return [other for other in self.run.creations.values()
                if other.target is not None and id(other.call) not in self.class_of(id(creation.call)) and
                self.fn.namer.stem(other.target) == stem and self.uses_descriptors({id(other.call)})]

    def handles(self, creation: Creation) -> tuple[HandleCreation, ...]:
        """The handles a creation makes, one per padding its accesses read (zero first)."""
        value_stem = self.fn.namer.stem(creation.name)
        paddings = self.paddings({id(creation.call)})
        found = []
        for padding in sorted(paddings, key=lambda p: p != "zero"):
            target = self.fn.namer.descriptor(value_stem, padding, paddings, self.handle_kind)
            if planner.uses_shim(self.fn.policy):
                impl, guard = tiles.choice(self, creation)
                found.append(HandleCreation(target, creation.name, creation.call, creation.spelt, padding,
                                            shim=self.fn.shim, impl=impl, guard=guard))
            else:
                found.append(HandleCreation(target, creation.name, creation.call, creation.spelt, padding,
                                            self.descriptor_function(creation.call.func), creation.permutation))
        return tuple(found)

    def compat_impl(self, creation: Creation) -> str:
        """The shim's emulation where a descriptor is provably wrong for this block pointer (an unaligned
        or int64 offset, no unit last stride, ...) or where its base carries an offset computed in the
        kernel that is not provably 16-byte aligned (`q + (bos * H + i_h) * K`: no launch guard can check
        that); otherwise "auto", which a launch guard can refine from the argument tensors."""
        emulated = creation.blockers or creation.unit is None or \
            creation.permutation != sorted(creation.permutation) or \
            self.class_notes(id(creation.call), self.fn.knowledge.reasons) or (
                not self.is_guarded({id(creation.call)}) and
                planner.unproven_base_offsets(creation.described_base, creation.block, creation.unit, self.fn.facts))
        return "emu" if emulated else "auto"

    def handle_flag(self, creation: Creation) -> str | None:
        """The flag a guarded descriptor (TTD009), or one whose block widths are tested (TTD107), is created
        under: `if USE_DESCRIPTORS:`, which Triton resolves at compile time (a `None` in its place would not
        survive a run-time `if`)."""
        if planner.uses_shim(self.fn.policy):
            return None
        if self.is_guarded({id(creation.call)}):
            return self.fn.guard_flag
        if self.launch.width_tested({id(creation.call)}):
            return self.launch.width_flag()
        return None

    def descriptor_function(self, func: cst.BaseExpression) -> cst.BaseExpression:
        owner = func.value if isinstance(func, cst.Attribute) else self.fn.language
        return cst.Attribute(owner, cst.Name("make_tensor_descriptor"))

    def creation_record(self, creation: Creation) -> CreationStatements:
        """What a creation's statement becomes (records.CreationStatements)."""
        in_place = self.uses_descriptors({id(creation.call)}) and not self.is_hoisted(creation)
        handles = self.handles(creation) if in_place else ()
        present = None
        if isinstance(creation.anchor, cst.Param) and self.fn.place.entry[creation.name].nullable:
            # some call passes `None` in every part: the handle exists only where the block pointer does
            present = self.fn.namer.part(creation.name, "base", 0)
        parts = [(self.fn.namer.part(creation.name, kind, d), expr) for (kind, d), expr in
                 sorted(self.fn.knowledge.merged.get(id(creation.call), {}).items(),
                        key=lambda part: (PART_ORDER.index(part[0][0]), part[0][1]))]
        running = []
        for d, expr in enumerate(creation.offsets):
            var = self.fn.namer.offset(creation.name, d)
            if (id(creation.call), d) in self.fn.knowledge.materialize and canonical_code(expr) != var:
                parts.append((var, expr))
                running.append((var, canonical_code(creation.shape[d])))
        pointers = self.creation_pointers(creation) if self.reads_pointers({id(creation.call)}) else None
        checked = self.fn.knowledge.creation_masks.get(id(creation.call))
        mask = None if checked is None else (self.fn.namer.mask(creation.name),
                                             self.creation_bounds(creation, checked), len(creation.block))
        return CreationStatements(handles, present, creation.condition, creation.call,
                                  self.handle_flag(creation) if handles else None, tuple(parts), tuple(running),
                                  pointers, mask)

    def signature(self) -> tuple[frozenset[int], Signature] | None:
        """A helper's block-pointer parameters become their parts, re-created on entry (crossing.py); a kernel
        with guarded descriptors gets its flag and launch check (TTD009)."""
        if self.fn.context is not None and self.fn.context.removed(self.fn.policy):
            return frozenset(), Signature(self.fn.language, removed=True)
        context = self.fn.context
        params = [p for p in self.fn.function.params.params if context and p.name.value in context.entry]
        if not params:
            return self.launch.guard_edit()
        owners = frozenset(id(c.call) for c in self.run.creations.values() if c.anchor in params)
        replaced = {p.name.value: self.crossing.parameter_names(p) for p in params}
        entry = tuple(self.creation_record(creation) for _, creation in self.run.entry_edits)
        return owners, Signature(self.fn.language, parameters=replaced, entry=entry, **self.launch.width_test())

    def placeholder_statements(self, statement: int) -> tuple[frozenset[int], NoneAssignments] | None:
        """`p = None` on the paths that create no block pointer (`else: p = None` under a constexpr flag)
        becomes `None` for what the other paths assign instead: the descriptor names, and, where `p` is passed
        to a helper as parts, the part and offset variables the call reads (the helper then receives `None`
        in each, as it received `None` for `p`). `p = 0` gives `None` the same way: what is no block pointer there
        is no handle and no part either."""
        creations = frozenset(self.fn.knowledge.placeholder_links.get(statement, ()))
        if not creations or statement in self.fn.knowledge.placeholder_used:
            return None
        names = []
        if self.uses_descriptors(creations):
            creation = self.run.creations[self.fn.knowledge.in_order(creations)[0]]
            stem, paddings = self.fn.namer.stem(creation.target), self.paddings(creations)
            names += [self.fn.namer.descriptor(stem, p, paddings, self.handle_kind)
                      for p in sorted(paddings, key=lambda p: p != "zero")]
        merged = self.fn.knowledge.merged
        if Form.PARTS in self.forms(creations) or any(("base", 0) in merged.get(c, {}) for c in creations):
            names += self.part_variables(creations)  # what a helper receives, or a `p is None` asks
        if not names:
            return None
        return creations, NoneAssignments(tuple(dict.fromkeys(names)))

    def part_variables(self, creations) -> list[str]:
        """The variables these creations assign for their parts: those that differ between them (`p_base`),
        and the offsets that are materialized (`p_off1`)."""
        names = []
        for creation in (self.run.creations[c] for c in self.fn.knowledge.in_order(creations)):
            names += [self.fn.namer.part(creation.target, kind, d) for kind, d in
                      sorted(self.fn.knowledge.merged.get(id(creation.call), {}),
                             key=lambda part: (PART_ORDER.index(part[0]), part[1]))]
            names += [self.fn.namer.offset(creation.target, d) for d in range(len(creation.offsets))
                      if (id(creation.call), d) in self.fn.knowledge.materialize]
        return names

    def hoisted(self) -> dict[int, list[tuple[frozenset[int], CreationStatements]]]:
        """The handles created before a loop (`Creation.hoist_before`), by the loop's id."""
        before: dict[int, list] = {}
        for creation in self.run.creations.values():
            if creation.target is not None and self.is_hoisted(creation):
                before.setdefault(id(creation.hoist_before), []).append(
                    (frozenset({id(creation.call)}),
                     CreationStatements(self.handles(creation), only_with=self.handle_flag(creation))))
        return before
