"""The statements that replace one, or go before a line, built from their records (analysis/records.py): an
advance's offset variables (TTD002), `None` for what a path without a block pointer lacks, a helper's returned
offsets and their unpacking (TTD008), a use that never compiles kept so (`tl.static_assert`)."""

from __future__ import annotations

import libcst as cst

from triton_migrate.analysis.records import (
    AdvanceMove,
    CompileError,
    NoneAssignments,
    ReturnedOffsets,
    UnpackedOffsets,
)
from triton_migrate.syntax.forms import advance, descriptor

from .stand_ins import StandIns


def compile_error(record: CompileError, stand_ins: StandIns) -> list:
    return [cst.Expr(descriptor.compile_error(record.language, record.message))]


def advance_move(record: AdvanceMove, stand_ins: StandIns) -> list:
    steps = [advance.increment(step.var, step.value) if step.increment else advance.assign(step.var, step.value)
             for step in record.steps]
    if record.pointers is None:
        return steps
    name, held = record.pointers
    return [*steps, advance.assign(name, cst.Name(held))]


def none_assignments(record: NoneAssignments, stand_ins: StandIns) -> list:
    return [advance.assign(name, cst.Name("None")) for name in record.names]


def returned_offsets(record: ReturnedOffsets, stand_ins: StandIns) -> list:
    return [record.statement.with_changes(value=cst.Tuple([cst.Element(v) for v in record.values], lpar=[], rpar=[]))]


def unpacked_offsets(record: UnpackedOffsets, stand_ins: StandIns) -> list:
    targets = cst.Tuple([cst.Element(n) for n in record.targets], lpar=[], rpar=[])
    return [record.statement.with_changes(targets=[cst.AssignTarget(targets)])]
