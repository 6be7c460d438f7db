"""Helpers copied per call signature (rewrite/specialise.py): the program migrated again with a copy of each
helper per signature, and what that reports moved back to the source as written."""

from __future__ import annotations

import ast
from collections import defaultdict
from dataclasses import replace

from triton_migrate.analysis.module_index import Key
from triton_migrate.analysis.program import Program
from triton_migrate.rewrite import specialise
from triton_migrate.rules import ttd008_helper_parts

from ..forms import Form
from ..outcome import SEE_LINE, Diagnostic, FileOutcome, see_line


def with_copies(sources: dict[str, str], plan: dict, program: Program, trees: dict[str, ast.Module | None],
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
                                            ttd008_helper_parts.copied(name, kinds), True, Form.PARTS))
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
