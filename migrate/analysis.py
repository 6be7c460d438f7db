"""Flow-sensitive dataflow over one function: find block-pointer values, follow them through
assignments, `tl.advance`, branches and loops, decide per block pointer whether it can become a
descriptor, and record the edits that do it.

The analysis is an abstract interpretation over the statements (loops iterate to a fixed point). It is
rerun while it learns that more offset dimensions must live in variables (see values.py); edits and
diagnostics come from the last, stable run.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable, Optional

import libcst as cst

from triton_migrate.rules import (
    ttd001_descriptor,
    ttd002_advance,
    ttd003_access,
    ttd004_dtype_query,
    ttd005_hoist,
    ttd006_masked_pointers,
    ttd101_unchecked_dimension,
    ttd103_no_unit_stride,
    ttd105_rank,
    ttd106_int64_offsets,
    ttd108_unsupported_use,
    ttd109_ambiguous_value,
    ttd111_store_row_width,
    ttd201_crosses_function,
)

from .calls import UnboundCall, bind, bool_value, int_value, string_value, tuple_elements
from .facts import FunctionFacts, free_names
from . import planner
from .naming import Namer
from .policy import Policy
from .triton_names import TritonNames
from .values import OTHER, BlockPtr, Dim, Opaque, Placeholder, State, Value, code_of, creations_of, join_dims, state_key

MAX_RERUNS = 64
HINTS = ("cache_modifier", "eviction_policy", "volatile")  # kept by the masked-pointer form
Builder = Callable[..., object]


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

    def find(self, c: int) -> int:
        while self.parent.get(c, c) != c:
            c = self.parent[c]
        return c

    def union(self, creations: frozenset[int]) -> None:
        roots = sorted({self.find(c) for c in creations})
        for root in roots[1:]:
            self.parent[root] = roots[0]


@dataclass
class _Loop:
    node: cst.CSTNode
    assigned: frozenset[str]
    head: State
    breaks: list = field(default_factory=list)
    continues: list = field(default_factory=list)


def assigned_names(body: cst.CSTNode) -> frozenset[str]:
    collector = _AssignmentTargets()
    body.visit(collector)
    return frozenset(collector.names)


class _AssignmentTargets(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def _collect(self, target: cst.CSTNode) -> None:
        if isinstance(target, cst.Name):
            self.names.add(target.value)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self._collect(element.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._collect(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._collect(node.target)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self._collect(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._collect(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._collect(node.target)


class FunctionAnalysis:
    """Runs the dataflow over one function until what it has learnt stops changing."""

    def __init__(self, function: cst.FunctionDef, names: TritonNames, namer: Namer, language: str,
                 policy: Policy) -> None:
        self.function = function
        self.policy = policy
        self.names = names
        self.namer = namer
        self.language = cst.parse_expression(language)
        self.facts = FunctionFacts(function, names)
        self.knowledge = Knowledge()
        for _ in range(MAX_RERUNS):
            self._run()
            if not self.dirty:
                return
        raise RuntimeError(f"analysis of `{function.name.value}` did not converge")

    # -- one run ------------------------------------------------------------------------------

    def _run(self) -> None:
        self.dirty = False
        self.creations: dict[int, Creation] = {}
        self.owners: list = []
        self.expr_edits: dict[int, tuple[frozenset[int], Builder]] = {}
        self.stmt_edits: dict[int, tuple[frozenset[int], Builder]] = {}
        self.placeholders: dict[int, cst.CSTNode] = {}
        self.orphans: list[Refusal] = []
        self.line: Optional[cst.SimpleStatementLine] = None  # the line being analysed, if a single statement
        self.line_edits: dict[int, list[tuple[frozenset[int], Builder]]] = {}  # statements to put before a line
        self.coordinates_used: set = set()  # (line id, stem): coordinate temporaries already emitted there
        self.block(self.function.body.body, {})

    def block(self, statements, state: Optional[State]) -> Optional[State]:
        for statement in statements:
            if state is None:
                break  # unreachable code after return/break/continue
            state = self.statement(statement, state)
        return state

    def statement(self, node: cst.CSTNode, state: State) -> Optional[State]:
        if isinstance(node, cst.SimpleStatementLine):
            self.line = node if len(node.body) == 1 else None
            try:
                for small in node.body:
                    state = self.small_statement(small, state)
                    if state is None:
                        return None
                return state
            finally:
                self.line = None
        if isinstance(node, cst.If):
            return self.branch(node, state)
        if isinstance(node, (cst.For, cst.While)):
            return self.loop(node, state)
        if isinstance(node, cst.With):
            for item in node.items:
                self.visit(item.item, state)
            return self.nested(node.body.body, state, "with")
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            return state  # separate scopes; analysed on their own
        self.visit(node, state)  # anything else (try, match...): reads only
        return state

    def nested(self, statements, state: State, kind: str) -> Optional[State]:
        self.owners.append(kind)
        try:
            return self.block(statements, state)
        finally:
            self.owners.pop()

    def branch(self, node: cst.If, state: State) -> Optional[State]:
        self.visit(node.test, state)
        taken = self.nested(node.body.body, dict(state), "if")
        if isinstance(node.orelse, cst.If):
            other = self.nested([node.orelse], dict(state), "if")
        elif isinstance(node.orelse, cst.Else):
            other = self.nested(node.orelse.body.body, dict(state), "if")
        else:
            other = dict(state)
        return self.join(taken, other)

    def loop(self, node, state: State) -> Optional[State]:
        assigned = assigned_names(node)
        if isinstance(node, cst.For):
            self.visit(node.iter, state)
        head = dict(state)
        for _ in range(MAX_RERUNS):
            frame = _Loop(node, assigned, head)
            self.owners.append(frame)
            current = dict(head)
            if isinstance(node, cst.For):
                self.assign_target(node.target, current)
            else:
                self.visit(node.test, current)
            end = self.block(node.body.body, current)
            self.owners.pop()
            new_head = self.join(state, self.join_all([end] + frame.continues))
            if state_key(new_head) == state_key(head):
                break
            head = new_head
        done = dict(head)
        if isinstance(node, cst.While):
            self.visit(node.test, done)
        if node.orelse is not None:
            done = self.block(node.orelse.body.body, done)
        return self.join_all([done] + frame.breaks)

    def small_statement(self, node: cst.BaseSmallStatement, state: State) -> Optional[State]:
        if isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None:
            targets = [t.target for t in node.targets] if isinstance(node, cst.Assign) else [node.target]
            if len(targets) == 1 and isinstance(targets[0], cst.Name):
                self.assign_value(node, targets[0].value, node.value, state)
            else:
                self.visit(node.value, state)
                for target in targets:
                    self.assign_target(target, state)
            return state
        if isinstance(node, cst.AugAssign):
            self.visit(node.value, state)
            self.visit(node.target, state, ttd108_unsupported_use.CODE, "arithmetic on a block pointer")
            self.assign_target(node.target, state)
            return state
        if isinstance(node, cst.Return):
            if node.value is not None:
                self.visit(node.value, state, ttd201_crosses_function.CODE, "returned from the function")
            return None
        if isinstance(node, (cst.Break, cst.Continue)):
            frame = next((o for o in reversed(self.owners) if isinstance(o, _Loop)), None)
            if frame is not None:
                (frame.breaks if isinstance(node, cst.Break) else frame.continues).append(state)
            return None
        self.visit(node, state)
        return state

    # -- assignments --------------------------------------------------------------------------

    def assign_value(self, node, name: str, value: cst.BaseExpression, state: State) -> None:
        member = self.names.member(value.func) if isinstance(value, cst.Call) else None
        if member == "make_block_ptr":
            self.bind(name, self.create(node, name, value, state), state)
        elif member == "advance":
            self.bind(name, self.advance(node, name, value, state), state)
        elif isinstance(value, cst.Name) and value.value == "None":
            self.placeholders[id(node)] = node
            self.bind(name, Placeholder(frozenset({id(node)})), state)
        elif isinstance(value, cst.Name) and isinstance(state.get(value.value), (BlockPtr, Opaque)):
            self.visit(value, state, ttd108_unsupported_use.CODE, f"aliased as `{name}` (a copy of a block "
                       "pointer is not modelled)")
            self.bind(name, Opaque(creations_of(state[value.value])), state)
        else:
            self.visit(value, state)
            self.bind(name, OTHER, state)

    def assign_target(self, target: cst.CSTNode, state: State) -> None:
        if isinstance(target, cst.Name):
            self.bind(target.value, OTHER, state)
        elif isinstance(target, (cst.Tuple, cst.List)):
            for element in target.elements:
                self.assign_target(element.value, state)
        else:
            self.visit(target, state)

    def bind(self, name: str, value: Value, state: State) -> None:
        self.invalidate(name, state)
        state[name] = value

    def invalidate(self, name: str, state: State) -> None:
        for other, value in state.items():
            if isinstance(value, BlockPtr):
                state[other] = value.invalidate(name)

    # -- creation ------------------------------------------------------------------------------

    def create(self, node, name: Optional[str], call: cst.Call, state: State) -> Value:
        creation = Creation(call, name)
        self.creations[id(call)] = creation
        for argument in call.args:
            self.visit(argument.value, state)
        refusal = self.describe(creation)
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
        args_free = frozenset().union(*map(free_names, [creation.base] + creation.shape + creation.strides))
        return BlockPtr(frozenset({id(call)}), stem, dims, args_free=args_free)

    def describe(self, creation: Creation) -> Optional[Refusal]:
        """Fill in the creation's shape, strides, ...; or say why it has no descriptor."""
        call = creation.call
        try:
            bound = bind(call, "make_block_ptr")
        except UnboundCall as error:
            return Refusal(ttd108_unsupported_use.CODE, str(error), call)
        if creation.target is None:
            return Refusal(ttd108_unsupported_use.CODE, "block pointer created outside a plain "
                           "`name = tl.make_block_ptr(...)` assignment", call)
        parts = {key: tuple_elements(bound[key].value) if key in bound else None
                 for key in ("shape", "strides", "offsets", "block_shape", "order")}
        ranks = {len(v) for k, v in parts.items() if v is not None}
        if any(parts[k] is None for k in ("shape", "strides", "offsets", "block_shape")) or len(ranks) != 1 \
                or "base" not in bound:
            return Refusal(ttd105_rank.CODE, "shape, strides, offsets and block_shape must be literal tuples "
                           "of one length", call)
        creation.base = bound["base"].value
        creation.shape, creation.strides = parts["shape"], parts["strides"]
        creation.offsets, creation.block = parts["offsets"], parts["block_shape"]
        order = [int_value(o) for o in parts["order"]] if parts["order"] is not None else None
        creation.unit, creation.blockers = planner.creation_obstacles(
            creation.shape, creation.strides, creation.offsets, creation.block,
            None if order is None or None in order else order, self.facts, self.policy)
        return None

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
        return Dim(expr, code_of(expr), free_names(expr), frozenset({definition}), **proofs)

    def mark_descriptor_reuse(self, stem: str, name: str, state: State) -> None:
        for other, value in state.items():
            if isinstance(value, BlockPtr) and value.stem == stem and other != name:
                state[other] = replace(value, desc_stale=True)

    def hoist_target(self, creation: Creation, stem: str) -> Optional[cst.CSTNode]:
        arguments = [creation.call.args[0].value] + creation.shape + creation.strides + creation.block
        target = None
        for owner in reversed(self.owners):
            if not isinstance(owner, _Loop) or not ttd005_hoist.is_invariant(arguments, owner.assigned,
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
        if resolved is None:
            return self.untracked_advance(call, state)
        source, deltas = resolved
        base_name = call.args[0].value.value
        dims, statements = [], []
        for d, (dim, delta) in enumerate(zip(source.dims, deltas)):
            new, statement = self.advance_dim(id(node), name, base_name, d, dim, delta, source, state)
            dims.append(new)
            statements.extend(statement)
        self.stmt_edits[id(node)] = (source.creations, lambda: statements)
        return replace(source, dims=tuple(dims))

    @staticmethod
    def untracked_advance(call: cst.Call, state: State) -> Value:
        """Advancing a block pointer we do not rewrite keeps it untouched (and reported once)."""
        base = call.args[0].value if call.args else None
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
            return new, [ttd002_advance.increment(var, delta)]
        expr = ttd002_advance.plus(dim.expr, delta) if dim.expr is not None else delta
        new = self.define_dim(definition, name, d, expr, proofs, state)
        return new, ([ttd002_advance.assign(new.code, expr)] if new.code != code_of(expr) else [])

    def advanced_pointer(self, call: cst.Call, state: State):
        """(block pointer, deltas) for `tl.advance(p, deltas)`, or None (reported) if it is not one we track."""
        try:
            bound = bind(call, "advance")
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
            elif isinstance(base, cst.Name):
                self.orphan(call, f"`tl.advance` on `{base.value}`, which is not a block pointer created in "
                            "this function (a parameter or a call result)")
            else:
                self.visit(base, state)
            return None
        deltas = tuple_elements(offsets.value) if offsets is not None else None
        if deltas is None or len(deltas) != len(value.dims):
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
            bound = bind(call, member)
        except UnboundCall:
            self.visit_children(call, state)
            return
        if "value" in bound:
            self.visit(bound["value"].value, state)
        resolved = self.pointer(bound["pointer"].value, state)
        if resolved is None:
            self.untracked_access(call, member, bound, state)
            return
        value, deltas = resolved
        refusal = self.unsupported_access(call, member, bound, value)
        if refusal is None:
            obstacles = self.obstacles(member, bound, value, deltas)
            form = planner.choose(obstacles, self.policy, member)
            if form is None:
                first = next(o for o in obstacles if o.blocks(self.policy))
                refusal = Refusal(first.code, first.message, call)
        if refusal is not None:
            self.refuse(value.creations, refusal)
            return
        self.record_form(value, form, obstacles)
        offsets = self.offsets(value, deltas)
        if offsets is not None and form == "descriptor":
            self.descriptor_access(call, member, bound, value, offsets)
        elif offsets is not None:
            self.pointer_access(call, member, bound, value, offsets, deltas)

    def unsupported_access(self, call, member, bound, value: BlockPtr) -> Optional[Refusal]:
        """Accesses neither form can express: the block pointer stays untouched."""
        if value.desc_stale:
            return Refusal(ttd109_ambiguous_value.CODE, "its descriptor name is re-created while this block "
                           "pointer is still in use", call)
        if "mask" in bound or "other" in bound:
            return Refusal(ttd108_unsupported_use.CODE, f"`tl.{member}` with `mask=`/`other=` on a block pointer",
                           call)
        if self.checked_dims(bound, len(value.dims)) is None or self.literal_padding(bound) is None:
            return Refusal(ttd108_unsupported_use.CODE, "`boundary_check`/`padding_option` must be literals", call)
        return None

    def obstacles(self, member: str, bound, value: BlockPtr, deltas) -> list:
        creations = [self.creations_by_id(c) for c in sorted(value.creations)]
        creation = creations[0]
        unchecked = set(range(len(value.dims))) - self.checked_dims(bound, len(value.dims))
        in_bounds = [d not in unchecked or all(ttd101_unchecked_dimension.in_bounds(
            c.shape[d], c.block[d], self.static_offset(value, deltas, d)) for c in creations)
            for d in range(len(value.dims))]
        volatile = "volatile" in bound and bool_value(bound["volatile"].value) is not False
        requirements = [r for c in creations if c.unit is not None for r in planner.alignment_requirements(
            c.base, c.strides, c.block, c.unit, self.facts)]
        row_width = all(planner.row_width_proven(c.shape, c.block, c.unit) for c in creations)
        found = [o for c in creations for o in c.blockers]
        return found + planner.access_obstacles(member, self.proven_offsets(value, deltas), in_bounds,
                                                creation.unit, volatile, self.literal_padding(bound), row_width,
                                                requirements, self.policy)

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

    def record_form(self, value: BlockPtr, form: str, obstacles: list) -> None:
        """Remember the form, and why masked pointers (the obstacles that decided it) or what a descriptor
        relies on at run time (the soft obstacles it accepted)."""
        for creation in value.creations:
            self.knowledge.forms.setdefault(creation, set()).add(form)
            for obstacle in obstacles:
                if form == "pointer" and (obstacle.blocks(self.policy) or obstacle.code == ttd111_store_row_width.CODE):
                    self.knowledge.reasons.setdefault(creation, {})[obstacle.code] = obstacle.message
                elif form == "descriptor" and not obstacle.hard:
                    self.knowledge.requirements.setdefault(creation, {})[obstacle.message] = obstacle.message

    def descriptor_access(self, call, member, bound, value: BlockPtr, offsets) -> None:
        padding = "nan" if self.literal_padding(bound) == "nan" else "zero"  # "" (unspecified) reads as zero
        for creation in value.creations:
            self.knowledge.paddings.setdefault(creation, set()).add(padding if member == "load" else "zero")
            if any(h in bound for h in ("cache_modifier", "eviction_policy")):
                self.creations_by_id(creation).hints_dropped = True
        stored = bound["value"].value if "value" in bound else None
        self.expr_edits[id(call)] = (value.creations, self.access_builder(member, value, offsets, padding, stored))

    def access_builder(self, member: str, value: BlockPtr, offsets, padding: str, stored) -> Builder:
        creation = self.creation_of(value)
        is_tile = stored is not None and self.facts.is_tile(stored)

        def build(updated: cst.Call):
            desc = self.descriptor_name(value, padding)
            if member == "load":
                return ttd003_access.load(self.language, desc, offsets, creation.permutation)
            return ttd003_access.store(self.language, desc, offsets, creation.permutation,
                                       bind(updated, "store")["value"].value, creation.block, is_tile)

        return build

    def pointer_access(self, call, member, bound, value: BlockPtr, offsets, deltas) -> None:
        if len(value.creations) > 1 or value.args_stale:
            self.refuse(value.creations, Refusal(ttd108_unsupported_use.CODE, "the masked-pointer form needs one "
                                                 "creation whose base, shape and strides are unchanged at the "
                                                 "access", call))
            return
        creation = self.creation_of(value)
        proven = self.proven_offsets(value, deltas)
        tile = ttd006_masked_pointers.Tile(self.language, creation.base, creation.shape, creation.strides,
                                           creation.block, offsets, self.checked_dims(bound, len(offsets)),
                                           [p["nonnegative"] for p in proven])
        ptrs, condition = self.masked_pointers(value, tile)
        padding = self.literal_padding(bound)

        def build(updated: cst.Call):
            again = bind(updated, member)
            kept = [again[k].with_changes(keyword=cst.Name(k), equal=cst.AssignEqual(
                cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))) for k in HINTS if k in again]
            if member == "load":
                return ttd006_masked_pointers.load(tile, ptrs, condition, padding, kept)
            return ttd006_masked_pointers.store(tile, ptrs, condition, again["value"].value, kept)

        self.expr_edits[id(call)] = (value.creations, build)

    def masked_pointers(self, value: BlockPtr, tile) -> tuple:
        """(pointers, mask): temporaries assigned on the lines before the access where possible (a careful
        human's `x_rows`, `x_cols`, `x_ptrs`, `x_mask`), inline expressions otherwise."""
        coords = ttd006_masked_pointers.coordinates(tile)
        key = (id(self.line), value.stem)
        if self.line is None or key in self.coordinates_used:
            return ttd006_masked_pointers.pointers(tile, coords), ttd006_masked_pointers.mask(tile, coords)
        self.coordinates_used.add(key)
        *axes, ptrs_name, mask_name = ttd006_masked_pointers.temporary_names(value.stem, len(coords))
        named = [cst.Name(n) for n in axes]
        ptrs, condition = ttd006_masked_pointers.pointers(tile, named), ttd006_masked_pointers.mask(tile, named)
        values = coords + [ptrs] + ([condition] if condition is not None else [])
        names = axes + [ptrs_name, mask_name]
        self.line_edits.setdefault(id(self.line), []).append(
            (value.creations, lambda: [ttd002_advance.assign(n, v) for n, v in zip(names, values)]))
        return cst.Name(ptrs_name), (cst.Name(mask_name) if condition is not None else None)

    def untracked_access(self, call, member, bound, state) -> None:
        pointer = bound["pointer"].value
        self.visit(pointer, state)
        if isinstance(pointer, cst.Name) and ("boundary_check" in bound or "padding_option" in bound):
            if not isinstance(state.get(pointer.value), (Opaque, BlockPtr)):
                self.orphan(call, f"`tl.{member}` with `boundary_check`/`padding_option` on `{pointer.value}`, a "
                            "block pointer that was not created in this function")

    def pointer(self, pointer: cst.BaseExpression, state: State):
        if isinstance(pointer, cst.Name):
            value = state.get(pointer.value)
            if isinstance(value, BlockPtr):
                return value, None
            if isinstance(value, Opaque):
                self.refuse_ambiguous(value, pointer)
            return None
        if isinstance(pointer, cst.Call) and self.names.member(pointer.func) == "advance":
            return self.advanced_pointer(pointer, state)
        return None

    @staticmethod
    def checked_dims(bound, rank: int) -> Optional[set[int]]:
        if "boundary_check" not in bound:
            return set()
        node = bound["boundary_check"].value
        elements = tuple_elements(node)
        values = [int_value(e) for e in elements] if elements is not None else [int_value(node)]
        if None in values or any(not 0 <= v < rank for v in values):
            return None
        return set(values)

    @staticmethod
    def literal_padding(bound) -> Optional[str]:
        if "padding_option" not in bound:
            return ""
        padding = string_value(bound["padding_option"].value)
        return padding if padding in ("", "zero", "nan") else None

    def offsets(self, value: BlockPtr, deltas) -> Optional[list]:
        for d, dim in enumerate(value.dims):
            self.use_dim(dim, d)
        if any(dim.expr is None for dim in value.dims):
            return None  # paths disagree: the rerun materializes these dimensions
        if deltas is None:
            return [dim.expr for dim in value.dims]
        return [ttd002_advance.plus(dim.expr, delta) for dim, delta in zip(value.dims, deltas)]

    def use_dim(self, dim: Dim, d: int) -> None:
        if dim.stale or dim.expr is None:
            self.mark(dim.defs, d)

    def type_query(self, node: cst.Attribute, state: State) -> bool:
        pointer = ttd004_dtype_query.queried_pointer(node)
        value = state.get(pointer.value) if pointer is not None else None
        if not isinstance(value, BlockPtr):
            return False
        self.expr_edits[id(node)] = (value.creations, lambda updated: self.element_type(value))
        return True

    def element_type(self, value: BlockPtr) -> cst.BaseExpression:
        if self.uses_descriptors(value.creations):
            return ttd004_dtype_query.dtype_of(self.descriptor_name(value, "zero"))
        return ttd006_masked_pointers.element_type(self.creation_of(value).base)

    # -- reads ---------------------------------------------------------------------------------

    def visit(self, node: cst.CSTNode, state: State, code: str = ttd108_unsupported_use.CODE,
              how: str = "used where the rewrite cannot follow it") -> None:
        if isinstance(node, cst.Name):
            self.read(node, state, code, how)
        elif isinstance(node, cst.Attribute):
            if not self.type_query(node, state):
                self.visit(node.value, state, code, how)
        elif isinstance(node, cst.Call):
            self.call(node, state)
        elif isinstance(node, cst.Arg):
            self.visit(node.value, state, code, how)
        elif isinstance(node, cst.NamedExpr):
            self.visit(node.value, state)
            self.assign_target(node.target, state)
        elif not isinstance(node, (cst.Lambda, cst.FunctionDef, cst.ClassDef)):
            self.visit_children(node, state, code, how)

    def visit_children(self, node: cst.CSTNode, state: State, code: str = ttd108_unsupported_use.CODE,
                       how: str = "used where the rewrite cannot follow it") -> None:
        for child in node.children:
            self.visit(child, state, code, how)

    def call(self, node: cst.Call, state: State) -> None:
        member = self.names.member(node.func)
        if member in ("load", "store"):
            self.access(node, member, state)
        elif member == "advance":
            resolved = self.advanced_pointer(node, state)
            if resolved is not None:
                self.refuse(resolved[0].creations, Refusal(ttd108_unsupported_use.CODE, "`tl.advance` result used "
                                                           "outside an assignment, load or store", node))
        elif member == "make_block_ptr":
            self.create(None, None, node, state)
        else:
            self.visit(node.func, state)
            code, how = ((ttd108_unsupported_use.CODE, f"passed to `tl.{member}`") if member is not None else
                         (ttd201_crosses_function.CODE, "passed to another function"))
            for argument in node.args:
                self.visit(argument.value, state, code, how)

    def read(self, node: cst.Name, state: State, code: str, how: str) -> None:
        value = state.get(node.value)
        if isinstance(value, BlockPtr):
            self.refuse(value.creations, Refusal(code, f"block pointer `{node.value}` {how}", node))
        elif isinstance(value, Opaque):
            self.refuse_ambiguous(value, node)
        elif isinstance(value, Placeholder):
            self.knowledge.placeholder_used.update(value.statements)

    # -- joins ---------------------------------------------------------------------------------

    def join_all(self, states: list) -> Optional[State]:
        result = None
        for state in states:
            result = self.join(result, state)
        return result

    def join(self, a: Optional[State], b: Optional[State]) -> Optional[State]:
        if a is None or b is None:
            return dict(b if a is None else a) if (a or b) is not None else None
        return {name: self.join_values(name, a.get(name), b.get(name)) for name in a.keys() | b.keys()}

    def join_values(self, name: str, a: Optional[Value], b: Optional[Value]) -> Value:
        if a is None or b is None or a.key() == b.key():
            return b if a is None else a
        if isinstance(a, BlockPtr) and isinstance(b, BlockPtr):
            return self.join_pointers(name, a, b)
        pointer = a if isinstance(a, BlockPtr) else b if isinstance(b, BlockPtr) else None
        other = b if pointer is a else a
        if pointer is not None and isinstance(other, Placeholder):
            return self.join_placeholder(name, pointer, other)
        if isinstance(a, Placeholder) and isinstance(b, Placeholder):
            return Placeholder(a.statements | b.statements)
        creations = creations_of(a) | creations_of(b)
        return Opaque(creations) if creations else OTHER

    def join_pointers(self, name: str, a: BlockPtr, b: BlockPtr) -> Value:
        creations = a.creations | b.creations
        perms = {tuple(self.creations_by_id(c).permutation) for c in creations}
        if a.stem != b.stem or len(perms) != 1:
            self.refuse(creations, Refusal(ttd109_ambiguous_value.CODE, f"`{name}` holds block pointers with "
                                           "different descriptors on different paths", self.function.name))
            return Opaque(creations)
        self.knowledge.union(creations)
        dims = tuple(join_dims(x, y) for x, y in zip(a.dims, b.dims))
        for d, dim in enumerate(dims):
            if dim.expr is None:
                self.mark(dim.defs, d)
        return BlockPtr(creations, a.stem, dims, a.desc_stale or b.desc_stale, a.args_free | b.args_free,
                        a.args_stale or b.args_stale)

    def join_placeholder(self, name: str, pointer: BlockPtr, placeholder: Placeholder) -> Value:
        if pointer.stem != self.namer.stem(name):
            self.refuse(pointer.creations, Refusal(ttd109_ambiguous_value.CODE, f"`{name}` is `None` on some "
                                                   "paths", self.function.name))
            return Opaque(pointer.creations)
        for statement in placeholder.statements:
            self.knowledge.placeholder_links.setdefault(statement, set()).update(pointer.creations)
        return pointer

    # -- bookkeeping ---------------------------------------------------------------------------

    def mark(self, definitions: frozenset[int], dim: int) -> None:
        for definition in definitions:
            if (definition, dim) not in self.knowledge.materialize:
                self.knowledge.materialize.add((definition, dim))
                self.dirty = True

    def refuse(self, creations: frozenset[int], refusal: Refusal) -> None:
        for creation in creations:
            self.knowledge.refused.setdefault(creation, refusal)

    def refuse_ambiguous(self, value: Opaque, node: cst.Name) -> None:
        self.refuse(value.creations, Refusal(ttd109_ambiguous_value.CODE, f"`{node.value}` may hold a block "
                                             "pointer or another value here", node))

    def orphan(self, node: cst.CSTNode, message: str) -> None:
        self.orphans.append(Refusal(ttd201_crosses_function.CODE, message, node))

    def creations_by_id(self, creation: int) -> Creation:
        return self.creations[creation]

    def creation_of(self, value: BlockPtr) -> Creation:
        return self.creations[min(value.creations)]

    # -- results -------------------------------------------------------------------------------

    def class_of(self, creation: int) -> list[int]:
        root = self.knowledge.find(creation)
        return sorted(c for c in self.creations if self.knowledge.find(c) == root)

    def is_refused(self, creations) -> bool:
        return any(self.knowledge.refused.get(member) is not None
                   for creation in creations for member in self.class_of(creation))

    def refusal_for(self, creation: int) -> Optional[Refusal]:
        return next((self.knowledge.refused[m] for m in self.class_of(creation) if m in self.knowledge.refused),
                    None)

    def paddings(self, creations) -> set[str]:
        found = set()
        for creation in creations:
            for member in self.class_of(creation):
                found |= self.knowledge.paddings.get(member, set())
        return found or {"zero"}

    def descriptor_name(self, value: BlockPtr, padding: str) -> str:
        paddings = self.paddings(value.creations)
        return self.namer.descriptor(value.stem, padding if padding in paddings else min(paddings), paddings)

    def forms(self, creations) -> set[str]:
        """How the accesses of these block pointers are rewritten: {"descriptor"}, {"pointer"} or both."""
        members = [m for c in creations for m in self.class_of(c)]
        found = set().union(*(self.knowledge.forms.get(m, set()) for m in members))
        if found:
            return found
        blocked = any(self.creations[m].blockers for m in members) or self.policy.target == "pointer"
        return {"pointer" if blocked else "descriptor"}  # never accessed: what it would be

    def uses_descriptors(self, creations) -> bool:
        return "descriptor" in self.forms(creations)

    def class_notes(self, creation: int, notes: dict) -> dict:
        return {key: text for m in self.class_of(creation) for key, text in notes.get(m, {}).items()}

    def is_hoisted(self, creation: Creation) -> bool:
        return creation.hoist_before is not None and len(self.class_of(id(creation.call))) == 1 and \
            self.uses_descriptors({id(creation.call)})

    def descriptor_statements(self, creation: Creation) -> list:
        value_stem = self.namer.stem(creation.target)
        paddings = self.paddings({id(creation.call)})
        func = self.descriptor_function(creation.call.func)
        statements = []
        for padding in sorted(paddings, key=lambda p: p != "zero"):
            target = self.namer.descriptor(value_stem, padding, paddings)
            shift = len(f"{target} = {code_of(func)}") - len(f"{creation.target} = {code_of(creation.call.func)}")
            call = ttd001_descriptor.descriptor_call(creation.call, func, creation.permutation, padding, shift)
            statements.append(ttd002_advance.assign(target, call))
        return statements

    def descriptor_function(self, func: cst.BaseExpression) -> cst.BaseExpression:
        owner = func.value if isinstance(func, cst.Attribute) else self.language
        return cst.Attribute(owner, cst.Name("make_tensor_descriptor"))

    def creation_statements(self, node, creation: Creation) -> list:
        in_place = self.uses_descriptors({id(creation.call)}) and not self.is_hoisted(creation)
        statements = self.descriptor_statements(creation) if in_place else []
        for d, expr in enumerate(creation.offsets):
            if (id(creation.call), d) in self.knowledge.materialize:
                statements.append(ttd002_advance.assign(self.namer.offset(creation.target, d), expr))
        return statements

    def placeholder_statements(self, statement: int) -> Optional[tuple[frozenset[int], Builder]]:
        creations = frozenset(self.knowledge.placeholder_links.get(statement, ()))
        if not creations or statement in self.knowledge.placeholder_used or not self.uses_descriptors(creations):
            return None
        creation = self.creations[min(creations)]
        stem, paddings = self.namer.stem(creation.target), self.paddings(creations)
        return creations, lambda: [ttd002_advance.assign(self.namer.descriptor(stem, p, paddings), cst.Name("None"))
                                   for p in sorted(paddings, key=lambda p: p != "zero")]

    def hoisted(self) -> dict[int, list[tuple[frozenset[int], Builder]]]:
        before: dict[int, list] = {}
        for creation in self.creations.values():
            if creation.target is not None and self.is_hoisted(creation):
                before.setdefault(id(creation.hoist_before), []).append(
                    (frozenset({id(creation.call)}), lambda c=creation: self.descriptor_statements(c)))
        return before
