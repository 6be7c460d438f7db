"""Flow-sensitive dataflow over one function: find block-pointer values, follow them through
assignments, `tl.advance`, branches and loops, decide per block pointer whether it can become a
descriptor, and record the edits that do it.

The analysis is an abstract interpretation over the statements (loops iterate to a fixed point). It is
rerun while it learns that more offset dimensions must live in variables (see values.py); edits and
diagnostics come from the last, stable run. `FunctionAnalysis` assembles the parts that do it (shared.py
lists them) and answers for the result; `Dataflow` walks the statements and hands each site to its part.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from triton_migrate.forms import Form, Origin
from triton_migrate.policy import Policy
from triton_migrate.rules import (
    ttd009_launch_guard,
    ttd010_stated_facts,
    ttd109_ambiguous_value,
    ttd118_unfollowed_use,
    ttd201_crosses_function,
)
from triton_migrate.syntax.nodes import parsed
from triton_migrate.syntax.walk import children

from . import guards
from .access_forms import AccessForms
from .advances import Advances
from .bookkeeping import Bookkeeping, CrossesFunctions
from .calls import member_called
from .creations import Creations
from .crossing import Crossing
from .facts import FunctionFacts
from .launch import Launch
from .naming import Namer
from .records import (
    AdvanceMove,
    Creation,
    ElementType,
    FunctionEdits,
    HandleAccess,
    Knowledge,
    Loop,
    MaskedAccess,
    NamedMaskAccess,
    Refusal,
)
from .results import Results
from .returns import Returns
from .shared import Part, Parts, ProgramPlace, Run, Subject
from .sites import Accesses
from .triton_names import TritonNames
from .values import (
    OTHER,
    BlockPtr,
    Opaque,
    Placeholder,
    State,
    Value,
    creations_of,
    is_placeholder,
    join_dims,
    same_state,
)

__all__ = ["CrossesFunctions", "FunctionAnalysis"]

MAX_RERUNS = 64
_OWN_SCOPES = (cst.Lambda, cst.FunctionDef, cst.ClassDef)  # their names are not this function's


class FunctionAnalysis(Parts):
    """Runs the dataflow over one function until what it has learnt stops changing; then answers for the
    last run (what the engine reports, what the program's rounds compare, what the rewrite applies)."""

    def __init__(self, function: cst.FunctionDef, names: TritonNames, namer: Namer, language: str,
                 policy: Policy, origin: Origin, shim: str, facts: FunctionFacts, context: ProgramPlace | None = None,
                 launch_names: dict[str, str] | None = None) -> None:
        """`context` (program.py): the other functions, for block pointers that cross calls. Without one
        the function is analysed alone, and the first block pointer that crosses raises CrossesFunctions
        (what the analysis would have found after that point is of no use: the program's rounds redo it)."""
        # the launch guard's names (TTD009): the kernel's flag; how the module names the launch support's
        # guard, its check and the allocator hook of a kernel on stated facts (TTD010)
        hooks = (ttd009_launch_guard.GUARD, ttd009_launch_guard.CHECK, ttd010_stated_facts.HOOK)
        self.fn = Subject(function, context, policy, origin, names, namer, parsed(language), cst.Name(shim), facts,
                          guards.Arguments(function), namer.flag(ttd009_launch_guard.FLAG),
                          {name: (launch_names or {}).get(name, name) for name in hooks})
        self.run = Run()
        self.flow, self.books, self.creating = Dataflow(self), Bookkeeping(self), Creations(self)
        self.moves, self.accesses, self.emit = Advances(self), Accesses(self), AccessForms(self)
        self.launch, self.results, self.crossing = Launch(self), Results(self), Crossing(self)
        self.returns = Returns(self)
        for _ in range(MAX_RERUNS):
            self.run = Run()
            self.flow.walk()
            if not self.run.dirty:
                return
        raise RuntimeError(f"analysis of `{function.name.value}` did not converge")

    # -- what the last run found -----------------------------------------------------------------

    @property
    def function(self) -> cst.FunctionDef:
        return self.fn.function

    @property
    def context(self):
        return self.fn.context

    @property
    def policy(self) -> Policy:
        return self.fn.policy

    @property
    def knowledge(self) -> Knowledge:
        return self.fn.knowledge

    @property
    def inlined_calls(self) -> dict:
        return self.fn.inlined_calls

    @property
    def creations(self) -> dict[int, Creation]:
        return self.run.creations

    @property
    def dead_uses(self) -> list[Refusal]:
        return self.run.dead_uses

    @property
    def orphans(self) -> list[Refusal]:
        return self.run.orphans

    @property
    def orphan_parameters(self) -> set[str]:
        return self.run.orphan_parameters

    @property
    def returned(self) -> list[tuple]:
        return self.run.returned

    def refusal_for(self, creation: int) -> Refusal | None:
        return self.results.refusal_for(creation)

    def is_refused(self, creations) -> bool:
        return self.results.is_refused(creations)

    def forms(self, creations) -> set[Form]:
        return self.results.forms(creations)

    def class_notes(self, creation: int, notes: dict) -> dict:
        return self.results.class_notes(creation, notes)

    def is_hoisted(self, creation: Creation) -> bool:
        return self.results.is_hoisted(creation)

    def is_guarded(self, creations) -> bool:
        return self.results.is_guarded(creations)

    def sums_descriptor_tiles(self, creation: int) -> bool:
        """Whether a descriptor load of this block pointer reaches a sum or a scan, which may round otherwise
        than over the original's tile (TTD001's note)."""
        return bool(self.results.descriptor_loads(creation) & self.accesses.summed_loads())

    def width_tested(self, creations) -> bool:
        return self.launch.width_tested(creations)

    def launch_check(self, creation: Creation):
        return self.launch.launch_check(creation)

    def reliance(self, creation: Creation) -> list:
        return self.launch.reliance(creation)

    def launch_facts(self) -> list[dict]:
        return self.launch.launch_facts()

    def finished(self, record):
        """A record with what only the end of the analysis knows: an access's handle name (the paddings of every
        access decide it), the dimensions its block pointer moves in, whether it reads a creation; a creation's
        statements; whether an advance assigns the pointers a name holds; what a type query means."""
        if isinstance(record, HandleAccess):
            guard = self.launch.width_flag() if record.widths_tested else record.guard
            return replace(record, handle=self.results.descriptor_name(record.creations, record.stem,
                                                                       record.padding),
                           guard=guard, fallback=self.finished(record.fallback))
        if isinstance(record, MaskedAccess):
            return replace(record, moving=self.results.moving_dims(record.creations),
                           created_here=self.creating.created_in_access(record.pointer, record.creations))
        if isinstance(record, Creation):
            return self.results.creation_record(record)
        if isinstance(record, AdvanceMove) and record.pointers is not None:
            return record if self.results.reads_pointers(record.creations) else replace(record, pointers=None)
        if isinstance(record, ElementType):
            return self.emit.element_type(record)
        return record

    def edits(self) -> FunctionEdits:
        """The edits of the last run, but those of refused block pointers."""
        results, run = self.results, self.run
        keep = lambda owners: not results.is_refused(owners)  # noqa: E731
        edits = FunctionEdits(id(self.fn.function))
        for node, (owners, edit) in run.expr_edits.items():
            if not keep(owners):
                continue
            if isinstance(edit, (HandleAccess, MaskedAccess, NamedMaskAccess)):
                edits.accesses[node] = self.finished(edit)
            else:
                edits.expressions[node] = self.finished(edit)
        edits.statements.update({k: self.finished(r) for k, (o, r) in run.stmt_edits.items() if keep(o)})
        for statement in run.placeholders:
            edit = results.placeholder_statements(statement)
            if edit is not None and keep(edit[0]):
                edits.statements[statement] = edit[1]
        for loop, records in results.hoisted().items():
            edits.before_loop.setdefault(loop, []).extend(r for o, r in records if keep(o))
        edit = results.signature()
        if edit is not None and keep(edit[0]):
            edits.signature = edit[1]
        for line, slots in run.line_edits.items():
            edits.before_line.setdefault(line, []).extend(self.finished(r) for _, o, r in slots.values() if keep(o))
        return edits


class Dataflow(Part):
    """The walk over the statements: the values names hold on each path, joined where paths meet, and each
    site (a creation, an advance, an access, a helper's call) handed to the part that decides it."""

    def walk(self) -> None:
        """One run over the function, from its block-pointer parameters (crossing.py) on."""
        state: State = {}
        self.crossing.parameter_pointers(state)
        if self.fn.context is not None and self.fn.context.removed(self.fn.policy):
            return  # every call of this helper inlined it: it goes (results.function_edit)
        self.block(self.fn.function.body.body, state)

    def block(self, statements, state: State) -> State | None:
        for index, statement in enumerate(statements):
            before, state = state, self.statement(statement, state)
            if state is None:
                # Unreachable code after return/break/continue never runs, but it is rewritten like the rest
                # (a helper's parameter it reads is gone): it is read as if it ran on from before that exit.
                if index + 1 < len(statements):
                    self.block(statements[index + 1:], dict(before))
                return None
        return state

    def statement(self, node: cst.CSTNode, state: State) -> State | None:
        if isinstance(node, cst.SimpleStatementLine):
            self.run.line = node if len(node.body) == 1 else None
            try:
                for small in node.body:
                    state = self.small_statement(small, state)
                    if state is None:
                        return None
                return state
            finally:
                self.run.line = None
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

    def nested(self, statements, state: State, kind: str) -> State | None:
        self.run.owners.append(kind)
        try:
            return self.block(statements, state)
        finally:
            self.run.owners.pop()

    def branch(self, node: cst.If, state: State) -> State | None:
        self.visit(node.test, state)
        taken = self.nested(node.body.body, dict(state), "if")
        if isinstance(node.orelse, cst.If):
            other = self.nested([node.orelse], dict(state), "if")
        elif isinstance(node.orelse, cst.Else):
            other = self.nested(node.orelse.body.body, dict(state), "if")
        else:
            other = dict(state)
        return self.join(taken, other)

    def loop(self, node, state: State) -> State | None:
        assigned = self.fn.facts.assigned_in(node)
        if isinstance(node, cst.For):
            self.visit(node.iter, state)
        head = dict(state)
        for _ in range(MAX_RERUNS):
            frame = Loop(node, assigned, head)
            self.run.owners.append(frame)
            current = dict(head)
            if isinstance(node, cst.For):
                self.assign_target(node.target, current)
            else:
                self.visit(node.test, current)
            end = self.block(node.body.body, current)
            self.run.owners.pop()
            new_head = self.join(state, self.join_all([end] + frame.continues))
            if same_state(new_head, head):
                break
            head = new_head
        done = dict(head)
        if isinstance(node, cst.While):
            self.visit(node.test, done)
        if node.orelse is not None:
            done = self.block(node.orelse.body.body, done)
        return self.join_all([done] + frame.breaks)

    def small_statement(self, node: cst.BaseSmallStatement, state: State) -> State | None:
        if isinstance(node, cst.Assign) and self.returns.helper_assign(node, state):
            return state
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
            self.visit(node.target, state, ttd118_unfollowed_use.CODE, ttd118_unfollowed_use.ARITHMETIC)
            self.assign_target(node.target, state)
            return state
        if isinstance(node, cst.Return):
            if node.value is not None and not self.returns.return_pointers(node, state):
                self.visit(node.value, state, ttd201_crosses_function.CODE, ttd201_crosses_function.RETURNED)
            return None
        if isinstance(node, (cst.Break, cst.Continue)):
            frame = next((o for o in reversed(self.run.owners) if isinstance(o, Loop)), None)
            if frame is not None:
                (frame.breaks if isinstance(node, cst.Break) else frame.continues).append(state)
            return None
        self.visit(node, state)
        return state

    def assign_value(self, node, name: str, value: cst.BaseExpression, state: State) -> None:
        member = member_called(value, self.fn.names) if isinstance(value, cst.Call) else None
        if member == "make_block_ptr":
            self.bind(name, self.creating.create(node, name, value, state), state)
        elif member == "advance":
            self.bind(name, self.moves.advance(node, name, value, state), state)
        elif (inlined := self.crossing.inlined_helper(value)) is not None:
            self.bind(name, self.crossing.create_inlined(node, name, value, inlined, state), state)
        elif self.creating.conditional_creation(value):
            self.bind(name, self.creating.create_conditional(node, name, value, state), state)
        elif is_placeholder(value):
            self.run.placeholders[id(node)] = node
            self.bind(name, Placeholder(frozenset({id(node)})), state)
        elif isinstance(value, cst.Name) and isinstance(state.get(value.value), BlockPtr):
            self.bind(name, self.moves.copy(node, name, state[value.value], state), state)
        elif isinstance(value, cst.Name) and isinstance(state.get(value.value), Opaque):
            self.bind(name, state[value.value], state)  # refused where it is read
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
            if type(value) is BlockPtr:  # not isinstance: this runs for every name of every assignment
                state[other] = value.invalidate(name)
                if name in value.args_free or name in value.base_free:  # capture_parts captures, if needed
                    for creation in value.creations:
                        self.fn.knowledge.stale_names.setdefault(creation, set()).add(name)

    def visit(self, node: cst.CSTNode, state: State, code: str = ttd118_unfollowed_use.CODE,
              how: str = ttd118_unfollowed_use.UNFOLLOWED) -> None:
        # type(), not isinstance(): libcst's classes are ABCs, whose isinstance is a Python-level call, and
        # this runs on every node of every statement.
        kind = type(node)
        if kind is cst.Name:
            self.read(node, state, code, how)
        elif kind is cst.Attribute:
            if not self.accesses.type_query(node, state):
                self.visit(node.value, state, code, how)
        elif kind is cst.Call:
            self.call(node, state)
        elif kind is cst.Arg:
            self.visit(node.value, state, code, how)
        elif kind is cst.Comparison and self.crossing.none_test(node, state):
            return
        elif kind is cst.NamedExpr:
            self.visit(node.value, state)
            self.assign_target(node.target, state)
        elif kind not in _OWN_SCOPES:
            self.visit_children(node, state, code, how)

    def visit_children(self, node: cst.CSTNode, state: State, code: str = ttd118_unfollowed_use.CODE,
                       how: str = ttd118_unfollowed_use.UNFOLLOWED) -> None:
        for child in children(node):
            self.visit(child, state, code, how)

    def call(self, node: cst.Call, state: State) -> None:
        member = member_called(node, self.fn.names)
        if member in ("load", "store"):
            self.accesses.access(node, member, state)
        elif member == "advance":
            resolved = self.moves.advanced_pointer(node, state)
            if resolved is not None:
                self.books.refuse(resolved[0].creations, Refusal(ttd118_unfollowed_use.CODE,
                                                                 ttd118_unfollowed_use.ADVANCE_RESULT_UNUSED, node))
        elif member == "make_block_ptr":
            self.creating.create(None, None, node, state)
        elif type(node.func) is cst.Name and node.func.value in self.fn.facts.bound_nowhere:
            self.crossing.call_to_nothing(node, state)
        elif not self.crossing.helper_call(node, state):
            self.visit(node.func, state)
            code, how = ((ttd118_unfollowed_use.CODE, ttd118_unfollowed_use.passed_to(member))
                         if member is not None else (ttd201_crosses_function.CODE, ttd201_crosses_function.PASSED))
            for argument in node.args:
                self.visit(argument.value, state, code, how)

    def read(self, node: cst.Name, state: State, code: str, how: str) -> None:
        value = state.get(node.value)
        if isinstance(value, BlockPtr):
            self.books.refuse(value.creations, Refusal(code, ttd118_unfollowed_use.used(node.value, how), node))
        elif isinstance(value, Opaque):
            self.books.refuse_ambiguous(value, node)
        elif isinstance(value, Placeholder):
            self.fn.knowledge.placeholder_used.update(value.statements)

    def join_all(self, states: list) -> State | None:
        result = None
        for state in states:
            result = self.join(result, state)
        return result

    def join(self, a: State | None, b: State | None) -> State | None:
        if a is None or b is None:
            return dict(b if a is None else a) if (a or b) is not None else None
        return {name: self.join_values(name, a.get(name), b.get(name)) for name in a.keys() | b.keys()}

    def join_values(self, name: str, a: Value | None, b: Value | None) -> Value:
        if a is b or a is None or b is None or a.key() == b.key():  # the same object: most names, most joins
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
        reasons = [v.why for v in (a, b) if isinstance(v, Opaque)]
        return Opaque(creations, *reasons[:1]) if creations else OTHER

    def join_pointers(self, name: str, a: BlockPtr, b: BlockPtr) -> Value:
        creations = a.creations | b.creations
        ranks = {len(self.books.creations_by_id(c).block) for c in creations}
        if a.stem != b.stem or len(ranks) != 1:
            # Refused only where the merged value is read: a name reused for a block pointer of another rank
            # (`p_v` of rank 2 in one loop, of rank 1 in the next) meets itself at the next loop's head, where
            # the old value is dead.
            return Opaque(creations, ttd109_ambiguous_value.RANKS_DIFFER if a.stem == b.stem else
                          ttd109_ambiguous_value.DESCRIPTORS_DIFFER)
        alike = len({tuple(self.books.creations_by_id(c).permutation) for c in creations}) == 1
        if alike:
            self.fn.knowledge.union(creations)
        # Different orders (`(1, 0)` on one path, `(0, 1)` on the other) merge where the value is used
        # (`settle`): only masked pointers can follow such a value, and a dead one should cost nothing.
        # Offsets the paths disagree on are materialized where the value is used (use_dim): a value met at a
        # loop's head and created again before every use (fla's `p_dA`, in two loops) needs no variable.
        dims = tuple(join_dims(x, y) for x, y in zip(a.dims, b.dims))
        return BlockPtr(creations, a.stem, dims, a.desc_stale or b.desc_stale, a.args_free | b.args_free,
                        a.args_stale or b.args_stale, a.base_free | b.base_free, a.base_stale or b.base_stale,
                        a.pointers and b.pointers)

    def join_placeholder(self, name: str, pointer: BlockPtr, placeholder: Placeholder) -> Value:
        if pointer.stem != self.fn.namer.stem(name):
            self.books.refuse(pointer.creations, Refusal(ttd109_ambiguous_value.CODE,
                                                   ttd109_ambiguous_value.none_on_some_paths(name),
                                                   self.fn.function.name))
            return Opaque(pointer.creations)
        for statement in placeholder.statements:
            self.fn.knowledge.placeholder_links.setdefault(statement, set()).update(pointer.creations)
        return pointer
