"""Running offsets that always hold the same value share one variable, as a maintainer writes a GEMM's K loop:
`off_k = 0`, `a_desc.load([pid_m * BM, off_k])`, `b_desc.load([off_k, pid_n * BN])`, `off_k += BK`, where
the rewrite gave each descriptor its own (`a_off1`, `b_off0`: each block pointer was advanced on its own).

Two offset variables the rewrite introduced for block pointers that move (`running`: name -> the extent it
runs along; descriptors, masked pointers and a launch check's two variants alike) are one where their
assignments pair up, in order, each pair in the same block and of the same value, with nothing between the
two that could tell them apart: only simple statements (or `if`s of them) that neither read nor write either
variable (or another one merged with them) nor write a name the value reads, and no `return`, `break`,
`continue` or `raise`. By induction along any execution the two are then equal wherever either is
read, so the reads of the second may read the first and its assignments go. The shared variable is named
after the extent (`off_k` for K) where all run along the same one and the name is free.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass, replace
from typing import cast

import libcst as cst

from triton_migrate.analysis.facts import assigned_names
from triton_migrate.syntax.nodes import canonical_code, free_names

from .blocks import RenameAndDrop, paths_to

_SIMPLE = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr, cst.Pass)


@dataclass
class _Assignment:
    block: int  # id of the statement list holding it
    index: int  # its line's index there
    line: cst.SimpleStatementLine
    kind: str  # "=" or the augmented operator's class name
    value: str  # the value's code
    reads: frozenset[str]


@dataclass
class _Variable:
    name: str
    assignments: list[_Assignment] = field(default_factory=list)
    members: list[str] = field(default_factory=list)  # the variables merged into it


def merge(function: cst.FunctionDef, running: dict[str, str], taken: set[str], placeholders: dict) -> cst.FunctionDef:
    """`function` with the running offsets of `running` that always hold the same value merged into one;
    `taken`: the module's identifiers (a new name must be none of them), to which a new name is added.
    Runs before rewrite/offsets.py names the masked-pointer form's offsets and bounds: `placeholders` (name ->
    (spec, wide)) are read through, and renamed in place, so that the masks of two accesses that moved
    alike are one value, which offsets.py then writes once (`m_k = off_k + tl.arange(0, BK) < K`)."""
    scan = _Scan(set(running), placeholders)
    function.visit(scan)
    candidates = [v for name, v in scan.variables.items() if name not in scan.other_bindings and v.assignments]
    classes: list[_Variable] = []
    for variable in sorted(candidates, key=lambda v: scan.order[id(v.assignments[0].line)]):
        owner = next((c for c in classes if _follows(c, variable, scan)), None)
        if owner is None:
            classes.append(_Variable(variable.name, variable.assignments, [variable.name]))
        else:
            owner.members.append(variable.name)
    merged = [c for c in classes if len(c.members) > 1]
    if not merged:
        return function
    renamed, dropped = {}, set()
    for variable in merged:
        shared = _shared_name(variable, running, taken)
        renamed.update(dict.fromkeys(variable.members, shared))
        dropped |= {id(a.line) for member in variable.members[1:] for a in scan.variables[member].assignments}
    wanted: set[int] = set()
    paths_to(function, dropped | {id(node) for name in renamed for node in scan.mentions[name]}, wanted)
    for placeholder in {p for name in renamed for p in scan.placeholder_mentions[name]}:
        spec, wide = placeholders[placeholder]
        placeholders[placeholder] = (_renamed(spec, renamed), wide)
    return cast(cst.FunctionDef, function.visit(RenameAndDrop(renamed, dropped, wanted)))


def _renamed(spec, renamed: dict[str, str]):
    """An axis or bound of the masked-pointer form with the names of `renamed` renamed."""
    changes: dict[str, object] = {}
    for part in fields(spec):
        value = getattr(spec, part.name)
        if isinstance(value, cst.CSTNode):
            changes[part.name] = value.visit(RenameAndDrop(renamed, set(), None))
        elif is_dataclass(value):
            changes[part.name] = _renamed(value, renamed)
        elif type(value) is tuple and all(is_dataclass(item) for item in value):  # a tile's bounds
            changes[part.name] = tuple(_renamed(item, renamed) for item in value)
    return replace(spec, **changes)


def _follows(owner: _Variable, candidate: _Variable, scan: _Scan) -> bool:
    """Whether each assignment of `candidate` pairs with the corresponding one of `owner` (and of its members):
    the same value in the same block, with nothing between the two that could tell them apart."""
    if len(owner.assignments) != len(candidate.assignments):
        return False
    names = {*owner.members, candidate.name}
    paired = {id(a.line) for member in owner.members[1:] for a in scan.variables[member].assignments}
    for first, second in zip(owner.assignments, candidate.assignments):
        if (first.block, first.kind, first.value) != (second.block, second.kind, second.value) or \
                second.index == first.index:
            return False
        lines = scan.blocks[first.block][min(first.index, second.index) + 1:max(first.index, second.index)]
        if not all(id(line) in paired or _harmless(line, names, first.reads, scan.reads) for line in lines):
            return False
    return True


def _harmless(line: cst.CSTNode, names: set[str], read: frozenset[str], reads) -> bool:
    """A simple statement that neither mentions `names` (`reads(node)`: the names a node reads) nor assigns a
    name of `read`, nor leaves the block; or an `if` of such statements (`if USE_DESCRIPTORS: b_desc = ...`
    between `a_off1 = 0` and `b_off0 = 0`)."""
    if isinstance(line, cst.If):
        rest = line.orelse
        return not reads(line.test) & names and _harmless(line.body, names, read, reads) and (
            rest is None or _harmless(rest if isinstance(rest, cst.If) else rest.body, names, read, reads))
    if isinstance(line, cst.IndentedBlock):
        return all(_harmless(inner, names, read, reads) for inner in line.body)
    return isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)) and \
        all(isinstance(s, _SIMPLE) for s in line.body) and not reads(line) & names and \
        not assigned_names(line) & read


def _shared_name(variable: _Variable, running: dict[str, str], taken: set[str]) -> str:
    extents = {running[member] for member in variable.members}
    extent = next(iter(extents)) if len(extents) == 1 else None
    name = f"off_{extent.lower()}" if extent is not None and extent.isidentifier() else None
    if name is None or name in taken:
        return variable.name
    taken.add(name)
    return name


class _Scan(cst.CSTVisitor):
    """Every statement list with its lines, the assignments of the candidate variables (a line of its own each:
    `name = value` or `name op= value`), the other ways they are bound, and every Name that spells one."""

    def __init__(self, names: set[str], placeholders: dict) -> None:
        self.names = names
        self.placeholders = placeholders
        self.placeholder_mentions: dict[str, set[str]] = {name: set() for name in names}
        self.variables = {name: _Variable(name) for name in names}
        self.other_bindings: set[str] = set()
        self.blocks: dict[int, list] = {}
        self.order: dict[int, int] = {}  # id of a line -> its place in the function
        self.mentions: dict[str, list[cst.Name]] = {name: [] for name in names}
        self._assigned: set[int] = set()  # the target Names of the assignments found

    def visit_IndentedBlock(self, node: cst.IndentedBlock) -> None:
        self.blocks[id(node)] = list(node.body)
        for index, line in enumerate(node.body):
            self.order.setdefault(id(line), len(self.order))
            assignment = self._assignment(line, id(node), index)
            if assignment is not None:
                self.variables[assignment[0]].assignments.append(assignment[1])

    def _assignment(self, line, block: int, index: int) -> tuple[str, _Assignment] | None:
        if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        statement = line.body[0]
        if isinstance(statement, cst.Assign) and len(statement.targets) == 1:
            target, kind = statement.targets[0].target, "="
        elif isinstance(statement, cst.AugAssign):
            target, kind = statement.target, type(statement.operator).__name__
        else:
            return None
        if not isinstance(target, cst.Name) or target.value not in self.names:
            return None
        self._assigned.add(id(target))
        value = statement.value
        return target.value, _Assignment(block, index, line, kind, canonical_code(value), self.reads(value))

    def reads(self, node: cst.CSTNode) -> frozenset[str]:
        """The names `node` reads, through the masked-pointer form's placeholders."""
        names = free_names(node)
        return names.union(*(self.placeholders[n][0].reads() for n in names if n in self.placeholders))

    def visit_Name(self, node: cst.Name) -> None:
        if node.value in self.names:
            self.mentions[node.value].append(node)
        elif node.value in self.placeholders:
            for name in self.placeholders[node.value][0].reads() & self.names:
                self.placeholder_mentions[name].add(node.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._other(node.target)

    def visit_For(self, node: cst.For) -> None:
        self._other(node.target)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._other(node.target)

    def _other(self, target: cst.BaseExpression) -> None:
        """A binding other than a plain assignment line (a tuple target, a loop variable, `:=`)."""
        if not isinstance(target, cst.Name) or id(target) not in self._assigned:
            self.other_bindings |= {n for n in free_names(target) if n in self.names}
