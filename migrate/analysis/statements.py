"""The walk over one function's statements (the `Dataflow` part; dataflow.py assembles the parts): an abstract
interpretation that finds block-pointer values and follows them through assignments, `tl.advance`, branches
and loops (loops iterate to a fixed point), joining what names hold where paths meet, and hands each site (a
creation, an advance, an access, a helper's call) to the part that decides it.
"""

from __future__ import annotations

from typing import Any, cast

import libcst as cst

from triton_migrate.rules import ttd109_ambiguous_value, ttd118_unfollowed_use, ttd201_crosses_function
from triton_migrate.syntax.walk import children

from .calls import member_called
from .records import Loop, Refusal
from .shared import Part
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

MAX_RERUNS = 64  # rounds of a loop to its fixed point, and reruns of a function's analysis (dataflow.py)
_OWN_SCOPES = (cst.Lambda, cst.FunctionDef, cst.ClassDef)  # their names are not this function's


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
            after = self.statement(statement, state)
            if after is None:
                # Unreachable code after return/break/continue never runs, but it is rewritten like the rest
                # (a helper's parameter it reads is gone): it is read as if it ran on from before that exit.
                if index + 1 < len(statements):
                    self.block(statements[index + 1:], dict(state))
                return None
            state = after
        return state

    def statement(self, node: cst.CSTNode, state: State) -> State | None:
        if isinstance(node, cst.SimpleStatementLine):
            self.run.line = node if len(node.body) == 1 else None
            try:
                for small in node.body:
                    after = self.small_statement(small, state)
                    if after is None:
                        return None
                    state = after
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
            head = cast(State, new_head)  # the state before the loop is a path: never None
        done = dict(head)
        if isinstance(node, cst.While):
            self.visit(node.test, done)
        after = self.block(node.orelse.body.body, done) if node.orelse is not None else done
        return self.join_all([after] + frame.breaks)

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

    def assign_value(self, node: cst.Assign | cst.AnnAssign, name: str, value: cst.BaseExpression,
                     state: State) -> None:
        call = value if isinstance(value, cst.Call) else None
        member = member_called(call, self.fn.names) if call is not None else None
        if call is not None and member == "make_block_ptr":
            self.bind(name, self.creating.create(node, name, call, state), state)
        elif call is not None and member == "advance":
            self.bind(name, self.moves.advance(node, name, call, state), state)
        elif call is not None and (inlined := self.crossing.inlined_helper(call)) is not None:
            self.bind(name, self.crossing.create_inlined(node, name, call, inlined, state), state)
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
        known: Any = node  # the node as the type `kind` says, which mypy does not follow
        if kind is cst.Name:
            self.read(known, state, code, how)
        elif kind is cst.Attribute:
            if not self.accesses.type_query(known, state):
                self.visit(known.value, state, code, how)
        elif kind is cst.Call:
            self.call(known, state)
        elif kind is cst.Arg:
            self.visit(known.value, state, code, how)
        elif kind is cst.Comparison and self.crossing.none_test(known, state):
            return
        elif kind is cst.NamedExpr:
            self.visit(known.value, state)
            self.assign_target(known.target, state)
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
            self.crossing.call_to_nothing(node, node.func.value, state)
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
            kept = b if a is None else a  # an empty state is a path too: only None is none
            return dict(kept) if kept is not None else None
        return {name: self.join_values(name, a.get(name), b.get(name)) for name in a.keys() | b.keys()}

    def join_values(self, name: str, a: Value | None, b: Value | None) -> Value:
        if a is b or a is None or b is None or a.key() == b.key():  # the same object: most names, most joins
            kept: Any = b if a is None else a  # (never both None: the name is in one state at least)
            return kept
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
