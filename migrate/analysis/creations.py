"""Creations: each `make_block_ptr` call (assigned, inline in an access, conditional, or a helper's call read
as the creation it returns), described as a Creation with what rules its descriptor out, and bound as a
BlockPtr value with its offsets. A part of FunctionAnalysis (shared.py)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import libcst as cst

from triton_migrate.rules import (
    ttd105_rank,
    ttd114_rejected_call,
    ttd118_unfollowed_use,
    ttd119_pipelined_creation,
)
from triton_migrate.syntax.nodes import canonical_code, code_of, int_value, tuple_elements
from triton_migrate.syntax.walk import descendants

from . import guards, inlining, invariance, planner
from .calls import (
    UnboundCall,
    bind,
)
from .records import Creation, Loop, Refusal
from .shared import Part
from .values import (
    BlockPtr,
    Dim,
    Opaque,
    Placeholder,
    State,
    Value,
)

if TYPE_CHECKING:
    from typing import TypeGuard  # Python 3.10 (annotations are not evaluated: 3.9 runs this)


def _is_arithmetic(node: cst.BaseExpression) -> bool:
    """An integer, or arithmetic on names, integers and calls: a scalar (only a tuple literal makes a tuple of
    arithmetic, `(1,) * 2`)."""
    if isinstance(node, cst.BinaryOperation):
        return all(_is_arithmetic(side) or isinstance(side, (cst.Name, cst.Call, cst.Attribute))
                   for side in (node.left, node.right))
    if isinstance(node, cst.UnaryOperation):
        return _is_arithmetic(node.expression) or isinstance(node.expression, cst.Name)
    return isinstance(node, cst.Integer)


def _elementwise(node: cst.IfExp) -> list | None:
    """`(a, 0) if REVERSE else (b, 0)` as `(a if REVERSE else b, 0)`: tuples of one length, element by element."""
    sides = [tuple_elements(node.body), tuple_elements(node.orelse)]
    if None in sides or len(sides[0]) != len(sides[1]):
        return None
    return [a if canonical_code(a) == canonical_code(b) else
            node.with_changes(body=a, orelse=b, lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
            for a, b in zip(*sides)]


class Creations(Part):
    def __init__(self, parts) -> None:
        super().__init__(parts)
        self._views: list | None = None  # views
        self._views_disagree: dict[str, bool] = {}  # a tensor argument -> views_disagree

    def create(self, node, name: str | None, call: cst.Call, state: State) -> Value:
        loops = tuple(id(owner.node) for owner in self.run.owners if isinstance(owner, Loop))
        creation = Creation(call, name, in_loops=loops, branched="if" in self.run.owners)
        self.run.creations[id(call)] = creation
        self.fn.knowledge.met(id(call))
        for argument in call.args:
            self.flow.visit(argument.value, state)
        refusal = self.describe(creation)
        if refusal is None and self.fn.knowledge.rejected is not None:
            refusal = Refusal(ttd114_rejected_call.CODE, ttd114_rejected_call.in_rejected(
                self.fn.function.name.value, self.fn.knowledge.rejected), call)
        if refusal is None and creation.blockers and planner.descriptors_only(self.fn.policy):
            refusal = Refusal(creation.blockers[0].code, creation.blockers[0].message, call)
        if refusal is not None:
            self.books.refuse(frozenset({id(call)}), refusal)
            return Opaque(frozenset({id(call)}))
        stem = self.fn.namer.stem(creation.name)
        self.mark_descriptor_reuse(stem, creation.name, state)
        creation.hoist_before = self.hoist_target(creation, stem)
        dims = tuple(self.define_dim(id(call), creation.name, d, expr, self.proofs(creation, d, expr), state)
                     for d, expr in enumerate(creation.offsets))
        # its statement: what only the end of the analysis knows (results.creation_record)
        self.run.stmt_edits[id(node)] = (frozenset({id(call)}), creation)
        args_free = frozenset().union(*map(self.fn.facts.free_names, creation.shape + creation.strides))
        return BlockPtr(frozenset({id(call)}), stem, dims, args_free=args_free,
                        base_free=self.fn.facts.free_names(creation.described_base), pointers=True)

    def create_conditional(self, node, name: str, value: cst.IfExp, state: State) -> Value:
        """`p = tl.make_block_ptr(...) if FLAG else None` (`conditional_creation`): a creation on one path and
        `None` on the other, joined as `if FLAG:` statements would be. The statements the creation gives keep
        the condition (results.py); masked pointers need none, so the line goes."""
        self.flow.visit(value.test, state)
        call = next(side for side in (value.body, value.orelse) if isinstance(side, cst.Call))
        pointer = self.create(node, name, call, state)
        creation = self.run.creations[id(call)]
        creation.condition = value
        creation.hoist_before = None  # the condition may not hold before a loop
        return self.flow.join_values(name, pointer, Placeholder(frozenset({id(value)})))

    def is_inline_creation(self, pointer: cst.BaseExpression) -> bool:
        """`tl.load(tl.make_block_ptr(...), ...)`, or `tl.load(_tile(...), ...)` of a helper that returns the
        creation it amounts to (inlining.py), on a line of one statement, where statements can go before."""
        return type(pointer) is cst.Call and self.run.line is not None and \
            (self.fn.names.member(pointer.func) == "make_block_ptr" or
             self.crossing.inlined_helper(pointer) is not None)

    def inline_creation(self, call: cst.Call, state: State) -> Value:
        """A creation that is the pointer of a load or store migrates as if it were assigned to a fresh name on
        the line before: what it creates (a descriptor) goes there, the access uses it. A helper's call is read
        as its creation, as `p = _tile(...)` is (create_inlined)."""
        name = self.fn.namer.inline(id(call), self.inline_name(call))
        inlined = None if self.fn.names.member(call.func) == "make_block_ptr" else self.crossing.inlined_helper(call)
        if inlined is None:  # the call is the creation (is_inline_creation: else a helper's call read as one)
            value = self.create(call, name, call, state)
        else:
            value = self.crossing.create_inlined(call, name, call, inlined, state)
        self.run.creations[id(call if inlined is None else inlined)].inline = True
        if not isinstance(value, BlockPtr):
            return value  # refused: it has no statements
        owners, record = self.run.stmt_edits.pop(id(call))
        self.run.line_edits.setdefault(id(self.run.line), {})[(name, "creation")] = (id(call), owners, record)
        return replace(value, pointers=False)  # no name holds them

    def created_in_access(self, pointer: cst.BaseExpression, creations: frozenset[int]) -> bool:
        """Whether the access's pointer is the creation itself, or a helper's call read as one."""
        return id(pointer) in creations or id(self.fn.inlined_calls.get(id(pointer))) in creations

    def inline_name(self, call: cst.Call) -> str:
        """`p_x` for `x = tl.load(tl.make_block_ptr(...))`, else after the base: `tl.store(tl.make_block_ptr(y,
        ...), ...)` gives `p_y`."""
        line = self.run.line  # is_inline_creation: the line is one statement
        statement = line.body[0] if line is not None else None
        target = statement.targets[0].target if type(statement) is cst.Assign and len(statement.targets) == 1 \
            else None
        base = call.args[0].value if call.args else None
        return "p_" + next((n.value for n in (target, base) if type(n) is cst.Name), "block")

    def conditional_creation(self, value: cst.BaseExpression) -> TypeGuard[cst.IfExp]:
        """`tl.make_block_ptr(...) if FLAG else None`, or `None if FLAG else tl.make_block_ptr(...)`. The
        condition is a compile-time value: Triton cannot select between a block pointer and `None` at run time."""
        if not isinstance(value, cst.IfExp):
            return False
        sides = [value.body, value.orelse]
        calls = [s for s in sides if isinstance(s, cst.Call) and self.fn.names.member(s.func) == "make_block_ptr"]
        return len(calls) == 1 and any(isinstance(s, cst.Name) and s.value == "None" for s in sides)

    def describe(self, creation: Creation) -> Refusal | None:
        """Fill in the creation's shape, strides, ...; or say why it has no descriptor."""
        call = creation.call
        try:
            bound = bind(call, "make_block_ptr", complete=not self.is_parameter_pointer(creation))
        except UnboundCall as error:
            return self.books.reject(str(error), call)
        if creation.target is None:
            return Refusal(ttd118_unfollowed_use.CODE, ttd118_unfollowed_use.CREATED_ELSEWHERE, call)
        parts = {key: self.tuple_part(bound[key].value) if key in bound else None
                 for key in ("shape", "strides", "offsets", "block_shape", "order")}
        ranks = {len(v) for k, v in parts.items() if v is not None}
        if ranks == {1}:  # a name where a 1-tuple is meant (`shape=N, block_shape=BN`): Triton reads one element
            parts = {key: [bound[key].value] if v is None and isinstance(bound[key].value, cst.Name) else v
                     for key, v in parts.items()}
        shape, strides, offsets, block = parts["shape"], parts["strides"], parts["offsets"], parts["block_shape"]
        if shape is None or strides is None or offsets is None or block is None or len(ranks) != 1 \
                or "base" not in bound:
            return Refusal(ttd105_rank.CODE, ttd105_rank.UNTOLD_ELEMENTS, call)
        rejected = self.rejected_creation(parts)
        if rejected is not None:
            return self.books.reject(rejected, call)
        creation.spelt = {key: parts[key] for key in parts if key in bound and parts[key] is not None
                          and tuple_elements(bound[key].value) is None}
        creation.base = self.fn.facts.movable(bound["base"].value)
        creation.shape, creation.strides, creation.offsets, creation.block = shape, strides, offsets, block
        order = [int_value(o) for o in parts["order"]] if parts["order"] is not None else None
        creation.order = None if order is None or None in order else order
        creation.stated = self.launch.stated_facts(creation)
        if id(call) in self.fn.knowledge.captured:
            self.capture_parts(creation)
        of_view = not self.is_parameter_pointer(creation) and "contiguous" in self.fn.facts.inline.at(call)
        creation.unit, creation.blockers, creation.stated_unit = planner.creation_obstacles(
            creation.shape, creation.strides, creation.offsets, creation.block,
            None if order is None or None in order else order, self.fn.facts, self.fn.policy,
            frozenset(self.run.unit_strides),
            "contiguous" in creation.stated, of_view, of_view or not self.views_disagree(creation))
        if self.created_in_each_pipelined_pass(creation):
            rule = ttd119_pipelined_creation
            creation.blockers.append(planner.Obstacle(rule.CODE, rule.MESSAGE))
        return None

    def created_in_each_pipelined_pass(self, creation: Creation) -> bool:
        """Whether the innermost loop around the creation calls `tl.dot` and changes what the creation reads
        (TTD119): its descriptor would be created in each pass of a loop that Triton pipelines."""
        loops = [owner for owner in self.run.owners if isinstance(owner, Loop)]
        if not loops or not self.fn.facts.calls_dot(loops[-1].node):
            return False
        return not invariance.is_invariant(_descriptor_arguments(creation), loops[-1].assigned, self.fn.names.member)

    def views_disagree(self, creation: Creation) -> bool:
        """Whether the function's block pointers over this creation's tensor put different strides last: at most
        one of them is then a plain view, and `contiguous` stated of the tensor cannot say which (a transposed
        view whose `order` agrees with its own positions is no different from a plain one)."""
        argument = guards.root_argument(creation.described_base, self.fn.facts, self.fn.arguments)
        if argument is None:
            return False
        if argument not in self._views_disagree:  # once per tensor: every creation over it asks
            self._views_disagree[argument] = self.last_strides_differ(argument)
        return self._views_disagree[argument]

    def last_strides_differ(self, argument: str) -> bool:
        """Whether the function's block pointers over `argument` put different strides last."""
        lasts = set()
        for root, strides in self.views():
            if root == argument:
                elements = self.tuple_part(strides)
                lasts.add(code_of(elements[-1]) if elements else None)
        return len(lasts) > 1

    def views(self) -> list[tuple[str | None, cst.BaseExpression]]:
        """The pointer argument and the strides of each of the function's `make_block_ptr` calls that names
        both, found once: every tensor asks (a walk per creation made large kernels quadratic)."""
        if self._views is None:
            self._views = []
            for call in descendants(self.fn.function, cst.Call):
                if self.fn.names.member(call.func) != "make_block_ptr":
                    continue
                try:
                    bound = bind(call, "make_block_ptr", complete=False)
                except UnboundCall:
                    continue
                if "base" in bound and "strides" in bound:
                    self._views.append((guards.root_argument(self.fn.facts.movable(bound["base"].value),
                                                             self.fn.facts, self.fn.arguments), bound["strides"].value))
        return self._views

    @staticmethod
    def rejected_creation(parts: dict) -> str | None:
        """Why Triton rejects a `make_block_ptr` whose tuples have one length (as literals say it), or None: no
        dimension, an `order` that is not a permutation of the dimensions, a block size that is not a positive
        power of two."""
        rank = len(parts["block_shape"])
        if rank == 0:
            return ttd114_rejected_call.NO_DIMENSION
        order = [int_value(o) for o in parts["order"] or ()]
        if order and None not in order and sorted(order) != list(range(rank)):
            return ttd114_rejected_call.order_not_permutation(tuple(order), rank)
        for size in map(int_value, parts["block_shape"]):
            if size is not None and (size <= 0 or size & (size - 1)):
                return ttd114_rejected_call.block_size_not_power(size)
        return None

    def is_parameter_pointer(self, creation: Creation) -> bool:
        """Whether the creation is a block-pointer parameter's, re-created from its parts (crossing.py)."""
        return self.fn.parameter_calls.get(creation.target) is creation.call

    def tuple_part(self, node: cst.BaseExpression) -> list | None:
        """The elements of a creation's shape, strides, offsets, block shape or order: a literal tuple, a name
        assigned one once (`shape = (M, N)`), what a helper that only returns a tuple returns, or one scalar
        (Triton reads `offsets=(i_k * BK)`, no tuple, as one offset)."""
        elements = tuple_elements(node)
        if elements is None and isinstance(node, cst.Name):
            elements = self.assigned_tuple(node.value)
        if elements is None and isinstance(node, cst.Call) and self.fn.names.member(node.func) is None:
            self.books.needs_program()
            elements = self.returned_tuple(node)
        if elements is None and isinstance(node, cst.IfExp):
            elements = _elementwise(node)
        if elements is None and _is_arithmetic(node):
            elements = [node]
        return None if elements is None else [self.fn.facts.movable(e) for e in elements]

    def assigned_tuple(self, name: str) -> list | None:
        """The elements of the one tuple `name` is assigned, if each name they read holds one value all along
        (a parameter never assigned, or a name assigned once): they mean at the creation what they meant there."""
        assignments = self.fn.facts.assignments
        values = assignments.get(name, [])
        elements = tuple_elements(values[0]) if len(values) == 1 and name not in self.fn.facts.params else None
        if elements is None:
            return None
        read = set().union(*(self.fn.facts.free_names(e) for e in elements))
        steady = all(len(assignments.get(n, [])) == (0 if n in self.fn.facts.params else 1) for n in read)
        return elements if steady else None

    def returned_tuple(self, call: cst.Call) -> list | None:
        """`helper(M, N)` where the helper only returns a tuple of its parameters: that tuple, for the call's
        arguments (inlining.py)."""
        key = self.fn.place.resolve(call.func)
        if key is None:
            return None
        bound = self.fn.place.bind(key, call)
        return inlining.returned_tuple(self.fn.place.program.helpers[key].node, bound) if bound is not None else None

    def capture_parts(self, creation: Creation) -> None:
        """A base, shape or stride that reads a name assigned again before an access (`DQ += ...` after
        `make_block_ptr(base=DQ, ...)`, a loop variable `k` shadowing the `k` of the shape) is read at the access
        by masked pointers: it is captured in a variable at the creation (`dq_tile_base = DQ`), as the block
        pointer captured its value there."""
        stale = self.fn.knowledge.stale_names.get(id(creation.call), set())
        creation.captured = True

        def captured(kind: str, d: int, expr: cst.BaseExpression) -> cst.BaseExpression:
            if not self.fn.facts.free_names(expr) & stale:
                return expr
            self.fn.knowledge.merged.setdefault(id(creation.call), {})[(kind, d)] = expr
            return cst.Name(self.fn.namer.part(creation.name, kind, d))

        # The pointers a name holds read the base only where they are created; an access that rebuilds them
        # from the parts reads it there (the shape a mask reads, a stride an advance moves them by: always).
        if id(creation.call) in self.fn.knowledge.rebuilt:
            creation.base = captured("base", 0, creation.described_base)
        creation.shape = [captured("shape", d, e) for d, e in enumerate(creation.shape)]
        creation.strides = [captured("stride", d, e) for d, e in enumerate(creation.strides)]

    def proofs(self, creation: Creation, dim: int, expr: cst.BaseExpression) -> dict[str, bool]:
        """What is proven about an offset (or a delta) in dimension `dim`: the TMA constraints."""
        return {"aligned": dim != creation.unit or creation.unit is None or
                self.fn.facts.is_aligned(expr, creation.block[dim]),
                "nonnegative": self.fn.is_nonnegative(expr)}

    def define_dim(self, definition: int, name: str, dim: int, expr, proofs: dict, state: State) -> Dim:
        """The offset `name` has in `dim` after `definition`; a variable if it must be materialized."""
        if (definition, dim) in self.fn.knowledge.materialize:
            var = self.fn.namer.offset(name, dim)
            self.flow.invalidate(var, state)
            return Dim(cst.Name(var), var, frozenset({var}), frozenset({definition}), **proofs)
        facts = self.fn.facts
        return Dim(expr, facts.canonical_code(expr), facts.free_names(expr), frozenset({definition}), **proofs)

    def mark_descriptor_reuse(self, stem: str, name: str, state: State) -> None:
        for other, value in state.items():
            if isinstance(value, BlockPtr) and value.stem == stem and other != name:
                state[other] = replace(value, desc_stale=True)

    def hoist_target(self, creation: Creation, stem: str) -> cst.CSTNode | None:
        arguments = _descriptor_arguments(creation)
        target = None
        for owner in reversed(self.run.owners):
            if not isinstance(owner, Loop) or not invariance.is_invariant(arguments, owner.assigned,
                                                                          self.fn.names.member):
                break
            if any(isinstance(v, BlockPtr) and v.stem == stem and v.creations != {id(creation.call)}
                   for v in owner.head.values()):
                break
            target = owner.node
        return target


def _descriptor_arguments(creation: Creation) -> list[cst.BaseExpression]:
    """What a descriptor of the creation is made from (its base, shape, strides and block), which its offsets
    are not: where a loop changes none of them, the descriptor can be created once before it."""
    return [creation.call.args[0].value, *creation.shape, *creation.strides, *creation.block]
