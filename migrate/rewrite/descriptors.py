"""One tensor descriptor per view of a tensor: the descriptors the rewrite creates with the same base, shape,
strides, block shape and padding are created once, and every access loads or stores through that one.

Each block pointer becomes a descriptor of its own (`p_A_11_desc`, `p_A_22_desc`, ...), while the block pointers
of a kernel often differ only in their offsets: fla's `merge_16x16_to_64x64_inverse_kernel` makes ten over one
matrix, and ten device-side descriptors cost ten writes to scratch memory at every launch, where a maintainer
writes one (`desc.load([i_t * BT + 16, 0])`). A descriptor the rewrite created goes, and its reads name an
earlier one, when the earlier one's call has the same code (function, base, shape, strides, block shape,
padding: a cast base or another padding is another descriptor) and holds the same value there:

* it has run whenever the later one runs: it stands earlier in the same block, or in an `if` before it whose
  test Triton decides at compile time (static_tests.py: what a taken branch of such an `if` binds is bound
  after it, as fla's own `desc` is) where the later one stands under the same test, taken the same way;
  never inside a loop, or a run-time `if`, that the later one is outside of;
* no line between them assigns a name either call reads, nor a name the tests above read; a loop around the
  later one is between them as a whole (its next pass reads what its last one assigned);
* every assignment of either name is such a creation, and each of them holds the earlier one's value by the
  two rules above (a name the kernel assigns again, `p_w_desc` for each of `if K > 64:`, `if K > 128:`, ...,
  is created once too): every read of the later name, wherever it is, finds the value the earlier name holds.

A creation in a loop goes before it (with the `if FLAG:` the rewrite wrote around it) where the loop assigns
nothing it reads and its name holds that one value: every creation of the name is in the loop, or no line from
the first of them on assigns what they read. The analysis creates a descriptor before its loop itself (TTD001),
but not where the block pointer's name is created again in the loop (fla's `p_w`, for each 64 columns at every
step) or in another loop: once those are one creation, it can. Moved, it may serve the creations of a later loop.

Only lines the rewrite wrote take part: the user's own descriptors, and their names, stay as written. A
descriptor that now serves several block pointers is named after its tensor (`A_desc`, or `x_desc` for
`x_ptr`), where that name is free in the module and in the function.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst

from triton_migrate.analysis.facts import AssignmentCollector, assigned_names
from triton_migrate.analysis.naming import SUFFIXES
from triton_migrate.syntax.nodes import canonical_code, free_names
from triton_migrate.syntax.walk import walk

from .blocks import RenameAndDrop, filled, node_ids, paths_to
from .static_tests import StaticTests

_Step = tuple[int, int]  # (id of a block, index of a statement in it)
_Condition = tuple[str, bool]  # a compile-time test's code, and the branch taken
_Branch = tuple[cst.CSTNode, list, Optional[_Condition]]  # a block, its lines, and the test that leads into it


@dataclass(frozen=True)
class _Creation:
    line: cst.SimpleStatementLine  # `name = tl.make_tensor_descriptor(...)`
    name: str
    call: cst.Call
    steps: tuple[_Step, ...]  # from the function's body down to the line
    # per step after the first: the compile-time test that leads into its block, or None (a loop, a run-time `if`)
    conditions: tuple[_Condition | None, ...]

    @property
    def key(self) -> str:
        return canonical_code(self.call)


def share_descriptors(original: cst.FunctionDef, updated: cst.FunctionDef, member_of, shim: str,
                      taken: set[str]) -> cst.FunctionDef:
    """`updated` (the rewrite of `original`) with one descriptor per view; `member_of` resolves a call's name
    to its `triton.language` member (TritonNames.member), `shim` is how the module names the compat shim,
    `taken`: every identifier of the module."""
    kept, handles = node_ids(original), _Handles(member_of, shim)
    while True:  # a descriptor moved before its loop may serve those of the loop, and then move before another
        scan = _Scan(updated, kept, handles)
        changed = _shared(scan, updated, taken) or _hoisted(scan, updated)
        if changed is None:
            return updated
        updated = changed


def _shared(scan: _Scan, function: cst.FunctionDef, taken: set[str]) -> cst.FunctionDef | None:
    """`function` with each creation an earlier one's value is available at dropped, its name read as the earlier
    one's; None if there is none."""
    heads: dict[str, list[_Creation]] = {}  # key -> the first creations of the names that hold one value
    served: dict[str, list[_Creation]] = {}  # the name of such a first creation -> the creations it replaces
    for name, creations in scan.names.items():
        first, *rest = creations
        head = next((other for other in heads.get(first.key, ()) if all(scan.available(other, c) for c in creations)),
                    None)
        if head is not None:
            served.setdefault(head.name, []).extend(creations)
        elif all(scan.available(first, c) for c in rest):  # each creation again of the one value it holds
            heads.setdefault(first.key, []).append(first)
            if rest:
                served.setdefault(name, []).extend(rest)
    if not served:
        return None
    renamed = {late.name: earlier for earlier, lates in served.items() for late in lates if late.name != earlier}
    every = _Names()
    walk(every, function)
    names = {name.value for name in every.found} | taken
    for earlier, lates in served.items():
        view = _view_name(scan.names[earlier][0], names) if renamed.keys() & {late.name for late in lates} else None
        if view is not None:
            names.add(view)
            renamed[earlier] = view
            renamed.update({late: view for late, shared in renamed.items() if shared == earlier})
    dropped = {id(late.line) for lates in served.values() for late in lates}
    wanted: set[int] = set()
    paths_to(function, dropped | {id(name) for name in every.found if name.value in renamed}, wanted)
    return cst.ensure_type(function.visit(RenameAndDrop(renamed, dropped, wanted)), cst.FunctionDef)


def _hoisted(scan: _Scan, function: cst.FunctionDef) -> cst.FunctionDef | None:
    """`function` with the creations that give the same value on every pass of their loop moved before it (with
    the `if FLAG:` of their own around them); None if there is none."""
    before: dict[int, list[cst.BaseStatement]] = {}  # id of a loop -> the lines to move before it
    for creations in scan.names.values():
        found = scan.hoistable(creations)
        if found is not None:
            line, loop = found
            before.setdefault(id(loop), []).append(line)
    if not before:
        return None
    moved = {id(line) for lines in before.values() for line in lines}
    wanted: set[int] = set()
    paths_to(function, moved | set(before), wanted)
    return cst.ensure_type(function.visit(_MovedBefore(before, moved, wanted)), cst.FunctionDef)


class _MovedBefore(cst.CSTTransformer):
    """The lines of `moved` (ids) taken out of their blocks, and each loop's of `before` put before it; only the
    nodes of `wanted` are entered."""

    def __init__(self, before: dict[int, list], moved: set[int], wanted: set[int]) -> None:
        self.before, self.moved, self.wanted = before, moved, wanted

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) in self.wanted

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        """The block without its moved lines (what stood above each goes to the next line, as `without_lines`
        hands it on), and the lines moved before each of its loops right above the loop's own comments and blank
        lines, which stay the loop's."""
        body: list[cst.BaseStatement] = []
        held: list[cst.EmptyLine] = []
        for old, new in zip(original.body, updated.body):
            assert isinstance(new, (cst.SimpleStatementLine, cst.BaseCompoundStatement))  # a block's lines
            if id(old) in self.moved:
                held += new.leading_lines
                continue
            if held:
                new, held = new.with_changes(leading_lines=[*held, *new.leading_lines]), []
            body += [line.with_changes(leading_lines=[]) for line in self.before.get(id(old), ())]
            body.append(new)
        return filled(updated.with_changes(body=body, footer=[*held, *updated.footer]))


@dataclass(frozen=True)
class _Handles:
    """Which calls create a handle: `tl.make_tensor_descriptor`, or the compat shim's `make_tile` (a position-free
    tile that is a descriptor where the launch allows one, TTD007)."""

    member_of: Callable[[cst.BaseExpression], str | None]  # TritonNames.member
    shim: str

    def creates(self, call: cst.Call) -> bool:
        func = call.func
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == self.shim:
            return func.attr.value == "make_tile"
        return self.member_of(func) == "make_tensor_descriptor"


class _Scan:
    """The descriptor creations the rewrite wrote in a function, in order, where each stands, and what each
    block assigns."""

    def __init__(self, function: cst.FunctionDef, kept: set[int], handles: _Handles) -> None:
        self.kept, self.handles, self.static = kept, handles, StaticTests(function)
        collector = AssignmentCollector()
        walk(collector, function.body)
        self.assignments = {name: len(sources) for name, sources in collector.assignments.items()}
        self.blocks: dict[int, list[cst.BaseStatement]] = {}
        self.tests: dict[str, frozenset[str]] = {}  # a compile-time test's code -> the names it reads
        self.owners: dict[int, cst.BaseStatement] = {}  # id of a block -> the compound line it is part of
        self.creations: list[_Creation] = []
        self._block(function.body, list(function.body.body), (), ())
        self.names: dict[str, list[_Creation]] = {}  # a name every assignment of which is one call -> those lines
        for creation in self.creations:
            self.names.setdefault(creation.name, []).append(creation)
        self.names = {name: creations for name, creations in self.names.items()
                      if len(creations) == self.assignments[name] and len({c.key for c in creations}) == 1}

    def _block(self, block: cst.CSTNode, lines: list, steps: tuple, conditions: tuple) -> None:
        self.blocks[id(block)] = lines
        for index, line in enumerate(lines):
            here = (*steps, (id(block), index))
            call = self._descriptor(line)
            if call is not None:
                target = line.body[0].targets[0].target.value
                self.creations.append(_Creation(line, target, call, here, conditions))
            for inner, inner_lines, condition in self._branches(line):
                self.owners[id(inner)] = line
                self._block(inner, inner_lines, here, (*conditions, condition))

    def _descriptor(self, line: cst.BaseStatement) -> cst.Call | None:
        """The call of `name = tl.make_tensor_descriptor(...)` (or of a compat tile) on a line the rewrite
        wrote."""
        if id(line) in self.kept or not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
            return None
        statement = line.body[0]
        if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
            return None
        target, value = statement.targets[0].target, statement.value
        if not isinstance(target, cst.Name):
            return None
        return value if type(value) is cst.Call and self.handles.creates(value) else None

    def _branches(self, line: cst.BaseStatement) -> list[_Branch]:
        """The blocks inside a compound line, each with the compile-time test that leads into it (an `elif`
        is a block of one line, the `if` it is)."""
        if not isinstance(line, (cst.If, cst.For, cst.While, cst.With)):
            return []
        test = None
        if isinstance(line, cst.If) and self.static.surely_static(line):
            test = canonical_code(line.test)
            self.tests[test] = free_names(line.test)
        found: list[_Branch] = [(line.body, list(line.body.body), None if test is None else (test, True))]
        orelse = getattr(line, "orelse", None)
        if isinstance(orelse, cst.If):
            found.append((orelse, [orelse], None if test is None else (test, False)))
        elif orelse is not None:
            found.append((orelse.body, list(orelse.body.body), None if test is None else (test, False)))
        if isinstance(line, (cst.For, cst.While)):  # a loop's `else` runs after it, on some paths only
            return [(block, lines, None) for block, lines, _ in found]
        return found

    def available(self, earlier: _Creation, later: _Creation) -> bool:
        """Whether `earlier` has run, with the value `later` computes, wherever `later` runs."""
        depth = _common(earlier.steps, later.steps)
        if depth == len(earlier.steps) or earlier.steps[depth][0] != later.steps[depth][0] or \
                earlier.steps[depth][1] > later.steps[depth][1]:
            return False  # not in the same block at the level where the two part
        above = [condition for condition in earlier.conditions[depth:] if condition is not None]
        if len(above) < len(earlier.conditions[depth:]) or not set(above) <= set(later.conditions[depth:]):
            return False
        read = free_names(earlier.call).union(*(self.tests[test] for test, _ in above))
        return not read & self._assigned_between(earlier, later, depth)

    def hoistable(self, creations: list[_Creation]) -> tuple[cst.BaseStatement, cst.BaseStatement] | None:
        """(line, loop): the first of a name's creations (or the `if FLAG:` the rewrite wrote around it alone), in
        the body of a loop that holds every creation of the name and assigns nothing it reads; None if none."""
        first = creations[0]
        line: cst.BaseStatement = first.line
        block = first.steps[-1][0]
        owner = self.owners.get(block)
        if isinstance(owner, cst.If) and id(owner) not in self.kept and self.blocks[block] == [line] and \
                owner.orelse is None and first.conditions[-1] is not None:
            line, (block, _) = owner, first.steps[-2]
            owner = self.owners.get(block)
        if not isinstance(owner, (cst.For, cst.While)) or block != id(owner.body):
            return None
        if not all(any(step[0] == block for step in c.steps) for c in creations) and not self.one_value(first):
            return None  # the name is assigned outside the loop too: it may hold another value after it
        read = free_names(first.call) | (free_names(line.test) if isinstance(line, cst.If) else frozenset())
        return None if read & assigned_names(owner) else (line, owner)

    def one_value(self, first: _Creation) -> bool:
        """Whether every creation of `first`'s call gives one value: nothing it reads is assigned from the line of
        the function's body that holds the first of them on (a loop there may come round to it again)."""
        top = self.blocks[first.steps[0][0]]
        return not free_names(first.call) & frozenset().union(*map(assigned_names, top[first.steps[0][1]:]))

    def _assigned_between(self, earlier: _Creation, later: _Creation, depth: int) -> frozenset[str]:
        """What the lines on the way from `earlier` to `later` assign: the rest of each block `earlier` stands
        in, up to the block they share; the lines between there; the whole line that holds `later`, but for it."""
        lines = []
        for block, index in earlier.steps[depth + 1:]:
            lines += self.blocks[block][index + 1:]
        block, start = earlier.steps[depth]
        end = later.steps[depth][1]
        lines += self.blocks[block][start + 1:end]
        if len(later.steps) > depth + 1:
            lines.append(self.blocks[block][end])
        return frozenset().union(*map(assigned_names, lines)) - {later.name}


def _common(first: tuple, second: tuple) -> int:
    """How many leading steps two positions share."""
    depth = 0
    while depth < min(len(first), len(second)) and first[depth] == second[depth]:
        depth += 1
    return depth


def _view_name(creation: _Creation, names: set[str]) -> str | None:
    """`A_desc` for a descriptor over `A` (`x_desc` over `x_ptr`, `x_tile` for a compat tile), keeping a padding's
    suffix (`_desc_nan`); None where its base is no plain name or the name is taken."""
    base = creation.call.args[0].value if creation.call.args else None
    if not isinstance(base, cst.Name):
        return None
    stem = next((base.value[: -len(s)] for s in SUFFIXES if base.value.endswith(s) and len(base.value) > len(s)),
                base.value)
    kind = "_tile" if "_tile" in creation.name else "_desc"
    suffix = creation.name[creation.name.rindex(kind):] if kind in creation.name else kind
    name = f"{stem}{suffix}"
    return None if name in names else name


class _Names(cst.CSTVisitor):
    """Every Name of a function."""

    def __init__(self) -> None:
        self.found: list[cst.Name] = []

    def visit_Name(self, node: cst.Name) -> None:
        self.found.append(node)
