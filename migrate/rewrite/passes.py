"""The rewrite of a module, pass by pass, in the order it runs: read `PASSES` top to bottom.

The analysis' edits come first (apply.py's `Rewriter`: expressions, statements, descriptors before loops).
As the `Rewriter` leaves each function it has edited, the function passes run on it, in order; once every
function is rewritten, the module passes run on the whole module. Each pass reads the function (or module)
as parsed (`original`) and as the passes before it left it (`updated`), and returns it rewritten.

The engine (engine/) decides which functions the edits come from and which dead helpers go before the
edits run; this module decides what happens to the edited code, and when.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Callable

import libcst as cst

from triton_migrate.analysis import planner
from triton_migrate.policy import Layout, Policy
from triton_migrate.rules import _launch_support as launch_support
from triton_migrate.rules import ttd009_launch_guard

from . import branches, wrap
from .apply import Edits, Rewriter, add_from_import, add_import, uses_name
from .blank_lines import no_new_blank_runs
from .bound_comment import explain_bounds
from .code_width import line_length
from .dead_code import drop_dead_code
from .descriptors import share_descriptors
from .forms.stand_ins import StandIns
from .lone_ranges import inline_lone_ranges
from .offsets import share
from .repeated import drop_repeated
from .running_offsets import merge
from .sink import sink_pointers


@dataclass(frozen=True)
class Rewriting:
    """What the passes of one module read: the module as the engine parsed it (`unit`, engine/scanning.py's `Unit`:
    its tree, TritonNames, Namer, names of `triton.language` and of the compat shim, the launch-support
    names), what the user allows (`policy`), how the code it writes is laid out (`layout`: its line length),
    and where the module imports its launch support from (`launch`: `from X import`'s X; None: from beside it);
    and what the edits' builders left for the passes to settle (`stand_ins`: placeholders, running offsets; none
    until the edits are applied)."""

    unit: Any
    policy: Policy
    layout: Layout
    launch: str | None
    stand_ins: StandIns = field(default_factory=StandIns)


@dataclass(frozen=True)
class Pass:
    name: str
    scope: str  # "function": on each function the edits changed; "module": on the whole module, after them
    run: Callable[[Any, Any, Rewriting], Any]  # (original, updated, rewriting) -> updated
    why: str  # why it runs where it does


def _running_offsets(original: cst.FunctionDef, updated: cst.FunctionDef, rewriting: Rewriting) -> cst.FunctionDef:
    stand_ins = rewriting.stand_ins
    return merge(updated, stand_ins.running, rewriting.unit.namer.taken, stand_ins.placeholders) \
        if stand_ins.running else updated


def _shared_offsets(original: cst.FunctionDef, updated: cst.FunctionDef, rewriting: Rewriting) -> cst.FunctionDef:
    return share(updated, rewriting.stand_ins, rewriting.unit.names.member)


def _shared_descriptors(original: cst.FunctionDef, updated: cst.FunctionDef,
                        rewriting: Rewriting) -> cst.FunctionDef:
    unit = rewriting.unit
    return share_descriptors(original, updated, unit.names.member, unit.shim, unit.namer.taken)


def _repeated(original: cst.FunctionDef, updated: cst.FunctionDef, rewriting: Rewriting) -> cst.FunctionDef:
    member_of = rewriting.unit.names.member
    return inline_lone_ranges(original, drop_repeated(original, updated, member_of), member_of)


def _dead_code(original: cst.FunctionDef, updated: cst.FunctionDef, rewriting: Rewriting) -> cst.FunctionDef:
    return drop_dead_code(original, updated, rewriting.unit.names.member)


def _sunk(original: cst.FunctionDef, updated: cst.FunctionDef, rewriting: Rewriting) -> cst.FunctionDef:
    return sink_pointers(original, updated, rewriting.unit.names.member)


def _bound_comment(original: cst.FunctionDef, updated: cst.FunctionDef, rewriting: Rewriting) -> cst.FunctionDef:
    return explain_bounds(original, updated, line_length(rewriting.layout, rewriting.unit.source),
                          rewriting.unit.module.default_indent)


def _blank_lines(original: cst.FunctionDef, updated: cst.FunctionDef, rewriting: Rewriting) -> cst.FunctionDef:
    return no_new_blank_runs(original, updated)


def _language_import(original: cst.Module, updated: cst.Module, rewriting: Rewriting) -> cst.Module:
    unit = rewriting.unit
    if unit.names.language_prefix() is None and uses_name(updated, unit.language):
        return add_import(updated, "triton.language", unit.language)
    return updated


def _compat_import(original: cst.Module, updated: cst.Module, rewriting: Rewriting) -> cst.Module:
    policy, shim = rewriting.policy, rewriting.unit.shim
    if planner.uses_shim(policy) and uses_name(updated, shim):
        return add_import(updated, policy.compat_module, shim)
    return updated


def _guarded_branches(original: cst.Module, updated: cst.Module, rewriting: Rewriting) -> cst.Module:
    flag = rewriting.unit.namer.flag(ttd009_launch_guard.FLAG)
    width = line_length(rewriting.layout, rewriting.unit.source)
    return branches.split(updated, flag, width) if uses_name(updated, flag) else updated


def _launch_support_import(original: cst.Module, updated: cst.Module, rewriting: Rewriting) -> cst.Module:
    """The launch-support functions the kernels call (rules/_launch_support.py) and the module does not
    import yet, imported from `launch` (`from ._triton_launch import descriptor_fits`), or, for a module
    outside any package, from beside it (frontend/launch.py)."""
    unit = rewriting.unit
    called = [f for f in launch_support.CALLED if f not in unit.launch_bound and
              uses_name(updated, unit.launch_names[f])]
    if not called:
        return updated
    names = [(f, unit.launch_names[f]) for f in called]
    if rewriting.launch is None:  # relatively where the folder is imported as a (namespace) package, else by name
        return add_from_import(updated, f".{launch_support.MODULE}", names, fallback=launch_support.MODULE)
    return add_from_import(updated, rewriting.launch, names)


def _line_length(original: cst.Module, updated: cst.Module, rewriting: Rewriting) -> cst.Module:
    return wrap.fit(updated, original, line_length(rewriting.layout, rewriting.unit.source))


PASSES = (
    Pass("running offsets", "function", _running_offsets,
         "merges the running offsets that always hold the same value into one variable (`off_k`, "
         "running_offsets.py); first, while the masked pointers' offsets are still placeholders that name them"),
    Pass("shared offsets", "function", _shared_offsets,
         "writes each offset and mask of the masked pointers once, where every access that needs it reads it "
         "(`o_t`, `m_t`, offsets.py); it fills the placeholders, so every pass after it sees plain code"),
    Pass("shared descriptors", "function", _shared_descriptors,
         "creates each descriptor the rewrite wrote once per view of a tensor, where an earlier one of the same "
         "call holds its value, and names it after the tensor (`A_desc`, descriptors.py); before the repeated "
         "values, which would only merge those with nothing above them assigned, and keep the first one's name"),
    Pass("repeated values", "function", _repeated,
         "drops what the rewrite computes again: a block pointer created again before a second loop, an offset "
         "the kernel holds in a variable of its own (repeated.py), and then a range named for two reads that "
         "one read is left (lone_ranges.py); before dead code, which may then find more"),
    Pass("dead code", "function", _dead_code,
         "removes what the rewrite left dead (a block pointer's only reader gone, an `if` emptied: "
         "dead_code.py); after every pass that removes reads"),
    Pass("sunk pointers", "function", _sunk,
         "moves the pointers a creation became down to their first read (sink.py); last, once no statement "
         "between a creation and its read can still go"),
    Pass("bound comment", "function", _bound_comment,
         "says, once a function, why a mask clamps an extent or tests a coordinate unsigned (bound_comment.py); "
         "once every line has found its place, above the one that first holds such a bound"),
    Pass("blank lines", "function", _blank_lines,
         "cuts to one the runs of blank lines that lines removed or moved left behind (blank_lines.py); after "
         "every pass that removes or moves lines"),
    Pass("triton.language import", "module", _language_import,
         "imports `triton.language` where the rewritten code names it and the module does not import it"),
    Pass("compat import", "module", _compat_import,
         "imports the compat shim where `--target compat` code names it"),
    Pass("guarded branches", "module", _guarded_branches,
         "spells a guarded access (TTD009) that does not fit on a line as an `if`/`else` (branches.py); before "
         "the layout, which then lays out each branch"),
    Pass("launch-support import", "module", _launch_support_import,
         "imports the launch-support functions the rewritten kernels call (rules/_launch_support.py); after "
         "every pass that may add or remove a call of one"),
    Pass("line length", "module", _line_length,
         "lays out every statement the rewrite created or changed within the project's line length, as black "
         "would (wrap.py); last, over the final text"),
)


def _run(scope: str, original, updated, rewriting: Rewriting):
    for step in PASSES:
        if step.scope == scope:
            updated = step.run(original, updated, rewriting)
    return updated


def rewritten(module: cst.Module, edits: Edits, rewriting: Rewriting) -> cst.Module:
    """`module` (the module as parsed, less the helpers the user let go) with `edits` applied and every pass
    run, in the order of `PASSES`."""
    rewriting = replace(rewriting, stand_ins=edits.stand_ins)
    edited = module.visit(Rewriter(edits, partial(_run, "function", rewriting=rewriting)))
    return _run("module", rewriting.unit.module, edited, rewriting)
