"""Flow-sensitive dataflow over one function: find block-pointer values, follow them through
assignments, `tl.advance`, branches and loops, decide per block pointer whether it can become a
descriptor, and record the edits that do it.

The analysis is an abstract interpretation over the statements (statements.py's `Dataflow`, loops iterated
to a fixed point). It is rerun while it learns that more offset dimensions must live in variables (see
values.py); edits and diagnostics come from the last, stable run. `FunctionAnalysis` assembles the parts that
do it (shared.py lists them) and answers for the result.
"""

from __future__ import annotations

from dataclasses import replace

import libcst as cst

from triton_migrate.forms import Form, Origin
from triton_migrate.policy import Policy
from triton_migrate.rules import (
    ttd009_launch_guard,
    ttd010_stated_facts,
)
from triton_migrate.syntax.nodes import parsed

from . import guards
from .access_forms import AccessForms
from .advances import Advances
from .bookkeeping import Bookkeeping, CrossesFunctions
from .creations import Creations
from .crossing import Crossing
from .facts import FunctionFacts
from .launch import Launch
from .naming import Namer
from .records import (
    AdvanceMove,
    Creation,
    ElementType,
    FunctionEdits,
    HandleAccess,
    Knowledge,
    MaskedAccess,
    NamedMaskAccess,
    Refusal,
)
from .results import Results
from .returns import Returns
from .shared import Parts, ProgramPlace, Run, Subject
from .sites import Accesses
from .statements import MAX_RERUNS, Dataflow
from .triton_names import TritonNames

__all__ = ["CrossesFunctions", "FunctionAnalysis"]



class FunctionAnalysis(Parts):
    """Runs the dataflow over one function until what it has learnt stops changing; then answers for the
    last run (what the engine reports, what the program's rounds compare, what the rewrite applies)."""

    def __init__(self, function: cst.FunctionDef, names: TritonNames, namer: Namer, language: str,
                 policy: Policy, origin: Origin, shim: str, facts: FunctionFacts, context: ProgramPlace | None = None,
                 launch_names: dict[str, str] | None = None) -> None:
        """`context` (program.py): the other functions, for block pointers that cross calls. Without one
        the function is analysed alone, and the first block pointer that crosses raises CrossesFunctions
        (what the analysis would have found after that point is of no use: the program's rounds redo it)."""
        # the launch guard's names (TTD009): the kernel's flag; how the module names the launch support's
        # guard, its check and the allocator hook of a kernel on stated facts (TTD010)
        hooks = (ttd009_launch_guard.GUARD, ttd009_launch_guard.CHECK, ttd010_stated_facts.HOOK)
        self.fn = Subject(function, context, policy, origin, names, namer, parsed(language), cst.Name(shim), facts,
                          guards.Arguments(function), namer.flag(ttd009_launch_guard.FLAG),
                          {name: (launch_names or {}).get(name, name) for name in hooks})
        self.run = Run()
        self.flow, self.books, self.creating = Dataflow(self), Bookkeeping(self), Creations(self)
        self.moves, self.accesses, self.emit = Advances(self), Accesses(self), AccessForms(self)
        self.launch, self.results, self.crossing = Launch(self), Results(self), Crossing(self)
        self.returns = Returns(self)
        for _ in range(MAX_RERUNS):
            self.run = Run()
            self.flow.walk()
            if not self.run.dirty:
                return
        raise RuntimeError(f"analysis of `{function.name.value}` did not converge")

    # -- what the last run found -----------------------------------------------------------------

    @property
    def function(self) -> cst.FunctionDef:
        return self.fn.function

    @property
    def context(self):
        return self.fn.context

    @property
    def policy(self) -> Policy:
        return self.fn.policy

    @property
    def knowledge(self) -> Knowledge:
        return self.fn.knowledge

    @property
    def inlined_calls(self) -> dict:
        return self.fn.inlined_calls

    @property
    def creations(self) -> dict[int, Creation]:
        return self.run.creations

    @property
    def dead_uses(self) -> list[Refusal]:
        return self.run.dead_uses

    @property
    def orphans(self) -> list[Refusal]:
        return self.run.orphans

    @property
    def orphan_parameters(self) -> set[str]:
        return self.run.orphan_parameters

    @property
    def returned(self) -> list[tuple]:
        return self.run.returned

    def refusal_for(self, creation: int) -> Refusal | None:
        return self.results.refusal_for(creation)

    def is_refused(self, creations) -> bool:
        return self.results.is_refused(creations)

    def forms(self, creations) -> set[Form]:
        return self.results.forms(creations)

    def class_notes(self, creation: int, notes: dict) -> dict:
        return self.results.class_notes(creation, notes)

    def is_hoisted(self, creation: Creation) -> bool:
        return self.results.is_hoisted(creation)

    def is_guarded(self, creations) -> bool:
        return self.results.is_guarded(creations)

    def sums_descriptor_tiles(self, creation: int) -> bool:
        """Whether a descriptor load of this block pointer reaches a sum or a scan, which may round otherwise
        than over the original's tile (TTD001's note)."""
        return bool(self.results.descriptor_loads(creation) & self.accesses.summed_loads())

    def width_tested(self, creations) -> bool:
        return self.launch.width_tested(creations)

    def launch_check(self, creation: Creation):
        return self.launch.launch_check(creation)

    def reliance(self, creation: Creation) -> list:
        return self.launch.reliance(creation)

    def launch_facts(self) -> list[dict]:
        return self.launch.launch_facts()

    def finished(self, record):
        """A record with what only the end of the analysis knows: an access's handle name (the paddings of every
        access decide it), the dimensions its block pointer moves in, whether it reads a creation; a creation's
        statements; whether an advance assigns the pointers a name holds; what a type query means."""
        if isinstance(record, HandleAccess):
            guard = self.launch.width_flag() if record.widths_tested else record.guard
            return replace(record, handle=self.results.descriptor_name(record.creations, record.stem,
                                                                       record.padding),
                           guard=guard, fallback=self.finished(record.fallback))
        if isinstance(record, MaskedAccess):
            return replace(record, moving=self.results.moving_dims(record.creations),
                           created_here=self.creating.created_in_access(record.pointer, record.creations))
        if isinstance(record, Creation):
            return self.results.creation_record(record)
        if isinstance(record, AdvanceMove) and record.pointers is not None:
            return record if self.results.reads_pointers(record.creations) else replace(record, pointers=None)
        if isinstance(record, ElementType):
            return self.emit.element_type(record)
        return record

    def edits(self) -> FunctionEdits:
        """The edits of the last run, but those of refused block pointers."""
        results, run = self.results, self.run
        keep = lambda owners: not results.is_refused(owners)  # noqa: E731
        edits = FunctionEdits(id(self.fn.function))
        for node, (owners, edit) in run.expr_edits.items():
            if not keep(owners):
                continue
            if isinstance(edit, (HandleAccess, MaskedAccess, NamedMaskAccess)):
                edits.accesses[node] = self.finished(edit)
            else:
                edits.expressions[node] = self.finished(edit)
        edits.statements.update({k: self.finished(r) for k, (o, r) in run.stmt_edits.items() if keep(o)})
        for statement in run.placeholders:
            edit = results.placeholder_statements(statement)
            if edit is not None and keep(edit[0]):
                edits.statements[statement] = edit[1]
        for loop, records in results.hoisted().items():
            edits.before_loop.setdefault(loop, []).extend(r for o, r in records if keep(o))
        edit = results.signature()
        if edit is not None and keep(edit[0]):
            edits.signature = edit[1]
        for line, slots in run.line_edits.items():
            edits.before_line.setdefault(line, []).extend(self.finished(r) for _, o, r in slots.values() if keep(o))
        return edits
