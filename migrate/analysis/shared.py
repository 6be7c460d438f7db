"""What the parts of one function's analysis share: the function and its setting (`Subject`, fixed for
the whole analysis, with what it learns across reruns), one run's tables (`Run`, new for each rerun), and
`Part`, the base of every part, which names the others.

The parts (dataflow.py assembles them): `Dataflow` (statements.py) walks the statements; `Bookkeeping` records what is
refused, learnt or left alone; `Creations` describes each `make_block_ptr`; `Advances` follows offsets
through advances and copies; `Accesses` (sites.py) decides the form of each load and store; `AccessForms`
records the chosen form; `Launch` says what a launch checks or the user stated (TTD009/TTD010); `Results`
answers for a finished run and writes the records of the creations' statements and of the signature;
`Crossing` follows block pointers across calls of helpers. Every edit is a record (records.py), which
rewrite/forms/ builds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import libcst as cst

from triton_migrate.forms import Origin
from triton_migrate.policy import Policy

from .facts import FunctionFacts
from .guards import Arguments
from .interfaces import SiteFacts
from .module_index import Helper, Key, Unit
from .naming import Namer
from .records import Knowledge, Refusal
from .seams import (
    AccessesPart,
    AccessFormsPart,
    AdvancesPart,
    BookkeepingPart,
    CreationsPart,
    CrossingPart,
    DataflowPart,
    LaunchPart,
    ResultsPart,
    ReturnsPart,
)
from .triton_names import TritonNames


class CrossesFunctions(Exception):
    """A block pointer crosses a call or a return, or what a helper proves hangs on what its calls pass: only
    the whole program can say."""


class HelperTable(Protocol):
    """What the parts (and the engine's diagnostics) read of the program itself (program.py's Program): each
    helper's definition, and why the helpers a frozen module defines or calls keep their code."""

    @property
    def helpers(self) -> dict[Key, Helper]: ...

    @property
    def frozen_reasons(self) -> dict[Key, str]: ...

    def resolve(self, unit: Unit, func: cst.BaseExpression) -> Key | None: ...


class ProgramPlace(Protocol):
    """What the analysis of one function reads of its place in the program (program.py's Context, which
    builds on this module): the other functions, and what the program's rounds settled about their calls."""

    @property
    def program(self) -> HelperTable: ...

    @property
    def unit(self) -> Unit: ...  # the engine's unit of the function's module

    @property
    def helper(self) -> Key | None: ...  # the function analysed, if it is a jit function

    @property
    def entry(self) -> dict[str, SiteFacts]: ...  # the parameters that arrive as parts

    def resolve(self, func: cst.BaseExpression) -> Key | None: ...

    def bind(self, key: Key, call: cst.Call) -> dict[str, cst.Arg] | None: ...

    def constexprs(self, key: Key) -> set[str]: ...

    def record(self, key: Key, param: str, call: cst.Call, facts, creations: frozenset) -> None: ...

    def refusal(self, key: Key, param: str) -> str | None: ...

    def interface(self, key: Key, param: str) -> SiteFacts | None: ...

    def part_names(self, key: Key, param: str, kinds) -> list[str]: ...

    def literals(self, param: str) -> list[cst.BaseExpression] | None: ...

    def nonnegative_parameters(self) -> frozenset[str] | None: ...

    def always_none(self, param: str) -> bool: ...

    def removed(self, policy: Policy) -> bool: ...

    def returns(self, key: Key) -> tuple | None: ...

    def is_called(self) -> bool: ...


@dataclass
class Subject:
    """The function analysed and its setting, the same in every run; and what the analysis learns about it
    across runs (`knowledge`; the calls it makes up for parameters and inlined helpers, one node per call for
    every run, since what it learns is keyed by node ids)."""

    function: cst.FunctionDef
    context: ProgramPlace | None  # the function's place in the program, or None: the function analysed alone
    policy: Policy
    origin: Origin  # where its target came from (planner.origin)
    names: TritonNames
    namer: Namer
    language: cst.BaseExpression  # how the module names triton.language
    shim: cst.Name  # how migrated code names triton_migrate.compat (--target compat)
    facts: FunctionFacts
    arguments: Arguments
    guard_flag: str  # the launch guard's flag (TTD009)
    launch_names: dict  # how the module names the launch support's guard, check and allocator hook
    knowledge: Knowledge = field(default_factory=Knowledge)
    parameter_calls: dict = field(default_factory=dict)  # a parameter's block pointer, re-created (crossing.py)
    inlined_calls: dict = field(default_factory=dict)  # id of a helper call -> its creation (crossing.py)
    unpacked_calls: dict = field(default_factory=dict)  # id of an access's helper call -> its assignment (returns.py)

    @property
    def place(self) -> ProgramPlace:
        """The function's place in the program, where the caller knows it has one: it follows a helper's
        parameter or call, which only the program gives."""
        assert self.context is not None
        return self.context

    def is_nonnegative(self, expr: cst.BaseExpression) -> bool:
        """Is `expr` provably >= 0? A launched kernel's integer arguments are taken to be (sizes, indices); a
        helper's parameter only where every call proves what it passes (`shift(p, -BLOCK)` does not). A
        helper analysed alone does not know its calls, nor does a kernel that another module may call (its
        module launches it nowhere): where the answer hangs on them, the program decides."""
        if self.context is not None:
            return self.facts.is_nonnegative(expr, self.context.nonnegative_parameters())
        if self.facts.is_nonnegative(expr, frozenset()):
            return True
        if not self.facts.is_nonnegative(expr, None):
            return False
        if self.facts.launched and not self.facts.called_elsewhere():
            return True
        raise CrossesFunctions


@dataclass
class Run:
    """One run over the function: what it found and the edits it recorded. A rerun starts a new one."""

    dirty: bool = False  # it learnt something that changes what an earlier point decided: run again
    creations: dict = field(default_factory=dict)  # id of a `make_block_ptr` call -> Creation
    owners: list = field(default_factory=list)  # the statements around the one analysed ("if", "with", Loop)
    # id of a node -> (the creations it belongs to, the record of what replaces it: records.py). A creation's
    # statement is recorded as its Creation, whose record only the end of the analysis can write.
    expr_edits: dict[int, tuple[frozenset[int], object]] = field(default_factory=dict)
    stmt_edits: dict[int, tuple[frozenset[int], object]] = field(default_factory=dict)
    placeholders: dict[int, cst.Assign | cst.AnnAssign] = field(default_factory=dict)  # `p = None` statements, by id
    orphans: list[Refusal] = field(default_factory=list)
    orphan_parameters: set[str] = field(default_factory=set)  # parameters used as block pointers no call fills
    dead_uses: list[Refusal] = field(default_factory=list)  # uses that never compile (never_compiles)
    line: cst.SimpleStatementLine | None = None  # the line being analysed, if a single statement
    # statements to put before a line: line id -> stem (an access's temporaries) or (stem, "creation") (an
    # inline creation's statements) -> (call id, owners, record)
    line_edits: dict[int, dict[object, tuple[int, frozenset[int], object]]] = field(default_factory=dict)
    entry_edits: list = field(default_factory=list)  # a helper's parameters re-created on entry (crossing.py)
    returned: list[tuple] = field(default_factory=list)  # what each `return` hands back (crossing.py)
    # The helper's spelling of each stride that is a unit stride at every call site (crossing.py).
    unit_strides: set[str] = field(default_factory=set)


class Parts:
    """What assembles the parts (dataflow.py's FunctionAnalysis, a subclass): the subject, the current run, and
    each part typed by its seam (seams.py), which mypy checks the assembled part against."""

    fn: Subject
    run: Run
    flow: DataflowPart
    books: BookkeepingPart
    creating: CreationsPart
    moves: AdvancesPart
    accesses: AccessesPart
    emit: AccessFormsPart
    launch: LaunchPart
    results: ResultsPart
    crossing: CrossingPart
    returns: ReturnsPart


class Part:
    """A part of the analysis of one function: it reads the subject and the current run, and asks the
    other parts (`parts`, the analysis that assembled them) for what is theirs: `flow` the Dataflow, `books`
    the Bookkeeping, and so on, each typed by its seam (seams.py: the parts' modules import this one, which
    cannot import them)."""

    def __init__(self, parts: Parts) -> None:
        self.parts = parts
        self.fn: Subject = parts.fn

    @property
    def run(self) -> Run:
        return self.parts.run

    @property
    def flow(self) -> DataflowPart:
        return self.parts.flow

    @property
    def books(self) -> BookkeepingPart:
        return self.parts.books

    @property
    def creating(self) -> CreationsPart:
        return self.parts.creating

    @property
    def moves(self) -> AdvancesPart:
        return self.parts.moves

    @property
    def accesses(self) -> AccessesPart:
        return self.parts.accesses

    @property
    def emit(self) -> AccessFormsPart:
        return self.parts.emit

    @property
    def launch(self) -> LaunchPart:
        return self.parts.launch

    @property
    def results(self) -> ResultsPart:
        return self.parts.results

    @property
    def crossing(self) -> CrossingPart:
        return self.parts.crossing

    @property
    def returns(self) -> ReturnsPart:
        return self.parts.returns
