"""One source file in, the migrated source and a diagnostic per site out.

Pipeline for a file: prefilter on bytes → libcst parse → import resolution → per-function dataflow
(analysis.py) → edits for the block pointers that can be migrated, a reason for each that cannot →
re-parse and re-run on the output (it must be a fixed point) before anything is returned.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from triton_migrate.rules import ttd001_descriptor, ttd108_unsupported_use

from .analysis import FunctionAnalysis
from .naming import Namer
from .outcome import Diagnostic, FileOutcome
from .rewrite import Edits, Rewriter, add_language_import, uses_name
from .triton_names import TritonNames

# Every block-pointer site contains one of these; a file without them costs one read and nothing more.
_MARKERS = (b"make_block_ptr", b"advance", b"boundary_check", b"padding_option")
_ENTRY_MEMBERS = ("make_block_ptr", "advance")


class SourceError(Exception):
    """The source cannot be parsed; nothing is rewritten."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class InternalError(Exception):
    """The rewrite produced text that does not parse or is not a fixed point: a bug, never written out."""


def might_need_migration(data: bytes) -> bool:
    return any(marker in data for marker in _MARKERS)


def migrate_source(source: str) -> FileOutcome:
    outcome = _migrate(source)
    if outcome.new_source is not None:
        _check_fixed_point(outcome.new_source)
    return outcome


def _check_fixed_point(new_source: str) -> None:
    try:
        again = _migrate(new_source)
    except SourceError as error:
        raise InternalError(f"the rewritten source does not parse: {error}") from error
    if again.new_source is not None:
        raise InternalError("the rewrite is not idempotent: a second run would change the result again")


def _parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise SourceError(f"cannot parse: {error.message}", error.raw_line) from error


def _migrate(source: str) -> FileOutcome:
    wrapper = MetadataWrapper(_parse(source), unsafe_skip_copy=True)
    module = wrapper.module
    names = TritonNames(module)
    functions = [f for f in _functions(module) if _mentions_block_pointers(f, names)]
    stray = _calls_outside_functions(module, names)
    if not functions and not stray:
        return FileOutcome((), None)
    positions = wrapper.resolve(PositionProvider)
    taken = _identifiers(module)
    language = names.language_prefix() or ("tl" if "tl" not in taken else "triton_language")
    namer = Namer(taken)
    edits, diagnostics = Edits(), []
    for function in functions:
        analysis = FunctionAnalysis(function, names, namer, language)
        edits.collect(analysis)
        diagnostics.extend(_diagnostics(analysis, positions, namer))
    for call in stray:
        start = positions[call].start
        diagnostics.append(Diagnostic(start.line, start.column + 1, ttd108_unsupported_use.CODE,
                                      "block pointer used outside a function", False))
    new_module = module.visit(Rewriter(edits))
    if names.language_prefix() is None and uses_name(new_module, language):
        new_module = add_language_import(new_module, language)
    new_source = new_module.code
    diagnostics.sort(key=lambda d: (d.line, d.column, d.code))
    return FileOutcome(tuple(diagnostics), new_source if new_source != source else None)


def _diagnostics(analysis: FunctionAnalysis, positions, namer: Namer) -> list[Diagnostic]:
    found = []
    for creation_id, creation in analysis.creations.items():
        refusal = analysis.refusal_for(creation_id)
        start = positions[creation.call].start
        if refusal is not None:
            where = positions[refusal.node].start.line
            detail = "" if where == start.line else f" (line {where})"
            found.append(Diagnostic(start.line, start.column + 1, refusal.code, refusal.message + detail, False))
        else:
            found.append(Diagnostic(start.line, start.column + 1, ttd001_descriptor.CODE,
                                    _migrated_message(analysis, creation, namer), True))
    for orphan in analysis.orphans:
        start = positions[orphan.node].start
        found.append(Diagnostic(start.line, start.column + 1, orphan.code, orphan.message, False))
    return found


def _migrated_message(analysis: FunctionAnalysis, creation, namer: Namer) -> str:
    stem = namer.stem(creation.target)
    notes = []
    if creation.permutation != sorted(creation.permutation):
        notes.append("transposed view: loads and stores permute")
    if analysis.is_hoisted(creation):
        notes.append("descriptor created once before the loop")
    if creation.hints_dropped:
        notes.append("cache/eviction hints dropped")
    suffix = f" ({'; '.join(notes)})" if notes else ""
    return f"block pointer `{creation.target}` → tensor descriptor `{stem}_desc`{suffix}"


class _Functions(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found: list[cst.FunctionDef] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.found.append(node)


def _functions(module: cst.Module) -> list[cst.FunctionDef]:
    visitor = _Functions()
    module.visit(visitor)
    return visitor.found


class _Mentions(cst.CSTVisitor):
    def __init__(self, names: TritonNames) -> None:
        self.names = names
        self.found = False

    def visit_Call(self, node: cst.Call) -> None:
        member = self.names.member(node.func)
        keywords = {a.keyword.value for a in node.args if a.keyword is not None}
        if member in _ENTRY_MEMBERS or (member in ("load", "store") and keywords & {"boundary_check",
                                                                                     "padding_option"}):
            self.found = True


def _mentions_block_pointers(function: cst.FunctionDef, names: TritonNames) -> bool:
    visitor = _Mentions(names)
    function.body.visit(visitor)
    return visitor.found


class _OutsideFunctions(cst.CSTVisitor):
    def __init__(self, names: TritonNames) -> None:
        self.names = names
        self.found: list[cst.Call] = []

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> None:
        if self.names.member(node.func) in _ENTRY_MEMBERS:
            self.found.append(node)


def _calls_outside_functions(module: cst.Module, names: TritonNames) -> list[cst.Call]:
    visitor = _OutsideFunctions(names)
    module.visit(visitor)
    return visitor.found


class _Identifiers(cst.CSTVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.names.add(node.value)


def _identifiers(module: cst.Module) -> set[str]:
    visitor = _Identifiers()
    module.visit(visitor)
    return visitor.names
