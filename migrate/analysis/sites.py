"""The block-pointer sites of one function: creations, advances, loads, stores and type queries, each
rewritten as a descriptor access or masked pointers, or refused. A mixin of FunctionAnalysis."""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Optional

import libcst as cst

from triton_migrate.rules import (
    ttd002_advance,
    ttd003_access,
    ttd009_launch_guard,
    ttd103_no_unit_stride,
    ttd105_rank,
    ttd106_int64_offsets,
    ttd107_narrow_block,
    ttd108_unsupported_use,
    ttd109_ambiguous_value,
    ttd111_store_row_width,
    ttd112_runtime_alignment,
)
from triton_migrate.syntax.build import keyword
from triton_migrate.syntax.forms import advance, block_width, compat, descriptor, launch_guard, masked_pointers
from triton_migrate.syntax.nodes import canonical_code, code_of, int_value, tuple_elements
from triton_migrate.syntax.walk import descendants

from . import guards, inlining, invariance, layout, planner
from .calls import (
    UnboundCall,
    advance_arguments,
    advanced_base,
    bind,
    bool_value,
    member_called,
    string_value,
)
from .records import Creation, Loop, Refusal, SiteForm
from .values import OTHER, BlockPtr, Dim, Opaque, Placeholder, State, Value, is_none

HINTS = ("cache_modifier", "eviction_policy", "volatile")  # kept by the masked-pointer form
COMPAT_EMULATED_RANK = 3  # the shim's emulation, a guarded tile's fallback, has ranks 1 to 3
Builder = Callable[..., object]


def _is_arithmetic(node: cst.BaseExpression) -> bool:
    """An integer, or arithmetic on names, integers and calls: a scalar (only a tuple literal makes a tuple of
    arithmetic, `(1,) * 2`)."""
    if isinstance(node, cst.BinaryOperation):
        return all(_is_arithmetic(side) or isinstance(side, (cst.Name, cst.Call, cst.Attribute))
                   for side in (node.left, node.right))
    if isinstance(node, cst.UnaryOperation):
        return _is_arithmetic(node.expression) or isinstance(node.expression, cst.Name)
    return isinstance(node, cst.Integer)


def _elementwise(node: cst.IfExp) -> Optional[list]:
    """`(a, 0) if REVERSE else (b, 0)` as `(a if REVERSE else b, 0)`: tuples of one length, element by element."""
    sides = [tuple_elements(node.body), tuple_elements(node.orelse)]
    if None in sides or len(sides[0]) != len(sides[1]):
        return None
    return [a if canonical_code(a) == canonical_code(b) else
            node.with_changes(body=a, orelse=b, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            for a, b in zip(*sides)]


class Sites:
    # -- creation ------------------------------------------------------------------------------

    def create(self, node, name: Optional[str], call: cst.Call, state: State) -> Value:
        creation = Creation(call, name, loops=sum(isinstance(o, Loop) for o in self.owners),
                            branched="if" in self.owners)
        self.creations[id(call)] = creation
        self.knowledge.met(id(call))
        for argument in call.args:
            self.visit(argument.value, state)
        refusal = self.describe(creation)
        if refusal is None and self.knowledge.rejected is not None:
            refusal = Refusal(ttd108_unsupported_use.CODE, ttd108_unsupported_use.in_rejected(
                self.function.name.value, self.knowledge.rejected), call)
        if refusal is None and creation.blockers and self.policy.target == "descriptor":
            refusal = Refusal(creation.blockers[0].code, creation.blockers[0].message, call)
        if refusal is not None:
            self.refuse(frozenset({id(call)}), refusal)
            return Opaque(frozenset({id(call)}))
        stem = self.namer.stem(name)
        self.mark_descriptor_reuse(stem, name, state)
        creation.hoist_before = self.hoist_target(creation, stem)
        dims = tuple(self.define_dim(id(call), name, d, expr, self.proofs(creation, d, expr), state)
                     for d, expr in enumerate(creation.offsets))
        self.stmt_edits[id(node)] = (frozenset({id(call)}), lambda: self.creation_statements(node, creation))
        args_free = frozenset().union(*map(self.facts.free_names, creation.shape + creation.strides))
        return BlockPtr(frozenset({id(call)}), stem, dims, args_free=args_free,
                        base_free=self.facts.free_names(creation.base), pointers=True)

    def create_conditional(self, node, name: str, value: cst.IfExp, state: State) -> Value:
        """`p = tl.make_block_ptr(...) if FLAG else None` (`conditional_creation`): a creation on one path and
        `None` on the other, joined as `if FLAG:` statements would be. The statements the creation gives keep
        the condition (results.py); masked pointers need none, so the line goes."""
        self.visit(value.test, state)
        call = value.body if isinstance(value.body, cst.Call) else value.orelse
        pointer = self.create(node, name, call, state)
        creation = self.creations[id(call)]
        creation.condition = value
        creation.hoist_before = None  # the condition may not hold before a loop
        return self.join_values(name, pointer, Placeholder(frozenset({id(value)})))

    def is_inline_creation(self, pointer: cst.BaseExpression) -> bool:
        """`tl.load(tl.make_block_ptr(...), ...)`, or `tl.load(_tile(...), ...)` of a helper that returns the
        creation it amounts to (inlining.py), on a line of one statement, where statements can go before."""
        return type(pointer) is cst.Call and self.line is not None and \
            (self.names.member(pointer.func) == "make_block_ptr" or self.inlined_helper(pointer) is not None)

    def inline_creation(self, call: cst.Call, state: State) -> Value:
        """A creation that is the pointer of a load or store migrates as if it were assigned to a fresh name on
        the line before: what it creates (a descriptor) goes there, the access uses it. A helper's call is read
        as its creation, as `p = _tile(...)` is (create_inlined)."""
        name = self.namer.inline(id(call), self.inline_name(call))
        creation = call if self.names.member(call.func) == "make_block_ptr" else self.inlined_helper(call)
        if creation is call:
            value = self.create(call, name, call, state)
        else:
            value = self.create_inlined(call, name, call, creation, state)
        self.creations[id(creation)].inline = True
        if not isinstance(value, BlockPtr):
            return value  # refused: it has no statements
        owners, builder = self.stmt_edits.pop(id(call))
        self.line_edits.setdefault(id(self.line), {})[(name, "creation")] = (id(call), owners, builder)
        return replace(value, pointers=False)  # no name holds them

    def created_in_access(self, pointer: cst.BaseExpression, value: BlockPtr) -> bool:
        """Whether the access's pointer is the creation itself, or a helper's call read as one."""
        return id(pointer) in value.creations or id(self.inlined_calls.get(id(pointer))) in value.creations

    def inline_name(self, call: cst.Call) -> str:
        """`p_x` for `x = tl.load(tl.make_block_ptr(...))`, else after the base: `tl.store(tl.make_block_ptr(y,
        ...), ...)` gives `p_y`."""
        statement = self.line.body[0]
        target = statement.targets[0].target if type(statement) is cst.Assign and len(statement.targets) == 1 \
            else None
        base = call.args[0].value if call.args else None
        return "p_" + next((n.value for n in (target, base) if type(n) is cst.Name), "block")

    def conditional_creation(self, value: cst.BaseExpression) -> bool:
        """`tl.make_block_ptr(...) if FLAG else None`, or `None if FLAG else tl.make_block_ptr(...)`. The
        condition is a compile-time value: Triton cannot select between a block pointer and `None` at run time."""
        if not isinstance(value, cst.IfExp):
            return False
        sides = [value.body, value.orelse]
        calls = [s for s in sides if isinstance(s, cst.Call) and self.names.member(s.func) == "make_block_ptr"]
        return len(calls) == 1 and any(isinstance(s, cst.Name) and s.value == "None" for s in sides)

    def describe(self, creation: Creation) -> Optional[Refusal]:
        """Fill in the creation's shape, strides, ...; or say why it has no descriptor."""
        call = creation.call
        try:
            bound = bind(call, "make_block_ptr", complete=not self.is_parameter_pointer(creation))
        except UnboundCall as error:
            return self.reject(str(error), call)
        if creation.target is None:
            return Refusal(ttd108_unsupported_use.CODE, "block pointer created outside a plain "
                           "`name = tl.make_block_ptr(...)` (or `... if FLAG else None`) assignment or the "
                           "pointer of a load or store on a line of its own", call)
        parts = {key: self.tuple_part(bound[key].value) if key in bound else None
                 for key in ("shape", "strides", "offsets", "block_shape", "order")}
        ranks = {len(v) for k, v in parts.items() if v is not None}
        if ranks == {1}:  # a name where a 1-tuple is meant (`shape=N, block_shape=BN`): Triton reads one element
            parts = {key: [bound[key].value] if v is None and isinstance(bound[key].value, cst.Name) else v
                     for key, v in parts.items()}
        if any(parts[k] is None for k in ("shape", "strides", "offsets", "block_shape")) or len(ranks) != 1 \
                or "base" not in bound:
            return Refusal(ttd105_rank.CODE, "shape, strides, offsets and block_shape must be tuples of one "
                           "length, spelt out, in a name assigned once, or returned by a helper that only "
                           "returns one", call)
        rejected = self.rejected_creation(parts)
        if rejected is not None:
            return self.reject(rejected, call)
        creation.spelt = {key: parts[key] for key in parts if key in bound and parts[key] is not None
                          and tuple_elements(bound[key].value) is None}
        creation.base = self.facts.movable(bound["base"].value)
        creation.shape, creation.strides = parts["shape"], parts["strides"]
        creation.offsets, creation.block = parts["offsets"], parts["block_shape"]
        order = [int_value(o) for o in parts["order"]] if parts["order"] is not None else None
        creation.order = None if order is None or None in order else order
        creation.stated = self.stated_facts(creation)
        if id(call) in self.knowledge.captured:
            self.capture_parts(creation)
        of_view = not self.is_parameter_pointer(creation) and "contiguous" in self.facts.inline.at(call)
        creation.unit, creation.blockers, creation.stated_unit = planner.creation_obstacles(
            creation.shape, creation.strides, creation.offsets, creation.block,
            None if order is None or None in order else order, self.facts, self.policy, frozenset(self.unit_strides),
            "contiguous" in creation.stated, of_view, of_view or not self.views_disagree(creation))
        return None

    def views_disagree(self, creation: Creation) -> bool:
        """Whether the function's block pointers over this creation's tensor put different strides last: at most
        one of them is then a plain view, and `contiguous` stated of the tensor cannot say which (a transposed
        view whose `order` agrees with its own positions is no different from a plain one)."""
        argument = guards.root_argument(creation.base, self.facts, self.arguments)
        if argument is None:
            return False
        lasts = set()
        for other in self.block_pointer_calls():
            try:
                bound = bind(other, "make_block_ptr", complete=False)
            except UnboundCall:
                continue
            if "base" not in bound or "strides" not in bound or argument != guards.root_argument(
                    self.facts.movable(bound["base"].value), self.facts, self.arguments):
                continue
            strides = self.tuple_part(bound["strides"].value)
            lasts.add(code_of(strides[-1]) if strides else None)
        return len(lasts) > 1

    def block_pointer_calls(self) -> list[cst.Call]:
        """The function's `make_block_ptr` calls, found once: every creation asks (a walk per creation made
        large kernels quadratic)."""
        if self._block_pointer_calls is None:
            self._block_pointer_calls = [call for call in descendants(self.function, cst.Call)
                                         if self.names.member(call.func) == "make_block_ptr"]
        return self._block_pointer_calls

    def reject(self, what: str, call: cst.Call) -> Refusal:
        """A call Triton rejects (`what` is wrong with it): the function never compiled, so it stays as it is,
        whole (the next run refuses its every block pointer, naming this call)."""
        if self.knowledge.rejected is None:
            self.knowledge.rejected = what
            self.dirty = True
        return Refusal(ttd108_unsupported_use.CODE, ttd108_unsupported_use.rejected(what), call)

    @staticmethod
    def rejected_creation(parts: dict) -> Optional[str]:
        """Why Triton rejects a `make_block_ptr` whose tuples have one length (as literals say it), or None: no
        dimension, an `order` that is not a permutation of the dimensions, a block size that is not a positive
        power of two."""
        rank = len(parts["block_shape"])
        if rank == 0:
            return "`make_block_ptr` describes no dimension"
        order = [int_value(o) for o in parts["order"] or ()]
        if order and None not in order and sorted(order) != list(range(rank)):
            return f"`order` {tuple(order)} is not a permutation of the {rank} dimensions"
        for size in map(int_value, parts["block_shape"]):
            if size is not None and (size <= 0 or size & (size - 1)):
                return f"the block size {size} is not a positive power of two"
        return None

    def stated_facts(self, creation: Creation) -> dict[str, str]:
        """What the user stated of the tensor a block pointer's base starts from (fact -> where; TTD010): on
        its creation's line, its parameter's line, the kernel's `def` line, or in the configuration. Only a
        launched kernel has a launch to hook (the allocator, the debug check), or a helper whose `allocator`
        is stated, which needs no hook; `--strict` states nothing."""
        if self.policy.strict or self.policy.target not in ("auto", "descriptor") or \
                not (self.launched() or self.states_allocator()):
            return {}
        parameter = self.is_parameter_pointer(creation)  # re-created from its parts: its line is the parameter's
        argument = creation.target if parameter else guards.root_argument(creation.base, self.facts, self.arguments)
        if argument is None:
            return {}
        inline = self.facts.inline
        found = {}
        for stated in ({} if parameter else inline.at(creation.call), inline.arguments.get(argument, {}),
                       inline.kernel, self.policy.stated(self.function.name.value, argument)):
            found = {**stated, **found}
        return found

    def is_parameter_pointer(self, creation: Creation) -> bool:
        """Whether the creation is a block-pointer parameter's, re-created from its parts (crossing.py)."""
        return self.parameter_calls.get(creation.target) is creation.call

    def launched(self) -> bool:
        """Whether the host launches this function (it has a launch to check or hook)."""
        return self.facts.launched and not (self.context is not None and self.context.is_called())

    def tuple_part(self, node: cst.BaseExpression) -> Optional[list]:
        """The elements of a creation's shape, strides, offsets, block shape or order: a literal tuple, a name
        assigned one once (`shape = (M, N)`), what a helper that only returns a tuple returns, or one scalar
        (Triton reads `offsets=(i_k * BK)`, no tuple, as one offset)."""
        elements = tuple_elements(node)
        if elements is None and isinstance(node, cst.Name):
            elements = self.assigned_tuple(node.value)
        if elements is None and isinstance(node, cst.Call) and self.names.member(node.func) is None:
            self.needs_program()
            elements = self.returned_tuple(node)
        if elements is None and isinstance(node, cst.IfExp):
            elements = _elementwise(node)
        if elements is None and _is_arithmetic(node):
            elements = [node]
        return None if elements is None else [self.facts.movable(e) for e in elements]

    def assigned_tuple(self, name: str) -> Optional[list]:
        """The elements of the one tuple `name` is assigned, if each name they read holds one value all along
        (a parameter never assigned, or a name assigned once): they mean at the creation what they meant there."""
        assignments = self.facts.assignments
        values = assignments.get(name, [])
        elements = tuple_elements(values[0]) if len(values) == 1 and name not in self.facts.params else None
        if elements is None:
            return None
        read = set().union(*(self.facts.free_names(e) for e in elements))
        steady = all(len(assignments.get(n, [])) == (0 if n in self.facts.params else 1) for n in read)
        return elements if steady else None

    def returned_tuple(self, call: cst.Call) -> Optional[list]:
        """`helper(M, N)` where the helper only returns a tuple of its parameters: that tuple, for the call's
        arguments (inlining.py)."""
        key = self.context.resolve(call.func)
        bound = self.context.bind(key, call) if key is not None else None
        return inlining.returned_tuple(self.context.program.helpers[key].node, bound) if bound is not None else None

    def capture_parts(self, creation: Creation) -> None:
        """A base, shape or stride that reads a name assigned again before an access (`DQ += ...` after
        `make_block_ptr(base=DQ, ...)`, a loop variable `k` shadowing the `k` of the shape) is read at the access
        by masked pointers: it is captured in a variable at the creation (`dq_tile_base = DQ`), as the block
        pointer captured its value there."""
        stale = self.knowledge.stale_names.get(id(creation.call), set())
        creation.captured = True

        def captured(kind: str, d: int, expr: cst.BaseExpression) -> cst.BaseExpression:
            if not self.facts.free_names(expr) & stale:
                return expr
            self.knowledge.merged.setdefault(id(creation.call), {})[(kind, d)] = expr
            return cst.Name(self.namer.part(creation.target, kind, d))

        # The pointers a name holds read the base only where they are created; an access that rebuilds them
        # from the parts reads it there (the shape a mask reads, a stride an advance moves them by: always).
        if id(creation.call) in self.knowledge.rebuilt:
            creation.base = captured("base", 0, creation.base)
        creation.shape = [captured("shape", d, e) for d, e in enumerate(creation.shape)]
        creation.strides = [captured("stride", d, e) for d, e in enumerate(creation.strides)]

    def proofs(self, creation: Creation, dim: int, expr: cst.BaseExpression) -> dict[str, bool]:
        """What is proven about an offset (or a delta) in dimension `dim`: the TMA constraints."""
        return {"aligned": dim != creation.unit or creation.unit is None or
                self.facts.is_aligned(expr, creation.block[dim]),
                "nonnegative": self.facts.is_nonnegative(expr)}

    def define_dim(self, definition: int, name: str, dim: int, expr, proofs: dict, state: State) -> Dim:
        """The offset `name` has in `dim` after `definition`; a variable if it must be materialized."""
        if (definition, dim) in self.knowledge.materialize:
            var = self.namer.offset(name, dim)
            self.invalidate(var, state)
            return Dim(cst.Name(var), var, frozenset({var}), frozenset({definition}), **proofs)
        facts = self.facts
        return Dim(expr, facts.canonical_code(expr), facts.free_names(expr), frozenset({definition}), **proofs)

    def mark_descriptor_reuse(self, stem: str, name: str, state: State) -> None:
        for other, value in state.items():
            if isinstance(value, BlockPtr) and value.stem == stem and other != name:
                state[other] = replace(value, desc_stale=True)

    def hoist_target(self, creation: Creation, stem: str) -> Optional[cst.CSTNode]:
        arguments = [creation.call.args[0].value] + creation.shape + creation.strides + creation.block
        target = None
        for owner in reversed(self.owners):
            if not isinstance(owner, Loop) or not invariance.is_invariant(arguments, owner.assigned,
                                                                          self.names.member):
                break
            if any(isinstance(v, BlockPtr) and v.stem == stem and v.creations != {id(creation.call)}
                   for v in owner.head.values()):
                break
            target = owner.node
        return target

    # -- advance -------------------------------------------------------------------------------

    def advance(self, node, name: str, call: cst.Call, state: State) -> Value:
        resolved = self.advanced_pointer(call, state)
        if resolved is None and any(use.node is call for use in self.dead_uses):  # the whole line asserts
            _, error = self.expr_edits.pop(id(call))
            self.stmt_edits[id(node)] = (frozenset(), lambda: [cst.Expr(error(call))])
        if resolved is None:
            return self.untracked_advance(call, state)
        source, deltas = resolved
        return self.moved(node, name, advanced_base(call, self.names).value, source, deltas, state)

    def copy(self, node, name: str, source: BlockPtr, state: State) -> Value:
        """`k_next = k_ptr`: the same block pointer under another name, whose offsets then move on their own. A
        copy is an advance by nothing: the new name's offsets are the source's, in variables of its own where
        it is moved or the source is."""
        return self.moved(node, name, node.value.value, self.settle(source), [cst.Integer("0")] * len(source.dims),
                          state)

    def moved(self, node, name: str, base_name: str, source: BlockPtr, deltas, state: State) -> Value:
        """`name = tl.advance(base_name, deltas)`, or `name = base_name` (a copy: deltas of 0)."""
        dims, statements = [], []
        for d, (dim, delta) in enumerate(zip(source.dims, deltas)):
            new, statement = self.advance_dim(id(node), name, base_name, d, dim, delta, source, state)
            dims.append(new)
            statements.extend(statement)
        self.note_moving(source, deltas)
        moved = self.moved_pointers(name, base_name, source)
        self.stmt_edits[id(node)] = (source.creations, lambda: statements + moved())
        return replace(source, dims=tuple(dims))

    def note_moving(self, value: BlockPtr, deltas) -> None:
        """The dimensions this block pointer moves in: its pointers leave their offsets out (`shifted`). What an
        earlier access of this run decided without knowing it (`masks_at_creation`) is decided again."""
        moving = {d for d, delta in enumerate(deltas) if int_value(delta) != 0}
        for creation in value.creations if moving else ():
            known = self.knowledge.moving.setdefault(creation, set())
            self.dirty = self.dirty or not moving <= known
            known.update(moving)

    def moved_pointers(self, name: str, base_name: str, source: BlockPtr) -> Callable[[], list]:
        """`q = p` for `q = tl.advance(p, ...)` (or a copy) where some access reads the pointers `q` holds:
        they leave the offsets it moves in out, so an advance leaves them as they are (`shifted`)."""
        if not source.pointers or name == base_name:
            return list
        return lambda: [advance.assign(name, cst.Name(base_name))] if self.reads_pointers(source.creations) \
            else []

    def untracked_advance(self, call: cst.Call, state: State) -> Value:
        """Advancing a block pointer we do not rewrite keeps it untouched (and reported once)."""
        base = advanced_base(call, self.names)
        known = state.get(base.value) if isinstance(base, cst.Name) else None
        return known if isinstance(known, Opaque) else OTHER

    def advance_dim(self, definition, name, base_name, d, dim: Dim, delta, source: BlockPtr, state):
        """The offset in dimension `d` after `name = tl.advance(base_name, ...)`, and the statements for it."""
        step = self.proofs(self.creation_of(source), d, delta)
        proofs = {"aligned": dim.aligned and step["aligned"], "nonnegative": dim.nonnegative and step["nonnegative"]}
        if name == base_name and int_value(delta) == 0:
            return dim, []
        self.use_dim(dim, d)
        if name == base_name:
            var = self.namer.offset(name, d)
            if dim.code != var:
                self.mark(dim.defs, d)
            self.invalidate(var, state)
            new = Dim(cst.Name(var), var, frozenset({var}), frozenset({definition}), **proofs)
            return new, [advance.increment(var, delta)]
        expr = advance.plus(dim.expr, delta) if dim.expr is not None else delta
        new = self.define_dim(definition, name, d, expr, proofs, state)
        return new, ([advance.assign(new.code, expr)] if new.code != canonical_code(expr) else [])

    def advanced_pointer(self, call: cst.Call, state: State):
        """(block pointer, deltas) for `tl.advance(p, deltas)`, or None (reported) if it is not one we track."""
        try:
            bound = advance_arguments(call, self.names)
        except UnboundCall:
            self.visit_children(call, state)
            return None
        base, offsets = bound["base"].value, bound.get("offsets")
        value = state.get(base.value) if isinstance(base, cst.Name) else None
        if offsets is not None:
            self.visit(offsets.value, state)
        if not isinstance(value, BlockPtr):
            if isinstance(value, Opaque):
                self.refuse_ambiguous(value, base)
            elif (why := self.none_pointer(base, state)) is not None:
                self.never_compiles(call, ttd002_advance.CODE, f"`tl.advance` where {why}", f"{why}: no block pointer")
            elif isinstance(base, cst.Name):
                self.orphan(call, f"`tl.advance` on {self.untracked_origin(base)}", base)
            else:
                self.visit(base, state)
                if not self.is_site_call(base):  # a creation or an advance there is reported where it is
                    self.orphan(call, f"`tl.advance` on {self.untracked_origin(base)}")
            return None
        value = self.settle(value)
        deltas = self.facts.movable_elements(offsets.value) if offsets is not None else None
        if deltas is not None and len(deltas) != len(value.dims):
            self.refuse(value.creations, self.reject(f"`tl.advance` moves {len(deltas)} dimensions of a "
                                                     f"rank-{len(value.dims)} block pointer", call))
            return None
        if deltas is None:
            self.refuse(value.creations, Refusal(ttd108_unsupported_use.CODE, "`tl.advance` deltas must be a "
                                                 "literal tuple with one entry per dimension", call))
            return None
        if any(self.facts.mentions_int64(delta) for delta in deltas):
            blocker = planner.Obstacle(ttd106_int64_offsets.CODE, "advanced by an int64 delta; descriptor offsets "
                                       "are int32")
            for creation in value.creations:
                self.creations_by_id(creation).blockers.append(blocker)
            if self.policy.target == "descriptor":
                self.refuse(value.creations, Refusal(blocker.code, blocker.message, call))
                return None
        return value, deltas

    # -- loads, stores, type queries -------------------------------------------------------------

    def access(self, call: cst.Call, member: str, state: State) -> None:
        try:
            bound = self.specialised(bind(call, member))
        except UnboundCall as error:
            self.unbound_access(call, str(error), state)
            return
        if "value" in bound:
            self.visit(bound["value"].value, state)
        pointer = bound["pointer"].value
        if self.is_inline_creation(pointer):
            value = self.inline_creation(pointer, state)
            resolved = (value, None) if isinstance(value, BlockPtr) else None
            if resolved is None:
                return  # refused where it was created
        else:
            resolved = self.pointer(pointer, state)
        if resolved is None:
            self.untracked_access(call, member, bound, state)
            return
        value, deltas = resolved
        impossible = self.impossible_check(bound, len(value.dims))
        if impossible is not None:  # never compiles (an untaken constexpr branch): it still does not
            self.never_compiles(call, ttd003_access.CODE, f"`tl.{member}` where {impossible}", impossible,
                                value.creations)
            return
        refusal = self.unsupported_access(call, member, bound, value)
        if refusal is None:
            obstacles = self.obstacles(call, member, bound, value, deltas)
            if self.user_mask(bound):
                obstacles.append(planner.Obstacle(ttd108_unsupported_use.CODE, "an access with `mask=` keeps it on "
                                                  "masked pointers"))
            form = planner.choose(obstacles, self.policy, member)
            if form == "compat" and self.beyond_emulation(value):
                form = "pointer"
            if form is None:
                first = planner.deciding(obstacles, self.policy)
                refusal = Refusal(first.code, first.message, call)
            unguardable = self.unguardable(value) if form == "guarded" else None
            if unguardable is not None:
                form = "pointer"
                obstacles.append(planner.Obstacle(ttd112_runtime_alignment.CODE, "a descriptor would need a launch "
                                                  f"check, and none can be written: {unguardable}"))
            elif form == "guarded" and not self.pays_off(call, member, value):
                form = "pointer"
                obstacles.append(planner.Obstacle(ttd009_launch_guard.CODE, ttd009_launch_guard.PAYS_OFF))
            elif form == "descriptor" and not self.width_testable(value):  # `--target descriptor`: no fallback
                form = "pointer"
                obstacles.append(planner.Obstacle(ttd107_narrow_block.CODE, ttd107_narrow_block.UNTESTED))
                if self.policy.target == "descriptor":
                    refusal = Refusal(ttd107_narrow_block.CODE, ttd107_narrow_block.UNTESTED, call)
        if refusal is not None:
            self.refuse(value.creations, refusal)
            return
        # the shim's descriptors only where the launch allows
        if self.user_mask(bound):
            self.rejected_mask(call, member, self.user_mask(bound), value)
        guarded = form == "guarded" or (form == "compat" and len(value.dims) <= COMPAT_EMULATED_RANK and
                                        self.unguardable(value, fallback=False) is None)
        self.record_form(value, form, obstacles, id(call), guarded)
        if form == "pointer" and self.masks_at_creation(call, bound, value, deltas):
            self.expr_edits[id(call)] = (value.creations, self.creation_mask_builder(call, member, bound, value))
            return
        offsets = self.offsets(value, deltas)
        if offsets is not None and form == "compat":
            self.handle_access(call, member, bound, value, offsets, self.compat_builder(member, value, offsets,
                                                                                       bound))
        elif offsets is not None and form == "descriptor" and self.width_tests(value.creations):
            self.guarded_access(call, member, bound, value, offsets, deltas, self.width_flag)
        elif offsets is not None and form == "descriptor":
            self.descriptor_access(call, member, bound, value, offsets)
        elif offsets is not None and form == "guarded":
            self.guarded_access(call, member, bound, value, offsets, deltas)
        elif offsets is not None:
            self.pointer_access(call, member, bound, value, offsets, deltas)

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
            constant = self.facts.constant(node.value) if isinstance(node, cst.Name) and node.value != "None" \
                else None
            if constant is not None:
                bound = {**bound, key: bound[key].with_changes(value=constant)}
                continue
            if not (isinstance(node, cst.Name) and node.value in self.facts.params and self.context is not None
                    and not self.facts.assignments.get(node.value)):
                continue
            values = self.context.literals(node.value)
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
        what = f"`tl.{member}` with `{given[0]}=` on a block pointer"
        self.dead_uses.append(Refusal(ttd108_unsupported_use.CODE, f"{what} (every Triton version): Triton rejects "
                                      "it at compile time wherever it is reached, and so does the `tl.static_assert` "
                                      "put before it (the access migrates, its mask kept)", call))
        statement = cst.Expr(descriptor.compile_error(self.language, f"{what}: Triton rejects it"))
        self.line_edits.setdefault(id(self.line), {})[("rejected mask", id(call))] = \
            (id(call), value.creations, lambda: [statement])

    def pays_off(self, call: cst.Call, member: str, value: BlockPtr) -> bool:
        """Whether a descriptor is worth it here (TTD009): a load in a loop, through a block pointer created
        before the loop, whose tile feeds `tl.dot` (the pipelined GEMM and attention loops, where TMA wins
        1.05-3x on the H100). Elsewhere (row norms, element-wise tiles, block pointers re-created in each
        iteration) masked pointers measured as fast or faster, and keep reductions bit-identical."""
        loops = [o for o in self.owners if isinstance(o, Loop)]
        if member != "load" or not loops or self.created_in_this_loop(value):
            return False
        return self.facts.feeds_dot(call, self.line, loops[-1].node)

    def created_in_this_loop(self, value: BlockPtr) -> bool:
        """Whether a block pointer (some creation of it) is created inside the innermost loop around the
        access being analysed: re-created in each iteration, rather than moved from one to the next."""
        loops = sum(isinstance(o, Loop) for o in self.owners)
        return loops > 0 and any(self.creations_by_id(c).loops >= loops for c in value.creations)


    def unguardable(self, value: BlockPtr, fallback: bool = True) -> Optional[str]:
        """Why a descriptor for this block pointer cannot be chosen at launch (TTD009), or None. `fallback`:
        the other form is this tool's masked pointers (a compat tile falls back to the shim's emulation)."""
        if not self.launched():
            return self.not_launched()
        problem = self.pointer_problem(value) if fallback else None
        if problem is not None:
            return problem
        checks = [self.launch_check(self.creations_by_id(c)) for c in self.knowledge.in_order(value.creations)]
        return next((check for check in checks if isinstance(check, str)), None)

    def not_launched(self) -> str:
        """Why the analysis takes this function for one the host does not launch, as far as it knows."""
        called = self.context is not None and self.context.is_called()
        if self.facts.named_by is None or called:
            return "this function is not launched from the host (it is called by other `@triton.jit` functions)"
        return (f"{self.facts.named_by} has this function's name, so it is taken for a helper of other "
                f"`@triton.jit` functions, with no launch of its own to check")

    def launch_check(self, creation: Creation):
        if creation.check is None and creation.unit is not None:
            # A compat tile may be stored through as a descriptor: the check covers the row end too (TTD111).
            unproven_row = self.policy.target == "compat" and not planner.row_width_proven(
                creation.shape, creation.block, creation.unit)
            creation.check = guards.launch_check(creation.base, creation.strides, creation.block, creation.unit,
                                                 self.facts, self.arguments,
                                                 creation.shape[creation.unit] if unproven_row else None)
        return creation.check or "no dimension has a unit stride"

    def unsupported_access(self, call, member, bound, value: BlockPtr) -> Optional[Refusal]:
        """Accesses neither form can express: the block pointer stays untouched."""
        if value.desc_stale:
            return Refusal(ttd109_ambiguous_value.CODE, "its descriptor name is re-created while this block "
                           "pointer is still in use", call)
        if self.user_mask(bound) and self.line is None:
            return Refusal(ttd108_unsupported_use.CODE, f"`tl.{member}` with `{self.user_mask(bound)[0]}=` on a block "
                           "pointer, which Triton rejects at compile time (every version), on a line of several "
                           "statements (a `tl.static_assert` that keeps it so would go before it)", call)
        option = string_value(bound["padding_option"].value) if "padding_option" in bound else None
        if option is not None and self.literal_padding(bound) is None:
            return self.reject(f"`padding_option` {option!r} is none of \"zero\", \"nan\"", call)
        if self.checked_dims(bound, len(value.dims)) is None:
            return Refusal(ttd108_unsupported_use.CODE, self.unread_check(bound["boundary_check"].value), call)
        if self.padding(bound) is None:
            return Refusal(ttd108_unsupported_use.CODE, "`padding_option` must be a literal or a name", call)
        return None

    def unread_check(self, check: cst.BaseExpression) -> str:
        """Why a `boundary_check` cannot be read, and what would make it readable."""
        spelt = self.facts.canonical_code(check)
        if isinstance(check, cst.Name) and check.value in self.facts.params:
            return f"`boundary_check` is the parameter `{spelt}`, which each launch (or call) chooses: no one " \
                   "access is exact for every value it may take, and Triton has no compile-time test of which " \
                   "dimensions a tuple holds (no `in`); give it as a literal, or one literal per constexpr flag " \
                   "(`boundary_check=(0, 1) if CHECK_ROWS else (1,)`)"
        return f"`boundary_check` is `{spelt}`, whose dimensions the source does not show (a literal, a name " \
               "assigned one literal, a constexpr flag's choice between literals, or dimensions below the rank)"

    def obstacles(self, call: cst.Call, member: str, bound, value: BlockPtr, deltas) -> list:
        creations = [self.creations_by_id(c) for c in self.knowledge.in_order(value.creations)]
        creation = creations[0]
        unchecked = set(range(len(value.dims))) - self.checked_dims(bound, len(value.dims))
        in_bounds = [d not in unchecked or all(planner.dimension_in_bounds(
            c.shape[d], c.block[d], self.static_offset(value, deltas, d)) for c in creations)
            for d in range(len(value.dims))]
        volatile = "volatile" in bound and bool_value(bound["volatile"].value) is not False
        requirements = [r for c in creations if c.unit is not None for r in planner.alignment_requirements(
            c.base, c.strides, c.block, c.unit, self.facts)]
        row_width = all(planner.row_width_proven(c.shape, c.block, c.unit) for c in creations)
        found = [o for c in creations for o in c.blockers] + planner.merge_obstacles(creations)
        found += planner.access_obstacles(member, self.proven_offsets(value, deltas), in_bounds, creation.unit,
                                          volatile, self.padding(bound), row_width, requirements, self.policy)
        if member == "load" and any(c.permutation != sorted(c.permutation) for c in creations) and \
                id(call) in self.layout_sensitive():
            found.append(planner.Obstacle(ttd103_no_unit_stride.CODE, ttd103_no_unit_stride.LAYOUT))
        return [self.covered(obstacle, creations) for obstacle in found]

    def beyond_emulation(self, value: BlockPtr) -> bool:
        """Whether the compat shim would have to emulate a tile of a rank it cannot (above 3): no descriptor is
        legal for it (no unit last stride, a transposed view, ...). Masked pointers are exact on every Triton
        version the shim serves."""
        return len(value.dims) > COMPAT_EMULATED_RANK and any(
            c.blockers or c.permutation != sorted(c.permutation) for c in map(self.creations_by_id, value.creations))

    def layout_sensitive(self) -> set[int]:
        """The loads of this function whose tile reaches a use that depends on its layout (layout.py)."""
        if self.sensitive is None:
            self.sensitive = layout.sensitive_loads(self.function, self.names.member)
        return self.sensitive

    def covered(self, obstacle: planner.Obstacle, creations: list[Creation]) -> planner.Obstacle:
        """The obstacle, `stated` where the user's facts cover it for every creation merged here (TTD010), in a
        form `migrate verify` can check at a launch: data alignment and every term of the
        base with a witness (`aligned`), the row width computed from the arguments (`aligned-rows`); the
        tiles' bounds (`in-bounds`), which depend on program ids, for a descriptor whose other facts can be."""
        fact = planner.COVERING_FACT.get(obstacle.code)
        if fact is None or not all(fact in c.stated for c in creations):
            return obstacle
        if not all(isinstance(self.stated_check(c), guards.Check) for c in creations):
            return obstacle
        if fact == "aligned-rows" and not self.states_allocator() and \
                any(self.arguments.host(c.shape[c.unit]) is None for c in creations):
            return obstacle
        return replace(obstacle, stated=creations[0].stated[fact])

    def stated_check(self, creation: Creation):
        """What a descriptor on stated facts relies on for its tensor (TTD010): what `migrate verify` can check
        at its launch, or, where the kernel's `allocator` is stated too, also what no launch could (a base
        term without a witness, `qvk_offset` assigned on two paths), which the user's `aligned` covers all the
        same. Why there is nothing to rely on otherwise."""
        check = self.launch_check(creation)
        if isinstance(check, guards.Check) or creation.unit is None or not self.states_allocator():
            return check
        if not self.is_parameter_pointer(creation):
            return guards.launch_check(creation.base, creation.strides, creation.block, creation.unit, self.facts,
                                       self.arguments, unchecked=True)
        # a parameter's parts are the helper's arguments: the parameter's facts are theirs
        parts = self.arguments.with_names(self.facts.free_names(creation.call))
        found = guards.launch_check(creation.base, creation.strides, creation.block, creation.unit, self.facts, parts,
                                    unchecked=True)
        return replace(found, tensor=creation.target) if isinstance(found, guards.Check) else found

    def width_testable(self, value: BlockPtr) -> bool:
        """Whether a plain descriptor for this block pointer either needs no test of its block widths, or has
        one, and masked pointers to fall back on where it fails (TTD107)."""
        tests = self.width_tests(value.creations)
        return tests is not None and (not tests or self.pointer_problem(value) is None)

    def width_tests(self, creations) -> Optional[list[cst.Comparison]]:
        """The compile-time tests that descriptors for these block pointers hold the 16 bytes a block row needs,
        one per innermost block width the source leaves to the launch (TTD107: `BK * x_ptr.dtype.element_ty
        .primitive_bitwidth >= 128`; a literal width needs none); None where one cannot be written at the top
        of the function, from its parameters."""
        tests = []
        for creation in map(self.creations_by_id, self.knowledge.in_order({m for c in creations
                                                                            for m in self.class_of(c)})):
            width = creation.block[creation.unit] if creation.unit is not None else None
            if width is None or int_value(width) is not None:
                continue
            arguments = self.arguments.with_names(self.facts.free_names(creation.call)) \
                if self.is_parameter_pointer(creation) else self.arguments
            root = guards.root_argument(creation.base, self.facts, arguments)
            reassigned = any(name in self.facts.assignments for name in self.facts.free_names(width))
            if root is None or arguments.host(width) is None or reassigned:
                return None
            tests.append(block_width.fits(width, cst.Name(root), self.may_be_none(creation, root)))
        return tests

    def may_be_none(self, creation: Creation, root: str) -> bool:
        """Whether the pointer argument a creation starts from may be None at the function's top: the creation
        is under a condition (`if HAS_BIAS:`, `... if x is not None else None`), the argument has a default, or
        a helper's callers pass None for the block pointer."""
        nullable = isinstance(creation.anchor, cst.Param) and self.context.entry[creation.target].nullable
        return creation.branched or creation.condition is not None or nullable or \
            self.arguments.defaults.get(root) is not None

    @staticmethod
    def static_offset(value: BlockPtr, deltas, d: int):
        """The offset expression in `d` if it is the same as before an inline advance, else None."""
        return value.dims[d].expr if deltas is None or int_value(deltas[d]) == 0 else None

    def proven_offsets(self, value: BlockPtr, deltas) -> list[dict]:
        creation = self.creation_of(value)
        proven = []
        for d, dim in enumerate(value.dims):
            step = self.proofs(creation, d, deltas[d]) if deltas is not None else {"aligned": True,
                                                                                   "nonnegative": True}
            proven.append({"aligned": dim.aligned and step["aligned"],
                           "nonnegative": dim.nonnegative and step["nonnegative"]})
        return proven

    def record_form(self, value: BlockPtr, form: str, obstacles: list, site: object = None,
                    guarded: bool = False) -> None:
        """Remember what the access `site` (by default: these block pointers' helper calls) became, and why
        masked pointers (the obstacles that decided it) or what a plain descriptor relies on (the facts
        stated that cover its soft obstacles; a guarded one has them checked at launch)."""
        reasons, relied = {}, {}
        beyond_launch = planner.relies_beyond_launch(obstacles)
        for obstacle in obstacles:
            emulated = form in ("pointer", "compat") and obstacle.blocks(self.policy)
            if emulated or (form == "pointer" and obstacle.code == ttd111_store_row_width.CODE):
                reasons[obstacle.code] = obstacle.message
            elif form == "pointer" and beyond_launch and not obstacle.stated:  # what else it would rely on
                reasons[obstacle.code] = planner.unstated(obstacle).message
            elif form == "descriptor" and obstacle.stated:
                relied[planner.COVERING_FACT[obstacle.code]] = obstacle.stated
        creations = [self.creations_by_id(c) for c in value.creations]
        if form == "descriptor" and any(c.stated_unit for c in creations):
            relied["contiguous"] = next(c.stated["contiguous"] for c in creations if c.stated_unit)
        key = site if site is not None else (form, value.creations)
        self.knowledge.sites[key] = SiteForm(frozenset(value.creations), "descriptor" if form == "guarded" else form,
                                             guarded, reasons, relied)

    def descriptor_access(self, call, member, bound, value: BlockPtr, offsets) -> None:
        stored = bound["value"].value if "value" in bound else None
        self.handle_access(call, member, bound, value, offsets,
                           self.access_builder(member, value, offsets, self.handle_padding(bound), stored))

    def handle_access(self, call, member, bound, value: BlockPtr, offsets, builder: Builder) -> None:
        """An access through a handle (descriptor or compat tile): one handle per padding."""
        for creation in value.creations:
            padding = self.handle_padding(bound) if member == "load" else "zero"
            self.knowledge.paddings.setdefault(creation, set()).add(padding)
            if any(h in bound for h in ("cache_modifier", "eviction_policy")):
                self.creations_by_id(creation).hints_dropped = True
        self.expr_edits[id(call)] = (value.creations, builder)

    def full_block(self, creation: Creation) -> Callable:
        """`tl.full(block, scalar, <base>.dtype.element_ty)`, for a literal scalar stored through a tile."""
        def full(scalar: cst.BaseExpression) -> cst.Call:
            return cst.Call(cst.Attribute(self.language, cst.Name("full")),
                            [cst.Arg(cst.List([cst.Element(b) for b in creation.block])), cst.Arg(scalar),
                             cst.Arg(masked_pointers.element_type(creation.base))])
        return full

    def handle_padding(self, bound) -> str:
        return "nan" if self.literal_padding(bound) == "nan" else "zero"  # "" (unspecified) reads as zero

    def compat_builder(self, member: str, value: BlockPtr, offsets, bound) -> Builder:
        checked = bound["boundary_check"].value if "boundary_check" in bound else cst.Tuple([])
        padding = self.handle_padding(bound)

        def build(updated: cst.Call):
            tile = self.descriptor_name(value, padding)
            if member == "load":
                return compat.load(self.shim, tile, offsets, checked)
            return compat.store(self.shim, tile, offsets, bind(updated, "store")["value"].value, checked,
                                self.full_block(self.creation_of(value)))

        return build

    def access_builder(self, member: str, value: BlockPtr, offsets, padding: str, stored) -> Builder:
        creation = self.creation_of(value)
        is_tile = stored is not None and self.facts.is_tile(stored)

        def build(updated: cst.Call):
            desc = self.descriptor_name(value, padding)
            if member == "load":
                return descriptor.load(self.language, desc, offsets, creation.permutation)
            return descriptor.store(self.language, desc, offsets, creation.permutation,
                                    bind(updated, "store")["value"].value, creation.block, is_tile)

        return build

    def guarded_access(self, call, member, bound, value: BlockPtr, offsets, deltas,
                       flag: Optional[Callable[[], str]] = None) -> None:
        """Both forms, the descriptor's taken when the launch check passes (TTD009), or where `flag` names
        the compile-time test of its block widths (TTD107)."""
        self.descriptor_access(call, member, bound, value, offsets)
        descriptor = self.expr_edits[id(call)][1]
        pointers = self.pointer_builder(call, member, bound, value, offsets, deltas)
        self.expr_edits[id(call)] = (value.creations, lambda updated: launch_guard.guarded(
            flag() if flag else self.guard_flag, descriptor(updated), pointers(updated)))

    def pointer_access(self, call, member, bound, value: BlockPtr, offsets, deltas) -> None:
        problem = self.pointer_problem(value, self.holds_pointers(bound, value, deltas))
        if problem is not None:
            self.refuse(value.creations, Refusal(ttd108_unsupported_use.CODE, problem, call))
            return
        self.expr_edits[id(call)] = (value.creations, self.pointer_builder(call, member, bound, value, offsets,
                                                                           deltas))

    def holds_pointers(self, bound, value: BlockPtr, deltas) -> bool:
        """Whether the access can read the pointers the block pointer's name holds (`p`, `tl.advance(p, d)`)."""
        pointer = bound["pointer"].value
        held = advanced_base(pointer, self.names) if deltas is not None else pointer
        return value.pointers and isinstance(held, cst.Name)

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
                self.moving_dims(value.creations):  # its pointers leave out where it moves: the access adds it
            return False
        checked = frozenset(variants[0][1])
        creations = [self.creations_by_id(c) for c in self.knowledge.in_order(value.creations)]
        differs = {d for d in checked if len({tuple(map(self.facts.canonical_code, (c.offsets[d], c.block[d],
                                                                                        c.shape[d])))
                                                  for c in creations}) > 1}
        masks = self.knowledge.creation_masks
        if not differs or any(masks.get(c, checked) != checked for c in value.creations):
            return False
        if any(self.creation_mask(c, checked) is None for c in creations):  # in bounds there: nothing to assign
            return False
        masks.update(dict.fromkeys(value.creations, checked))
        self.knowledge.named.update(value.creations)
        return True

    def creation_mask_builder(self, call, member, bound, value: BlockPtr) -> Builder:
        padding = self.padding(bound)
        name = cst.Name(self.namer.mask(self.creation_of(value).target))
        pointer = bound["pointer"].value

        def build(updated: cst.Call):
            again = bind(updated, member)
            kept = [keyword(k, again[k].value) for k in HINTS if k in again]
            if member == "load":
                return masked_pointers.load(self.language, pointer, name, padding, kept)
            return masked_pointers.store(self.language, pointer, name, again["value"].value, kept)
        return build

    def pointer_problem(self, value: BlockPtr, named: bool = False) -> Optional[str]:
        """Why the masked-pointer form cannot follow this block pointer to the access, or None. Its base, shape
        or strides reading a name assigned since the creation are captured there (`capture_parts`) on the next
        run; a block pointer they were captured for and that still reads one cannot be followed. The base
        matters only where the access rebuilds the pointers (not `named`: they are read from the name)."""
        if not value.args_stale and not (value.base_stale and not named):
            return None
        uncaptured = {c for c in value.creations if not self.creations_by_id(c).captured}
        if uncaptured:  # this run's code is thrown away
            self.knowledge.captured |= uncaptured
            self.dirty = True
            return None
        return "the masked-pointer form needs the base, shape and strides unchanged at the access"

    def merged_parts(self, value: BlockPtr, checked: Optional[set[int]] = None,
                     kinds: tuple[str, ...] = ("base", "shape", "stride", "range")) -> tuple:
        """(base, shape, strides, blocks, ranged dimensions) at an access: a part that differs between the
        creations merged here (an `if`/`else` creating from two tensors) lives in a variable each creation
        assigns (`p_base`). A block size that differs (an `if HEAD_FIRST:` choosing `(BT, BK)` or `(BK, BT)`,
        which Triton resolves at compile time) does as its range, `p_range0 = tl.arange(0, BT)`: a tensor,
        since Triton refuses a constexpr assigned again in a loop. Only the parts of `kinds` get variables (an
        access through the pointers its name holds reads no base or stride), and of the shape only those of
        the `checked` dimensions (None: all of them)."""
        creations = [self.creations_by_id(c) for c in self.knowledge.in_order(value.creations)]
        first = creations[0]
        rank = len(first.block)
        parts = [("base", 0, [c.base for c in creations])]
        parts += [(kind, d, [getattr(c, attribute)[d] for c in creations])
                  for kind, attribute in (("shape", "shape"), ("stride", "strides"), ("range", "block"))
                  for d in range(rank)]
        merged, ranged = [], set()
        for kind, d, exprs in parts:
            unread = kind not in kinds or kind == "shape" and checked is not None and d not in checked
            if unread or len({self.facts.canonical_code(e) for e in exprs}) == 1:
                merged.append(exprs[0])
                continue
            if kind == "range":
                ranged.add(d)
                exprs = [masked_pointers.arange(self.language, e) for e in exprs]
            for creation, expr in zip(creations, exprs):
                self.knowledge.merged.setdefault(id(creation.call), {})[(kind, d)] = expr
            merged.append(cst.Name(self.namer.part(first.target, kind, d)))
        return merged[0], merged[1:1 + rank], merged[1 + rank:1 + 2 * rank], merged[1 + 2 * rank:], \
            frozenset(ranged)

    def pointer_builder(self, call, member, bound, value: BlockPtr, offsets, deltas) -> Builder:
        """The masked access: through the pointers the block pointer's name holds where every definition
        reaching here assigned them (`tl.load(p_q, mask=...)`), else from its parts and offsets; for
        `boundary_check=A if FLAG else B` one access per variant, in a conditional expression on the same
        test (a constexpr: Triton takes the check only at compile time, and resolves such an expression then
        too), each with its own mask."""
        variants = self.check_variants(bound, len(offsets))
        checked_by_any = set().union(*(dims for _, dims in variants))
        named = self.holds_pointers(bound, value, deltas)
        pointer = bound["pointer"].value
        held = advanced_base(pointer, self.names) if deltas is not None else pointer  # `tl.advance(p, ...)` moves `p`'s
        kinds = ("shape", "range", "stride") if named else ("base", "shape", "stride", "range")
        base, shape, strides, blocks, ranged = self.merged_parts(value, checked_by_any, kinds)
        (self.knowledge.named if named else self.knowledge.rebuilt).update(value.creations)
        axes = [masked_pointers.Axis(self.language, offset, block, d in ranged, shape[d])
                for d, (offset, block) in enumerate(zip(offsets, blocks))]
        lower = [not p["nonnegative"] for p in self.proven_offsets(value, deltas)]
        padding = self.padding(bound)

        if deltas is not None:
            self.note_moving(value, deltas)

        def pointers() -> cst.BaseExpression:
            if named:
                return masked_pointers.shifted(self.language, held, offsets, strides,
                                               self.moving_dims(value.creations))
            if self.created_in_access(pointer, value):  # `tl.load(tl.make_block_ptr(...))`, `tl.load(_tile(...))`
                return masked_pointers.addresses(base, strides, axes, self.namer.placeholder)
            # Rebuilt from the parts a helper receives: the block's corner, then the offsets inside it, which do
            # not change as the block moves in the caller's loop: the compiler computes them once.
            inside = masked_pointers.inside(strides, [a.at_zero() for a in axes], self.namer.placeholder)
            corner = masked_pointers.shifted(self.language, base, offsets, strides, range(len(axes)))
            return cst.BinaryOperation(corner, cst.Add(), inside)

        def mask(checked: set[int]):
            bounds = {d: masked_pointers.Bound(axes[d], shape[d], lower[d]) for d in checked}
            return masked_pointers.mask(bounds, len(axes), self.namer.placeholder)

        def build(updated: cst.Call):
            again = bind(updated, member)
            kept = [keyword(k, again[k].value) for k in HINTS if k in again]
            given = {k: again[k].value for k in self.user_mask(again)}  # only where it never compiles
            ptrs = pointers()
            accesses = [masked_pointers.load(self.language, ptrs, masked_pointers.both(
                            mask(checked), given.get("mask")), padding, kept, given.get("other"))
                        if member == "load" else
                        masked_pointers.store(self.language, ptrs, masked_pointers.both(
                            mask(checked), given.get("mask")), again["value"].value, kept)
                        for _, checked in variants]
            chosen = accesses[-1]
            for (test, _), access in reversed(list(zip(variants, accesses))[:-1]):
                chosen = cst.IfExp(test, access, chosen)
            return chosen

        return build

    def unbound_access(self, call: cst.Call, error: str, state: State) -> None:
        """A load or store Triton rejects as called (an argument missing, unknown or given twice): the block
        pointers it names stay as they are, reported with what is wrong."""
        self.visit_children(call, state)
        refusal = Refusal(ttd108_unsupported_use.CODE, ttd108_unsupported_use.rejected(error), call)
        if {"boundary_check", "padding_option"} & {a.keyword.value for a in call.args if a.keyword} or \
                any(isinstance(state.get(a.value.value), (BlockPtr, Opaque)) for a in call.args
                    if isinstance(a.value, cst.Name)):
            self.reject(error, call)
        named = [state.get(arg.value.value) for arg in call.args if isinstance(arg.value, cst.Name)]
        pointers = [value for value in named if isinstance(value, (BlockPtr, Opaque))]
        for value in pointers:
            self.refuse(value.creations, refusal)
        if not pointers and {"boundary_check", "padding_option"} & {a.keyword.value for a in call.args if a.keyword}:
            self.orphan(call, refusal.message, code=refusal.code)

    def untracked_access(self, call, member, bound, state) -> None:
        pointer = bound["pointer"].value
        self.visit(pointer, state)
        if "boundary_check" not in bound and "padding_option" not in bound or self.is_site_call(pointer):
            return
        if (why := self.none_pointer(pointer, state)) is not None:
            self.never_compiles(call, ttd003_access.CODE, f"`tl.{member}` with `boundary_check`/`padding_option` "
                                f"where {why}", f"{why}: no block pointer")
        elif not isinstance(pointer, cst.Name) or not isinstance(state.get(pointer.value), (Opaque, BlockPtr)):
            self.orphan(call, f"`tl.{member}` with `boundary_check`/`padding_option` on "
                        f"{self.untracked_origin(pointer)}", pointer)

    def never_compiles(self, call: cst.Call, code: str, what: str, assertion: str,
                       owners: frozenset = frozenset()) -> None:
        """A block-pointer use that Triton rejects at compile time wherever it is reached (`what`): one on `None`
        (tritonbench keeps a block-pointer path behind `if not ENABLE_TMA:` whose callers all pass `None`), or with
        a `mask=` (MInference's output store). It becomes `tl.static_assert(False, "<assertion>")`, rejected there
        just the same, and the block-pointer API goes. `owners`: the block pointers whose rewrite this is."""
        if not any(use.node is call for use in self.dead_uses):
            self.dead_uses.append(Refusal(code, f"{what}: Triton rejects it at compile time wherever it is reached, "
                                          "and so does the `tl.static_assert` it becomes", call))
        self.expr_edits[id(call)] = (owners, lambda updated: descriptor.compile_error(self.language, assertion))

    def is_site_call(self, node: cst.BaseExpression) -> bool:
        """`tl.make_block_ptr(...)` or `tl.advance(...)`."""
        return type(node) is cst.Call and member_called(node, self.names) in ("make_block_ptr", "advance")

    def pointer(self, pointer: cst.BaseExpression, state: State):
        if isinstance(pointer, cst.Name):
            value = state.get(pointer.value)
            if isinstance(value, BlockPtr):
                return self.settle(value), None
            if isinstance(value, Opaque):
                self.refuse_ambiguous(value, pointer)
            return None
        if isinstance(pointer, cst.Call) and member_called(pointer, self.names) == "advance":
            return self.advanced_pointer(pointer, state)
        return None

    def settle(self, value: BlockPtr) -> BlockPtr:
        """A value used here is one block pointer from now on, whatever path made it (joins of different
        orders wait for a use: analysis.join_pointers)."""
        if len(value.creations) > 1:
            self.knowledge.union(value.creations)
        return value

    @staticmethod
    def checked_dims(bound, rank: int) -> Optional[set[int]]:
        """The dimensions checked on every path (a conditional check: those both variants check), or None if
        the check cannot be read."""
        variants = Sites.check_variants(bound, rank)
        return None if variants is None else set.intersection(*(checked for _, checked in variants))

    @staticmethod
    def check_variants(bound, rank: int) -> Optional[list[tuple[Optional[cst.BaseExpression], set[int]]]]:
        """[(None, dims)] for a literal `boundary_check`; [(FLAG, dims), (None, dims)] for
        `boundary_check=(1,) if FLAG else ()` (xformers' split-k decoding), whose test Triton must resolve
        at compile time, and so on for a chain of them (`specialised`); None for anything else."""
        if "boundary_check" not in bound:
            return [(None, set())]
        node, variants = bound["boundary_check"].value, []
        while isinstance(node, cst.IfExp):
            dims = Sites.literal_dims(node.body, rank)
            if dims is None:
                return None
            variants.append((node.test, dims))
            node = node.orelse
        dims = Sites.literal_dims(node, rank)
        return None if dims is None else variants + [(None, dims)]

    @staticmethod
    def literal_dims(node: cst.BaseExpression, rank: int) -> Optional[set[int]]:
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
    def impossible_check(bound, rank: int) -> Optional[str]:
        """Why Triton rejects this access's `boundary_check` at compile time (a dimension the block pointer does
        not have, or one named twice), or None."""
        node = bound["boundary_check"].value if "boundary_check" in bound else None
        elements = tuple_elements(node) if node is not None else None
        values = [int_value(e) for e in elements] if elements is not None else [int_value(node)] if node else []
        if None in values:
            return None
        outside = [v for v in values if not 0 <= v < rank]
        if outside:
            return f"`boundary_check` names dimension {outside[0]} of a rank-{rank} block pointer"
        if len(set(values)) != len(values):
            return "`boundary_check` names a dimension twice"
        return None

    @staticmethod
    def padding(bound) -> str | cst.Name | None:
        """The padding option: a literal (`literal_padding`), or a name. Triton takes the option only at
        compile time, so a name holds a constexpr there, which the masked-pointer form branches on."""
        node = bound["padding_option"].value if "padding_option" in bound else None
        if isinstance(node, cst.Name) and node.value != "None":
            return node
        return Sites.literal_padding(bound)

    @staticmethod
    def literal_padding(bound) -> Optional[str]:
        node = bound["padding_option"].value if "padding_option" in bound else None
        if node is None or isinstance(node, cst.Name) and node.value == "None":
            return ""  # absent, or `None`, which Triton reads as ""
        padding = string_value(node)
        return padding if padding in ("", "zero", "nan") else None

    def offsets(self, value: BlockPtr, deltas) -> Optional[list]:
        for d, dim in enumerate(value.dims):
            self.use_dim(dim, d)
        if any(dim.expr is None for dim in value.dims):
            return None  # paths disagree: the rerun materializes these dimensions
        if deltas is None:
            return [dim.expr for dim in value.dims]
        return [advance.plus(dim.expr, delta) for dim, delta in zip(value.dims, deltas)]

    def use_dim(self, dim: Dim, d: int) -> None:
        if dim.stale or dim.expr is None:
            self.mark(dim.defs, d)

    def type_query(self, node: cst.Attribute, state: State) -> bool:
        pointer = descriptor.queried_pointer(node)
        value = state.get(pointer.value) if pointer is not None else None
        if not isinstance(value, BlockPtr):
            return False
        self.settle(value)
        self.expr_edits[id(node)] = (value.creations, lambda updated: self.element_type(value, updated))
        return True

    def element_type(self, value: BlockPtr, query: cst.BaseExpression) -> cst.BaseExpression:
        """`p.dtype.element_ty` as it is where `p` holds its pointers (it means the same of them; a block
        pointer's `p.type.element_ty`, a block type there, would be a pointer type of theirs), else the
        descriptor's dtype where there is one (a block pointer never loaded nor stored has none: the base's
        element type)."""
        if value.pointers and self.reads_pointers(value.creations):
            pointer = descriptor.queried_pointer(query)
            return query if query.value.attr.value == "dtype" else masked_pointers.element_type(pointer)
        if "descriptor" in self.forms(value.creations) and self.uses_descriptors(value.creations) and \
                not self.is_guarded(value.creations):
            return descriptor.dtype_of(self.descriptor_name(value, "zero"))
        return masked_pointers.element_type(self.creation_of(value).base)
