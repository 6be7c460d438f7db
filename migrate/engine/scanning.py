"""A module read for what the analysis needs: the stdlib ast first (is there a site at all?), then libcst's
tree (or the ast's rebuilt), one pass over it for its functions with sites, calls, parameters and names
(`ModuleScan`), and the modules of a program parsed for its call graph (`build_program`)."""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import re
import warnings
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper

from triton_migrate.analysis import ast_tree, stated, widths
from triton_migrate.analysis.calls import is_jit, is_kernel, member_called
from triton_migrate.analysis.facts import AssignmentCollector, FunctionFacts, module_constants
from triton_migrate.analysis.naming import Namer
from triton_migrate.analysis.positions import Positions
from triton_migrate.analysis.prefilter import SITE_KEYWORDS, SITE_MEMBERS
from triton_migrate.analysis.program import Program
from triton_migrate.analysis.stated import Inline
from triton_migrate.analysis.triton_names import TritonNames, reexported
from triton_migrate.rules import _launch_support as launch_support
from triton_migrate.syntax.ast_walk import ast_nodes
from triton_migrate.syntax.nodes import canonical_code
from triton_migrate.syntax.walk import walk

from ..forms import SHIM_NAME
from .context import MigrationContext
from .errors import ModuleFailure, SourceError, blame


def ast_parse(source: str) -> ast.Module | None:
    """None: the ast cannot tell (newer syntax, perhaps), libcst decides."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the user's SyntaxWarnings are not ours to print
            return ast.parse(source)
    except SyntaxError as error:
        if "too many nested" in str(error):  # libcst's parser would overflow the C stack on it
            raise SourceError(f"cannot parse: {error.msg}", error.lineno or 0) from error
        return None  # newer syntax than this Python's, perhaps: let libcst decide and report
    except (RecursionError, MemoryError) as error:  # libcst's native parser would crash the process on it
        raise SourceError("cannot parse: too deeply nested", 0) from error
    except ValueError:
        return None


@dataclass
class AstScan:
    """What the stdlib ast says of a module with a block-pointer site: its calls, parameters and functions
    (for positions). libcst, about 10 times slower to parse, is only paid for such modules (`has_site`)."""

    calls: list[ast.Call]
    parameters: list[ast.arg]
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef]

    @classmethod
    def of(cls, tree: ast.Module) -> AstScan:
        calls, parameters, functions = [], [], []
        for node in ast_nodes(tree):
            if type(node) is ast.Call:
                calls.append(node)
            elif type(node) is ast.arg:
                parameters.append(node)
            elif type(node) is ast.FunctionDef or type(node) is ast.AsyncFunctionDef:
                functions.append(node)
        return cls(calls, parameters, functions)


def has_site(tree: ast.Module, borrowed: TritonNames | None = None) -> bool:
    """Whether the module has a block-pointer site call: it stops at the first, which in a kernel file
    comes early (files without one, which only mention `advance(`, pay the whole walk). `borrowed`: the names of
    triton it imports from other modules of the program."""
    names = TritonNames.of_ast(tree)
    names.adopt(borrowed)
    return any(type(node) is ast.Call and _is_site_call(names, node) for node in ast_nodes(tree))


def may_spell_a_site(source: str) -> bool:
    """False where no site can be: a site's member or keyword is spelt out in the source, in its call or in
    the import that names it (only a non-ASCII spelling that the parser normalises, `ｍake_block_ptr`,
    could hide one from this search)."""
    return not source.isascii() or any(word in source for word in (*SITE_MEMBERS, *SITE_KEYWORDS))


def _is_site_call(names: TritonNames, call: ast.Call) -> bool:
    return is_site(names.ast_member(call.func), {k.arg for k in call.keywords})


def is_site(member: str | None, keywords: set) -> bool:
    """A call of `triton.language.<member>` with these keyword arguments is a block-pointer site."""
    return member in SITE_MEMBERS or (member in ("load", "store") and bool(keywords & set(SITE_KEYWORDS)))


class ModuleScan(AssignmentCollector):
    """One pass over the module (libcst visits are the cost here): the functions with block-pointer
    sites and each one's assignments, the sites outside any function, and every identifier (generated
    names must not collide with any)."""

    assignments: dict[str, list[cst.CSTNode]]  # of the function (or module) being visited

    def __init__(self, names: TritonNames) -> None:
        super().__init__()
        self.names = names
        self.all_functions: list[cst.FunctionDef] = []  # in source order
        self.with_sites: set[int] = set()
        self.function_assignments: dict[int, dict] = {}
        self.stray_calls: list[cst.Call] = []
        self.calls: list[cst.Call] = []  # in source order, for positions
        self.parameters: list[cst.Param] = []  # the same
        self.identifiers: set[str] = set()
        # The names functions call (`helper(...)`, `module.helper(...)`) -> a call of each, one of the name itself
        # (`helper(...)`) where there is one.
        self.called: dict[str, cst.Call] = {}
        self.grid_launched: set[str] = set()  # the names launched on a grid (`kernel[grid](...)`)
        self._named: Counter[str] = Counter()  # names as they occur, callees of calls included
        self._callees: Counter[str] = Counter()  # names called (`f(...)`)
        self._star = False  # `from x import *`: any name may be bound
        self._stack: list[tuple[cst.FunctionDef, dict]] = []

    @property
    def functions(self) -> list[cst.FunctionDef]:
        """The functions with a block-pointer site, in source order."""
        return [f for f in self.all_functions if id(f) in self.with_sites]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.all_functions.append(node)
        self._stack.append((node, self.assignments))
        self.assignments = self.function_assignments[id(node)] = defaultdict(list)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        _, self.assignments = self._stack.pop()

    @property
    def bound_nowhere(self) -> frozenset[str]:
        """Names that are only ever called: nothing in the module binds them (no import, definition, assignment
        or parameter), and neither do the builtins: calling one fails, in Python and in Triton's compiler."""
        if self._star:
            return frozenset()
        return frozenset(name for name, calls in self._callees.items()
                         if self._named[name] == calls and not hasattr(builtins, name))

    def visit_ImportStar(self, node: cst.ImportStar) -> None:
        self._star = True

    def visit_Call(self, node: cst.Call) -> None:
        self.calls.append(node)
        if type(node.func) is cst.Subscript and type(node.func.value) in (cst.Name, cst.Attribute):
            launched = node.func.value
            self.grid_launched.add(_last_name(launched))
        if type(node.func) is cst.Name:
            self._callees[node.func.value] += 1
        if self._stack and type(node.func) in (cst.Name, cst.Attribute):
            name = _last_name(node.func)
            if name not in self.called or type(node.func) is cst.Name:
                self.called[name] = node
        member = self.names.member(node.func)
        if member is None and self._stack and any(is_jit(d) for d in self._stack[-1][0].decorators):
            member = member_called(node, self.names)
        if not is_site(member, {a.keyword.value for a in node.args if a.keyword is not None}):
            return
        if self._stack:
            self.with_sites.add(id(self._stack[-1][0]))
        elif member in SITE_MEMBERS:  # a load/store outside a function is no site
            self.stray_calls.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.identifiers.add(node.value)
        self._named[node.value] += 1

    def named_again(self, name: str) -> bool:
        """Whether the module names `name` anywhere but where it defines it (a call, a launch, an export)."""
        return self._named[name] > 1

    def visit_Param(self, node: cst.Param) -> None:
        self.parameters.append(node)


class CallsInRun:
    """Which modules of a run may call a function by its name (`load_rows(...)`, `tiles.load_rows(...)`), from
    their text, read once when first asked: a kernel that no function of its own module calls may be another
    module's helper, whose arguments only the program's calls prove (it resolves them: this is a trigger)."""

    CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")

    def __init__(self, sources: dict[str, str]) -> None:
        self.sources = sources
        self._callers: dict[str, set[str]] | None = None

    def elsewhere(self, module_name: str, function: cst.FunctionDef) -> bool:
        if self._callers is None:
            self._callers = defaultdict(set)
            for name, text in self.sources.items():
                for called in set(self.CALL.findall(text)):
                    self._callers[called].add(name)
        return bool(self._callers.get(function.name.value, set()) - {module_name})


def parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise SourceError(f"cannot parse: {error.message}", error.raw_line) from error


@dataclass
class Unit:
    """One module and what every analysis of it shares."""

    module_name: str
    source: str
    module: cst.Module
    names: TritonNames
    scan: ModuleScan
    positions: Positions
    namer: Namer
    language: str
    shim: str
    # The launch-support functions (rules/_launch_support.py) -> the name the module calls each by, and those
    # it already imports (an earlier run's import): a later run reuses them.
    launch_names: dict[str, str] = field(default_factory=dict)
    launch_bound: frozenset[str] = frozenset()
    stated: dict[int, dict[str, str]] = field(default_factory=dict)  # line -> `# migrate: assume[...]` facts
    facts: dict[int, FunctionFacts] = field(default_factory=dict)  # id(function) -> its facts
    calls_in_run: CallsInRun = field(default_factory=lambda: CallsInRun({}))  # the run's other modules' calls
    _constants: dict | None = None  # facts.module_constants, once a function asks

    @property
    def constants(self) -> dict:
        if self._constants is None:
            self._constants = module_constants(self.module, self.scan.assignments, self.names)
        return self._constants

    @functools.cached_property
    def definitions(self) -> dict[str, cst.FunctionDef]:
        return widths.definitions(self.module, self.scan.assignments)

    def facts_of(self, function: cst.FunctionDef) -> FunctionFacts:
        if id(function) not in self.facts:
            call = self.scan.called.get(function.name.value)
            launched = is_kernel(function) and call is None
            inline = Inline.of(function, self.stated, lambda node: self.positions.start(node)[0])
            self.facts[id(function)] = FunctionFacts(function, self.names, self.scan.function_assignments[id(function)],
                                                     launched, inline, self.scan.bound_nowhere, self._named_by(call),
                                                     function.name.value in self.scan.grid_launched, self.constants,
                                                     self.definitions,
                                                     lambda: self.calls_in_run.elsewhere(self.module_name, function))
        return self.facts[id(function)]

    def _named_by(self, call: cst.Call | None) -> str | None:
        """`obj.name(...)` on line N: an attribute call that may only share a kernel's name (another class's
        `forward` or `backward`); None for a call of the name itself, which calls the function."""
        if call is None or type(call.func) is cst.Name:
            return None
        return f"`{canonical_code(call.func)}(...)` on line {self.positions.start(call)[0]}"


def scan_module(module_name: str, source: str, with_sites_only: bool, from_ast: bool,
                trees: dict[str, ast.Module | None] | None = None, borrowed: TritonNames | None = None) -> Unit | None:
    """The module parsed and scanned; None if `with_sites_only` and it has no block-pointer site. With
    `from_ast`, the tree is the stdlib ast's rebuilt (never printed, so only for reports). `trees` gains
    the module's ast (or has it already). `borrowed`: the names of triton it imports from other modules."""
    tree = trees[module_name] if trees is not None and module_name in trees else ast_parse(source)
    if trees is not None:
        trees[module_name] = tree
    # Most modules a run is asked about without sites are its own output (the fixed-point check): the walk
    # that stops at the first site is all they need, or not even that.
    if with_sites_only and tree is not None and not (may_spell_a_site(source) and has_site(tree, borrowed)):
        return None
    if from_ast and tree is not None:
        module, known = ast_tree.build(source, tree)
        wrapper = syntax = None
    else:
        syntax = None if tree is None else AstScan.of(tree)
        wrapper = MetadataWrapper(parse(source), unsafe_skip_copy=True)
        module = wrapper.module
    names = TritonNames.of_cst(module)
    names.adopt(borrowed)
    scan = ModuleScan(names)
    walk(scan, module)
    if with_sites_only and not scan.functions and not scan.stray_calls:
        return None
    if wrapper is None:
        positions = Positions(source, known)
    else:
        positions = Positions.paired(wrapper, source, () if syntax is None else
                                     [(scan.calls, syntax.calls), (scan.parameters, syntax.parameters),
                                      ([f.name for f in scan.all_functions], syntax.functions)])
    taken = scan.identifiers
    language = names.language_prefix() or ("tl" if "tl" not in taken else "triton_language")
    shim = SHIM_NAME if SHIM_NAME not in taken else "triton_migrate_compat"
    namer = Namer(taken)
    bound = _launch_support_bound(module) if wrapper is not None else {}  # (a report's tree prints nothing)
    launch_names = {name: bound.get(name) or namer.flag(name) for name in launch_support.CALLED}
    try:
        statements = stated.by_line(source)
    except stated.BadStatement as error:
        raise SourceError(str(error), error.line) from error
    return Unit(module_name, source, module, names, scan, positions, namer, language, shim, launch_names,
                 frozenset(bound), statements)


def _launch_support_bound(module: cst.Module) -> dict[str, str]:
    """The launch-support functions the module imports at its top level (function -> name), from a
    `_triton_launch` module: an earlier run's import, or the `try` that holds it."""
    bound = {}
    for statement in module.body:
        lines = [statement] if isinstance(statement, cst.SimpleStatementLine) else \
            list(statement.body.body) if isinstance(statement, cst.Try) else []
        for small in (small for line in lines if isinstance(line, cst.SimpleStatementLine) for small in line.body):
            if isinstance(small, cst.ImportFrom) and isinstance(small.names, Sequence) and small.module is not None \
                    and (get_full_name_for_node(small.module) or "").split(".")[-1] == launch_support.MODULE:
                bound.update({_last_name(a.name): (_last_name(a.asname.name) if a.asname else _last_name(a.name))
                              for a in small.names if _last_name(a.name) in launch_support.CALLED})
    return bound


def blamed_unit(name: str, source: str, with_sites_only: bool, from_ast: bool,
                trees: dict[str, ast.Module | None] | None = None,
                borrowed: TritonNames | None = None) -> Unit | None:
    with blame(name):
        return scan_module(name, source, with_sites_only, from_ast, trees, borrowed)


def borrowed_names(sources: dict[str, str], migration: MigrationContext,
                   trees: dict[str, ast.Module | None]) -> dict[str, TritonNames]:
    """Per module, the names of triton it imports from another module of the program (triton_names.reexported);
    `trees` gains the ast of each module that is not frozen (a frozen one that parses still binds names)."""
    parsed = {}
    for name, source in sources.items():
        if name in migration.frozen:
            with contextlib.suppress(SourceError):
                parsed[name] = ast_parse(source)
        else:
            with blame(name):
                parsed[name] = trees[name] = trees[name] if name in trees else ast_parse(source)
    return reexported({name: tree for name, tree in parsed.items() if tree is not None}, migration.locate)


def build_program(units: list[Unit], sources: dict[str, str], migration: MigrationContext, from_ast: bool,
                  trees: dict[str, ast.Module | None], borrowed: dict[str, TritonNames]) -> Program:
    """The call graph. `units` gains (in place) the modules without a site of their own: helpers and
    callers may live there, so they are parsed now. Frozen modules join the graph only, not `units`."""
    parsed = {u.module_name for u in units}
    found = (blamed_unit(name, text, False, from_ast, trees, borrowed.get(name)) for name, text in sources.items()
             if name not in parsed and name not in migration.frozen)
    units += [unit for unit in found if unit is not None]  # every module, sites or none
    frozen_units = (_frozen_unit(n, sources[n], from_ast, borrowed.get(n)) for n in migration.frozen if n in sources)
    return Program(units + [u for u in frozen_units if u is not None], migration.locate, migration.frozen)


def _frozen_unit(name: str, source: str, from_ast: bool, borrowed: TritonNames | None) -> Unit | None:
    try:
        return blamed_unit(name, source, False, from_ast, borrowed=borrowed)
    except ModuleFailure:  # not even parsed: none of its calls can be seen, and Python could not run it either
        return None


def _last_name(node: cst.BaseExpression) -> str:
    """A name's value, or an attribute's last name (`module.helper`: `helper`)."""
    return node.value if isinstance(node, cst.Name) else cast(cst.Attribute, node).attr.value
