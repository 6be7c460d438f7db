"""The ranges along the axes of tiles, and their bounds, each written once where every access that needs it
can read it, as a careful person writes them: `o_t = tl.arange(0, BT)`, `m_t = tl.arange(0, BT) < tl.maximum(T,
0) - i_t * BT`.

The masked-pointer form (TTD006) builds its addresses and masks from an axis (`offset + tl.arange(0,
block)`; its addresses read the range alone, the axis at offset 0) and a bound (an axis checked against a
shape), leaving a placeholder name for each use
(`Namer.placeholder`). Once a function is rewritten, `share` decides which definition serves each use,
writes the definitions and puts their names in place of the placeholders:

* A use is served by a definition of the same value that comes before it on every path (it dominates the
  use) with no assignment, on the way, to a name the value reads.
* A new definition goes before the statement that holds the use, and moves out of the loops around it
  whose iterations do not change its value (the compiler would hoist it there anyway; written there, it
  also serves the accesses after the loop). It moves out of an `if` only where that lets it serve a later
  use the inner place would not, and never out of an `if` Triton may decide at compile time
  (static_tests.py): the branch it drops may hold code that does not compile there (`D1 + tl.arange(0, D2)`
  under `if D2 > 0:`, with `D2 = 0`). A value that calls anything impure stays put.
* A definition that serves one use only is written inline there, `(o_k < K)[None, :]`: a name read once
  is a name to look up for nothing.
* An axis that some use scales by a stride other than the unit one is widened once, at its definition
  (`tl.arange(0, BT).to(tl.int64)`): a block pointer computes its addresses in 64 bits. So is the axis a
  bound compares where the offset may be negative (`(i_t * BT + tl.arange(0, BT).to(tl.int64)).to(tl.uint64)
  < ...`): the sum of an int32 offset and the range may wrap in int32.

Names follow the block size (`BT` gives `o_t` and `m_t`, `BLOCK_SIZE_K` gives `o_k`; a tile's mask `m_tk`, a
range `r_t`); where the function has a name of that spelling already, another word (`offs_t`, `mask_t`), and
numbered where a value of the rewrite's own has it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable, cast

import libcst as cst

from triton_migrate.analysis.facts import assigned_names
from triton_migrate.analysis.invariance import is_invariant
from triton_migrate.syntax.forms import masked_pointers as masked
from triton_migrate.syntax.nodes import leading_lines
from triton_migrate.syntax.walk import walk

from .blocks import inner_blocks, paths_to
from .forms.stand_ins import StandIns
from .static_tests import StaticTests

_LOOPS = (cst.For, cst.While)


@dataclass
class _Use:
    placeholder: str
    spec: masked.Axis | masked.Bound
    wide: bool
    path: tuple  # ((id of a block, index of a statement in it), ...), down to the statement of the use


@dataclass
class _Definition:
    spec: masked.Axis | masked.Bound
    position: tuple  # a path: the definition goes before its last statement
    uses: list[_Use] = field(default_factory=list)
    wide: bool = False
    axis: str | None = None  # a bound's: the placeholder of its axis


def share(function: cst.FunctionDef, stand_ins: StandIns, member_of: Callable) -> cst.FunctionDef:
    """`function` with every placeholder of `stand_ins` (name -> (spec, wide)) replaced, and the definitions
    that serve them written in, under names that no name of the function (parameters, locals, the globals it
    reads) spells: a local of another function is no name this one sees. In three rounds, each placing the
    placeholders the values of the one before read: the masks of tiles (a named tile's bounds are named too,
    `m_tk = m_t[:, None] & m_k[None, :]`, not spelled out in one long line), then axes and bounds, then the
    int32 ranges they read (`r_t = tl.arange(0, BT)`, named where a widened axis and a bound both read it)."""
    kept: set[str] = set()
    for kinds in ((masked.Tile,), (masked.Axis, masked.Bound), (masked.Range,)):
        chosen = {name: held for name, held in stand_ins.placeholders.items() if isinstance(held[0], kinds)}
        function = _share(function, chosen, member_of, stand_ins.placeholder, kept)
    return function


def _kept(placeholder: Callable, kept: set[str], spec, wide: bool = False) -> cst.Name:
    """A placeholder (`placeholder(spec, wide)`) that the next round names, however many uses read it."""
    name = placeholder(spec, wide)
    kept.add(name.value)
    return name


def _share(function: cst.FunctionDef, placeholders: dict, member_of: Callable, placeholder: Callable,
           kept: set[str]) -> cst.FunctionDef:
    """`kept`: placeholders named however many uses read them (the bounds of a named tile), to which those
    of the tiles this round names are added."""
    scan = _Scan(placeholders)
    scan.block(function.body, ())
    if not scan.uses:
        return function
    placement = _Placement(scan, member_of, StaticTests(function))
    bounds = placement.place([u for u in scan.uses if not isinstance(u.spec, (masked.Axis, masked.Range))])
    axis_uses = [u for u in scan.uses if isinstance(u.spec, (masked.Axis, masked.Range))]
    for number, bound in enumerate(bounds):  # the bound's definition, or its one use, reads its axis
        compared = bound.spec.compared() if isinstance(bound.spec, masked.Bound) else None
        if compared is not None:  # in 64 bits: the sum of an int32 offset and the range may wrap in int32
            bound.axis = f"{bound.uses[0].placeholder}.axis{number}"
            axis_uses.append(_Use(bound.axis, compared, True, _where(bound)))
    axes = placement.place(sorted(axis_uses, key=lambda use: _order(use.path)))
    named = [d for d in axes + bounds if len(d.uses) > 1 or d.uses[0].placeholder in kept]
    names = _Names(scan.names | {param.name.value for param in _parameters(function)})
    for definition in sorted(named, key=lambda d: _order(d.position)):  # numbered in the order they are read
        names.of(definition.spec)
    values: dict[str, cst.BaseExpression] = {}
    lines: dict[tuple, list[cst.SimpleStatementLine]] = {}
    for definition in axes + bounds:
        kept_too = definition in named and isinstance(definition.spec, masked.Tile)
        value = _value(definition, values, partial(_kept, placeholder, kept) if kept_too else placeholder)
        if definition not in named:
            values[definition.uses[0].placeholder] = value
            continue
        name = names.of(definition.spec)
        values.update({use.placeholder: cst.Name(name) for use in definition.uses})
        lines.setdefault(definition.position[-1], []).append(
            cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], value)]))
    return cast(cst.FunctionDef, function.visit(_Apply(values, lines, scan.placeholder_nodes)))


def _parameters(function: cst.FunctionDef) -> list[cst.Param]:
    params = function.params
    star = [params.star_arg] if isinstance(params.star_arg, cst.Param) else []
    return [*params.posonly_params, *params.params, *star, *params.kwonly_params,
            *([params.star_kwarg] if params.star_kwarg else [])]


def _value(definition: _Definition, values: dict, placeholder: Callable) -> cst.BaseExpression:
    """What a definition assigns, or its one use reads: a tile's bounds as new placeholders."""
    spec = definition.spec
    if isinstance(spec, masked.Range):
        return spec.value()
    if isinstance(spec, masked.Axis):
        return spec.value(definition.wide, placeholder)
    return spec.value(placeholder) if isinstance(spec, masked.Tile) else \
        spec.value(values.get(definition.axis), placeholder)


def _where(bound: _Definition) -> tuple:
    return bound.position if len(bound.uses) > 1 else bound.uses[0].path


def _order(path: tuple) -> tuple:
    return tuple(index for _, index in path)


class _Scan:
    """Where each placeholder is used, the statements of every block, and what each statement assigns."""

    def __init__(self, placeholders: dict) -> None:
        self.placeholders = placeholders
        self.uses: list[_Use] = []
        self.statements: dict[int, list] = {}  # id of a block -> its statements
        self.insertable: set[int] = set()  # blocks a definition can go into (not the stand-in for an `elif`)
        self.assigned: dict[int, frozenset[str]] = {}
        self.names: set[str] = set()
        self.placeholder_nodes: set[int] = set()

    def block(self, block, path: tuple, insertable: bool = True) -> None:
        body = list(block.body) if isinstance(block, cst.IndentedBlock) else [block]
        self.statements[id(block)] = body
        if insertable:
            self.insertable.add(id(block))
        for index, statement in enumerate(body):
            here = path + ((id(block), index),)
            self.assigned[id(statement)] = assigned_names(statement)
            for part in _headers(statement):
                self.find(part, here)
            for child, can_insert in inner_blocks(statement):
                self.block(child, here, can_insert)

    def find(self, node: cst.CSTNode, path: tuple) -> None:
        scan = self

        class Names(cst.CSTVisitor):
            def visit_Name(self, name: cst.Name) -> None:
                scan.names.add(name.value)
                if name.value in scan.placeholders:
                    scan.placeholder_nodes.add(id(name))
                    spec, wide = scan.placeholders[name.value]
                    scan.uses.append(_Use(name.value, spec, wide, path))

        walk(Names(), node)


def _headers(statement: cst.CSTNode) -> list:
    """The parts of a statement outside its blocks of statements."""
    if isinstance(statement, cst.SimpleStatementLine):
        return [statement]
    if isinstance(statement, (cst.If, cst.While)):
        return [statement.test]
    if isinstance(statement, cst.For):
        return [statement.target, statement.iter]
    if isinstance(statement, cst.With):
        return list(statement.items)
    return [statement]  # try, match, a nested function: read as a whole, never entered


class _Placement:
    def __init__(self, scan: _Scan, member_of: Callable, static: StaticTests) -> None:
        self.scan = scan
        self.member_of = member_of
        self.static = static

    def place(self, uses: list[_Use]) -> list[_Definition]:
        """One definition per group of uses it serves, in the order of their first use."""
        definitions: list[_Definition] = []
        for index, use in enumerate(uses):
            key = use.spec.key()
            served = next((d for d in definitions if d.spec.key() == key and self.serves(d.position, use)), None)
            if served is None:
                later = [u for u in uses[index + 1:] if u.spec.key() == key]
                served = _Definition(use.spec, self.position_for(use, later))
                definitions.append(served)
            served.uses.append(use)
            served.wide = served.wide or use.wide
        return definitions

    def position_for(self, use: _Use, later: list[_Use]) -> tuple:
        """Before the statement of the use, moved out of the loops whose statements do not change the value,
        and out of the `if`s (as many as it takes) where that serves more of the `later` uses."""
        position = best = use.path
        served = self.count_served(best, later)
        movable = is_invariant(use.spec.parts(), frozenset(), self.member_of)
        for depth in range(len(use.path) - 1, 0, -1):
            outer = use.path[:depth]
            block, index = outer[-1]
            statement = self.scan.statements[block][index]
            stuck = position[-1][0] not in self.scan.insertable  # an `elif`'s test: it must move out
            if not stuck and (not movable or self.scan.assigned[id(statement)] & use.spec.reads()):
                break
            if self.static.guards(statement, use.spec.reads()):  # where the branch is not compiled, the value
                break  # may not compile either
            count = self.count_served(outer, later)
            if stuck or count > served or (best is position and isinstance(statement, _LOOPS)):
                best, served = outer, count
            position = outer
        return best

    def count_served(self, position: tuple, uses: list[_Use]) -> int:
        return sum(self.serves(position, use) for use in uses)

    def serves(self, position: tuple, use: _Use) -> bool:
        """Whether a definition before `position`'s statement holds the value the spec has at `use`."""
        depth = len(position)
        if len(use.path) < depth or use.path[:depth - 1] != position[:-1]:
            return False
        (block, start), (use_block, at) = position[-1], use.path[depth - 1]
        if use_block != block or at < start:
            return False
        reads = use.spec.reads()
        between = self.scan.statements[block][start:at]
        around = [self.scan.statements[b][i] for b, i in use.path[depth - 1:-1]]  # compounds holding the use
        return not any(self.scan.assigned[id(s)] & reads for s in between + around)


class _Names:
    """One name per value (`o_t`, `m_t`, `m_tk` for a tile), free in the function. Where the kernel has a name
    of that spelling already (fla's `o_t = i_t * BT + tl.arange(0, BT)`, another value), the rewrite's reads
    as another word, `offs_t`, `mask_t`, not as a second `o_t2` beside the author's; two values of the
    rewrite's own of one spelling are numbered (`offs_k`, `offs_k2`)."""

    def __init__(self, taken: set[str]) -> None:
        self.authors = frozenset(taken)
        self.taken = set(taken)
        self.given: dict[tuple, str] = {}

    def of(self, spec) -> str:
        key = spec.key()
        if key not in self.given:
            stems = [f"{prefix}_{spec.stem()}" for prefix in _PREFIXES.get(type(spec), ("m", "mask"))]
            stem = next((s for s in stems if s not in self.authors), stems[-1])
            joint = "_" if stem[-1].isdigit() else ""  # o_t2, but o_64_2
            name = next(c for c in (stem, *(f"{stem}{joint}{k}" for k in range(2, 1000))) if c not in self.taken)
            self.taken.add(name)
            self.given[key] = name
        return self.given[key]


_PREFIXES = {masked.Axis: ("o", "offs"), masked.Range: ("r", "range")}  # else a bound's or a tile's: m, mask


class _Apply(cst.CSTTransformer):
    """Placeholders replaced by names or inline values; definitions written before their statements. Only
    the paths down to those are rebuilt: every other statement keeps its nodes, so that the layout
    (wrap.py) sees it untouched."""

    def __init__(self, values: dict[str, cst.BaseExpression], lines: dict[tuple, list], edited: set[int]) -> None:
        self.values = values
        self.lines = lines
        self.edited = edited | {block for block, _ in lines}  # ids of the placeholders, of the blocks
        self.inlined: set[int] = set()

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, cst.FunctionDef):
            self.wanted: set[int] = set()
            paths_to(node, self.edited, self.wanted)
        return id(node) in self.wanted and super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode):
        if id(original_node) not in self.wanted:
            return updated_node
        return super().on_leave(original_node, updated_node)

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        value = self.values.get(original.value)
        if value is None:
            return updated
        grouped = masked.grouped(value)
        self.inlined.add(id(grouped))
        return grouped

    def _ungrouped(self, node):  # an argument or an assigned value needs no parentheses of its own
        return node.with_changes(lpar=[], rpar=[]) if id(node) in self.inlined else node

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(value=self._ungrouped(updated.value))

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign) -> cst.Assign:
        return updated.with_changes(value=self._ungrouped(updated.value))

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock) -> cst.IndentedBlock:
        body = []
        for index, statement in enumerate(updated.body):
            added = self.lines.get((id(original), index))
            if added:
                # blank lines before the statement go before the definitions; its comments stay on it
                leading = list(leading_lines(statement))
                blank = next((i for i, line in enumerate(leading) if line.comment is not None), len(leading))
                body += [added[0].with_changes(leading_lines=leading[:blank]), *added[1:]]
                statement = statement.with_changes(leading_lines=leading[blank:])
            body.append(statement)
        return updated.with_changes(body=body)

