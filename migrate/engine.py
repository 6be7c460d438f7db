"""One source file in, the migrated source and a diagnostic per site out.

Pipeline for a file: prefilter on bytes → libcst parse → import resolution → per-function dataflow
(analysis.py) → edits for the block pointers that can be migrated, a reason for each that cannot →
re-parse and re-run on the output (it must be a fixed point) before anything is returned.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections import defaultdict

import libcst as cst
from libcst.metadata import MetadataWrapper

from triton_migrate.rules import ttd001_descriptor, ttd006_masked_pointers, ttd007_compat, ttd108_unsupported_use

from .analysis import FunctionAnalysis
from .facts import AssignmentCollector
from .naming import Namer
from .outcome import Diagnostic, FileOutcome
from .policy import Policy
from .positions import Positions, site_starts
from .rewrite import Edits, Rewriter, add_import, uses_name
from .triton_names import TritonNames

# Every block-pointer site is a call like these in a file that imports triton; a file without them costs
# one read and a byte search, nothing more.
_MARKER = re.compile(rb"\b(?:make_block_ptr|advance)\s*\(|\b(?:boundary_check|padding_option)\s*=")
_ENTRY_MEMBERS = ("make_block_ptr", "advance")
_SITE_KEYWORDS = ("boundary_check", "padding_option")  # on tl.load/tl.store: a block pointer's access


# Device-side descriptors keep their tensormap in global scratch on NVIDIA sm_90+ (semantics brief §3).
ALLOCATOR = "NVIDIA sm_90+: a `triton.set_allocator` in every launching thread (compat.ensure_allocator())"


class SourceError(Exception):
    """The source cannot be parsed; nothing is rewritten."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


class InternalError(Exception):
    """The rewrite produced text that does not parse or is not a fixed point: a bug, never written out."""


def might_need_migration(data: bytes) -> bool:
    return b"triton" in data and _MARKER.search(data) is not None


def _site_calls(source: str) -> list[ast.Call] | None:
    """A cheap stdlib-ast look for block-pointer site calls: libcst, about 13 times slower to parse, is only
    paid for files that have them. None: the ast cannot tell (newer syntax, perhaps), libcst decides."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the user's SyntaxWarnings are not ours to print
            tree = ast.parse(source)
    except SyntaxError as error:
        if "too many nested" in str(error):  # libcst's parser would overflow the C stack on it
            raise SourceError(f"cannot parse: {error.msg}", error.lineno or 0) from error
        return None  # newer syntax than this Python's, perhaps: let libcst decide and report
    except (RecursionError, MemoryError) as error:  # libcst's native parser would crash the process on it
        raise SourceError("cannot parse: too deeply nested", 0) from error
    except ValueError:
        return None
    names = TritonNames.of_ast(tree)
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and _is_site(names.ast_member(node.func), {k.arg for k in node.keywords})]


def migrate_source(source: str, verify: bool = True, policy: Policy | None = None,
                   rewrite: bool = True) -> FileOutcome:
    """Diagnostics for every site and the migrated source. With `verify` (whenever the new source is
    going to be shown or written) the output is re-parsed and re-migrated: it must be a fixed point.
    `rewrite=False` (a check that only reports) skips producing the new source: `new_source` is None."""
    policy = policy or Policy()
    try:
        outcome = _migrate(source, policy, rewrite)
    except RecursionError as error:
        raise SourceError("too deeply nested for the analysis", 0) from error
    except UnicodeEncodeError as error:  # e.g. a lone surrogate in a str that never came from a file
        raise SourceError(f"cannot parse: {error.reason}", 0) from error
    if verify and outcome.new_source is not None:
        _check_fixed_point(outcome.new_source, policy)
    return outcome


def _check_fixed_point(new_source: str, policy: Policy) -> None:
    try:
        again = _migrate(new_source, policy)
    except SourceError as error:
        raise InternalError(f"the rewritten source does not parse: {error}") from error
    if again.new_source is not None:
        raise InternalError("the rewrite is not idempotent: a second run would change the result again")


def _parse(source: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as error:
        raise SourceError(f"cannot parse: {error.message}", error.raw_line) from error


def _migrate(source: str, policy: Policy, rewrite: bool = True) -> FileOutcome:
    site_calls = _site_calls(source)
    if site_calls == []:
        return FileOutcome((), None)
    wrapper = MetadataWrapper(_parse(source), unsafe_skip_copy=True)
    module = wrapper.module
    names = TritonNames.of_cst(module)
    scan = _ModuleScan(names)
    module.visit(scan)
    functions = scan.functions
    stray = scan.stray_calls
    if not functions and not stray:
        return FileOutcome((), None)
    positions = Positions(wrapper, scan.site_calls, None if site_calls is None else site_starts(site_calls, source))
    taken = scan.identifiers
    language = names.language_prefix() or ("tl" if "tl" not in taken else "triton_language")
    shim = "compat" if "compat" not in taken else "triton_migrate_compat"
    namer = Namer(taken)
    edits, diagnostics = Edits(), []
    for function in functions:
        analysis = FunctionAnalysis(function, names, namer, language, policy, shim,
                                    scan.function_assignments[id(function)])
        edits.collect(analysis)
        diagnostics.extend(_diagnostics(analysis, positions, namer))
    for call in stray:
        line, column = positions.start(call)
        diagnostics.append(Diagnostic(line, column + 1, ttd108_unsupported_use.CODE,
                                      "block pointer used outside a function", False))
    diagnostics.sort(key=lambda d: (d.line, d.column, d.code))
    if not rewrite:
        return FileOutcome(tuple(diagnostics), None)
    new_module = module.visit(Rewriter(edits))
    if names.language_prefix() is None and uses_name(new_module, language):
        new_module = add_import(new_module, "triton.language", language)
    if policy.target == "compat" and uses_name(new_module, shim):
        new_module = add_import(new_module, policy.compat_module, shim)
    new_source = new_module.code
    return FileOutcome(tuple(diagnostics), new_source if new_source != source else None)


def _diagnostics(analysis: FunctionAnalysis, positions: Positions, namer: Namer) -> list[Diagnostic]:
    found = []
    for creation_id, creation in analysis.creations.items():
        line, column = positions.start(creation.call)
        refusal = analysis.refusal_for(creation_id)
        if refusal is not None:
            where, _ = positions.start(refusal.node)
            detail = "" if where == line else f" (line {where})"
            found.append(Diagnostic(line, column + 1, refusal.code, refusal.message + detail, False, "untouched"))
        else:
            found.append(_migrated(analysis, creation, creation_id, (line, column), namer))
    for orphan in analysis.orphans:
        line, column = positions.start(orphan.node)
        found.append(Diagnostic(line, column + 1, orphan.code, orphan.message, False, "untouched"))
    return found


def _migrated(analysis: FunctionAnalysis, creation, creation_id: int, start: tuple[int, int],
              namer: Namer) -> Diagnostic:
    forms = analysis.forms({creation_id})
    stem = namer.stem(creation.target)
    reasons = analysis.class_notes(creation_id, analysis.knowledge.reasons)
    reasons.update({b.code: b.message for b in creation.blockers if "descriptor" not in forms})
    notes = []
    if "descriptor" in forms and creation.permutation != sorted(creation.permutation):
        notes.append("transposed view: loads and stores permute")
    if analysis.is_hoisted(creation):
        notes.append("descriptor created once before the loop")
    if creation.hints_dropped:
        notes.append("cache/eviction hints dropped")
    if reasons:
        which = "every access" if forms == {"pointer"} else "some accesses"
        notes.append(f"masked pointers for {which}: " + "; ".join(f"{c} {m}" for c, m in sorted(reasons.items())))
    suffix = f" ({'; '.join(notes)})" if notes else ""
    requirements = (*analysis.class_notes(creation_id, analysis.knowledge.requirements), ALLOCATOR) \
        if "descriptor" in forms else ()
    if forms == {"compat"}:
        message, code = f"block pointer `{creation.target}` → compat tile `{stem}_tile`{suffix}", ttd007_compat.CODE
    elif forms == {"pointer"}:
        message, code = f"block pointer `{creation.target}` → masked pointers{suffix}", ttd006_masked_pointers.CODE
    else:
        message, code = f"block pointer `{creation.target}` → tensor descriptor `{stem}_desc`{suffix}", \
            ttd001_descriptor.CODE
    decision = "+".join(sorted(forms, key=lambda f: f != "descriptor"))
    return Diagnostic(start[0], start[1] + 1, code, message, True, decision, requirements)


def _is_site(member: str | None, keywords: set) -> bool:
    """A call of `triton.language.<member>` with these keyword arguments is a block-pointer site."""
    return member in _ENTRY_MEMBERS or (member in ("load", "store") and bool(keywords & set(_SITE_KEYWORDS)))


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
        self.site_calls: list[cst.Call] = []  # every site call, in source order
        self.identifiers: set[str] = set()
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

    def visit_Call(self, node: cst.Call) -> None:
        member = self.names.member(node.func)
        if not _is_site(member, {a.keyword.value for a in node.args if a.keyword is not None}):
            return
        self.site_calls.append(node)
        if self._stack:
            self.with_sites.add(id(self._stack[-1][0]))
        elif member in _ENTRY_MEMBERS:  # a load/store outside a function is no site
            self.stray_calls.append(node)

    def visit_Name(self, node: cst.Name) -> None:
        self.identifiers.add(node.value)


