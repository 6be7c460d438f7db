"""What a finished analysis hands to the rewriter and the report: which block pointers are refused, how
each is rewritten, and the statements that create descriptors. A mixin of FunctionAnalysis."""

from __future__ import annotations

from typing import Callable, Optional

import libcst as cst

from triton_migrate.policy import FACTS
from triton_migrate.rules import ttd009_launch_guard, ttd010_stated_facts, ttd107_narrow_block
from triton_migrate.syntax.forms import advance, block_width, compat, descriptor, helper_parts, launch_guard, masked_pointers
from triton_migrate.syntax.nodes import canonical_code, code_of, int_value

from . import guards, planner
from .calls import bind, is_jit
from .records import Creation, Refusal
from .values import BlockPtr

Builder = Callable[..., object]
CHECKED_AT_LAUNCH = ("contiguous", "aligned", "aligned-rows")  # what a launch's arguments decide
PART_ORDER = ("base", "shape", "stride", "range")


class Results:
    # -- results -------------------------------------------------------------------------------

    def class_of(self, creation: int) -> list[int]:
        root = self.knowledge.find(creation)
        return self.knowledge.in_order(c for c in self.creations if self.knowledge.find(c) == root)

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
        return self.namer.descriptor(value.stem, padding if padding in paddings else min(paddings), paddings,
                                     self.handle_kind)

    @property
    def handle_kind(self) -> str:
        return "tile" if self.policy.target == "compat" else "desc"

    def forms(self, creations) -> set[str]:
        """How the accesses of these block pointers are rewritten: {"descriptor"}, {"pointer"} or both."""
        members = [m for c in creations for m in self.class_of(c)]
        found = set().union(*(self.knowledge.forms.get(m, set()) for m in members))
        if found:
            return found
        if self.policy.target == "compat":
            return {"compat"}
        blocked = any(self.creations[m].blockers for m in members) or self.policy.target == "pointer"
        return {"pointer" if blocked else "descriptor"}  # never accessed: what it would be

    def uses_descriptors(self, creations) -> bool:
        """Whether these block pointers need handles: descriptors, or compat tiles. One that is never loaded
        or stored through (a helper that only moves its block pointer) needs none: creating it would cost
        a device-side descriptor for nothing."""
        recorded = set().union(*(self.knowledge.forms.get(m, set()) for c in creations for m in self.class_of(c)))
        return bool(recorded & {"descriptor", "compat"})

    def reads_pointers(self, creations) -> bool:
        """Whether some masked access reads these block pointers' pointers from the name that holds them, so
        that their creations and advances assign them (sites.pointer_builder)."""
        return any(m in self.knowledge.named for c in creations for m in self.class_of(c))

    def moving_dims(self, creations) -> set[int]:
        """The dimensions these block pointers move in (an advance, or an access through one)."""
        return {d for c in creations for m in self.class_of(c) for d in self.knowledge.moving.get(m, ())}

    def creation_pointers(self, creation: Creation) -> cst.BaseExpression:
        """`q + o_t[:, None] * (H*K) + o_k[None, :]`: the addresses of the block where it is created, without
        the offsets of the dimensions it moves in (each access adds those: sites.shifted)."""
        moving = self.moving_dims({id(creation.call)})
        axes = [masked_pointers.Axis(self.language, cst.Integer("0") if d in moving else offset, block,
                                     along=shape)
                for d, (offset, block, shape) in enumerate(zip(creation.offsets, creation.block, creation.shape))]
        return masked_pointers.addresses(creation.base, creation.strides, axes, self.namer.placeholder)

    def creation_mask(self, creation: Creation, checked: frozenset[int]) -> cst.BaseExpression:
        """`m_v[:, None] & m_k[None, :]`: where the block lies inside its shape, as created (sites.masks_at_creation)."""
        bounds = {d: masked_pointers.Bound(
            masked_pointers.Axis(self.language, creation.offsets[d], creation.block[d], along=creation.shape[d]),
            creation.shape[d],
            not self.facts.is_nonnegative(creation.offsets[d])) for d in checked}
        return masked_pointers.mask(bounds, len(creation.block), self.namer.placeholder)

    def is_guarded(self, creations) -> bool:
        """Whether these block pointers' descriptors are chosen at launch (TTD009), masked pointers otherwise."""
        members = [m for c in creations for m in self.class_of(c)]
        return any(m in self.knowledge.guarded for m in members) and \
            all(isinstance(self.launch_check(self.creations[m]), guards.Check) for m in members)

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
            impl = self.compat_impl(c) if self.policy.target == "compat" else None
            paddings = tuple(sorted(self.paddings({id(c.call)})))
            return (self.facts.canonical_code(c.base), *map(self.facts.canonical_code, c.block), impl, paddings)

        stem = self.namer.stem(creation.target)
        return any(other.target is not None and id(other.call) not in self.class_of(id(creation.call)) and
                   self.namer.stem(other.target) == stem and self.uses_descriptors({id(other.call)}) and
                   kind(other) != kind(creation) for other in self.creations.values())

    def descriptor_statements(self, creation: Creation) -> list:
        value_stem = self.namer.stem(creation.target)
        paddings = self.paddings({id(creation.call)})
        func = self.descriptor_function(creation.call.func)
        statements = []
        for padding in sorted(paddings, key=lambda p: p != "zero"):
            target = self.namer.descriptor(value_stem, padding, paddings, self.handle_kind)
            if self.policy.target == "compat":
                impl = self.compat_impl(creation)
                if impl == "auto" and self.is_guarded({id(creation.call)}):
                    impl = launch_guard.guarded(self.guard_flag, cst.SimpleString('"auto"'),
                                                cst.SimpleString('"emu"'), grouped=False)
                elif impl == "auto" and len(creation.block) <= 3:  # no launch check: the emulation, always legal
                    impl = "emu"
                bound = bind(self.spelt_call(creation), "make_block_ptr", complete=False)
                call = compat.make_tile(self.shim, bound, padding, impl)
            else:
                shift = len(f"{target} = {code_of(func)}") - len(f"{creation.target} = "
                                                                 f"{code_of(creation.call.func)}")
                spelt = self.spelt_call(creation)
                call = descriptor.descriptor_call(spelt, bind(spelt, "make_block_ptr"), func, creation.permutation,
                                                  padding, shift)
            statements.append(advance.assign(target, call))
        return statements

    @staticmethod
    def spelt_call(creation: Creation) -> cst.Call:
        """The creation's call with the tuples it takes from elsewhere (a name assigned one, a helper's result)
        spelt out."""
        if not creation.spelt:
            return creation.call
        bound = bind(creation.call, "make_block_ptr", complete=False)
        spelt = {id(bound[key]): cst.Tuple([cst.Element(e) for e in elements])
                 for key, elements in creation.spelt.items()}
        return creation.call.with_changes(args=[arg.with_changes(value=spelt[id(arg)]) if id(arg) in spelt else arg
                                                for arg in creation.call.args])

    def compat_impl(self, creation: Creation) -> str:
        """The shim's emulation where a descriptor is provably wrong for this block pointer (an unaligned
        or int64 offset, no unit last stride, ...) or where its base carries an offset computed in the
        kernel that is not provably 16-byte aligned (`q + (bos * H + i_h) * K`: no launch guard can check
        that); otherwise "auto", which a launch guard can refine from the argument tensors."""
        emulated = creation.blockers or creation.permutation != sorted(creation.permutation) or \
            self.class_notes(id(creation.call), self.knowledge.reasons) or (
                not self.is_guarded({id(creation.call)}) and
                planner.unproven_base_offsets(creation.base, creation.block, creation.unit, self.facts))
        return "emu" if emulated else "auto"

    def guarded_statements(self, creation: Creation, statements: list) -> list:
        """A guarded descriptor (TTD009) is created only in the variant that uses it: `if USE_DESCRIPTORS:`,
        which Triton resolves at compile time (a `None` in its place would not survive a run-time `if`)."""
        if not statements or self.policy.target == "compat":
            return statements
        if self.is_guarded({id(creation.call)}):
            return [launch_guard.only_with(self.guard_flag, statements)]
        if self.width_tested({id(creation.call)}):
            return [launch_guard.only_with(self.width_flag(), statements)]
        return statements

    def width_tested(self, creations) -> bool:
        """Whether these block pointers' plain descriptors exist only where the compile-time test of their
        block widths holds (TTD107)."""
        return self.policy.target != "compat" and not self.is_guarded(creations) and \
            self.uses_descriptors(creations) and bool(self.width_tests(creations))

    def width_flag(self) -> str:
        """The name of the compile-time test of block widths (TTD107): the launch guard's flag's, in a function
        that has no launch guard."""
        guarded = any(self.is_guarded({id(c.call)}) and not self.is_refused({id(c.call)})
                      for c in self.creations.values())
        return self.namer.flag(ttd107_narrow_block.FLAG) if guarded else self.guard_flag

    def with_width_flag(self, function: cst.FunctionDef) -> cst.FunctionDef:
        """The function with its compile-time test of block widths (TTD107) first in its body (after its
        docstring), where some descriptor needs one."""
        tested = [c for c in self.knowledge.in_order(self.creations) if not self.is_refused({c}) and
                  self.width_tested({c})]
        tests = {code_of(t): t for c in tested for t in self.width_tests({c})}
        if not tests:
            return function
        body = list(function.body.body)
        at = 1 if body and isinstance(body[0], cst.SimpleStatementLine) and \
            isinstance(body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString) else 0
        body.insert(at, block_width.flag(self.width_flag(), list(tests.values()), self.language))
        return function.with_changes(body=function.body.with_changes(body=body))

    def descriptor_function(self, func: cst.BaseExpression) -> cst.BaseExpression:
        owner = func.value if isinstance(func, cst.Attribute) else self.language
        return cst.Attribute(owner, cst.Name("make_tensor_descriptor"))

    def creation_statements(self, node, creation: Creation) -> list:
        in_place = self.uses_descriptors({id(creation.call)}) and not self.is_hoisted(creation)
        statements = self.descriptor_statements(creation) if in_place else []
        if isinstance(creation.anchor, cst.Param) and self.context.entry[creation.target].nullable:
            # some call passes `None` in every part: the handle exists only where the block pointer does
            base = cst.Name(self.namer.part(creation.target, "base", 0))
            statements = [_present_only(s, base) for s in statements]
        if creation.condition is not None:
            statements = [_conditional(s, creation.condition, creation.call) for s in statements]
        statements = self.guarded_statements(creation, statements)
        parts = []
        for (kind, d), expr in sorted(self.knowledge.merged.get(id(creation.call), {}).items(),
                                      key=lambda part: (PART_ORDER.index(part[0][0]), part[0][1])):
            parts.append(advance.assign(self.namer.part(creation.target, kind, d), expr))
        for d, expr in enumerate(creation.offsets):
            var = self.namer.offset(creation.target, d)
            if (id(creation.call), d) in self.knowledge.materialize and canonical_code(expr) != var:
                parts.append(advance.assign(var, expr))
                self.namer.running[var] = canonical_code(creation.shape[d])
        if self.reads_pointers({id(creation.call)}):
            parts.append(advance.assign(creation.target, self.creation_pointers(creation)))
        checked = self.knowledge.creation_masks.get(id(creation.call))
        if checked is not None:
            parts.append(advance.assign(self.namer.mask(creation.target), self.creation_mask(creation, checked)))
        if creation.condition is not None:
            parts = [_conditional(statement, creation.condition, creation.call) for statement in parts]
        return statements + parts

    def function_edit(self) -> Optional[tuple[frozenset[int], Builder]]:
        """A helper's block-pointer parameters become their parts, re-created on entry (crossing.py); a kernel
        with guarded descriptors gets its flag and launch check (TTD009)."""
        if self.context is not None and self.context.removed(self.policy):
            return frozenset(), lambda updated: cst.RemovalSentinel.REMOVE
        params = [p for p in self.function.params.params if self.context and p.name.value in self.context.entry]
        if not params:
            return self.guard_edit()
        owners = frozenset(id(c.call) for c in self.creations.values() if c.anchor in params)
        replaced = {p.name.value: self.parameter_names(p) for p in params}
        edits = list(self.entry_edits)

        def build(updated: cst.FunctionDef) -> cst.FunctionDef:
            statements = [s for _, builder in edits for s in builder()]
            body = [s if isinstance(s, cst.BaseCompoundStatement) else cst.SimpleStatementLine([s])
                    for s in statements] + list(updated.body.body)
            return self.with_width_flag(updated.with_changes(
                params=helper_parts.parameters(updated.params, replaced, self.language),
                body=updated.body.with_changes(body=body)))
        return owners, build

    def guard_edit(self) -> Optional[tuple[frozenset[int], Builder]]:
        """A kernel with guarded descriptors gets its flag and launch check (TTD009); one whose descriptors
        rely on stated facts, the hook that gives its launching threads an allocator (TTD010), unless the
        user stated that they have one; right above `@triton.jit`."""
        guarded = [c for c in self.creations.values() if self.is_guarded({id(c.call)})]
        relying = [c for c in self.creations.values() if self.class_notes(id(c.call), self.knowledge.relied)]
        if self.states_allocator():  # the allocator is the user's
            relying = []
        tested = any(self.width_tested({id(c.call)}) for c in self.creations.values())
        if not guarded and not relying and not tested:
            return None

        def build(updated: cst.FunctionDef) -> cst.FunctionDef:
            checks = list(dict.fromkeys(self.launch_check(c) for c in guarded if not self.is_refused({id(c.call)})))
            hooked = [c for c in relying if not self.is_refused({id(c.call)})]
            added, params = [], updated.params
            if checks:
                added.append(launch_guard.decorator(self.launch_names[ttd009_launch_guard.GUARD],
                                                    self.guard_flag,
                                                    self.launch_names[ttd009_launch_guard.CHECK], checks))
                params = launch_guard.with_flag(params, self.guard_flag, self.language)
            if hooked:
                added.append(cst.Decorator(cst.Name(self.launch_names[ttd010_stated_facts.HOOK])))
            jit = next(i for i, d in enumerate(updated.decorators) if is_jit(d))
            return self.with_width_flag(updated.with_changes(
                decorators=[*updated.decorators[:jit], *added, *updated.decorators[jit:]], params=params))
        return frozenset(), build

    def states_allocator(self) -> bool:
        """Whether the user stated that this kernel's launching threads have an allocator for descriptors (or
        need none): then its descriptors on stated facts need no hook (TTD010)."""
        kernel = self.function.name.value
        return not self.policy.strict and ("allocator" in self.facts.inline.kernel or
                                           "allocator" in self.policy.stated(kernel, None))

    def launch_facts(self) -> list[dict]:
        """What this function's descriptors rely on that a launch's arguments decide, whether or not a hook
        checks it (`migrate verify` does, at every launch): {"argument", "fact", "expressions", "where"} each,
        and {"fact": "allocator", "where"} where the allocator is stated instead of installed by a hook."""
        relying = [c for c in self.creations.values()
                   if self.class_notes(id(c.call), self.knowledge.relied) and not self.is_refused({id(c.call)})]
        found: dict[tuple[str, str], dict] = {}
        for creation in relying:
            for tensor, fact, expressions, where in self.reliance(creation):
                if fact in CHECKED_AT_LAUNCH:
                    entry = found.setdefault((tensor, fact), {"argument": tensor, "fact": fact, "expressions": [],
                                                              "where": where})
                    entry["expressions"] += [code for code in expressions if code not in entry["expressions"]]
        facts = list(found.values())
        if relying and self.states_allocator():
            kernel = self.function.name.value
            where = self.facts.inline.kernel.get("allocator") or self.policy.stated(kernel, None)["allocator"]
            facts.append({"argument": None, "fact": "allocator", "expressions": [], "where": where})
        return facts

    def reliance(self, creation: Creation) -> list[tuple[str, str, list[str], str]]:
        """(argument, fact, expressions, where it was stated) for each fact a creation's descriptors rely on."""
        if creation.unit is None:  # a path's creation of merged block pointers that no descriptor access reads
            return []
        check = self.stated_check(creation)
        found = []
        relied = self.class_notes(id(creation.call), self.knowledge.relied)
        for fact, where in sorted(relied.items(), key=lambda item: FACTS.index(item[0])):
            expressions = {"aligned": check.multiples, "contiguous": (check.unit_stride,),
                           "aligned-rows": (self.arguments.host(creation.shape[creation.unit]) or
                                            canonical_code(creation.shape[creation.unit]),),
                           "in-bounds": ()}[fact]
            found.append((check.tensor, fact, [guards.spelled(code) for code in expressions], where))
        return found

    def placeholder_statements(self, statement: int) -> Optional[tuple[frozenset[int], Builder]]:
        """`p = None` on the paths that create no block pointer (`else: p = None` under a constexpr flag)
        becomes `None` for what the other paths assign instead: the descriptor names, and, where `p` is passed
        to a helper as parts, the part and offset variables the call reads (the helper then receives `None`
        in each, as it received `None` for `p`). `p = 0` gives `None` the same way: what is no block pointer there
        is no handle and no part either."""
        creations = frozenset(self.knowledge.placeholder_links.get(statement, ()))
        if not creations or statement in self.knowledge.placeholder_used:
            return None
        names = []
        if self.uses_descriptors(creations):
            creation = self.creations[self.knowledge.in_order(creations)[0]]
            stem, paddings = self.namer.stem(creation.target), self.paddings(creations)
            names += [self.namer.descriptor(stem, p, paddings, self.handle_kind)
                      for p in sorted(paddings, key=lambda p: p != "zero")]
        if "parts" in self.forms(creations) or any(("base", 0) in self.knowledge.merged.get(c, {}) for c in creations):
            names += self.part_variables(creations)  # what a helper receives, or a `p is None` asks
        if not names:
            return None
        return creations, lambda: [advance.assign(name, cst.Name("None")) for name in dict.fromkeys(names)]

    def part_variables(self, creations) -> list[str]:
        """The variables these creations assign for their parts: those that differ between them (`p_base`),
        and the offsets that are materialized (`p_off1`)."""
        names = []
        for creation in (self.creations[c] for c in self.knowledge.in_order(creations)):
            names += [self.namer.part(creation.target, kind, d) for kind, d in
                      sorted(self.knowledge.merged.get(id(creation.call), {}),
                             key=lambda part: (PART_ORDER.index(part[0]), part[1]))]
            names += [self.namer.offset(creation.target, d) for d in range(len(creation.offsets))
                      if (id(creation.call), d) in self.knowledge.materialize]
        return names

    def hoisted(self) -> dict[int, list[tuple[frozenset[int], Builder]]]:
        before: dict[int, list] = {}
        for creation in self.creations.values():
            if creation.target is not None and self.is_hoisted(creation):
                before.setdefault(id(creation.hoist_before), []).append(
                    (frozenset({id(creation.call)}),
                     lambda c=creation: self.guarded_statements(c, self.descriptor_statements(c))))
        return before


def _present_only(statement: cst.Assign, base: cst.Name) -> cst.Assign:
    """`p_desc = ... if p_base is not None else None` (a test Triton decides at compile time)."""
    test = cst.Comparison(base, [cst.ComparisonTarget(cst.IsNot(), cst.Name("None"))])
    return statement.with_changes(value=cst.IfExp(test, statement.value, cst.Name("None")))


def _conditional(statement: cst.Assign, condition: cst.IfExp, call: cst.Call) -> cst.Assign:
    """`name = value` evaluated only where `condition` (`p = tl.make_block_ptr(...) if FLAG else None`)
    creates its block pointer: `name = value if FLAG else None`; a literal offset needs no condition."""
    value = statement.value
    if int_value(value) is not None:
        return statement
    if isinstance(value, (cst.IfExp, cst.Lambda)):
        value = value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    side = "body" if condition.body is call else "orelse"
    return statement.with_changes(value=condition.with_changes(**{side: value}))
