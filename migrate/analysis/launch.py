"""What a launch decides: whether the host launches the function, the check a guarded descriptor relies on
(TTD009), the facts the user stated that cover an obstacle (TTD010), and the kernel's decorators for them.
A part of FunctionAnalysis (shared.py)."""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from triton_migrate.policy import FACTS
from triton_migrate.rules import ttd009_launch_guard, ttd010_stated_facts, ttd107_narrow_block
from triton_migrate.syntax.forms import block_width
from triton_migrate.syntax.nodes import canonical_code, code_of, int_value

from . import guards, planner, widths
from .records import Creation, LaunchGuard, Loop, Signature
from .shared import Part
from .values import BlockPtr

CHECKED_AT_LAUNCH = ("contiguous", "aligned", "aligned-rows", "widths")  # what a launch's arguments decide


class Launch(Part):
    def launched(self) -> bool:
        """Whether the host launches this function (it has a launch to check or hook)."""
        return self.fn.facts.launched and not (self.fn.context is not None and self.fn.context.is_called())

    def not_launched(self) -> str:
        """Why the analysis takes this function for one the host does not launch, as far as it knows."""
        called = self.fn.context is not None and self.fn.context.is_called()
        if self.fn.facts.named_by is None or called:
            return ttd009_launch_guard.NOT_LAUNCHED
        return ttd009_launch_guard.named_by(self.fn.facts.named_by)

    def launch_check(self, creation: Creation):
        if creation.check is None and creation.unit is not None:
            # A compat tile may be stored through as a descriptor: the check covers the row end too (TTD111).
            unproven_row = planner.uses_shim(self.fn.policy) and not planner.row_width_proven(
                creation.shape, creation.block, creation.unit)
            creation.check = guards.launch_check(creation.described_base, creation.strides, creation.block,
                                                 creation.unit, self.fn.facts, self.fn.arguments,
                                                 creation.shape[creation.unit] if unproven_row else None)
        return creation.check or ttd009_launch_guard.NO_UNIT_STRIDE

    def stated_check(self, creation: Creation):
        """What a descriptor on stated facts relies on for its tensor (TTD010): what `migrate verify` can check
        at its launch, or, where the kernel's `allocator` is stated too, also what no launch could (a base
        term without a witness, `qvk_offset` assigned on two paths), which the user's `aligned` covers all the
        same. Why there is nothing to rely on otherwise."""
        check = self.launch_check(creation)
        if isinstance(check, guards.Check) or creation.unit is None or not self.states_allocator():
            return check
        if not self.creating.is_parameter_pointer(creation):
            return guards.launch_check(creation.described_base, creation.strides, creation.block, creation.unit,
                                       self.fn.facts, self.fn.arguments, unchecked=True)
        # a parameter's parts are the helper's arguments: the parameter's facts are theirs
        parts = self.fn.arguments.with_names(self.fn.facts.free_names(creation.call))
        found = guards.launch_check(creation.described_base, creation.strides, creation.block, creation.unit,
                                    self.fn.facts, parts, unchecked=True)
        return replace(found, tensor=creation.name) if isinstance(found, guards.Check) else found

    def states_allocator(self) -> bool:
        """Whether the user stated that this kernel's launching threads have an allocator for descriptors (or
        need none): then its descriptors on stated facts need no hook (TTD010)."""
        kernel = self.fn.function.name.value
        return not self.fn.policy.strict and ("allocator" in self.fn.facts.inline.kernel or
                                           "allocator" in self.fn.policy.stated(kernel, None))

    def stated_facts(self, creation: Creation) -> dict[str, str]:
        """What the user stated of the tensor a block pointer's base starts from (fact -> where; TTD010): on
        its creation's line, its parameter's line, the kernel's `def` line, or in the configuration. Only a
        launched kernel has a launch to hook (the allocator, the debug check), or a helper whose `allocator`
        is stated, which needs no hook; `--strict` states nothing."""
        if not planner.may_rely_on_stated(self.fn.policy) or \
                not (self.launched() or self.states_allocator()):
            return {}
        # re-created from its parts: its line is the parameter's
        parameter = self.creating.is_parameter_pointer(creation)
        argument = creation.name if parameter else guards.root_argument(creation.described_base, self.fn.facts,
                                                                          self.fn.arguments)
        if argument is None:
            return {}
        inline = self.fn.facts.inline
        found: dict[str, str] = {}
        for stated in ({} if parameter else inline.at(creation.call), inline.arguments.get(argument, {}),
                       inline.kernel, self.fn.policy.stated(self.fn.function.name.value, argument)):
            found = {**stated, **found}
        return found

    def unguardable(self, value: BlockPtr, fallback: bool = True) -> str | None:
        """Why a descriptor for this block pointer cannot be chosen at launch (TTD009), or None. `fallback`:
        the other form is this tool's masked pointers (a compat tile falls back to the shim's emulation)."""
        if not self.launched():
            return self.not_launched()
        problem = self.emit.pointer_problem(value) if fallback else None
        if problem is not None:
            return problem
        checks = [self.launch_check(self.books.creations_by_id(c)) for c in self.fn.knowledge.in_order(value.creations)]
        return next((check for check in checks if isinstance(check, str)), None)

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
                any(c.unit is None or self.fn.arguments.host(c.shape[c.unit]) is None for c in creations):
            return obstacle
        return replace(obstacle, stated=creations[0].stated[fact])

    def pays_off(self, call: cst.Call, member: str, value: BlockPtr) -> bool:
        """Whether a descriptor is worth it here (TTD009): a load in a loop, through a block pointer created
        before the loop, whose tile feeds `tl.dot` (the pipelined GEMM and attention loops, where TMA wins
        1.05-3x on the H100). Elsewhere (row norms, element-wise tiles, block pointers re-created in each
        iteration) masked pointers measured as fast or faster, and keep reductions bit-identical."""
        loops = [o for o in self.run.owners if isinstance(o, Loop)]
        if member != "load" or not loops or self.created_in_this_loop(value):
            return False
        return self.fn.facts.feeds_dot(call, self.run.line, loops[-1].node)

    def created_in_this_loop(self, value: BlockPtr) -> bool:
        """Whether a block pointer (some creation of it) is created inside the innermost loop around the
        access being analysed: re-created in each iteration, rather than moved from one to the next."""
        loops = sum(isinstance(o, Loop) for o in self.run.owners)
        return loops > 0 and any(self.books.creations_by_id(c).loops >= loops for c in value.creations)

    def reliance(self, creation: Creation) -> list[tuple[str, str, list[str], str]]:
        """(argument, fact, expressions, where it was stated) for each fact a creation's descriptors rely on."""
        if creation.unit is None:  # a path's creation of merged block pointers that no descriptor access reads
            return []
        check = self.stated_check(creation)
        found = []
        relied = self.results.class_notes(id(creation.call), self.fn.knowledge.relied)
        for fact, where in sorted(relied.items(), key=lambda item: FACTS.index(item[0])):
            expressions = {"aligned": check.multiples, "contiguous": (check.unit_stride,),
                           "aligned-rows": (self.fn.arguments.host(creation.shape[creation.unit]) or
                                            canonical_code(creation.shape[creation.unit]),),
                           "widths": (self.fn.arguments.host(creation.block[creation.unit]) or
                                      canonical_code(creation.block[creation.unit]),),
                           "in-bounds": ()}[fact]
            found.append((check.tensor, fact, [guards.spelled(code) for code in expressions], where))
        return found

    def launch_facts(self) -> list[dict]:
        """What this function's descriptors rely on that a launch's arguments decide, whether or not a hook
        checks it (`migrate verify` does, at every launch): {"argument", "fact", "expressions", "where"} each,
        and {"fact": "allocator", "where"} where the allocator is stated instead of installed by a hook."""
        relying = [c for c in self.run.creations.values()
                   if self.results.class_notes(id(c.call), self.fn.knowledge.relied) and
                   not self.results.is_refused({id(c.call)})]
        found: dict[tuple[str, str], dict] = {}
        for creation in relying:
            for tensor, fact, expressions, where in self.reliance(creation):
                if fact in CHECKED_AT_LAUNCH:
                    entry = found.setdefault((tensor, fact), {"argument": tensor, "fact": fact, "expressions": [],
                                                              "where": where})
                    entry["expressions"] += [code for code in expressions if code not in entry["expressions"]]
        facts = list(found.values())
        if relying and self.states_allocator():
            kernel = self.fn.function.name.value
            where = self.fn.facts.inline.kernel.get("allocator") or self.fn.policy.stated(kernel, None)["allocator"]
            facts.append({"argument": None, "fact": "allocator", "expressions": [], "where": where})
        return facts

    def guard_edit(self) -> tuple[frozenset[int], Signature] | None:
        """A kernel with guarded descriptors gets its flag and launch check (TTD009); one whose descriptors
        rely on stated facts, the hook that gives its launching threads an allocator (TTD010), unless the
        user stated that they have one; right above `@triton.jit`."""
        guarded = [c for c in self.run.creations.values() if self.results.is_guarded({id(c.call)})]
        relying = [c for c in self.run.creations.values()
                   if self.results.class_notes(id(c.call), self.fn.knowledge.relied)]
        if self.states_allocator():  # the allocator is the user's
            relying = []
        tested = any(self.width_tested({id(c.call)}) for c in self.run.creations.values())
        if not guarded and not relying and not tested:
            return None
        checks = tuple(dict.fromkeys(self.launch_check(c) for c in guarded
                                     if not self.results.is_refused({id(c.call)})))
        hooked = [c for c in relying if not self.results.is_refused({id(c.call)})]
        guard = LaunchGuard(self.fn.launch_names[ttd009_launch_guard.GUARD], self.fn.guard_flag,
                            self.fn.launch_names[ttd009_launch_guard.CHECK], checks) if checks else None
        hook = self.fn.launch_names[ttd010_stated_facts.HOOK] if hooked else None
        return frozenset(), Signature(self.fn.language, guard=guard, hook=hook, **self.width_test())

    # -- the compile-time test of block widths (TTD107) --------------------------------------------

    def width_testable(self, value: BlockPtr) -> bool:
        """Whether a plain descriptor for this block pointer either needs no test of its block widths, or has
        one, and masked pointers to fall back on where it fails (TTD107)."""
        tests = self.width_tests(value.creations)
        return tests is not None and (not tests or self.emit.pointer_problem(value) is None)

    def width_tests(self, creations) -> list[cst.Comparison] | None:
        """The compile-time tests that descriptors for these block pointers hold the 16 bytes a block row needs,
        one per innermost block width the source leaves to the launch (TTD107: `BK * x_ptr.dtype.element_ty
        .primitive_bitwidth >= 128`; a literal width needs none); None where one cannot be written at the top
        of the function, from its parameters."""
        tests = []
        members = {m for c in creations for m in self.results.class_of(c)}
        for creation in map(self.books.creations_by_id, self.fn.knowledge.in_order(members)):
            width = creation.block[creation.unit] if creation.unit is not None else None
            if width is None or int_value(width) is not None or "widths" in creation.stated or \
                    widths.proven(width, self.fn.function, self.fn.facts):
                continue
            facts = self.fn.facts
            arguments = self.fn.arguments.with_names(facts.free_names(creation.call)) \
                if self.creating.is_parameter_pointer(creation) else self.fn.arguments
            root = guards.root_argument(creation.described_base, facts, arguments)
            reassigned = any(name in facts.assignments for name in facts.free_names(width))
            if root is None or arguments.host(width) is None or reassigned:
                return None
            tests.append(block_width.fits(width, cst.Name(root), self.may_be_none(creation, root)))
        return tests

    def stated_width(self, creations) -> str | None:
        """Where the user stated `widths` of a tensor whose descriptor relies on it, its innermost block width
        being the launch's, which the code does not prove (TTD010)."""
        for creation in map(self.books.creations_by_id, creations):
            width = creation.block[creation.unit] if creation.unit is not None else None
            if width is not None and "widths" in creation.stated and \
                    not widths.proven(width, self.fn.function, self.fn.facts):
                return creation.stated["widths"]
        return None

    def may_be_none(self, creation: Creation, root: str) -> bool:
        """Whether the pointer argument a creation starts from may be None at the function's top: the creation
        is under a condition (`if HAS_BIAS:`, `... if x is not None else None`), the argument has a default, or
        a helper's callers pass None for the block pointer."""
        nullable = isinstance(creation.anchor, cst.Param) and self.fn.place.entry[creation.name].nullable
        return creation.branched or creation.condition is not None or nullable or \
            self.fn.arguments.defaults.get(root) is not None

    def width_tested(self, creations) -> bool:
        """Whether these block pointers' plain descriptors exist only where the compile-time test of their
        block widths holds (TTD107)."""
        return not planner.uses_shim(self.fn.policy) and not self.results.is_guarded(creations) and \
            self.results.uses_descriptors(creations) and bool(self.width_tests(creations))

    def width_flag(self) -> str:
        """The name of the compile-time test of block widths (TTD107): the launch guard's flag's, in a function
        that has no launch guard."""
        guarded = any(self.results.is_guarded({id(c.call)}) and not self.results.is_refused({id(c.call)})
                      for c in self.run.creations.values())
        return self.fn.namer.flag(ttd107_narrow_block.FLAG) if guarded else self.fn.guard_flag

    def width_test(self) -> dict:
        """The function's compile-time test of block widths (TTD107), where some descriptor needs one: its flag
        and its tests (Signature's `width_flag` and `width_tests`)."""
        creations = self.run.creations
        tested = [c for c in self.fn.knowledge.in_order(creations) if not self.results.is_refused({c}) and
                  self.width_tested({c})]
        tests = {code_of(t): t for c in tested for t in self.width_tests({c}) or ()}
        return {"width_flag": self.width_flag(), "width_tests": tuple(tests.values())} if tests else {}
