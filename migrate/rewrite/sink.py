"""The pointers a block pointer's name holds, computed where they are first read, as a block pointer computes
its addresses at the access.

A creation becomes the pointers of its tile, assigned on the creation's own line (`y_block_ptr = y_ptr +
o_n[:, None] * stride_yn + o_m[None, :]`). A kernel that creates its block pointers first and reads them
later (the suite's batched_transpose creates `x_block_ptr` and `y_block_ptr`, then loads one and stores the
other) would hold every address of the second tile in registers while it loads the first: 174 registers a
thread against the block pointers' 96 on the H100, and 0.77x of their speed; computed before the store,
128 registers and 1.07x (benchmarks/RESULTS.md). So such a line moves down its block to just before the
statement that first reads the name (never into a loop or a branch, which would compute it again or not
at all), where:

* the rewrite wrote it in place of a creation (`name = tl.make_block_ptr(...)` in the user's code), and
  nothing else assigns the name;
* its value computes without side effects;
* no statement it moves past assigns a name it reads.

Its comments go with it; a blank line above it stays where it was, with the next statement. A blank line
above the statement it moves to now stands above the lines moved there, so that they read as one paragraph;
the comments above that statement stay on it: they describe it (fla's `# [BT, BK]` above a load), not the
pointers.
"""

from __future__ import annotations

from typing import cast

import libcst as cst

from triton_migrate.analysis.facts import AssignmentCollector, assigned_names
from triton_migrate.syntax.nodes import free_names, leading_lines
from triton_migrate.syntax.walk import children, walk

from .blocks import paths_to
from .dead_code import is_pure

_ADDRESS = frozenset({"arange", "cast"})  # what the pointers of a tile call, besides `.to(...)`


def sink_pointers(original: cst.FunctionDef, updated: cst.FunctionDef, member_of) -> cst.FunctionDef:
    """`updated` (the rewrite of `original`) with each creation's pointers computed before their first read;
    `member_of` resolves a call's name to its `triton.language` member (TritonNames.member)."""
    created = _created_names(original, member_of)
    if not created:
        return updated
    collector = AssignmentCollector()
    walk(collector, updated.body)
    movable = {name for name in created if len(collector.assignments.get(name, ())) == 1}
    moves: dict[int, dict[int, list[int]]] = {}
    pending: list[cst.CSTNode] = [updated.body]
    while pending:
        node = pending.pop()
        if isinstance(node, cst.IndentedBlock) and (found := _moves(node.body, movable, member_of)):
            moves[id(node)] = found
        pending.extend(children(node))
    if not moves:
        return updated
    wanted: set[int] = set()
    paths_to(updated, set(moves), wanted)
    return cast(cst.FunctionDef, updated.visit(_Reorder(moves, wanted)))


def _created_names(function: cst.FunctionDef, member_of) -> set[str]:
    """The names the user assigns a block pointer's creation to (`p = tl.make_block_ptr(...)`)."""
    collector = AssignmentCollector()
    walk(collector, function.body)
    return {name for name, sources in collector.assignments.items()
            if any(isinstance(s, cst.Call) and member_of(s.func) == "make_block_ptr" for s in sources)}


def _moves(body, movable: set[str], member_of) -> dict[int, list[int]]:
    """Index of a statement of `body` -> the indexes of the lines that move to just before it."""
    before: dict[int, list[int]] = {}
    for index in range(len(body)):
        target = _first_read(body, index, movable, member_of)
        if target is not None and target > index + 1:
            before.setdefault(target, []).append(index)
    return before


def _first_read(body, index: int, movable: set[str], member_of) -> int | None:
    """Where the pointers assigned by `body[index]` go (the index of the statement that first reads them), or
    None if that line is not a creation's pointers that may move."""
    line = body[index]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1 or \
            not isinstance(line.body[0], cst.Assign) or len(line.body[0].targets) != 1:
        return None
    target, value = line.body[0].targets[0].target, line.body[0].value
    if not isinstance(target, cst.Name) or target.value not in movable or not is_pure(value, member_of, _ADDRESS):
        return None
    reads = free_names(value)
    for later in range(index + 1, len(body)):
        if target.value in free_names(body[later]):
            return later
        if assigned_names(body[later]) & reads:
            return None
    return None


class _Reorder(cst.CSTTransformer):
    """The blocks of `moves` (id -> _moves' answer) reordered; only the nodes of `wanted` are entered, so that
    every other node stays the same object (wrap.fit lays out only what changed)."""

    def __init__(self, moves: dict[int, dict[int, list[int]]], wanted: set[int]) -> None:
        self.moves, self.wanted = moves, wanted

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.wanted

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        before = self.moves.get(id(original))
        if before is None:
            return updated
        body = list(updated.body)
        moving = {index for lines in before.values() for index in lines}
        order: list[cst.BaseStatement] = []
        held: list[cst.EmptyLine] = []  # blank lines a moved line leaves behind, for the next one that stays
        for index, line in enumerate(body):
            if index in moving:
                stays, goes = _split_leading(leading_lines(line))
                held += stays
                body[index] = line.with_changes(leading_lines=goes)
                continue
            group = [*_group(before, index), index]
            first = group[0]
            # The blank lines above the statement now head the lines moved to it; its comments, which
            # describe it (`# [BT, BK]` above a load), stay on it.
            blank, own = _split_leading(leading_lines(line))
            heading, held = [*held, *blank], []
            if first != index:
                heading += leading_lines(body[first])
                body[index] = line.with_changes(leading_lines=own)
            else:
                heading += own
            body[first] = body[first].with_changes(leading_lines=heading)
            order += [body[i] for i in group]
        return updated.with_changes(body=order, footer=[*held, *updated.footer])


def _group(before: dict[int, list[int]], index: int) -> list[int]:
    """The lines that move to just before statement `index`, in order; a line read by another that moves goes
    with that one."""
    return [found for earlier in before.get(index, ()) for found in (*_group(before, earlier), earlier)]


def _split_leading(leading: list) -> tuple[list, list]:
    """(the lines that stay, the lines that move with a statement): its comments and what stands between
    them move; a blank line above the first comment, or above a statement without one, stays."""
    first = next((i for i, line in enumerate(leading) if line.comment is not None), None)
    return (list(leading), []) if first is None else (list(leading[:first]), list(leading[first:]))
