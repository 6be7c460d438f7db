"""Loads, stores and type queries of block pointers: which form each access takes (descriptor, guarded,
masked pointers, compat tile) and why, or why it is refused. A part of FunctionAnalysis (shared.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from triton_migrate.forms import POINTER_ARGUMENT, Form
from triton_migrate.rules import (
    ttd003_access,
    ttd103_no_unit_stride,
    ttd109_ambiguous_value,
    ttd114_rejected_call,
    ttd115_masked_access,
    ttd116_boundary_check_unread,
    ttd117_padding_option,
    ttd118_unfollowed_use,
    ttd201_crosses_function,
)
from triton_migrate.syntax.forms import descriptor
from triton_migrate.syntax.nodes import int_value, tuple_elements

from . import layout, planner
from .calls import (
    UnboundCall,
    bind,
    bool_value,
    string_value,
)
from .records import CompileError, ElementType, Refusal
from .shared import Part
from .tiles import COMPAT_EMULATED_RANK
from .values import (
    BlockPtr,
    Opaque,
    State,
    is_none,
)

if TYPE_CHECKING:
    from .seams import Moved


class Accesses(Part):
    def __init__(self, parts) -> None:
        super().__init__(parts)
        self.sensitive: set[int] | None = None  # loads whose tile's layout shows (layout_sensitive)
        self.summed: set[int] | None = None  # loads whose tile reaches a sum or scan (summed_loads)

    def access(self, call: cst.Call, member: str, state: State) -> None:
        try:
            bound = self.specialised(bind(call, member))
        except UnboundCall as error:
            self.unbound_access(call, str(error), state)
            return
        for name, argument in bound.items():  # a block pointer as a store's value, a `mask=`, an `other=`: a use
            if name != POINTER_ARGUMENT:  # the rewrite cannot follow (the access's pointer alone is rewritten)
                self.flow.visit(argument.value, state, how=ttd118_unfollowed_use.passed_as(member, name))
        pointer = bound[POINTER_ARGUMENT].value
        resolved: Moved | None
        if self.creating.is_inline_creation(pointer):
            value = self.creating.inline_creation(pointer, state)
            resolved = (value, None) if isinstance(value, BlockPtr) else None
            if resolved is None:
                return  # refused where it was created
        elif self.returns.is_inline_return(pointer, state):
            resolved = (self.returns.inline_return(pointer, state), None)
        else:
            resolved = self.moves.pointer(pointer, state)
        if resolved is None:
            self.untracked_access(call, member, bound, state)
            return
        value, deltas = resolved
        impossible = self.impossible_check(bound, len(value.dims))
        if impossible is not None:  # never compiles (an untaken constexpr branch): it still does not
            self.books.never_compiles(call, ttd003_access.CODE, ttd003_access.impossible_check(member, impossible),
                                      impossible, value.creations)
            return
        refusal = self.unsupported_access(call, member, bound, value)
        if refusal is None:
            obstacles = self.obstacles(call, member, bound, value, deltas)
            if self.user_mask(bound):
                obstacles.append(planner.Obstacle(ttd115_masked_access.CODE, ttd115_masked_access.USER_MASK))
            choice = planner.choose_access(obstacles, self.fn.policy, member, _Checks(self, call, member, value))
            form, obstacles = choice.form, choice.obstacles
            if choice.refusal is not None:
                refusal = Refusal(choice.refusal.code, choice.refusal.message, call)
        if refusal is not None:
            self.books.refuse(value.creations, refusal)
            return
        if self.user_mask(bound):
            self.rejected_mask(call, member, self.user_mask(bound), value)
        self.record_form(value, form, obstacles, id(call), choice.guarded)
        if form is Form.POINTER and self.emit.masks_at_creation(call, bound, value, deltas):
            self.run.expr_edits[id(call)] = (value.creations,
                                             self.emit.named_mask_access(member, bound, value))
            return
        offsets = self.moves.offsets(value, deltas)
        if offsets is not None and form is Form.COMPAT:
            self.emit.compat_access(call, member, bound, value, offsets)
        elif offsets is not None and form is Form.DESCRIPTOR and self.launch.width_tests(value.creations):
            self.emit.guarded_access(call, member, bound, value, offsets, deltas, widths=True)
        elif offsets is not None and form is Form.DESCRIPTOR:
            self.emit.descriptor_access(call, member, bound, value, offsets)
        elif offsets is not None and form is Form.GUARDED:
            self.emit.guarded_access(call, member, bound, value, offsets, deltas)
        elif offsets is not None:
            self.emit.pointer_access(call, member, bound, value, offsets, deltas)

    def specialised(self, bound: dict) -> dict:
        """A `boundary_check` or `padding_option` that is a parameter of this helper every call fills with the
        same literal (`load_block(x_block, boundary_check=(0, 1), ...)`) reads as that literal; a `boundary_check`
        that calls fill with several (lmdeploy's `_load_kv(ptrs, boundary_check)`, given `None`, `(1,)` or
        `(0, 1)` as constexpr flags chose them) reads as a choice between them, on the parameter itself:
        `None if boundary_check is None else (1,) if boundary_check == (1,) else (0, 1)`, one access each. A name
        that holds one literal wherever the function reads it (a module's `CHECK = tl.constexpr((0, 1))`, a local
        `check = (0, 1)`) reads as that literal."""
        for key in ("boundary_check", "padding_option"):
            node = bound[key].value if key in bound else None
            constant = self.fn.facts.constant(node.value) if isinstance(node, cst.Name) and node.value != "None" \
                else None
            if constant is not None:
                bound = {**bound, key: bound[key].with_changes(value=constant)}
                continue
            if not (isinstance(node, cst.Name) and node.value in self.fn.facts.params and self.fn.context is not None
                    and not self.fn.facts.assignments.get(node.value)):
                continue
            values = self.fn.context.literals(node.value)
            if values is not None and (len(values) == 1 or key == "boundary_check"):
                bound = {**bound, key: bound[key].with_changes(value=self.choice(node, values))}
        return bound

    @staticmethod
    def choice(name: cst.Name, values: list[cst.BaseExpression]) -> cst.BaseExpression:
        """The value `name` holds, one of `values`, as a conditional expression on it (Triton's compiler resolves
        one on a constexpr); `is None` comes first, since `==` on `None` fails there."""
        ordered = sorted(values, key=lambda v: not is_none(v))
        chosen = ordered[-1]
        for value in reversed(ordered[:-1]):
            test = cst.Comparison(name, [cst.ComparisonTarget(cst.Is() if is_none(value) else cst.Equal(), value)])
            chosen = cst.IfExp(test, value, chosen)
        return chosen

    @staticmethod
    def user_mask(bound) -> list[str]:
        """The `mask=` and `other=` given to a block-pointer access: `None` is none (Triton 3.7 and earlier took
        it so; 3.8 refuses it too)."""
        return [k for k in ("mask", "other") if k in bound and not is_none(bound[k].value)]

    def rejected_mask(self, call: cst.Call, member: str, given: list[str], value: BlockPtr) -> None:
        """A `mask=` or `other=` on a block-pointer access (MInference stores its output so), which Triton rejects
        at compile time in every version: the kernel never compiled. A `tl.static_assert(False, ...)` on the line
        before keeps it so, and the access migrates to masked pointers, its own mask kept: no block-pointer API
        is left, and nothing it reads goes unread."""
        what = ttd115_masked_access.masked_access(member, given[0])
        self.run.dead_uses.append(Refusal(ttd115_masked_access.CODE, ttd115_masked_access.rejected_access(what),
                                          call))
        assertion = ttd115_masked_access.masked_assertion(member, given[0])
        self.run.line_edits.setdefault(id(self.run.line), {})[("rejected mask", id(call))] = \
            (id(call), value.creations, CompileError(self.fn.language, assertion))

    def unsupported_access(self, call, member, bound, value: BlockPtr) -> Refusal | None:
        """Accesses neither form can express: the block pointer stays untouched."""
        if value.desc_stale:
            return Refusal(ttd109_ambiguous_value.CODE, ttd109_ambiguous_value.DESCRIPTOR_RECREATED, call)
        if self.user_mask(bound) and self.run.line is None:
            return Refusal(ttd115_masked_access.CODE,
                           ttd115_masked_access.mask_on_shared_line(member, self.user_mask(bound)[0]), call)
        option = string_value(bound["padding_option"].value) if "padding_option" in bound else None
        if option is not None and self.literal_padding(bound) is None:
            return self.books.reject(ttd114_rejected_call.unknown_padding(option), call)
        if self.checked_dims(bound, len(value.dims)) is None:
            return Refusal(ttd116_boundary_check_unread.CODE, self.unread_check(bound["boundary_check"].value), call)
        if self.padding(bound) is None:
            return Refusal(ttd117_padding_option.CODE, ttd117_padding_option.PADDING_SPELT, call)
        return None

    def unread_check(self, check: cst.BaseExpression) -> str:
        """Why a `boundary_check` cannot be read, and what would make it readable."""
        spelt = self.fn.facts.canonical_code(check)
        if isinstance(check, cst.Name) and check.value in self.fn.facts.params:
            return ttd116_boundary_check_unread.check_parameter(spelt)
        return ttd116_boundary_check_unread.check_unread(spelt)

    def obstacles(self, call: cst.Call, member: str, bound, value: BlockPtr, deltas) -> list:
        creations = [self.books.creations_by_id(c) for c in self.fn.knowledge.in_order(value.creations)]
        creation = creations[0]
        checked, padding = self.checked_dims(bound, len(value.dims)), self.padding(bound)
        assert checked is not None and padding is not None  # unsupported_access refuses an unread check or padding
        unchecked = set(range(len(value.dims))) - checked
        in_bounds = [d not in unchecked or all(planner.dimension_in_bounds(
            c.shape[d], c.block[d], self.moves.static_offset(value, deltas, d)) for c in creations)
            for d in range(len(value.dims))]
        volatile = "volatile" in bound and bool_value(bound["volatile"].value) is not False
        requirements = [r for c in creations if c.unit is not None for r in planner.alignment_requirements(
            c.described_base, c.strides, c.block, c.unit, self.fn.facts)]
        row_width = all(planner.row_width_proven(c.shape, c.block, c.unit) for c in creations)
        found = [o for c in creations for o in c.blockers] + planner.merge_obstacles(creations)
        found += planner.access_obstacles(member, self.moves.proven_offsets(value, deltas), in_bounds, creation.unit,
                                          volatile, padding, row_width, requirements, self.fn.policy)
        if member == "load" and any(c.permutation != sorted(c.permutation) for c in creations) and \
                id(call) in self.layout_sensitive():
            found.append(planner.Obstacle(ttd103_no_unit_stride.CODE, ttd103_no_unit_stride.LAYOUT))
        return [self.launch.covered(obstacle, creations) for obstacle in found]

    def beyond_emulation(self, value: BlockPtr) -> bool:
        """Whether a compat tile would be of a rank the shim's emulation lacks (above 3). Any tile may be the
        emulation: where the analysis finds a descriptor wrong for it (an obstacle of any of its accesses, no
        unit last stride, a transposed view), and, in the shim, where the Triton it runs on cannot make its
        descriptor (`DESC_OK`: a last block dim under 16 bytes, no padding support); the fuzzer's first kernels
        with a literal unit stride reached it. Masked pointers are exact on every Triton version it serves."""
        return len(value.dims) > COMPAT_EMULATED_RANK

    def layout_sensitive(self) -> set[int]:
        """The loads of this function whose tile reaches a use that depends on its layout (layout.py)."""
        if self.sensitive is None:
            self.sensitive = layout.sensitive_loads(self.fn.function, self.fn.names.member)
        return self.sensitive

    def summed_loads(self) -> set[int]:
        """The loads of this function whose tile reaches a sum or a scan, which add up in the order of its layout
        (layout.ROUNDING)."""
        if self.summed is None:
            self.summed = layout.summed_loads(self.fn.function, self.fn.names.member)
        return self.summed

    def record_form(self, value: BlockPtr, form: Form, obstacles: list, site: object = None,
                    guarded: bool = False) -> None:
        """Remember what the access `site` (by default: these block pointers' helper calls) became: the
        planner's decision."""
        creations = [self.books.creations_by_id(c) for c in value.creations]
        stated = {"contiguous": next((c.stated["contiguous"] for c in creations if c.stated_unit), None),
                  "widths": self.launch.stated_width(value.creations)}
        key = site if site is not None else (form, value.creations)
        self.fn.knowledge.sites[key] = planner.decision(frozenset(value.creations), form, obstacles, self.fn.policy,
                                                        self.fn.origin, stated, guarded)

    def unbound_access(self, call: cst.Call, error: str, state: State) -> None:
        """A load or store Triton rejects as called (an argument missing, unknown or given twice): the block
        pointers it names stay as they are, reported with what is wrong."""
        self.flow.visit_children(call, state)
        refusal = Refusal(ttd114_rejected_call.CODE, ttd114_rejected_call.rejected(error), call)
        if {"boundary_check", "padding_option"} & {a.keyword.value for a in call.args if a.keyword} or \
                any(isinstance(state.get(a.value.value), (BlockPtr, Opaque)) for a in call.args
                    if isinstance(a.value, cst.Name)):
            self.books.reject(error, call)
        named = [state.get(arg.value.value) for arg in call.args if isinstance(arg.value, cst.Name)]
        pointers = [value for value in named if isinstance(value, (BlockPtr, Opaque))]
        for value in pointers:
            self.books.refuse(value.creations, refusal)
        if not pointers and {"boundary_check", "padding_option"} & {a.keyword.value for a in call.args if a.keyword}:
            self.books.orphan(call, refusal.message, code=refusal.code)

    def untracked_access(self, call, member, bound, state) -> None:
        pointer = bound[POINTER_ARGUMENT].value
        self.flow.visit(pointer, state)
        if "boundary_check" not in bound and "padding_option" not in bound or self.moves.is_site_call(pointer):
            return
        if (why := self.crossing.none_pointer(pointer, state)) is not None:
            self.books.never_compiles(call, ttd003_access.CODE, ttd003_access.on_none(member, why),
                                      ttd003_access.no_block_pointer(why))
        elif not isinstance(pointer, cst.Name) or not isinstance(state.get(pointer.value), (Opaque, BlockPtr)):
            self.books.orphan(call, ttd201_crosses_function.untracked_access(
                member, self.crossing.untracked_origin(pointer)), pointer)

    @staticmethod
    def checked_dims(bound, rank: int) -> set[int] | None:
        """The dimensions checked on every path (a conditional check: those both variants check), or None if
        the check cannot be read."""
        variants = Accesses.check_variants(bound, rank)
        return None if variants is None else set.intersection(*(checked for _, checked in variants))

    @staticmethod
    def check_variants(bound, rank: int) -> list[tuple[cst.BaseExpression | None, set[int]]] | None:
        """[(None, dims)] for a literal `boundary_check`; [(FLAG, dims), (None, dims)] for
        `boundary_check=(1,) if FLAG else ()` (xformers' split-k decoding), whose test Triton must resolve
        at compile time, and so on for a chain of them (`specialised`); None for anything else."""
        if "boundary_check" not in bound:
            return [(None, set())]
        node, variants = bound["boundary_check"].value, []
        while isinstance(node, cst.IfExp):
            dims = Accesses.literal_dims(node.body, rank)
            if dims is None:
                return None
            variants.append((node.test, dims))
            node = node.orelse
        dims = Accesses.literal_dims(node, rank)
        return None if dims is None else variants + [(None, dims)]

    @staticmethod
    def literal_dims(node: cst.BaseExpression, rank: int) -> set[int] | None:
        """The dimensions a `boundary_check` checks. Triton compiles only distinct dimensions below the rank,
        so `rank` entries of any spelling (FlagGems' generated `boundary_check=(in0_stride_order0,)` on a
        rank-1 pointer) check every dimension wherever the access compiles."""
        if is_none(node):  # no check (Triton reads `None` as `()`)
            return set()
        elements = tuple_elements(node)
        values = [int_value(e) for e in elements] if elements is not None else [int_value(node)]
        if None in values and elements is not None and len(elements) == rank:
            return set(range(rank))
        if None in values or any(not 0 <= v < rank for v in values):
            return None
        return set(values)

    @staticmethod
    def impossible_check(bound, rank: int) -> str | None:
        """Why Triton rejects this access's `boundary_check` at compile time (a dimension the block pointer does
        not have, or one named twice), or None."""
        node = bound["boundary_check"].value if "boundary_check" in bound else None
        elements = tuple_elements(node) if node is not None else None
        values = [int_value(e) for e in elements] if elements is not None else [int_value(node)] if node else []
        if None in values:
            return None
        outside = [v for v in values if not 0 <= v < rank]
        if outside:
            return ttd003_access.dimension_outside(outside[0], rank)
        if len(set(values)) != len(values):
            return ttd003_access.DIMENSION_TWICE
        return None

    @staticmethod
    def padding(bound) -> str | cst.Name | None:
        """The padding option: a literal (`literal_padding`), or a name. Triton takes the option only at
        compile time, so a name holds a constexpr there, which the masked-pointer form branches on."""
        node = bound["padding_option"].value if "padding_option" in bound else None
        if isinstance(node, cst.Name) and node.value != "None":
            return node
        return Accesses.literal_padding(bound)

    @staticmethod
    def literal_padding(bound) -> str | None:
        node = bound["padding_option"].value if "padding_option" in bound else None
        if node is None or isinstance(node, cst.Name) and node.value == "None":
            return ""  # absent, or `None`, which Triton reads as ""
        padding = string_value(node)
        return padding if padding in ("", "zero", "nan") else None

    def type_query(self, node: cst.Attribute, state: State) -> bool:
        pointer = descriptor.queried_pointer(node)
        value = state.get(pointer.value) if pointer is not None else None
        if not isinstance(value, BlockPtr):
            return False
        self.books.settle(value)
        self.run.expr_edits[id(node)] = (value.creations, ElementType(value.creations, value.stem, value.pointers))
        return True


class _Checks:
    """What the launch allows for one access (planner.LaunchChecks), asked of the Launch part."""

    def __init__(self, accesses: Accesses, call: cst.Call, member: str, value: BlockPtr) -> None:
        self.accesses, self.call, self.member, self.value = accesses, call, member, value

    def beyond_emulation(self) -> bool:
        return self.accesses.beyond_emulation(self.value)

    def unguardable(self) -> str | None:
        return self.accesses.launch.unguardable(self.value)

    def pays_off(self) -> bool:
        return self.accesses.launch.pays_off(self.call, self.member, self.value)

    def width_testable(self) -> bool:
        return self.accesses.launch.width_testable(self.value)

    def compat_guardable(self) -> bool:
        """A tile a launch check may give a descriptor; one that rules any out is always the emulation."""
        return len(self.value.dims) <= COMPAT_EMULATED_RANK and \
            not any(self.accesses.run.creations[c].blockers for c in self.value.creations) and \
            self.accesses.launch.unguardable(self.value, fallback=False) is None
