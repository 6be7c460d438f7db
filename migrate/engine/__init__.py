"""One source file in, the migrated source and a diagnostic per site out.

Pipeline for a file: prefilter on bytes → stdlib ast parse (files without a site stop here) → libcst
parse, or for a check that prints no code the ast's tree rebuilt as libcst nodes (ast_tree.py, several
times cheaper) → import resolution → per-function dataflow (analysis.py) → edits for the block pointers
that can be migrated, a reason for each that cannot → re-parse and re-run on the output (it must be a
fixed point, and bind every name it reads: unbound.py) before anything is returned.
"""

from __future__ import annotations

import ast
from dataclasses import replace

from triton_migrate.analysis import ast_tree, planner, tuples
from triton_migrate.analysis.dataflow import CrossesFunctions, FunctionAnalysis
from triton_migrate.analysis.program import Program
from triton_migrate.analysis.triton_names import TritonNames
from triton_migrate.rewrite import passes, unbound
from triton_migrate.rewrite.apply import Edits, uses_name
from triton_migrate.rules import _launch_support as launch_support
from triton_migrate.rules import ttd201_crosses_function

from ..outcome import SEE_LINE, FileOutcome
from ..policy import Layout, Policy
from .context import MigrationContext
from .copies import with_copies
from .diagnostics import (
    imported_elsewhere_sites,
    is_uncalled_helper,
    kept_helper,
    outside_functions,
    relying,
    removed,
    removed_creator,
    site_diagnostics,
    sums_descriptor_tiles,
    with_census,
)
from .errors import InternalError, ModuleFailure, SourceError, blame
from .scanning import CallsInRun, Unit, ast_parse, blamed_unit, borrowed_names, build_program, may_spell_a_site

__all__ = ["InternalError", "MigrationContext", "ModuleFailure", "SourceError", "migrate_source", "migrate_sources"]

# Helpers copied per call signature, then their copies' helpers, and so on: how many times at most.
MAX_COPY_ROUNDS = 4


def migrate_source(source: str, verify: bool = True, policy: Policy | None = None, rewrite: bool = True,
                   migration: MigrationContext | None = None, layout: Layout | None = None) -> FileOutcome:
    """Diagnostics for every site and the migrated source. With `verify` (whenever the new source is
    going to be shown or written) the output is re-parsed and re-migrated: it must be a fixed point.
    `rewrite=False` (a check that only reports) skips producing the new source: `new_source` is None.
    `migration`: where it needs more than a policy, MigrationContext.alone(...) (`policy` and `layout`, if
    given, replace its own)."""
    migration = migration or MigrationContext()
    if policy is not None:
        migration = replace(migration, policy=policy)
    if layout is not None:
        migration = replace(migration, layout=layout)
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
            with blame(name):
                tree = ast_parse(source)
            spelling = tuples.desugared(source, tree) if tree is not None else None
            if spelling is not None:
                spellings[name] = spelling
    kept_as_written: dict[str, tuple[tuples.Spelling, str]] = {}  # module -> its spelling, why it was not kept
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


def _migrate(sources: dict[str, str], migration: MigrationContext, rewrite: bool = True, from_ast: bool = False,
             trees: dict[str, ast.Module | None] | None = None,
             copies: int = MAX_COPY_ROUNDS) -> dict[str, FileOutcome]:
    """`trees` gains the ast of each module that is not frozen. `copies`: how many more times helpers may be
    copied per call signature (a copy's own calls may then differ)."""
    trees, frozen = {} if trees is None else trees, migration.frozen
    borrowed = borrowed_names(sources, migration, trees) if len(sources) > 1 else {}
    stated = {}  # name -> the stated bindings its rewrite relies on
    # after the modules of the run: where one binds a name, it decides
    for name, found in ((name, found) for name, found in migration.imported.items() if found):
        names = borrowed.setdefault(name, TritonNames())
        stated[name] = tuple(b for b in found if b.stated is not None and b.local not in names.bound)
        names.adopt_outside(found)
    units = [u for u in (blamed_unit(name, text, True, from_ast, trees, borrowed.get(name))
                         for name, text in sources.items() if name not in frozen) if u is not None]
    calls_in_run = CallsInRun(sources)
    for unit in units:
        unit.calls_in_run = calls_in_run
    program, inherited = None, {}
    tuned = migration.kernel_targets()
    if tuned:  # a helper takes its tuned callers' form, and they may be anywhere
        program = build_program(units, sources, migration, from_ast, trees, borrowed)
        inherited = program.inherited_forms(tuned)
    settled: dict[int, tuple[Unit, FunctionAnalysis]] = {}
    analyses = _analyse(units, migration, inherited, settled)
    if analyses is None:  # a block pointer crosses a call: the whole program decides
        program = program or build_program(units, sources, migration, from_ast, trees, borrowed)
        settled = {key: found for key, found in settled.items() if key not in program.linked}
        analyses = program.settle(lambda: _analyse(units, migration, inherited, settled, program))
        plan = program.specialisations() if copies else {}
        if plan:
            return with_copies(sources, plan, program, trees, rewrite,
                                lambda copied: _migrate(copied, migration, rewrite, from_ast, copies=copies - 1))
    outcomes = {name: FileOutcome((), None) for name in sources}
    with_units = {unit.module_name for unit in units}
    for name, source in sources.items():
        tree = trees.get(name)
        if name not in with_units and name not in frozen and tree is not None and may_spell_a_site(source):
            outcomes[name] = FileOutcome(imported_elsewhere_sites(source, tree, borrowed.get(name)), None)
    for unit in units:
        own = [a for u, a in analyses if u is unit]
        with blame(unit.module_name):
            outcomes[unit.module_name] = relying(_outcome(unit, own, migration, rewrite),
                                                  stated.get(unit.module_name, ()), unit.names.assumed)
    for name, source in sources.items():  # last: what no site accounts for, whatever binds its callee
        tree = trees.get(name)
        if name not in frozen and tree is not None and may_spell_a_site(source):
            with blame(name):
                outcomes[name] = with_census(outcomes[name], source, tree, borrowed.get(name))
    return outcomes


def _analyse(units: list[Unit], migration: MigrationContext, inherited: dict[int, str], settled: dict,
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
            policy, name = migration.policy_of(unit.module_name), function.name.value
            own = planner.for_function(policy, name, inherited.get(key))
            origin = planner.origin(policy, name, inherited.get(key))
            try:
                with blame(unit.module_name):
                    analyses.append((unit, FunctionAnalysis(function, unit.names, unit.namer, unit.language, own,
                                                            origin, unit.shim, unit.facts_of(function), context,
                                                            unit.launch_names)))
            except CrossesFunctions:
                crosses = True
                continue
            if program is None or key not in program.linked:
                settled[key] = analyses[-1]
    return None if crosses else analyses


def _outcome(unit: Unit, analyses: list, migration: MigrationContext, rewrite: bool) -> FileOutcome:
    policy = migration.policy_of(unit.module_name)
    removable = migration.removable.get(unit.module_name, frozenset())
    uncalled = [analysis for analysis in analyses if is_uncalled_helper(analysis, unit)]
    dead = [analysis for analysis in uncalled
            if policy.unsafe_fixes and analysis.function.name.value in removable]
    analyses = [analysis for analysis in analyses if analysis not in dead]
    diagnostics = [kept_helper(d, analysis, unit) for analysis in analyses
                   for d in site_diagnostics(analysis, unit.positions, unit.namer)]
    diagnostics += [removed(d, analysis.function.name.value) for analysis in dead
                    for d in site_diagnostics(analysis, unit.positions, unit.namer)]
    diagnostics += [removed_creator(analysis, unit.positions) for analysis in analyses
                    if analysis.context is not None and analysis.context.removed(policy)]
    kept = tuple(analysis.function.name.value for analysis in uncalled if analysis not in dead)
    diagnostics += outside_functions(unit)
    diagnostics.sort(key=lambda d: (d.line, d.column, d.code))
    if not rewrite:
        return FileOutcome(tuple(diagnostics), None, uncalled_helpers=kept)
    edits = Edits()
    for analysis in analyses:
        edits.collect(analysis.edits())
    module = unit.module.with_changes(body=[s for s in unit.module.body if not any(s is a.function for a in dead)])
    name = unit.module_name
    rewriting = passes.Rewriting(unit, policy, migration.layout_of(name), migration.launch.get(name))
    new_module = passes.rewritten(module, edits, rewriting)
    new_source = new_module.code
    imported = tuple(f for f in launch_support.CALLED if uses_name(new_module, unit.launch_names[f]))
    stated = tuple((analysis.function.name.value, tuple(facts)) for analysis in analyses
                   if (facts := analysis.launch_facts()))
    summing = tuple(analysis.function.name.value for analysis in analyses if sums_descriptor_tiles(analysis))
    return FileOutcome(tuple(diagnostics), new_source if new_source != unit.source else None, imported, kept,
                       stated, summing)
