"""The modules migrated together: their `@triton.jit` functions, who calls whom, and the rounds that settle
which block-pointer parameters travel as parts (crossing.py).

A round analyses every function with what the previous rounds settled. Call sites report what they pass;
a parameter becomes a parts parameter when every call site in the program passes a block pointer the same
way, and stops being one for good (with a reason every caller reports) as soon as one call site, the
helper itself or a reference to it cannot follow. Parameters only ever get settled once and only ever
drop out, so the rounds end.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Optional

import libcst as cst

from triton_migrate.rules import ttd201_crosses_function
from triton_migrate.syntax.nodes import canonical_code, int_value, tuple_elements
from triton_migrate.syntax.walk import walk

from .calls import UnboundCall, bind
from .interfaces import ABSENT, ABSENT_ZERO, SiteFacts, merge
from .module_index import Helper, Key, ModuleIndex, Unit, from_imports, leading_name
from .packages import absolute_module
from .returns import joined_returns
from .shared import ProgramPlace
from .triton_names import dotted_name

MAX_ROUNDS = 64  # offsets handed back round a loop of helpers weaken their proofs a step a round
Locate = Callable[[str, int, str], Optional[str]]


class Program:
    """The call graph of the units (modules) and what the rounds have settled. `locate(importer, level,
    module)`: the name of the unit that `from <level dots><module> import ...` in unit `importer` imports
    (None: no unit). `frozen`: units that cannot be migrated (name -> why): they are never analysed nor
    rewritten, so their helpers and the helpers they call keep their block-pointer parameters."""

    def __init__(self, units: list[Unit], locate: Locate = absolute_module,
                 frozen: dict[str, str] | None = None) -> None:
        self.units = units
        self.by_module = {unit.module_name: unit for unit in units}
        self.helpers: dict[Key, Helper] = {}
        self.indexes = {}
        self.heads: dict[str, set[str]] = {}  # module -> the names a helper's name can start with there
        for unit in units:
            index = ModuleIndex()
            walk(index, unit.module)
            index.imports.update(from_imports(unit))
            index.imports = self._located(unit.module_name, index.imports, locate)
            self.indexes[unit.module_name] = index
            self.heads[unit.module_name] = self._heads(index)
            for qualname, node in index.functions.items():
                key = Key(unit.module_name, qualname)
                self.helpers[key] = Helper(key, node, unit)
        self.key_of = {id(helper.node): key for key, helper in self.helpers.items()}
        self.blocked: dict[tuple[Key, str], str] = {}
        self.interfaces: dict[tuple[Key, str], SiteFacts] = {}
        self.returns: dict[Key, tuple] = {}
        self.removable: set[Key] = set()  # helpers every call of which was inlined (inlining.py)
        self.absent: set[tuple[Key, str]] = set()  # parameters every call site fills with `None` (or `0`)
        self.escaped: set[Key] = set()  # helpers that may be called where the program cannot see
        self._nonnegative: dict[Key, frozenset[str]] = {}  # helper -> the parameters every call passes >= 0
        self.ranks: dict[tuple[Key, str], dict[int, int]] = {}  # where ranks differ: id(call) -> the rank it passes
        self.calls_of: dict[Key, list[cst.Call]] = defaultdict(list)
        self.callers_of: dict[Key, set[int]] = defaultdict(set)  # ids of the functions the calls are in
        self.calling: dict[int, tuple] = {}  # id(call) -> (the unit it is in, the function it is in)
        for unit in units:
            for call, function in self.indexes[unit.module_name].calls:
                callee = self.resolve(unit, call.func)
                if callee is not None:
                    self.calls_of[callee].append(call)
                    self.calling[id(call)] = (unit, function)
                    self.callers_of[callee].update([id(function)] if function is not None else [])
        # ids of the functions on either end of a call between jit functions
        self.linked = set().union(*self.callers_of.values(), (id(self.helpers[k].node) for k in self.calls_of))
        self.frozen_reasons: dict[Key, str] = {}
        self._block_frozen(frozen or {})
        self._block_escaping()

    # -- resolution ------------------------------------------------------------------------------

    def _located(self, importer: str, imports: dict, locate: Locate) -> dict[str, tuple[str, str | None]]:
        """local -> (unit, attribute or None) for the imports of units of the program: `from pkg import mod`
        imports the unit `mod`, `from pkg.mod import f` the attribute `f` of the unit `pkg.mod`."""
        found: dict[str, tuple[str, str | None]] = {}
        for local, (level, module, attribute) in imports.items():
            whole = locate(importer, level, ".".join(p for p in (module, attribute) if p)) if attribute else None
            if whole is not None and whole in self.by_module:
                found[local] = (whole, None)
            elif (owner := locate(importer, level, module)) in self.by_module:
                found[local] = (owner, attribute)
        return found

    def _heads(self, index: ModuleIndex) -> set[str]:
        """The local names a helper's name can start with: a jit function of the module, or an import from
        a module of the program (or of one, `from pkg import mod`)."""
        return set(index.imports) | {qualname.partition(".")[0] for qualname in index.functions}

    def resolve(self, unit, func: cst.BaseExpression) -> Key | None:
        if leading_name(func) not in self.heads[unit.module_name]:  # most calls: `tl.` members and local names
            return None
        dotted = dotted_name(func)
        if dotted is None:
            return None
        index = self.indexes[unit.module_name]
        head, _, rest = dotted.partition(".")
        if dotted in index.functions:
            return Key(unit.module_name, dotted)
        imported = index.imports.get(head)
        if imported is None:
            return None
        module, attribute = imported
        key = Key(module, ".".join(p for p in (attribute, rest) if p))
        return key if key in self.helpers else None

    def _block_frozen(self, frozen: dict[str, str]) -> None:
        """A unit that cannot be migrated keeps its code: its helpers take no parts, and neither do the
        helpers it calls (their parameters are what its calls pass)."""
        units = [unit for unit in self.units if unit.module_name in frozen]
        for unit in units:
            module = unit.module_name
            why = ttd201_crosses_function.defined_in_frozen(module, frozen[module])
            self.frozen_reasons.update((Key(module, q), why) for q in self.indexes[module].functions)
        for unit in units:
            module = unit.module_name
            why = ttd201_crosses_function.called_from_frozen(module, frozen[module])
            for call, _ in self.indexes[module].calls:
                key = self.resolve(unit, call.func)
                if key is not None:
                    self.frozen_reasons.setdefault(key, why)
        for key, reason in self.frozen_reasons.items():
            self.escaping(key, reason)

    def _block_escaping(self) -> None:
        """A helper passed around as a value or exported in `__all__` may be called where we cannot see."""
        for unit in self.units:
            index = self.indexes[unit.module_name]
            for reference in index.references:
                key = self.resolve(unit, reference)
                if key is not None and not self._is_definition_name(key, reference):
                    self.escaping(key, ttd201_crosses_function.AS_VALUE)
            for name in index.public:
                key = Key(unit.module_name, name)
                if key in self.helpers:
                    self.escaping(key, ttd201_crosses_function.PUBLIC)

    def _is_definition_name(self, key: Key, reference) -> bool:
        return reference is self.helpers[key].node.name

    def escaping(self, key: Key, reason: str) -> None:
        self.escaped.add(key)
        params = self.helpers[key].node.params.params
        for param in params:
            self.blocked.setdefault((key, param.name.value), reason)

    # -- rounds ----------------------------------------------------------------------------------

    def settle(self, analyse) -> list:
        """Run `analyse()` (the engine's: every function of every unit that matters, each with its
        `context_for`) until nothing changes; returns its last result. First the parameters are discovered
        link by link (a helper's own calls only pass block pointers once it takes parts, and what a caller
        makes of a returned block pointer only once the helper's return is known), then every call site is
        checked against them."""
        self.validating = False
        for _ in range(MAX_ROUNDS):
            self.sites: dict[tuple[Key, str], list[tuple]] = defaultdict(list)  # [(call, facts or None, creations)]
            result = analyse()
            if self._update(result):
                continue
            if self.validating:
                return result
            # Nothing changed, so another round would see exactly these call sites: check them now.
            self.validating = True
            if not self._update(result):
                return result
        raise RuntimeError("block pointers across calls did not settle")

    def context_for(self, unit: Unit, function: cst.FunctionDef) -> ProgramPlace:  # (a Context)
        key = self.key_of.get(id(function))
        entry = {p: i for (k, p), i in self.interfaces.items() if k == key and k is not None}
        return Context(self, unit, key, entry)

    def inherited_forms(self, forms: dict[str, str]) -> dict[int, str]:
        """id(function) -> the kernel-targets form of each helper that has no entry of its own but whose
        callers agree on one (their own, or in turn inherited). `migrate tune` measured every kernel with its
        helpers in the form it chose, so that is the code the table must give."""
        inherited: dict[Key, str | None] = {}

        def form_of(key: Key, seen: frozenset) -> str | None:
            name = self.helpers[key].node.name.value
            if name in forms:
                return forms[name]
            if key not in inherited:
                callers = {self.key_of.get(caller) for caller in self.callers_of[key]} - {key}
                found = {None if c is None or c in seen else form_of(c, seen | {key}) for c in callers}
                inherited[key] = found.pop() if len(found) == 1 else None
            return inherited[key]

        return {id(helper.node): form for key, helper in self.helpers.items()
                if helper.node.name.value not in forms and (form := form_of(key, frozenset({key}))) is not None}

    def functions_to_analyse(self) -> set[int]:
        """Helpers with parts parameters, and every caller of one, are analysed even without a block-pointer
        site of their own; so is every caller of a helper with sites of its own, whose calls say what its
        parameters receive (`None`, perhaps, at every call: `always_none`)."""
        keys = {key for key, _ in self.interfaces} | self.removable  # a helper that goes is analysed to go
        keys |= {key for key, helper in self.helpers.items() if id(helper.node) in helper.unit.scan.with_sites}
        return {id(self.helpers[key].node) for key in keys}.union(*(self.callers_of[key] for key in keys))

    def _update(self, result) -> bool:
        """Settle interfaces from this round's call sites; True if anything changed."""
        analyses = [analysis for _, analysis in result]
        refused = {c for analysis in analyses for c in analysis.knowledge.refused}
        before = (dict(self.interfaces), dict(self.blocked), dict(self.returns), set(self.removable), set(self.absent))
        for (key, param), sites in self.sites.items():
            if (key, param) in self.blocked:
                continue
            facts = [f for _, f, _ in sites if f is not None]
            if not any(isinstance(f, SiteFacts) for f in facts):
                if self.validating and (key, param) in self.interfaces:  # no call passes a block pointer it tracks
                    self.block(key, param, ttd201_crosses_function.MIXED_ARGUMENTS)  # (its caller's was refused)
                continue
            reason = self._site_problem(key, param, sites, refused) if self.validating else None
            merged = merge(facts) if reason is None else reason
            # what each call passes, for a copy per signature (specialisations)
            if merged == ttd201_crosses_function.RANKS_DIFFER:
                self.ranks[(key, param)] = {id(call): f.rank for call, f, _ in sites if isinstance(f, SiteFacts)}
            if isinstance(merged, str):
                self.block(key, param, merged)
            else:
                self.interfaces[(key, param)] = merged
        for analysis in analyses:
            helper = analysis.context.helper if analysis.context else None
            if helper is None:
                continue
            own = [c for c in analysis.creations.values() if isinstance(c.anchor, cst.Param)]
            for creation in own:
                why = analysis.refusal_for(id(creation.call))
                if why is not None and self.validating:
                    self.block(helper, creation.target, ttd201_crosses_function.refused_inside(why.message))
            shape = joined_returns(analysis.returned) if analysis.returned else None
            if analysis.returned and shape is None:
                for param in analysis.context.entry:
                    self.block(helper, param, ttd201_crosses_function.RETURNS_DIFFER)
            elif shape is not None:
                self.returns[helper] = shape
        self.removable = self._inlined_everywhere(analyses)
        self.absent = {site for site, found in self.sites.items()
                       if all(f in (ABSENT, ABSENT_ZERO) for _, f, _ in found)
                       and {id(call) for call, _, _ in found} == {id(call) for call in self.calls_of[site[0]]}}
        return (self.interfaces, self.blocked, self.returns, self.removable, self.absent) != before

    def specialisations(self) -> dict[Key, list[tuple[tuple, list[cst.Call]]]]:
        """Helpers given block pointers of different ranks at different calls (a load helper given a matrix and
        a vector), each with its calls grouped by the ranks they pass, in the order of their first calls: each
        group gets a copy of the helper (rewrite/specialise.py), as Triton compiles one per signature. Only a
        module-level helper whose every call is in its own module: a copy elsewhere would need new imports."""
        found = {}
        differ = ttd201_crosses_function.RANKS_DIFFER
        for key in sorted({key for (key, param), why in self.blocked.items()
                           if why == differ and (key, param) in self.ranks}, key=lambda k: (k.module, k.qualname)):
            calls = self.calls_of[key]
            if "." in key.qualname or any(self.calling[id(call)][0].module_name != key.module for call in calls):
                continue
            params = sorted(param for k, param in self.ranks if k == key)
            groups: dict[tuple, list[cst.Call]] = {}  # what its calls pass -> those calls
            for call in calls:
                signature = tuple((param, self.ranks[(key, param)].get(id(call))) for param in params)
                groups.setdefault(signature, []).append(call)
            if len(groups) > 1:
                found[key] = list(groups.items())
        copied = {id(self.helpers[key].node) for key in found}
        return {key: groups for key, groups in found.items()  # called inside a helper copied now: next time
                if not self.callers_of[key] & copied}

    def literals(self, key: Key, param: str, seen: frozenset = frozenset()) -> list[cst.BaseExpression] | None:
        """The literals (`(0, 1)`, `None`, `"zero"`) that reach `param` at the calls of `key`, distinct, in the
        order first met; None if a call passes anything else, or there is none. A call's argument may be a
        literal, a name that its function only ever assigns literals (lmdeploy's `k_bound0: tl.constexpr =
        (1,)`, on each branch of a constexpr `if`), or a parameter of a helper, followed to that one's calls."""
        calls = self.calls_of.get(key, [])
        if not calls or (key, param) in seen:
            return None
        helper = self.helpers[key].node
        default = next((p.default for p in helper.params.params if p.name.value == param), None)
        found: dict[str, cst.BaseExpression] = {}
        for call in calls:
            try:
                bound = bind(call, helper.name.value, tuple(p.name.value for p in helper.params.params))
            except UnboundCall:
                return None
            value = bound[param].value if param in bound else default
            values = [value] if value is not None and _is_literal(value) else \
                self._literals_of_name(call, value, seen | {(key, param)}) if isinstance(value, cst.Name) else None
            if values is None:
                return None
            found.update((canonical_code(v), v) for v in values)
        return list(found.values())

    def nonnegative_parameters(self, key: Key | None, seen: frozenset = frozenset()) -> frozenset[str] | None:
        """The parameters of `key` that every call passes a value provably >= 0 (in its caller, whose own
        parameters are asked the same in turn); None for a function no call of the program reaches (a kernel:
        its integer arguments are taken to be >= 0). A helper that escapes proves none."""
        if key is None or not self.calls_of.get(key):
            return None
        if key in self.escaped or key in seen:
            return frozenset()
        if key not in self._nonnegative:
            helper = self.helpers[key].node
            self._nonnegative[key] = frozenset(
                p.name.value for p in helper.params.params
                if all(self._passes_nonnegative(call, helper, p, seen | {key}) for call in self.calls_of[key]))
        return self._nonnegative[key]

    def _passes_nonnegative(self, call: cst.Call, helper: cst.FunctionDef, param: cst.Param, seen: frozenset) -> bool:
        unit, function = self.calling[id(call)]
        try:
            bound = bind(call, helper.name.value, tuple(p.name.value for p in helper.params.params))
        except UnboundCall:
            return False
        value = bound[param.name.value].value if param.name.value in bound else param.default
        if value is None or function is None or id(function) not in self.key_of:
            return False
        parameters = self.nonnegative_parameters(self.key_of[id(function)], seen)
        return unit.facts_of(function).is_nonnegative(value, parameters)

    def _literals_of_name(self, call: cst.Call, name: cst.Name, seen: frozenset) -> list | None:
        unit, function = self.calling[id(call)]
        if function is None:
            return None
        if name.value in {p.name.value for p in function.params.params}:
            caller = self.key_of.get(id(function))
            return self.literals(caller, name.value, seen) if caller is not None else None
        assigned = unit.facts_of(function).assignments.get(name.value)
        return assigned if assigned and all(_is_literal(v) for v in assigned) else None

    def _inlined_everywhere(self, analyses) -> set[Key]:
        """Helpers returning a block pointer that no call needs any more: every call was read as the creation
        it amounts to, and migrated (a refused one keeps its call). A helper that escapes keeps its code."""
        inlined = {call for analysis in analyses for call, creation in analysis.inlined_calls.items()
                   if creation is not None and id(creation) in analysis.creations
                   and not analysis.is_refused({id(creation)})}
        removable: set[Key] = set()
        while True:  # a call in the body of a helper that goes needs nothing either (`return _tile(...)`)
            gone = {id(self.helpers[key].node) for key in removable}
            found = {key for key, calls in self.calls_of.items() if calls and not any(k == key for k, _ in self.blocked)
                     and all(id(c) in inlined or id(self.calling[id(c)][1]) in gone for c in calls)}
            if found == removable:
                return removable
            removable = found

    def _site_problem(self, key: Key, param: str, sites, refused: set) -> str | None:
        seen = {id(call) for call, facts, _ in sites}
        missing = [c for c in self.calls_of[key] if id(c) not in seen]
        if missing:
            return ttd201_crosses_function.UNSEEN_CALLS
        for call, facts, creations in sites:
            if facts is None:
                return ttd201_crosses_function.MIXED_ARGUMENTS
            if creations & refused:
                return ttd201_crosses_function.CALLER_REFUSED
        return None

    def block(self, key: Key, param: str, reason: str) -> None:
        self.blocked.setdefault((key, param), reason)
        self.interfaces.pop((key, param), None)


def _is_literal(node: cst.BaseExpression) -> bool:
    """An integer, a string, `None`, or a tuple of integers."""
    elements = tuple_elements(node)
    if elements is not None:
        return all(int_value(e) is not None for e in elements)
    return int_value(node) is not None or isinstance(node, cst.SimpleString) or \
        isinstance(node, cst.Name) and node.value == "None"


@dataclass
class Context:
    """What the analysis of one function may ask about the others (the FunctionAnalysis `context`)."""

    program: Program
    unit: Unit
    helper: Key | None  # the function analysed, if it is a jit function
    entry: dict[str, SiteFacts] = field(default_factory=dict)  # the parameters that arrive as parts

    def resolve(self, func: cst.BaseExpression) -> Key | None:
        return self.program.resolve(self.unit, func)

    def bind(self, key: Key, call: cst.Call) -> dict[str, cst.Arg] | None:
        """Parameter -> argument at a call of the helper; None when they cannot be told (*args, **kwargs)."""
        helper = self.program.helpers[key].node
        try:
            return bind(call, helper.name.value, tuple(p.name.value for p in helper.params.params))
        except UnboundCall:
            return None

    def constexprs(self, key: Key) -> set[str]:
        """The helper's parameters annotated `tl.constexpr`."""
        params = self.program.helpers[key].node.params.params
        return {p.name.value for p in params if p.annotation is not None and
                (dotted_name(p.annotation.annotation) or "").split(".")[-1] == "constexpr"}

    def record(self, key: Key, param: str, call: cst.Call, facts, creations: frozenset) -> None:
        self.program.sites[(key, param)].append((call, facts, creations))

    def refusal(self, key: Key, param: str) -> str | None:
        return self.program.blocked.get((key, param))

    def interface(self, key: Key, param: str) -> SiteFacts | None:
        return self.program.interfaces.get((key, param))

    def part_names(self, key: Key, param: str, kinds) -> list[str]:
        namer = self.program.helpers[key].unit.namer
        return [namer.part(param, *kind) for kind in kinds]

    def literals(self, param: str) -> list[cst.BaseExpression] | None:
        """The literals every call of this function passes in `param` (Program.literals); None if it is not
        a helper, or some call passes anything else."""
        return self.program.literals(self.helper, param) if self.helper is not None else None

    def nonnegative_parameters(self) -> frozenset[str] | None:
        """Program.nonnegative_parameters of this function."""
        return self.program.nonnegative_parameters(self.helper)

    def always_none(self, param: str) -> bool:
        """Whether every call of this function passes `None` (or `0`) in `param`, none a block pointer."""
        return (self.helper, param) in self.program.absent

    def inlined_everywhere(self) -> bool:
        """Whether this function is a helper returning a block pointer that every call inlined."""
        return self.helper in self.program.removable

    def removed(self, policy) -> bool:
        """Whether this function is a helper that every call inlined and the user lets go (unsafe fixes)."""
        return policy.unsafe_fixes and self.inlined_everywhere()

    def returns(self, key: Key) -> tuple | None:
        return self.program.returns.get(key)

    def is_called(self) -> bool:
        """Whether another function of the program calls this one (then it is no kernel that is launched)."""
        return self.helper is not None and bool(self.program.calls_of.get(self.helper))
