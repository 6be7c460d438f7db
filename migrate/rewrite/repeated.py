"""Values the rewrite computes again where the kernel already holds them, written once as a maintainer would.

Two cases, both on lines the rewrite wrote (lines the user wrote stay, repeated or not):

* **A repeated statement.** A kernel that creates a block pointer again before its second loop (fla's
  `parallel_based_fwd_kernel`: `p_k = tl.make_block_ptr(k + i_bh * T*K, (K, T), (1, K), (i_k * BK, i_c * BTL),
  ...)` after the first loop advanced the first one) gets a running offset for where the pointer stands
  (`off_t = i_c * BTL`), and the rest of the second creation (`p_k = k + i_bh * T*K + o_k[:, None] + ...`, or
  a guarded `if USE_DESCRIPTORS: p_k_desc = tl.make_tensor_descriptor(...)`) is the first one again. It goes
  when an earlier line of the same block is the same statement, assigns only names it does not read,
  computes without side effects, and no line between them assigns a name either reads or writes: both run on
  every path that reaches the second, in that order, so the second finds its targets holding what it would
  assign.
* **A value the kernel has a name for.** An offset the rewrite names (`o_k2 = i_k * BK + tl.arange(0, BK)`)
  that the kernel already computes into a variable of its own (`o_k = i_k * BK + tl.arange(0, BK)`) reads
  that variable instead. Both are assigned once in the function, the kernel's on every path to the
  rewrite's (an earlier line of the same block or of a block around it), from names assigned once before
  it or never (parameters): the two hold the same value wherever the rewrite's is read. A part of a line
  the rewrite wrote reads such a variable in the same way (`o_t = i_t * BT + o_i.to(tl.int64)` where the
  kernel has `o_i = tl.arange(0, BT)`, as fla's maintainers wrote it).

What stood above a dropped line (a comment, the blank line between two paragraphs) goes to the next one.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from triton_migrate.analysis.facts import AssignmentCollector, assigned_names
from triton_migrate.analysis.invariance import PURE_MEMBERS
from triton_migrate.syntax.nodes import canonical_code, free_names
from triton_migrate.syntax.walk import children, walk

from .blocks import RenameAndDrop, inner_blocks, node_ids, paths_to
from .dead_code import is_pure

# What a block pointer's rewritten creation calls.
_CREATION = PURE_MEMBERS | {"arange", "cast", "make_tensor_descriptor"}


def drop_repeated(original: cst.FunctionDef, updated: cst.FunctionDef, member_of) -> cst.FunctionDef:
    """`updated` (the rewrite of `original`) without the values it computes again; `member_of` resolves a
    call's name to its `triton.language` member (TritonNames.member)."""
    kept = node_ids(original)
    while True:  # a renamed offset may make the rewrite's mask of it the kernel's own (`m_k2 = o_k < K`)
        found = _Repeats(kept, updated, member_of)
        wanted: set[int] = set()
        if found.replaced:
            paths_to(updated, set(found.replaced), wanted)
            updated = cast(cst.FunctionDef, updated.visit(_Replace(found.replaced, wanted)))
        if not found.dropped:
            return updated
        wanted = set()
        paths_to(updated, found.dropped | {id(name) for name in _names(updated, found.renamed)}, wanted)
        updated = cast(cst.FunctionDef, updated.visit(RenameAndDrop(found.renamed, found.dropped, wanted)))


class _Repeats:
    """The lines to drop (`dropped`: ids), the names of the rewrite to read as the kernel's (`renamed`), and the
    expressions to read from a name that holds their value (`replaced`)."""

    def __init__(self, kept: set[int], function: cst.FunctionDef, member_of) -> None:
        """`kept`: the ids of the nodes of the original function (_nodes): lines and parts the user wrote."""
        self.kept, self.member_of = kept, member_of
        collector = AssignmentCollector()
        walk(collector, function.body)
        self.assignments = {name: len(sources) for name, sources in collector.assignments.items()}
        self.dropped: set[int] = set()
        self.renamed: dict[str, str] = {}
        self.replaced: dict[int, str] = {}  # id of an expression -> the name that holds its value
        self._block(function.body, {}, set())

    def _block(self, block: cst.CSTNode, held: dict[str, str], defined: set[str]) -> None:
        """`held`: value code -> the single-assignment name holding it on every path here; `defined`: the
        single-assignment names assigned on every path here."""
        held, defined = dict(held), set(defined)
        earlier: dict[str, frozenset[str]] = {}  # a repeatable line's code -> the names it reads and writes
        lines = block.body if isinstance(block, cst.IndentedBlock) else [cast(cst.If, block)]  # an `elif`: one line
        for line in lines:
            code = _repeatable(line, self.member_of)
            if id(line) not in self.kept and (code in earlier or self._renames(line, held)):
                self.dropped.add(id(line))
                continue
            if id(line) not in self.kept and isinstance(line, cst.SimpleStatementLine):
                self._reads_held(line, held)
            written = assigned_names(line)
            earlier = {other: names for other, names in earlier.items() if not names & written}
            if code is not None:
                earlier[code] = free_names(line)
            if isinstance(line, cst.SimpleStatementLine):
                self._holds(line, held, defined)
            loop = free_names(line.target) if isinstance(line, cst.For) else frozenset()
            for inner, _ in inner_blocks(line):
                self._block(inner, held, defined | {n for n in loop if self.assignments.get(n) == 1})

    def _renames(self, line: cst.BaseStatement, held: dict[str, str]) -> bool:
        """Whether `line` assigns, once, a value some other name holds here; if so, that name stands for it."""
        assignment = _assignment(line)
        if assignment is None or self.assignments.get(assignment[0]) != 1:
            return False
        holder = held.get(canonical_code(assignment[1]))
        if holder is None or holder == assignment[0]:
            return False
        self.renamed[assignment[0]] = holder
        return True

    def _reads_held(self, line: cst.SimpleStatementLine, held: dict[str, str]) -> None:
        """The parts of `line` that compute a value some name holds here (`tl.arange(0, BT)` in
        `p_A = A + o_t[:, None] * BT + tl.arange(0, BT)[None, :]`, where the kernel has `o_i = tl.arange(0, BT)`)
        read that name instead; the line's own target is never one."""
        own = assigned_names(line)
        pending: list[cst.CSTNode] = list(line.body)
        while pending:
            node = pending.pop()
            if id(node) in self.kept:  # the user's own code, carried into the line (`mask=tl.arange(0, BN) < N`)
                continue
            if (type(node) is cst.Call or type(node) is cst.BinaryOperation) and is_pure(node, self.member_of,
                                                                                         _CREATION):
                holder = held.get(canonical_code(node))
                if holder is not None and holder not in own:
                    self.replaced[id(node)] = holder
                    continue
            pending.extend(children(node))

    def _holds(self, line: cst.SimpleStatementLine, held: dict[str, str], defined: set[str]) -> None:
        """Record what `line` assigns: the single-assignment names, and the value of one when it reads only
        names that hold one value throughout."""
        single = {name for name in assigned_names(line) if self.assignments.get(name) == 1}
        defined |= single
        assignment = _assignment(line)
        if assignment is None or assignment[0] not in single or not is_pure(assignment[1], self.member_of, _CREATION):
            return
        if all(name in defined or name not in self.assignments for name in free_names(assignment[1])):
            held.setdefault(canonical_code(assignment[1]), assignment[0])


def _repeatable(line: cst.BaseStatement, member_of) -> str | None:
    """The code of a line that gives its targets the same values each time it runs while the names it reads
    keep theirs: assignments to plain names, computed without side effects from names none of them assigns,
    or an `if` (without `else`) of them. None for any other line."""
    test, body = None, [line]
    if isinstance(line, cst.If):
        if line.orelse is not None or not isinstance(line.body, cst.IndentedBlock):
            return None
        test, body = line.test, list(line.body.body)
    found = [_assignment(inner) for inner in body]
    assignments = [assignment for assignment in found if assignment is not None]
    if len(assignments) < len(found):
        return None
    values = [value for _, value in assignments] + ([test] if test is not None else [])
    if not all(is_pure(value, member_of, _CREATION) for value in values):
        return None
    if {target for target, _ in assignments} & frozenset().union(*map(free_names, values)):
        return None
    return "\n".join(f"{target} = {canonical_code(value)}" for target, value in assignments) + (
        "" if test is None else f"\nif {canonical_code(test)}")


def _assignment(line: cst.BaseStatement) -> tuple[str, cst.BaseExpression] | None:
    """(name, value) of `name = value` on a line of its own."""
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return None
    statement = line.body[0]
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
        return None
    target = statement.targets[0].target
    return (target.value, statement.value) if isinstance(target, cst.Name) else None


def _names(function: cst.FunctionDef, spelled: dict[str, str]) -> list[cst.Name]:
    """The Names in `function` that spell a key of `spelled`."""
    class Names(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.Name] = []

        def visit_Name(self, node: cst.Name) -> None:
            if node.value in spelled:
                self.found.append(node)

    names = Names()
    walk(names, function)
    return names.found


class _Replace(cst.CSTTransformer):
    """Expressions replaced by the names that hold their values (`replaced`: id -> name), on the paths `wanted`."""

    def __init__(self, replaced: dict[int, str], wanted: set[int]) -> None:
        self.replaced, self.wanted = replaced, wanted

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.wanted and id(node) not in self.replaced

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode):
        name = self.replaced.get(id(original))
        expression = cast(cst.BaseExpression, original)  # (what it replaces is a value)
        return updated if name is None else cst.Name(name, lpar=expression.lpar, rpar=expression.rpar)
