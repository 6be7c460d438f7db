"""One source file in, the migrated source and a diagnostic per site out.

Pipeline for a file: prefilter on bytes → stdlib ast parse (files without a site stop here) → libcst
parse, or for a check that prints no code the ast's tree rebuilt as libcst nodes (ast_tree.py, several
times cheaper) → import resolution → per-function dataflow (analysis.py) → edits for the block pointers
that can be migrated, a reason for each that cannot → re-parse and re-run on the output (it must be a
fixed point, and bind every name it reads: unbound.py) before anything is returned.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import warnings
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import libcst as cst
from libcst.helpers import get_full_name_for_node
from libcst.metadata import MetadataWrapper

from triton_migrate.analysis import ast_tree, census, guards, inlining, stated, tuples
from triton_migrate.analysis.borrowed import Borrowed
from triton_migrate.analysis.calls import is_jit, is_kernel, member_called
from triton_migrate.analysis.dataflow import CrossesFunctions, FunctionAnalysis
from triton_migrate.analysis.facts import AssignmentCollector, FunctionFacts, module_constants
from triton_migrate.analysis.naming import Namer
from triton_migrate.analysis.packages import absolute_module
from triton_migrate.analysis.positions import Positions
from triton_migrate.analysis.prefilter import SITE_KEYWORDS, SITE_MEMBERS
from triton_migrate.analysis.program import Key, Locate, Program
from triton_migrate.analysis.stated import Inline
from triton_migrate.analysis.triton_names import TritonNames, import_sources, imported_elsewhere, reexported
from triton_migrate.rewrite import passes, specialise, unbound
from triton_migrate.rewrite.apply import Edits, uses_name
from triton_migrate.rules import _launch_support as launch_support
from triton_migrate.rules import (
    ttd001_descriptor,
    ttd006_masked_pointers,
    ttd007_compat,
    ttd008_helper_parts,
    ttd009_launch_guard,
    ttd010_stated_facts,
    ttd011_dead_helper,
    ttd107_narrow_block,
    ttd108_unsupported_use,
    ttd201_crosses_function,
    ttd202_triton_imported_elsewhere,
    ttd203_binding_not_followed,
)
from triton_migrate.syntax.ast_walk import ast_nodes
from triton_migrate.syntax.nodes import canonical_code
from triton_migrate.syntax.walk import walk

from .outcome import SEE_LINE, Diagnostic, FileOutcome, see_line
from .policy import Policy

# Helpers copied per call signature, then their copies' helpers, and so on: how many times at most.
MAX_COPY_ROUNDS = 4


class SourceError(Exception):
    """The source cannot be parsed; nothing is rewritten."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class InternalError(Exception):
    """The rewrite produced text that does not parse, is not a fixed point or reads a name it no longer
    binds: a bug, never written out."""


class ModuleFailure(Exception):
    """One module of a program cannot be migrated (`error` says why); the others can be, without it."""

    def __init__(self, module: str, error: Exception) -> None:
        super().__init__(f"{module}: {error}")
        self.module = module
        self.error = error


@contextlib.contextmanager
def _blame(module: str):
    """What goes wrong while one module is parsed, analysed or rewritten is that module's."""
    try:
        yield
    except (ModuleFailure, ast_tree.Unsupported, CrossesFunctions):  # no failures: the caller handles them
        raise
    except RecursionError as error:
        raise ModuleFailure(module, SourceError("too deeply nested for the analysis", 0)) from error
    except UnicodeEncodeError as error:  # e.g. a lone surrogate in a str that never came from a file
        raise ModuleFailure(module, SourceError(f"cannot parse: {error.reason}", 0)) from error
    except Exception as error:  # an engine bug met in one module must not cost the others
        raise ModuleFailure(module, error) from error


def _ast_parse(source: str) -> ast.Module | None:
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
class _AstScan:
    """What the stdlib ast says of a module with a block-pointer site: its calls, parameters and functions
    (for positions). libcst, about 10 times slower to parse, is only paid for such modules (`_has_site`)."""

    calls: list[ast.Call]
    parameters: list[ast.arg]
    functions: list[ast.FunctionDef | ast.AsyncFunctionDef]

    @classmethod
    def of(cls, tree: ast.Module) -> _AstScan:
        calls, parameters, functions = [], [], []
        for node in ast_nodes(tree):
            if type(node) is ast.Call:
                calls.append(node)
            elif type(node) is ast.arg:
                parameters.append(node)
            elif type(node) is ast.FunctionDef or type(node) is ast.AsyncFunctionDef:
                functions.append(node)
        return cls(calls, parameters, functions)


def _has_site(tree: ast.Module, borrowed: TritonNames | None = None) -> bool:
    """Whether the module has a block-pointer site call: it stops at the first, which in a kernel file
    comes early (files without one, which only mention `advance(`, pay the whole walk). `borrowed`: the names of
    triton it imports from other modules of the program."""
    names = TritonNames.of_ast(tree)
    names.adopt(borrowed)
    return any(type(node) is ast.Call and _is_site_call(names, node) for node in ast_nodes(tree))


def _may_spell_a_site(source: str) -> bool:
    """False where no site can be: a site's member or keyword is spelt out in the source, in its call or in
    the import that names it (only a non-ASCII spelling that the parser normalises, `ｍake_block_ptr`,
    could hide one from this search)."""
    return not source.isascii() or any(word in source for word in (*SITE_MEMBERS, *SITE_KEYWORDS))


def _is_site_call(names: TritonNames, call: ast.Call) -> bool:
    return _is_site(names.ast_member(call.func), {k.arg for k in call.keywords})


@dataclass(frozen=True)
class MigrationContext:
    """What the modules of one migration are migrated under, besides their sources; every step of the engine
    reads it, none changes it. Keys of the mappings: module names (those of `migrate_sources`).

    `policy`: what the user allows, in every module `policies` (name -> policy) does not name: each module is
    migrated under its own configuration's, and so is each function it defines, whichever module calls it
    (a helper shared by modules of different policies takes its own module's; `policy_of`). `locate(importer,
    level, module)`: the module an import in `importer`
    refers to (by default, keys are dotted names). `frozen` (name -> why): modules that cannot be migrated:
    left as they are, with no block pointer crossing into or out of them migrated. `launch` (name -> `from X
    import`'s X): where a module imports the host code its kernels call at launch (`_triton_launch`,
    rules/_launch_support.py); a module not named there imports it from beside itself (launch_support.MODULE:
    relatively, or else as a top-level module). `removable` (name -> function names): the uncalled helpers
    (FileOutcome.uncalled_helpers) that nothing in the project names, which the module then loses (TTD011).
    `imported` (name -> Borrowed): the names a module imports from modules outside the run (installed, or
    elsewhere in its project) that bind them to triton, as the front end read them or the configuration
    states them (frontend/triton_modules.py); a module of the run that binds them decides first."""

    policy: Policy = field(default_factory=Policy)
    locate: Locate = absolute_module
    frozen: Mapping[str, str] = field(default_factory=dict)
    launch: Mapping[str, str] = field(default_factory=dict)
    removable: Mapping[str, frozenset[str]] = field(default_factory=dict)
    imported: Mapping[str, tuple[Borrowed, ...]] = field(default_factory=dict)
    policies: Mapping[str, Policy] = field(default_factory=dict)

    def policy_of(self, module: str) -> Policy:
        """What the user allows in this module (and in the functions it defines)."""
        return self.policies.get(module, self.policy)

    def kernel_targets(self) -> dict[str, str]:
        """Function name -> its tuned target (`migrate tune`), from every module's policy: a helper takes the
        form its callers agree on (Program.inherited_forms), and they may be in modules of other policies."""
        return {name: target for policy in (self.policy, *self.policies.values())
                for name, target in policy.kernel_targets}

    @classmethod
    def alone(cls, policy: Policy | None = None, launch: str | None = None,
              removable: frozenset[str] = frozenset(), imported: tuple[Borrowed, ...] = ()) -> MigrationContext:
        """The context of a module migrated on its own (`migrate_source`, which names it "")."""
        return cls(policy or Policy(), launch={"": launch} if launch else {}, removable={"": removable},
                   imported={"": imported})


def migrate_source(source: str, verify: bool = True, policy: Policy | None = None, rewrite: bool = True,
                   migration: MigrationContext | None = None) -> FileOutcome:
    """Diagnostics for every site and the migrated source. With `verify` (whenever the new source is
    going to be shown or written) the output is re-parsed and re-migrated: it must be a fixed point.
    `rewrite=False` (a check that only reports) skips producing the new source: `new_source` is None.
    `migration`: where it needs more than a policy, MigrationContext.alone(...) (`policy`, if given, replaces
    its policy)."""
    migration = migration or MigrationContext()
    if policy is not None:
        migration = replace(migration, policy=policy)
    try:
        return migrate_sources({"": source}, migration, verify, rewrite)[""]
    except ModuleFailure as failure:
        raise failure.error


def migrate_sources(sources: dict[str, str], migration: MigrationContext | None = None, verify: bool = True,
                    rewrite: bool = True) -> dict[str, FileOutcome]:
    """The same for modules migrated together (keys: module names), so that block pointers passed to helpers
    in another module are migrated on both sides, under `migration` (by default: the default policy, keys
    as dotted names, nothing frozen). A module that fails raises ModuleFailure naming it: run again with it
    frozen to migrate the others."""
    migration = migration or MigrationContext()
    spellings = {}  # modules with block pointers kept in tuples, respelt with a name per element (tuples.py)
    for name, source in sources.items():
        if name not in migration.frozen and tuples.may_hold(source):
            with _blame(name):
                tree = _ast_parse(source)
            spelling = tuples.desugared(source, tree) if tree is not None else None
            if spelling is not None:
                spellings[name] = spelling
    kept_as_written = {}  # module -> its spelling and why it was not kept
    while True:  # a respelling kept only where every block pointer of its functions migrates
        respelt = {**sources, **{name: s.text for name, s in spellings.items()}}
        try:
            outcomes = _migrate_verified(respelt, migration, verify, rewrite)
        except ModuleFailure as failure:
            if failure.module not in spellings:
                raise
            del spellings[failure.module]
            continue
        dropped = {name: why for name, s in spellings.items()
                   if (why := _respelling_fails(outcomes[name], s, rewrite)) is not None}
        if not dropped:
            return {name: _as_written(_spelt_back(outcome, spellings.get(name)), kept_as_written.get(name))
                    for name, outcome in outcomes.items()}
        for name, why in dropped.items():
            kept_as_written[name] = (spellings.pop(name), why)


def _respelling_fails(outcome: FileOutcome, spelling: tuples.Spelling, rewrite: bool) -> str | None:
    """Why a module respelt with a name per tuple element is migrated as written instead (some block pointer of a
    respelt function does not migrate: what its report says), or None."""
    refused = [d for d in _spelt_back(outcome, spelling).diagnostics
               if not d.fixed and spelling.in_respelt(d.line)]
    if refused:
        return f"line {refused[0].line}: {refused[0].code} {SEE_LINE.sub('', refused[0].message)}"
    return "nothing would change" if outcome.new_source is None and rewrite else None


def _as_written(outcome: FileOutcome, kept: tuple[tuples.Spelling, str] | None) -> FileOutcome:
    """A module migrated as written although it holds block pointers in tuples: each refusal of such a tuple says
    why it was not followed element by element."""
    if kept is None:
        return outcome
    spelling, why = kept
    note = ttd201_crosses_function.tuple_kept(why)
    return replace(outcome, diagnostics=tuple(replace(d, message=d.message + note)
                                              if not d.fixed and spelling.in_tuple(d.line) else d
                                              for d in outcome.diagnostics))


def _spelt_back(outcome: FileOutcome, spelling: tuples.Spelling | None) -> FileOutcome:
    """What a respelt module's migration reports, at the positions and with the names of the source as written."""
    if spelling is None:
        return outcome
    moved = []
    for d in outcome.diagnostics:
        line, column = spelling.original(d.line, d.column)
        moved.append(replace(d, line=line, column=column, message=spelling.message(d.message)))
    return replace(outcome, diagnostics=tuple(moved))


def _migrate_verified(sources: dict[str, str], migration: MigrationContext, verify: bool,
                      rewrite: bool) -> dict[str, FileOutcome]:
    try:
        try:
            outcomes = _migrate(sources, migration, rewrite, from_ast=not rewrite)
        except ast_tree.Unsupported:  # syntax the rebuilt tree lacks: libcst's parse decides
            outcomes = _migrate(sources, migration, rewrite)
    except RecursionError as error:  # in the program's own bookkeeping, which no one module is to blame for
        raise SourceError("too deeply nested for the analysis", 0) from error
    changed = {name: o.new_source for name, o in outcomes.items() if o.new_source is not None}
    if verify and changed:
        trees: dict[str, ast.Module | None] = {}  # the output's ast, parsed once for both checks
        _check_fixed_point({**sources, **changed}, migration, trees)  # first: it parses
        _check_names_bound(sources, changed, trees)
    return outcomes


def _check_names_bound(sources: dict[str, str], changed: dict[str, str], trees: dict[str, ast.Module | None]) -> None:
    """A rewrite that deletes a binding something still reads (a block pointer's creation, its call left
    alone) re-parses and is a fixed point, but fails at compile time: an internal error, never written."""
    for name, new_source in changed.items():
        lost = unbound.newly_unbound(sources[name], new_source, trees.get(name))
        if lost:
            where = "; ".join(f"`{n}` in `{function}`" for function, names in sorted(lost.items())
                              for n in sorted(names))
            raise ModuleFailure(name, InternalError(f"the rewrite reads names it no longer binds: {where}"))


def _check_fixed_point(new_sources: dict[str, str], migration: MigrationContext,
                       trees: dict[str, ast.Module | None]) -> None:
    """`trees` gains the ast of each module it parses."""
    try:
        again = _migrate(new_sources, migration, trees=trees)
    except ModuleFailure as failure:
        if not isinstance(failure.error, SourceError):
            raise
        error = InternalError(f"the rewritten source does not parse: {failure.error}")
        raise ModuleFailure(failure.module, error) from failure.error
    changing = [name for name, o in again.items() if o.new_source is not None]
    if changing:
        error = InternalError("the rewrite is not idempotent: a second run would change the result again")
        raise ModuleFailure(changing[0], error)


def _parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise SourceError(f"cannot parse: {error.message}", error.raw_line) from error


@dataclass
class _Unit:
    """One module and what every analysis of it shares."""

    module_name: str
    source: str
    module: cst.Module
    names: TritonNames
    scan: _ModuleScan
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
    _constants: dict | None = None  # facts.module_constants, once a function asks

    @property
    def constants(self) -> dict:
        if self._constants is None:
            self._constants = module_constants(self.module, self.scan.assignments, self.names)
        return self._constants

    def facts_of(self, function: cst.FunctionDef) -> FunctionFacts:
        if id(function) not in self.facts:
            call = self.scan.called.get(function.name.value)
            launched = is_kernel(function) and call is None
            inline = Inline.of(function, self.stated, lambda node: self.positions.start(node)[0])
            self.facts[id(function)] = FunctionFacts(function, self.names, self.scan.function_assignments[id(function)],
                                                     launched, inline, self.scan.bound_nowhere, self._named_by(call),
                                                     function.name.value in self.scan.grid_launched, self.constants)
        return self.facts[id(function)]

    def _named_by(self, call: cst.Call | None) -> str | None:
        """`obj.name(...)` on line N: an attribute call that may only share a kernel's name (another class's
        `forward` or `backward`); None for a call of the name itself, which calls the function."""
        if call is None or type(call.func) is cst.Name:
            return None
        return f"`{canonical_code(call.func)}(...)` on line {self.positions.start(call)[0]}"


def _unit(module_name: str, source: str, with_sites_only: bool, from_ast: bool,
          trees: dict[str, ast.Module | None] | None = None, borrowed: TritonNames | None = None) -> _Unit | None:
    """The module parsed and scanned; None if `with_sites_only` and it has no block-pointer site. With
    `from_ast`, the tree is the stdlib ast's rebuilt (never printed, so only for reports). `trees` gains
    the module's ast (or has it already). `borrowed`: the names of triton it imports from other modules."""
    tree = trees[module_name] if trees is not None and module_name in trees else _ast_parse(source)
    if trees is not None:
        trees[module_name] = tree
    # Most modules a run is asked about without sites are its own output (the fixed-point check): the walk
    # that stops at the first site is all they need, or not even that.
    if with_sites_only and tree is not None and not (_may_spell_a_site(source) and _has_site(tree, borrowed)):
        return None
    if from_ast and tree is not None:
        module, known = ast_tree.build(source, tree)
        wrapper = syntax = None
    else:
        syntax = None if tree is None else _AstScan.of(tree)
        wrapper = MetadataWrapper(_parse(source), unsafe_skip_copy=True)
        module = wrapper.module
    names = TritonNames.of_cst(module)
    names.adopt(borrowed)
    scan = _ModuleScan(names)
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
    shim = "compat" if "compat" not in taken else "triton_migrate_compat"
    namer = Namer(taken)
    bound = _launch_support_bound(module) if wrapper is not None else {}  # (a report's tree prints nothing)
    launch_names = {name: bound.get(name) or namer.flag(name) for name in launch_support.CALLED}
    try:
        statements = stated.by_line(source)
    except stated.BadStatement as error:
        raise SourceError(str(error), error.line) from error
    return _Unit(module_name, source, module, names, scan, positions, namer, language, shim, launch_names,
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
                    and get_full_name_for_node(small.module).split(".")[-1] == launch_support.MODULE:
                bound.update({a.name.value: (a.asname.name.value if a.asname else a.name.value)
                              for a in small.names if a.name.value in launch_support.CALLED})
    return bound


def _migrate(sources: dict[str, str], migration: MigrationContext, rewrite: bool = True, from_ast: bool = False,
             trees: dict[str, ast.Module | None] | None = None,
             copies: int = MAX_COPY_ROUNDS) -> dict[str, FileOutcome]:
    """`trees` gains the ast of each module that is not frozen. `copies`: how many more times helpers may be
    copied per call signature (a copy's own calls may then differ)."""
    trees, frozen = {} if trees is None else trees, migration.frozen
    borrowed = _borrowed(sources, migration, trees) if len(sources) > 1 else {}
    stated = {}  # name -> the stated bindings its rewrite relies on
    # after the modules of the run: where one binds a name, it decides
    for name, found in ((name, found) for name, found in migration.imported.items() if found):
        names = borrowed.setdefault(name, TritonNames())
        stated[name] = tuple(b for b in found if b.stated is not None and b.local not in names.bound)
        names.adopt_outside(found)
    units = [u for u in (_blamed_unit(name, text, True, from_ast, trees, borrowed.get(name))
                         for name, text in sources.items() if name not in frozen) if u is not None]
    program, inherited = None, {}
    tuned = migration.kernel_targets()
    if tuned:  # a helper takes its tuned callers' form, and they may be anywhere
        program = _program(units, sources, migration, from_ast, trees, borrowed)
        inherited = program.inherited_forms(tuned)
    settled = {}
    analyses = _analyse(units, migration, inherited, settled)
    if analyses is None:  # a block pointer crosses a call: the whole program decides
        program = program or _program(units, sources, migration, from_ast, trees, borrowed)
        settled = {key: found for key, found in settled.items() if key not in program.linked}
        analyses = program.settle(lambda: _analyse(units, migration, inherited, settled, program))
        plan = program.specialisations() if copies else {}
        if plan:
            return _with_copies(sources, plan, program, trees, rewrite,
                                lambda copied: _migrate(copied, migration, rewrite, from_ast, copies=copies - 1))
    outcomes = {name: FileOutcome((), None) for name in sources}
    with_units = {unit.module_name for unit in units}
    for name, source in sources.items():
        if name not in with_units and name not in frozen and trees.get(name) is not None \
                and _may_spell_a_site(source):
            outcomes[name] = FileOutcome(_imported_elsewhere(source, trees[name], borrowed.get(name)), None)
    for unit in units:
        own = [a for u, a in analyses if u is unit]
        with _blame(unit.module_name):
            outcomes[unit.module_name] = _relying(_outcome(unit, own, migration, rewrite),
                                                  stated.get(unit.module_name, ()), unit.names.assumed)
    for name, source in sources.items():  # last: what no site accounts for, whatever binds its callee
        if name not in frozen and trees.get(name) is not None and _may_spell_a_site(source):
            with _blame(name):
                outcomes[name] = _with_census(outcomes[name], source, trees[name], borrowed.get(name))
    return outcomes


def _relying(outcome: FileOutcome, stated: tuple[Borrowed, ...], assumed: dict[str, tuple[str, str]]) -> FileOutcome:
    """The outcome of a module whose `tl` (or `triton`) only the configuration says is Triton's (`stated`), or
    only an assumption (`assumed`: TritonNames.assumed, a re-export in one branch of a `try:`, triton in the
    other): each rewrite relies on that, as on a stated fact, and says so (the report's `requires`; an unsafe fix
    in JSON)."""
    relied = tuple(b.requirement() for b in stated) + tuple(
        ttd202_triton_imported_elsewhere.assumption(local, source, full)
        for local, (source, full) in sorted(assumed.items()))
    if not relied:
        return outcome
    return replace(outcome, diagnostics=tuple(replace(d, requirements=d.requirements + relied) if d.fixed else d
                                              for d in outcome.diagnostics))


def _with_copies(sources: dict[str, str], plan: dict, program: Program, trees: dict[str, ast.Module | None],
                 rewrite: bool, migrate) -> dict[str, FileOutcome]:
    """The program migrated again with a copy of each helper per call signature (`plan`: Program.specialisations,
    rewrite/specialise.py), and what that reports moved back to `sources`: a copy's sites are its helper's."""
    helpers: dict[str, dict] = defaultdict(dict)
    for key, groups in plan.items():
        positions = program.by_module[key.module].positions
        helpers[key.module][key.qualname] = [(signature, [positions.start(call) for call in calls])
                                             for signature, calls in groups]
    copied, relocations, notes = dict(sources), {}, defaultdict(list)
    for module, found in helpers.items():
        unit = program.by_module[module]
        try:
            copied[module], relocations[module], names = specialise.copies(
                sources[module], trees[module], found, set(unit.scan.identifiers))
        except specialise.NotCopied:
            continue
        for name, groups in found.items():
            line, column = unit.positions.start(program.helpers[Key(module, name)].node.name)
            kinds = "; ".join(f"`{copy}` for the calls that pass {specialise.spelled(signature)}"
                              for copy, (signature, _) in zip(names[name], groups[1:]))
            notes[module].append(Diagnostic(line, column + 1, ttd008_helper_parts.CODE,
                                            ttd008_helper_parts.copied(name, kinds), True, "parts"))
    outcomes = migrate(copied)
    return {name: _relocated(outcome, relocations.get(name), notes.get(name, []),
                             copied[name] if rewrite and copied[name] != sources[name] else None)
            for name, outcome in outcomes.items()}


def _relocated(outcome: FileOutcome, relocation: specialise.Relocation | None, notes: list[Diagnostic],
               copied: str | None) -> FileOutcome:
    """`outcome` of a module migrated with copies of its helpers, its positions in the module as written (a
    copy's sites fall on its helper's, reported once); `copied`: the source with copies, if it is to be written."""
    if relocation is None:
        return outcome
    found = dict.fromkeys([*notes, *(_moved(d, relocation) for d in outcome.diagnostics)])
    return replace(outcome, diagnostics=tuple(sorted(found, key=lambda d: (d.line, d.column, d.code))),
                   new_source=outcome.new_source if outcome.new_source is not None else copied)


def _moved(diagnostic: Diagnostic, relocation: specialise.Relocation) -> Diagnostic:
    line, column, copy = relocation.original(diagnostic.line, diagnostic.column)
    message = SEE_LINE.sub(lambda found: see_line(relocation.original(int(found[1]), 1)[0]), diagnostic.message)
    return replace(diagnostic, line=line, column=column, message=f"in `{copy}`: {message}" if copy else message)


def _imported_elsewhere(source: str, tree: ast.Module, borrowed: TritonNames | None) -> tuple[Diagnostic, ...]:
    """A module without a site may still have block pointers, on a `tl` taken from a module that is not
    known to import it from triton: each is reported (TTD202), never passed over in silence."""
    names = TritonNames.of_ast(tree)
    names.adopt(borrowed)
    calls = imported_elsewhere(tree, names)
    positions = Positions(source, {id(call): (call.lineno, call.col_offset) for call, _, _ in calls})
    found = []
    for call, head, origin in calls:
        line, column = positions.start(call)
        statement = ttd202_triton_imported_elsewhere.statement(origin, head)
        message = ttd202_triton_imported_elsewhere.message(head, origin, statement)
        found.append(Diagnostic(line, column + 1, ttd202_triton_imported_elsewhere.CODE, message, False, "untouched"))
    return tuple(found)


def _with_census(outcome: FileOutcome, source: str, tree: ast.Module, borrowed: TritonNames | None) -> FileOutcome:
    """`outcome` and a TTD203 for each block-pointer call the census counts (analysis/census.py) that the outcome
    does not account for: a `make_block_ptr` call without a diagnostic where it starts, or where every one has
    one, an `advance` call that is not Triton's by its bindings (an advance has no diagnostic of its own: the
    block pointer it moves has) and has no diagnostic on its line."""
    calls = census.spelled_calls(tree)
    if not calls:
        return outcome
    positions = Positions(source, {id(call): (call.lineno, call.col_offset) for call in calls})
    reported = {(d.line, d.column - 1) for d in outcome.diagnostics}
    removed = _removed_functions(tree, {d.line for d in outcome.diagnostics if d.decision == "removed"})
    unaccounted = [call for call in calls if census.is_creation(call) and positions.start(call) not in reported
                   and not any(first <= call.lineno <= last for first, last in removed)]
    if not unaccounted:
        names = TritonNames.of_ast(tree)
        names.adopt(borrowed)
        lines = {d.line for d in outcome.diagnostics}
        unaccounted = [call for call in calls if not census.is_creation(call) and call.lineno not in lines
                       and names.ast_member(call.func) != census.ADVANCE]
    if not unaccounted:
        return outcome
    sources = import_sources(tree)
    found = [_not_followed(call, positions, sources) for call in unaccounted]
    return replace(outcome, diagnostics=tuple(sorted((*outcome.diagnostics, *found),
                                                     key=lambda d: (d.line, d.column, d.code))))


def _removed_functions(tree: ast.Module, lines: set[int]) -> list[tuple[int, int]]:
    """The first and last lines of the functions defined on `lines`: the helpers TTD011 removes, reported once
    where they are defined (`_removed_creator`) for every site they hold."""
    if not lines:
        return []
    return [(node.lineno, node.end_lineno) for node in ast.walk(tree)
            if type(node) in (ast.FunctionDef, ast.AsyncFunctionDef) and node.lineno in lines]


def _not_followed(call: ast.Call, positions: Positions, sources: dict[str, str]) -> Diagnostic:
    """A TTD203 for `call`, with the fix for how its callee's head is bound (`sources`: import_sources)."""
    owner, member = census.callee(call)
    head = (member if owner is None else owner).partition(".")[0]
    if head and sources.get(head, "triton").partition(".")[0] != "triton":
        statement = ttd202_triton_imported_elsewhere.statement(sources[head], head)
        fix = ttd203_binding_not_followed.imported_fix(head, sources[head], statement)
    else:
        fix = ttd203_binding_not_followed.bound_fix(owner, member)
    line, column = positions.start(call)
    return Diagnostic(line, column + 1, ttd203_binding_not_followed.CODE,
                      ttd203_binding_not_followed.message(ast.unparse(call.func), fix), False, "untouched")


def _blamed_unit(name: str, source: str, with_sites_only: bool, from_ast: bool,
                 trees: dict[str, ast.Module | None] | None = None,
                 borrowed: TritonNames | None = None) -> _Unit | None:
    with _blame(name):
        return _unit(name, source, with_sites_only, from_ast, trees, borrowed)


def _borrowed(sources: dict[str, str], migration: MigrationContext,
              trees: dict[str, ast.Module | None]) -> dict[str, TritonNames]:
    """Per module, the names of triton it imports from another module of the program (triton_names.reexported);
    `trees` gains the ast of each module that is not frozen (a frozen one that parses still binds names)."""
    parsed = {}
    for name, source in sources.items():
        if name in migration.frozen:
            with contextlib.suppress(SourceError):
                parsed[name] = _ast_parse(source)
        else:
            with _blame(name):
                parsed[name] = trees[name] = trees[name] if name in trees else _ast_parse(source)
    return reexported({name: tree for name, tree in parsed.items() if tree is not None}, migration.locate)


def _program(units: list[_Unit], sources: dict[str, str], migration: MigrationContext, from_ast: bool,
             trees: dict[str, ast.Module | None], borrowed: dict[str, TritonNames]) -> Program:
    """The call graph. `units` gains (in place) the modules without a site of their own: helpers and
    callers may live there, so they are parsed now. Frozen modules join the graph only, not `units`."""
    parsed = {u.module_name for u in units}
    units += [_blamed_unit(name, text, False, from_ast, trees, borrowed.get(name)) for name, text in sources.items()
              if name not in parsed and name not in migration.frozen]
    frozen_units = (_frozen_unit(n, sources[n], from_ast, borrowed.get(n)) for n in migration.frozen if n in sources)
    return Program(units + [u for u in frozen_units if u is not None], migration.locate, migration.frozen)


def _frozen_unit(name: str, source: str, from_ast: bool, borrowed: TritonNames | None) -> _Unit | None:
    try:
        return _blamed_unit(name, source, False, from_ast, borrowed=borrowed)
    except ModuleFailure:  # not even parsed: none of its calls can be seen, and Python could not run it either
        return None


def _analyse(units: list[_Unit], migration: MigrationContext, inherited: dict[int, str], settled: dict,
             program: Program | None = None) -> list | None:
    """(unit, analysis) for every function with a block-pointer site, and, in a round of the `program`,
    every helper that takes parts. Without a program: None if a block pointer crosses a call, each
    function's analysis stopping at its first crossing. `inherited`: id(function) -> the kernel-targets form
    a helper takes from its callers. `settled`: id(function) -> (unit, analysis) known not to change; the
    analyses here add theirs (without a program, all that are complete: the caller keeps those that
    neither call a helper nor are called as one)."""
    helpers = program.functions_to_analyse() if program is not None else frozenset()
    analyses, crosses = [], False
    for unit in units:
        for function in unit.scan.all_functions:
            key = id(function)
            if key not in unit.scan.with_sites and key not in helpers:
                continue
            if key in settled:
                analyses.append(settled[key])
                continue
            context = program.context_for(unit, function) if program is not None else None
            # `migrate tune` may have picked its form, or its callers'
            own = migration.policy_of(unit.module_name).for_function(function.name.value, inherited.get(key))
            try:
                with _blame(unit.module_name):
                    analyses.append((unit, FunctionAnalysis(function, unit.names, unit.namer, unit.language, own,
                                                            unit.shim, unit.facts_of(function), context,
                                                            unit.launch_names)))
            except CrossesFunctions:
                crosses = True
                continue
            if program is None or key not in program.linked:
                settled[key] = analyses[-1]
    return None if crosses else analyses


def _outcome(unit: _Unit, analyses: list, migration: MigrationContext, rewrite: bool) -> FileOutcome:
    policy = migration.policy_of(unit.module_name)
    removable = migration.removable.get(unit.module_name, frozenset())
    uncalled = [analysis for analysis in analyses if _is_uncalled_helper(analysis, unit)]
    dead = [analysis for analysis in uncalled
            if policy.unsafe_fixes and analysis.function.name.value in removable]
    analyses = [analysis for analysis in analyses if analysis not in dead]
    diagnostics = [_kept_helper(d, analysis, unit) for analysis in analyses
                   for d in _diagnostics(analysis, unit.positions, unit.namer)]
    diagnostics += [_removed(d, analysis.function.name.value) for analysis in dead
                    for d in _diagnostics(analysis, unit.positions, unit.namer)]
    diagnostics += [_removed_creator(analysis, unit.positions) for analysis in analyses
                    if analysis.context is not None and analysis.context.removed(policy)]
    kept = tuple(analysis.function.name.value for analysis in uncalled if analysis not in dead)
    for call in unit.scan.stray_calls:
        line, column = unit.positions.start(call)
        diagnostics.append(Diagnostic(line, column + 1, ttd108_unsupported_use.CODE,
                                      ttd108_unsupported_use.OUTSIDE_A_FUNCTION, False))
    diagnostics.sort(key=lambda d: (d.line, d.column, d.code))
    if not rewrite:
        return FileOutcome(tuple(diagnostics), None, uncalled_helpers=kept)
    edits = Edits()
    for analysis in analyses:
        edits.collect(analysis.edits())
    module = unit.module.with_changes(body=[s for s in unit.module.body if not any(s is a.function for a in dead)])
    new_module = passes.rewritten(module, edits, passes.Rewriting(unit, policy, migration.launch.get(unit.module_name)))
    new_source = new_module.code
    imported = tuple(f for f in launch_support.CALLED if uses_name(new_module, unit.launch_names[f]))
    stated = tuple((analysis.function.name.value, tuple(facts)) for analysis in analyses
                   if (facts := analysis.launch_facts()))
    summing = tuple(analysis.function.name.value for analysis in analyses if _sums_descriptor_tiles(analysis))
    return FileOutcome(tuple(diagnostics), new_source if new_source != unit.source else None, imported, kept,
                       stated, summing)


def _sums_descriptor_tiles(analysis: FunctionAnalysis) -> bool:
    """Whether a migrated block pointer of the function sums what its descriptor loads (TTD001's note)."""
    return any(analysis.refusal_for(creation) is None and analysis.sums_descriptor_tiles(creation)
               for creation in analysis.creations)


def _is_uncalled_helper(analysis: FunctionAnalysis, unit: _Unit) -> bool:
    """A function of the module's top level with parameters it uses as block pointers that no function of
    the program passes it (its sites are left, TTD201): dead code unless something outside the program calls
    it. Never a kernel: a function without such a parameter (its block pointers come from elsewhere, a
    helper's result), or one its own module names again (a launch, `kernel[grid](...)`)."""
    context, name = analysis.context, analysis.function.name.value
    return bool(analysis.orphan_parameters) and context is not None and context.helper is not None and \
        not context.is_called() and any(statement is analysis.function for statement in unit.module.body) and \
        not unit.scan.named_again(name)


def _removed(diagnostic: Diagnostic, helper: str) -> Diagnostic:
    return replace(diagnostic, code=ttd011_dead_helper.CODE, fixed=True, decision="removed", requirements=(),
                   message=ttd011_dead_helper.removed_with(helper))


def _removed_creator(analysis: FunctionAnalysis, positions: Positions) -> Diagnostic:
    """A helper returning a block pointer that every call now creates itself, removed on the user's opt-in."""
    line, column = positions.start(analysis.function.name)
    return Diagnostic(line, column + 1, ttd011_dead_helper.CODE,
                      ttd011_dead_helper.removed_creator(analysis.function.name.value), True, "removed")


def _kept_helper(diagnostic: Diagnostic, analysis: FunctionAnalysis, unit: _Unit) -> Diagnostic:
    """A site of a helper that only makes and returns a block pointer (inlining.py), which no migrated code
    calls any more: every call now creates it itself, or there is none. It is kept (TTD011), as code outside
    the run may call it; with the user's opt-in, one whose every call was inlined goes instead."""
    context, function = analysis.context, analysis.function
    if diagnostic.fixed or context is not None and context.is_called() and not context.inlined_everywhere():
        return diagnostic
    if "creation" not in inlining.returned_kinds(function, unit.names.member):
        return diagnostic
    inlined = context is not None and context.inlined_everywhere()
    return replace(diagnostic, code=ttd011_dead_helper.CODE,
                   message=ttd011_dead_helper.kept_creator(function.name.value, inlined))


def _diagnostics(analysis: FunctionAnalysis, positions: Positions, namer: Namer) -> list[Diagnostic]:
    found = []
    for creation_id, creation in analysis.creations.items():
        anchor = creation.anchor or creation.call  # a helper's parameter has no call in the source
        line, column = positions.start(anchor)
        refusal = analysis.refusal_for(creation_id)
        if refusal is not None:
            where, _ = positions.start(anchor if refusal.node is creation.call else refusal.node)
            detail = "" if where == line else see_line(where)
            found.append(Diagnostic(line, column + 1, refusal.code, refusal.message + detail, False, "untouched"))
        else:
            found.append(_migrated(analysis, creation, creation_id, (line, column), namer))
    for use in analysis.dead_uses:
        line, column = positions.start(use.node)
        found.append(Diagnostic(line, column + 1, use.code, use.message, True, "compile-error"))
    frozen = _frozen_reason(analysis)
    for orphan in analysis.orphans:
        line, column = positions.start(orphan.node)
        message = orphan.message + (ttd201_crosses_function.frozen_callers(frozen) if frozen else "")
        found.append(Diagnostic(line, column + 1, orphan.code, message, False, "untouched"))
    return found


def _frozen_reason(analysis: FunctionAnalysis) -> str | None:
    """Why a helper called from a module that cannot be migrated keeps its block-pointer parameters."""
    context = analysis.context
    return context.program.frozen_reasons.get(context.helper) if context is not None else None


def _migrated(analysis: FunctionAnalysis, creation, creation_id: int, start: tuple[int, int],
              namer: Namer) -> Diagnostic:
    forms = analysis.forms({creation_id})
    stem = namer.stem(creation.target)
    reasons = analysis.class_notes(creation_id, analysis.knowledge.reasons)
    reasons.update({b.code: b.message for b in creation.blockers if "descriptor" not in forms})
    notes = []
    if "descriptor" in forms and creation.permutation != sorted(creation.permutation):
        notes.append(ttd001_descriptor.TRANSPOSED)
    if analysis.is_hoisted(creation):
        notes.append(ttd001_descriptor.HOISTED)
    if analysis.width_tested({creation_id}):
        notes.append(ttd107_narrow_block.TESTED)
    if creation.hints_dropped:
        notes.append(ttd001_descriptor.HINTS_DROPPED)
    if "descriptor" in forms and analysis.sums_descriptor_tiles(creation_id):
        notes.append(ttd001_descriptor.SUMMED)
    if reasons:
        notes.append(ttd006_masked_pointers.for_accesses(forms == {"pointer"}, reasons))
    if forms == {"pointer"} and not reasons and analysis.policy.target == "pointer":
        notes.append(ttd006_masked_pointers.TUNED_TARGET)
    if "parts" in forms and forms != {"parts"}:
        notes.append(ttd008_helper_parts.PASSED)
    guarded = analysis.is_guarded({creation_id})
    if guarded:
        notes.insert(0, ttd009_launch_guard.checked(_launch_check(analysis.launch_check(creation))))
    suffix = f" ({'; '.join(notes)})" if notes else ""
    what = f"block-pointer parameter `{creation.target}` (its parts)" if isinstance(creation.anchor, cst.Param) \
        else f"block pointer `{creation.target}`" + (" (created inline)" if creation.inline else "") + \
        (f" (what `{canonical_code(creation.anchor.func)}` returns, inlined)" if creation.anchor is not None else "")
    relied = analysis.reliance(creation) if "descriptor" in forms and not guarded else []
    requirements = tuple(ttd010_stated_facts.stated(*reliance) for reliance in relied)
    if forms == {"parts"}:
        message, code = ttd008_helper_parts.message(what, suffix), ttd008_helper_parts.CODE
    elif forms - {"parts"} == {"compat"}:
        message, code = ttd007_compat.message(what, stem, suffix), ttd007_compat.CODE
    elif forms - {"parts"} == {"pointer"}:
        message, code = ttd006_masked_pointers.message(what, suffix), ttd006_masked_pointers.CODE
    elif guarded:
        message, code = ttd009_launch_guard.message(what, stem, suffix), ttd009_launch_guard.CODE
    elif relied:
        facts = ", ".join(f"`{tensor}` {fact}" for tensor, fact, _, _ in relied)
        message, code = ttd010_stated_facts.message(what, stem, facts, suffix), ttd010_stated_facts.CODE
    else:
        message, code = ttd001_descriptor.message(what, stem, suffix), ttd001_descriptor.CODE
    decision = "+".join(sorted(forms, key=lambda f: (f != "descriptor", f == "parts")))
    if guarded:  # the descriptor only where the launch check passes
        decision = decision.replace("descriptor", "guarded")
    return Diagnostic(start[0], start[1] + 1, code, message, True, decision, requirements)


def _launch_check(check) -> str:
    """What the launch checks for a block pointer (TTD009), in words."""
    return guards.spelled(ttd009_launch_guard.launch_check(check.tensor, check.width, check.multiples,
                                                           check.unit_stride))


def _is_site(member: str | None, keywords: set) -> bool:
    """A call of `triton.language.<member>` with these keyword arguments is a block-pointer site."""
    return member in SITE_MEMBERS or (member in ("load", "store") and bool(keywords & set(SITE_KEYWORDS)))


class _ModuleScan(AssignmentCollector):
    """One pass over the module (libcst visits are the cost here): the functions with block-pointer
    sites and each one's assignments, the sites outside any function, and every identifier (generated
    names must not collide with any)."""

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
            self.grid_launched.add(launched.value if type(launched) is cst.Name else launched.attr.value)
        if type(node.func) is cst.Name:
            self._callees[node.func.value] += 1
        if self._stack and type(node.func) in (cst.Name, cst.Attribute):
            name = node.func.value if type(node.func) is cst.Name else node.func.attr.value
            if name not in self.called or type(node.func) is cst.Name:
                self.called[name] = node
        member = self.names.member(node.func)
        if member is None and self._stack and any(is_jit(d) for d in self._stack[-1][0].decorators):
            member = member_called(node, self.names)
        if not _is_site(member, {a.keyword.value for a in node.args if a.keyword is not None}):
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


