"""Block pointers across `@triton.jit` calls: a part of FunctionAnalysis (shared.py).

A block pointer passed to a helper travels as its parts (base, shape, strides, offsets, block shape), and
the helper re-creates it on entry; the analysis sees `p = tl.make_block_ptr(p_base, ...)` there, the output
never does. From then on the helper is migrated like any function: its descriptor is created where it is
used (what Intel's 2D block path needs), and a `noinline=True` helper stays self-contained, since only
integers and the base pointer cross the boundary, never a tile or a descriptor. A helper that returns the
block pointer returns its offsets instead, and the caller unpacks them into its own offset variables (returns.py).
Parts that are the same literal at every call site (a unit stride, a block width) are not passed at all:
the helper keeps the literal, so it proves what its callers could.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from triton_migrate.forms import Form
from triton_migrate.rules import ttd003_access, ttd118_unfollowed_use, ttd201_crosses_function
from triton_migrate.syntax.nodes import canonical_code, code_of, int_value, parsed

from . import inlining, planner
from .calls import advanced_base, member_called
from .interfaces import ABSENT, ABSENT_ZERO, SiteFacts, part_kinds
from .module_index import Key, Unit
from .records import BaseTest, HelperCallParts, Passed, Refusal
from .shared import Part
from .values import (
    BlockPtr,
    Placeholder,
    State,
    is_none,
    is_placeholder,
)


class Crossing(Part):
    def __init__(self, parts) -> None:
        super().__init__(parts)
        self.unpacking: int | None = None  # id of the helper call whose result an assignment unpacks (returns.py)

    def parameter_pointers(self, state: State) -> None:
        """Bind each block-pointer parameter to the block pointer re-created from its parts."""
        self.run.entry_edits = []
        self.run.returned = []
        # The helper's spelling of each stride that is a unit stride at every call site: a literal 1, or a
        # kernel stride parameter the JIT specialises to 1 (TTD103), which reaches the helper as a constant.
        self.run.unit_strides = set()
        for param in self.fn.function.params.params:
            interface = self.fn.context.entry.get(param.name.value) if self.fn.context else None
            if interface is not None:
                self.parameter_pointer(param, interface, state)

    def parameter_pointer(self, param: cst.Param, interface: SiteFacts, state: State) -> None:
        name = param.name.value
        if interface.unit is not None:
            self.run.unit_strides.add(interface.kept().get(("stride", interface.unit)) or
                                  self.fn.namer.part(name, "stride", interface.unit))
        # One call node for every rerun: what the analysis learns is keyed by the creation's id.
        calls = self.fn.parameter_calls
        call = calls.get(name) or calls.setdefault(name, self.recreation(name, interface))
        value = self.creating.create(param, name, call, state)
        self.run.creations[id(call)].anchor = param
        built = self.run.stmt_edits.pop(id(param), None)
        if built is not None:
            self.run.entry_edits.append(built)
        if isinstance(value, BlockPtr):  # the offsets are what every caller proved about them
            # The parts are not a block pointer the source created here: a caller may pass `None` for them
            # (`p = None` on its other paths), so no pointers are computed on entry, only at each access.
            value = replace(value, pointers=False, dims=tuple(replace(dim, aligned=a, nonnegative=n) for dim, a, n
                                                              in zip(value.dims, interface.aligned,
                                                                     interface.nonnegative)))
        state[name] = value

    def recreation(self, name: str, interface: SiteFacts) -> cst.Call:
        """`tl.make_block_ptr(p_base, (p_shape0, ...), ...)`: the block pointer the parameter's parts describe."""
        parts = {kind: cst.Name(self.fn.namer.part(name, *kind)) for kind in part_kinds(interface.rank)}
        parts.update({kind: parsed(text) for kind, text in interface.kept().items()})
        tuples = [cst.Tuple([cst.Element(parts[(kind, d)]) for d in range(interface.rank)])
                  for kind in ("shape", "stride", "start", "block")]
        # An order the callers did not spell as a literal stays unknown here too (no argument): the helper then
        # finds the unit stride as they did, from a literal 1 only. Masked pointers never need it.
        order = [] if interface.order is None else \
            [cst.Arg(cst.Tuple([cst.Element(cst.Integer(str(o))) for o in interface.order]))]
        return cst.Call(cst.Attribute(self.fn.language, cst.Name("make_block_ptr")),
                        [cst.Arg(parts[("base", 0)])] + [cst.Arg(t) for t in tuples] + order)

    def parameter_names(self, param: cst.Param) -> list[tuple[str, bool]]:
        """(name, is constexpr) of the parameters that replace a block-pointer parameter."""
        interface = self.fn.place.entry[param.name.value]
        return [(self.fn.namer.part(param.name.value, *kind), kind[0] == "block") for kind in interface.passed()]

    def untracked_origin(self, pointer: cst.BaseExpression) -> str:
        """`pointer`, used as a block pointer this function does not track, and where it comes from: a parameter
        its callers cannot pass as parts (and why), or a value from elsewhere."""
        if not isinstance(pointer, cst.Name):
            return ttd201_crosses_function.not_followed(canonical_code(pointer))
        helper, name = self.fn.context.helper if self.fn.context is not None else None, pointer.value
        mixed = self.mixed_helper(name)
        if mixed is not None:
            return ttd201_crosses_function.mixed_returns(name, mixed)
        if helper is None or name not in self.fn.facts.params:
            return ttd201_crosses_function.not_created_here(name)
        if not self.fn.place.is_called() and self.fn.facts.grid_launched:
            return ttd201_crosses_function.launched_parameter(name, helper.qualname)
        if not self.fn.place.is_called():
            return ttd201_crosses_function.uncalled_parameter(name, helper.qualname)
        why = self.fn.place.refusal(helper, name)
        if why is None:
            return ttd201_crosses_function.unfilled_parameter(name)
        return ttd201_crosses_function.unpassable_parameter(name, why)

    def mixed_helper(self, name: str) -> str | None:
        """The helper `name` is assigned the result of, where it returns a block pointer on some compile-time
        branch and something else on another (inlining.returned_kinds); else None."""
        if self.fn.context is None:
            return None
        for call in [v for v in self.fn.facts.assignments.get(name, []) if isinstance(v, cst.Call)]:
            key = self.fn.place.resolve(call.func)
            helper = self.fn.place.program.helpers[key] if key is not None else None
            if helper is not None and inlining.returned_kinds(helper.node, helper.unit.names.member) == {"creation",
                                                                                                         "other"}:
                return canonical_code(call.func)
        return None

    def none_pointer(self, pointer: cst.BaseExpression, state: State) -> str | None:
        """How `pointer`, used as a block pointer, is `None` (or `0`) wherever this runs: a name that is so here,
        or a parameter every call fills so, which the function only ever advances in place; else None."""
        if not isinstance(pointer, cst.Name):
            return None
        name = pointer.value
        if isinstance(state.get(name), Placeholder):
            return ttd003_access.none_here(name)
        advanced_only = all(isinstance(v, cst.Call) and member_called(v, self.fn.names) == "advance" and
                            isinstance(base := advanced_base(v, self.fn.names), cst.Name) and base.value == name
                            for v in self.fn.facts.assignments.get(name, []))
        if self.fn.context is not None and name in self.fn.facts.params and advanced_only and \
                self.fn.place.always_none(name):
            return ttd003_access.always_none(name)
        return None

    def parameter_of(self, value: BlockPtr) -> str | None:
        creation = self.books.creation_of(value)
        anchored = len(value.creations) == 1 and isinstance(creation.anchor, cst.Param)
        return creation.target if anchored else None

    def inlined_helper(self, value: cst.BaseExpression) -> cst.Call | None:
        """The creation that a call of a helper returning one amounts to (inlining.py), or None. One node per
        call for every rerun: what the analysis learns is keyed by the creation's id."""
        if type(value) is not cst.Call or self.fn.context is None:
            return None
        if id(value) not in self.fn.inlined_calls:
            self.fn.inlined_calls[id(value)] = self.creation_returned(self.fn.place.unit, value, frozenset())
        return self.fn.inlined_calls[id(value)]

    def creation_returned(self, unit: Unit, call: cst.Call, seen: frozenset) -> cst.Call | None:
        """The creation a call, in `unit`, of a helper that returns one amounts to; a helper may return another
        helper's (`return _tile(base, ..., pid * BR, ...)`), at any depth short of recursion (`seen`)."""
        program = self.fn.place.program
        key = program.resolve(unit, call.func)
        if key is None or key in seen:
            return None
        bound = self.fn.place.bind(key, call)
        if bound is None:
            return None
        helper = program.helpers[key]
        return inlining.inlined_creation(helper.node, bound, helper.unit.names.member, self.fn.language,
                                         lambda inner: self.creation_returned(helper.unit, inner, seen | {key}))

    def create_inlined(self, node, name: str, call: cst.Call, creation: cst.Call, state: State):
        """`p = helper(...)`, read as the creation it amounts to: the statement becomes the creation's."""
        self.flow.visit_children(call, state)
        value = self.creating.create(node, name, creation, state)
        self.run.creations[id(creation)].anchor = call
        return value

    def helper_call(self, node: cst.Call, state: State) -> bool:
        """A call of a helper in the program with block pointers (or advanced ones) among its arguments."""
        helper = self.fn.context.resolve(node.func) if self.fn.context else None
        if helper is None:
            return False
        bound = self.fn.place.bind(helper, node)
        if bound is None:
            return False
        moved = {p: self.moves.pointer(a.value, state) for p, a in bound.items() if self.passes_pointer(a.value, state)}
        pointers = {p: resolved for p, resolved in moved.items() if resolved is not None}
        absent = {p: a.value for p, a in bound.items() if p not in pointers and self.passes_placeholder(a.value, state)}
        for param in bound:
            facts = self.site_facts(*pointers[param], bound, self.fn.place.constexprs(helper)) \
                if param in pointers else (ABSENT_ZERO if self.zero_placeholder(absent[param], state) else ABSENT) \
                if param in absent else None
            self.fn.place.record(helper, param, node, facts, pointers[param][0].creations if param in pointers
                                else frozenset())
        if not pointers and not any(self.fn.place.interface(helper, p) for p in absent):
            return False
        if any(self.fn.place.returns(helper) or ()) and id(node) != self.unpacking:
            callee = canonical_code(node.func)
            for value, _ in pointers.values():
                self.books.refuse(value.creations, Refusal(ttd201_crosses_function.CODE,
                                                     ttd201_crosses_function.not_unpacked(callee), node))
            return True
        for param, arg in bound.items():
            if param not in pointers:
                self.flow.visit(arg.value, state, ttd201_crosses_function.CODE, ttd201_crosses_function.PASSED)
        passed = {}
        for param, (value, deltas) in pointers.items():
            why = self.fn.place.refusal(helper, param)
            interface = self.fn.place.interface(helper, param)
            if why is None and interface is None:
                # Not (yet) settled: the helper keeps its parameter, so the block pointer must stay too
                # (a later round that settles it analyses this caller again, without this refusal).
                why = ttd201_crosses_function.UNSETTLED
            parts = self.passed_parts(helper, param, interface, value, deltas, node) \
                if why is None and interface is not None else None
            if why is not None:
                callee = canonical_code(node.func)
                self.books.refuse(value.creations, Refusal(ttd201_crosses_function.CODE,
                                                     ttd201_crosses_function.no_parts(callee, why), node))
            if parts is not None:
                passed[param] = parts
                self.accesses.record_form(value, Form.PARTS, [])
        for param in absent:
            interface = self.fn.place.interface(helper, param)
            if interface is not None:  # `None` in every part: the helper receives no block pointer where it did
                kinds = interface.passed()
                passed[param] = Passed(self.fn.place.part_names(helper, param, kinds),
                                       [cst.Name("None")] * len(kinds))
        if passed:
            owners = frozenset().union(*(pointers[p][0].creations for p in passed if p in pointers))
            self.run.expr_edits[id(node)] = (owners, HelperCallParts(node, {id(bound[p]): parts
                                                                             for p, parts in passed.items()}))
        return True

    def visit_unpacked(self, call: cst.Call, state: State) -> None:
        """Visit a call of a helper that hands block pointers back, whose result the statement takes apart
        (returns.py): its block pointers go as parts, not refused as a result no one unpacks."""
        self.unpacking = id(call)
        try:
            self.flow.visit(call, state)
        finally:
            self.unpacking = None

    def call_to_nothing(self, node: cst.Call, callee: str, state: State) -> None:
        """`attn_fwd_common(Q_block_ptr, ...)` where nothing binds `attn_fwd_common` (ROCm/aotriton's
        old_fwd_kernel.py, left behind by a refactoring): the kernel fails to compile there, on every Triton
        version, before any argument is evaluated. A block pointer passed to it migrates to masked pointers held
        by its name, which the call passes on: it fails as it did, and nothing it passes goes unread."""
        for argument in node.args:
            value = state.get(argument.value.value) if isinstance(argument.value, cst.Name) else None
            if not isinstance(value, BlockPtr):
                self.flow.visit(argument.value, state, ttd201_crosses_function.CODE, ttd201_crosses_function.PASSED)
                continue
            value = self.books.settle(value)
            if not value.pointers or self.emit.pointer_problem(value, named=True) is not None:
                self.flow.visit(argument.value, state, ttd201_crosses_function.CODE,
                                ttd201_crosses_function.undefined_unnamed(callee))
                continue
            self.fn.knowledge.named.update(value.creations)
            obstacle = planner.Obstacle(ttd201_crosses_function.CODE, ttd201_crosses_function.undefined(callee))
            self.accesses.record_form(value, Form.POINTER, [obstacle], id(argument))
            if not any(use.node is node for use in self.run.dead_uses):
                self.run.dead_uses.append(Refusal(ttd201_crosses_function.CODE,
                                                  ttd201_crosses_function.undefined_call(callee), node))

    @staticmethod
    def passes_placeholder(argument: cst.BaseExpression, state: State) -> bool:
        """`None` (or `0`) where other call sites pass a block pointer: a literal, or a name that holds one."""
        return is_placeholder(argument) or isinstance(argument, cst.Name) and \
            isinstance(state.get(argument.value), Placeholder)

    def zero_placeholder(self, node: cst.BaseExpression, state: State) -> bool:
        """Whether this `None`-like argument is (or holds, on some path) a `0`."""
        if isinstance(node, cst.Name) and isinstance(state.get(node.value), Placeholder):
            return any(not is_none(self.run.placeholders[s].value) for s in state[node.value].statements
                       if s in self.run.placeholders)
        return not is_none(node)

    def passes_pointer(self, argument: cst.BaseExpression, state: State) -> bool:
        """`p` or `tl.advance(p, ...)` for a tracked block pointer `p`."""
        pointer = advanced_base(argument, self.fn.names) \
            if isinstance(argument, cst.Call) and member_called(argument, self.fn.names) == "advance" else argument
        return isinstance(pointer, cst.Name) and isinstance(state.get(pointer.value), BlockPtr)

    def passed_parts(self, helper: Key, param: str, interface: SiteFacts, value: BlockPtr, deltas,
                     call: cst.Call) -> Passed | None:
        self.fn.knowledge.rebuilt.update(value.creations)  # the helper reads the base too
        if self.emit.pointer_problem(value) is not None:
            self.books.refuse(value.creations, Refusal(ttd118_unfollowed_use.CODE,
                                                       ttd118_unfollowed_use.PARTS_NEED_UNCHANGED, call))
            return None
        offsets = self.moves.offsets(value, deltas)
        if offsets is None:
            return None  # paths disagree on an offset: the rerun materializes it
        # Block pointers merged from several creations (an `if`/`else` creating from two shapes) pass the
        # variables each creation assigns where their parts differ (`p_shape0`), as masked pointers read them.
        base, shape, strides, blocks, ranged = self.emit.merged_parts(value)
        if self.nullable(value):
            base = self.base_variable(value)  # `None` on the paths that make no block pointer
        if ranged:
            self.books.refuse(value.creations, Refusal(ttd118_unfollowed_use.CODE,
                                                 ttd118_unfollowed_use.MERGED_BLOCK_SHAPES, call))
            return None
        source = {("base", 0): base}
        for d in range(interface.rank):
            source.update({("shape", d): shape[d], ("stride", d): strides[d],
                           ("start", d): offsets[d], ("block", d): blocks[d]})
        kinds = interface.passed()
        return Passed(self.fn.place.part_names(helper, param, kinds), [source[k] for k in kinds])

    def nullable(self, value: BlockPtr) -> bool:
        """Whether some path makes this name `None` (or `0`) instead of a block pointer (`else: p = None`), or
        it is a parameter some call fills so."""
        owner = self.parameter_of(value)
        if owner is not None and self.fn.place.entry[owner].nullable:
            return True
        return bool(value.creations & set().union(*self.fn.knowledge.placeholder_links.values()))

    def maybe_zero(self, value: BlockPtr) -> bool:
        """Whether some path makes this name `0` instead of a block pointer, or it is a parameter some call fills
        so: a `p is None` cannot ask its base (which is `None` there) what it asked of `p`."""
        owner = self.parameter_of(value)
        if owner is not None and self.fn.place.entry[owner].zero:
            return True
        placeholders = self.run.placeholders
        return any(not is_none(placeholders[s].value) for s, linked in self.fn.knowledge.placeholder_links.items()
                   if linked & value.creations and s in placeholders)

    def base_variable(self, value: BlockPtr) -> cst.Name:
        """`p_base`, a variable each creation of the block pointer assigns and the paths that make none (`else:
        p = None`) set to what they set `p` to (results.placeholder_statements): `None` exactly where `p` is."""
        for creation in value.creations:
            self.fn.knowledge.merged.setdefault(creation, {})[("base", 0)] = self.books.creations_by_id(creation).base
        return cst.Name(self.fn.namer.part(self.books.creation_of(value).name, "base", 0))

    def none_test(self, node: cst.Comparison, state: State) -> bool:
        """`p is None` / `p is not None` on a block pointer (applied-ai's `if bias_ptr is not None:`), a test
        Triton decides at compile time: its base is `None` exactly where `p` is (a parameter's, as its caller
        passed it; another's, `base_variable`)."""
        target = node.comparisons[0] if len(node.comparisons) == 1 else None
        if target is None or not isinstance(target.operator, (cst.Is, cst.IsNot)) or \
                not isinstance(node.left, cst.Name) or not is_placeholder(target.comparator):
            return False
        value = state.get(node.left.value)
        if not isinstance(value, BlockPtr):
            return False
        if self.maybe_zero(value):
            self.books.refuse(value.creations, Refusal(ttd118_unfollowed_use.CODE,
                                                       ttd118_unfollowed_use.zero_for_none(node.left.value), node))
            return True
        owner = self.parameter_of(value)
        base = cst.Name(self.fn.namer.part(owner, "base", 0)) if owner is not None else self.base_variable(value)
        self.run.expr_edits[id(node)] = (value.creations, BaseTest(base))
        return True

    def site_facts(self, value: BlockPtr, deltas, bound: dict, constexprs: set[str]) -> SiteFacts:
        """What this call passes; for block pointers merged from several creations, what they agree on (a part
        they spell differently is passed, an order or unit stride they disagree on is unknown). A block size
        the helper spells with one of its parameters must be a `tl.constexpr` one (`tl.arange` needs it)."""
        creations = [self.books.creations_by_id(c) for c in self.fn.knowledge.in_order(value.creations)]
        rank = len(creations[0].block)
        sizes = {p: a for p, a in bound.items() if p in constexprs}
        fixed = tuple(texts.pop() if len(texts := {self.fixed_part(n, sizes if i >= 2 * rank else bound)
                                                   for n in parts}) == 1 else None
                      for i, parts in enumerate(zip(*(c.shape + c.strides + c.block for c in creations))))
        proven = self.moves.proven_offsets(value, deltas)
        orders = {None if c.order is None else tuple(c.order) for c in creations}
        units = {c.unit for c in creations}
        return SiteFacts(rank, orders.pop() if len(orders) == 1 else None, fixed,
                         tuple(p["aligned"] for p in proven), tuple(p["nonnegative"] for p in proven),
                         units.pop() if len(units) == 1 else None, self.nullable(value), self.maybe_zero(value))

    @staticmethod
    def fixed_part(node: cst.BaseExpression, bound: dict) -> str | None:
        """How the helper can spell a part without receiving it: a literal, or the helper's own parameter that
        receives the same expression at this call (`_step(acc, a_bp, BK)` with block width `BK`), which keeps
        what the helper can prove about it (an advance by `BK` is a whole block)."""
        if int_value(node) is not None:
            return code_of(node)
        text = canonical_code(node)
        return next((param for param, arg in bound.items() if canonical_code(arg.value) == text), None)
