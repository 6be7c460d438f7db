"""A diagnostic per site from one function's analysis (the rules word them: rules/), and the ones that no
analysis makes: blocks of a module without a site (TTD202), calls the census counts that no site accounts
for (TTD203), helpers left or removed (TTD011)."""

from __future__ import annotations

import ast
from dataclasses import replace

import libcst as cst

from triton_migrate.analysis import census, guards, inlining, tiles
from triton_migrate.analysis.borrowed import Borrowed
from triton_migrate.analysis.dataflow import FunctionAnalysis
from triton_migrate.analysis.naming import Namer
from triton_migrate.analysis.positions import Positions
from triton_migrate.analysis.triton_names import TritonNames, import_sources, imported_elsewhere
from triton_migrate.rules import _migrated as rules_migrated
from triton_migrate.rules import (
    ttd001_descriptor,
    ttd006_masked_pointers,
    ttd007_compat,
    ttd008_helper_parts,
    ttd009_launch_guard,
    ttd010_stated_facts,
    ttd011_dead_helper,
    ttd107_narrow_block,
    ttd118_unfollowed_use,
    ttd201_crosses_function,
    ttd202_triton_imported_elsewhere,
    ttd203_binding_not_followed,
)
from triton_migrate.syntax.nodes import canonical_code

from ..forms import Form, Origin
from ..outcome import Diagnostic, FileOutcome, see_line
from .scanning import Unit


def relying(outcome: FileOutcome, stated: tuple[Borrowed, ...], assumed: dict[str, tuple[str, str]]) -> FileOutcome:
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


def imported_elsewhere_sites(source: str, tree: ast.Module, borrowed: TritonNames | None) -> tuple[Diagnostic, ...]:
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


def with_census(outcome: FileOutcome, source: str, tree: ast.Module, borrowed: TritonNames | None) -> FileOutcome:
    """`outcome` and a TTD203 for each block-pointer call the census counts (analysis/census.py) that the outcome
    does not account for: a `make_block_ptr` call without a diagnostic where it starts, or where every one has
    one, an `advance` call that is not Triton's by its bindings (an advance has no diagnostic of its own: the
    block pointer it moves has) and has no diagnostic on its line."""
    calls = census.spelled_calls(tree, source)
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
    where they are defined (`removed_creator`) for every site they hold."""
    if not lines:
        return []
    return [(node.lineno, node.end_lineno or node.lineno) for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.lineno in lines]


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


def is_uncalled_helper(analysis: FunctionAnalysis, unit: Unit) -> bool:
    """A function of the module's top level with parameters it uses as block pointers that no function of
    the program passes it (its sites are left, TTD201): dead code unless something outside the program calls
    it. Never a kernel: a function without such a parameter (its block pointers come from elsewhere, a
    helper's result), or one its own module names again (a launch, `kernel[grid](...)`)."""
    context, name = analysis.context, analysis.function.name.value
    return bool(analysis.orphan_parameters) and context is not None and context.helper is not None and \
        not context.is_called() and any(statement is analysis.function for statement in unit.module.body) and \
        not unit.scan.named_again(name)


def removed(diagnostic: Diagnostic, helper: str) -> Diagnostic:
    return replace(diagnostic, code=ttd011_dead_helper.CODE, fixed=True, decision="removed", requirements=(),
                   message=ttd011_dead_helper.removed_with(helper))


def removed_creator(analysis: FunctionAnalysis, positions: Positions) -> Diagnostic:
    """A helper returning a block pointer that every call now creates itself, removed on the user's opt-in."""
    line, column = positions.start(analysis.function.name)
    return Diagnostic(line, column + 1, ttd011_dead_helper.CODE,
                      ttd011_dead_helper.removed_creator(analysis.function.name.value), True, "removed")


def kept_helper(diagnostic: Diagnostic, analysis: FunctionAnalysis, unit: Unit) -> Diagnostic:
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


def site_diagnostics(analysis: FunctionAnalysis, positions: Positions, namer: Namer) -> list[Diagnostic]:
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
    reasons.update({b.code: b.message for b in creation.blockers if Form.DESCRIPTOR not in forms})
    notes = []
    if Form.DESCRIPTOR in forms and creation.permutation != sorted(creation.permutation):
        notes.append(ttd001_descriptor.TRANSPOSED)
    if analysis.is_hoisted(creation):
        notes.append(ttd001_descriptor.HOISTED)
    if analysis.width_tested({creation_id}):
        notes.append(ttd107_narrow_block.TESTED)
    if creation.hints_dropped:
        notes.append(ttd001_descriptor.HINTS_DROPPED)
    if Form.DESCRIPTOR in forms and analysis.sums_descriptor_tiles(creation_id):
        notes.append(ttd001_descriptor.SUMMED)
    if reasons:
        notes.append(ttd006_masked_pointers.for_accesses(forms == {Form.POINTER}, reasons))
    origin = analysis.results.target_origin({creation_id})
    if forms == {Form.POINTER} and not reasons and origin is not None:
        notes.append(ttd006_masked_pointers.target_note(tuned=origin is Origin.TUNED))
    if Form.PARTS in forms and forms != {Form.PARTS}:
        notes.append(ttd008_helper_parts.PASSED)
    guarded = analysis.is_guarded({creation_id})
    if Form.COMPAT in forms:  # a tile is chosen at launch only where it is not the emulation anyway
        choice = tiles.choice(analysis.results, creation)
        guarded = choice[1] is not None
        if tiles.own_choice(analysis.results, creation) != choice:
            notes.append(ttd007_compat.CARRIED)
    if guarded:
        notes.insert(0, ttd009_launch_guard.checked(_launch_check(analysis.launch_check(creation))))
    suffix = f" ({'; '.join(notes)})" if notes else ""
    what = f"block-pointer parameter `{creation.target}` (its parts)" if isinstance(creation.anchor, cst.Param) \
        else f"block pointer `{creation.target}`" + (" (created inline)" if creation.inline else "") + \
        (f" (what `{canonical_code(creation.anchor.func)}` returns, inlined)" if creation.anchor is not None else "")
    relied = analysis.reliance(creation) if Form.DESCRIPTOR in forms and not guarded else []
    requirements = tuple(ttd010_stated_facts.stated(*reliance) for reliance in relied)
    facts = ", ".join(f"`{tensor}` {fact}" for tensor, fact, _, _ in relied)
    others = forms - {Form.PARTS}
    code, message = rules_migrated.describe(rules_migrated.Migrated(
        what, stem, suffix, forms == {Form.PARTS}, others == {Form.COMPAT}, others == {Form.POINTER}, guarded, facts))
    decision = "+".join(Form.GUARDED if guarded and form == Form.DESCRIPTOR else form  # the launch checks it
                        for form in sorted(forms, key=lambda f: (f != Form.DESCRIPTOR, f == Form.PARTS)))
    return Diagnostic(start[0], start[1] + 1, code, message, True, decision, requirements)


def _launch_check(check) -> str:
    """What the launch checks for a block pointer (TTD009), in words."""
    return guards.spelled(ttd009_launch_guard.launch_check(check.tensor, check.width, check.multiples,
                                                           check.unit_stride))


def outside_functions(unit: Unit) -> list[Diagnostic]:
    """A block-pointer call outside any function: no site the rewrite follows."""
    found = []
    for call in unit.scan.stray_calls:
        line, column = unit.positions.start(call)
        found.append(Diagnostic(line, column + 1, ttd118_unfollowed_use.CODE,
                                ttd118_unfollowed_use.OUTSIDE_A_FUNCTION, False))
    return found


def sums_descriptor_tiles(analysis: FunctionAnalysis) -> bool:
    """Whether a migrated block pointer of the function sums what its descriptor loads (TTD001's note)."""
    return any(analysis.refusal_for(creation) is None and analysis.sums_descriptor_tiles(creation)
               for creation in analysis.creations)
