"""What the analysis knows about each block pointer, what it has learnt across reruns, and the records of the
edits it hands the rewrite: plain data that says what each edit is (an access, a creation's statements, an
advance, a helper call's parts, a signature), which rewrite/forms/ builds into syntax."""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from triton_migrate.forms import POINTER_ARGUMENT, Form
from triton_migrate.rules import ttd103_no_unit_stride
from triton_migrate.syntax.nodes import code_of

from .values import State


@dataclass
class Creation:
    """One `make_block_ptr` call and what it describes."""

    call: cst.Call
    target: str | None
    base: cst.BaseExpression | None = None
    shape: list = field(default_factory=list)
    strides: list = field(default_factory=list)
    offsets: list = field(default_factory=list)
    block: list = field(default_factory=list)
    unit: int | None = None  # the unit-stride dimension; None: no descriptor is possible
    blockers: list = field(default_factory=list)  # planner.Obstacle: what rules out any descriptor
    hoist_before: cst.CSTNode | None = None  # the loop to create the descriptor before
    hints_dropped: bool = False
    order: list | None = None  # the literal `order`, if it is one
    anchor: cst.CSTNode | None = None  # where the report points, if not at the call (a helper's parameter)
    check: object = None  # guards.Check, or why a descriptor cannot be checked at launch (TTD009)
    in_loops: tuple[int, ...] = ()  # the ids of the loops the creation is inside, outermost first
    branched: bool = False  # inside an `if`: its base may be None where it is not reached
    condition: cst.IfExp | None = None  # `p = tl.make_block_ptr(...) if FLAG else None`: the whole value
    inline: bool = False  # the pointer of a load or store (`tl.load(tl.make_block_ptr(...))`), named by us
    stated: dict = field(default_factory=dict)  # fact -> where, what the user stated of its tensor (TTD010)
    stated_unit: bool = False  # its unit stride is the one stated `contiguous`, not one the source proves
    captured: bool = False  # its parts that read names assigned before an access are captured (capture_parts)
    spelt: dict = field(default_factory=dict)  # argument -> its elements, where the call has no literal tuple

    @property
    def name(self) -> str:
        """`target`, where the creation is described: describe() refuses one that no name holds."""
        assert self.target is not None
        return self.target

    @property
    def described_base(self) -> cst.BaseExpression:
        """`base`, which describe() sets before any other part reads the creation."""
        assert self.base is not None
        return self.base

    @property
    def loops(self) -> int:
        return len(self.in_loops)

    def carried_into_loops_of(self, other: Creation) -> bool:
        """Whether what this creation assigns may be live at the head of a loop that `other` is inside, where
        Triton carries it through the loop: this one comes first, and is inside no loop that `other`'s loop
        is not inside (Triton forgets a name first assigned in a loop's body when the loop ends)."""
        depth = len(self.in_loops)
        return depth < len(other.in_loops) and other.in_loops[:depth] == self.in_loops

    @property
    def permutation(self) -> list[int]:
        rank = len(self.block)
        return list(range(rank)) if self.unit is None else ttd103_no_unit_stride.permutation(rank, self.unit)


@dataclass
class Refusal:
    code: str
    message: str
    node: cst.CSTNode


@dataclass
class Knowledge:
    """What the analysis has learnt; it only grows (but for what each site became), so reruns terminate."""

    materialize: set = field(default_factory=set)  # (definition id, dimension)
    refused: dict = field(default_factory=dict)  # creation id -> Refusal
    parent: dict = field(default_factory=dict)  # union-find over creation ids
    paddings: dict = field(default_factory=dict)  # creation id -> {"zero", "nan"}
    placeholder_links: dict = field(default_factory=dict)  # statement id -> creation ids
    placeholder_used: set = field(default_factory=set)
    sites: dict = field(default_factory=dict)  # an access's (or helper call's) key -> planner.Decision
    merged: dict = field(default_factory=dict)  # creation id -> {(kind, dim): its part}, for `p_base = ...`
    named: set = field(default_factory=set)  # creation ids whose name holds their pointers for some access
    rebuilt: set = field(default_factory=set)  # creation ids some access computes the pointers of from parts
    moving: dict = field(default_factory=dict)  # creation id -> the dimensions it advances in
    creation_masks: dict = field(default_factory=dict)  # creation id -> the dimensions its own mask checks
    stale_names: dict = field(default_factory=dict)  # creation id -> names in its base, shape, strides assigned since
    captured: set = field(default_factory=set)  # creation ids whose stale parts are captured at the creation
    rejected: str | None = None  # what is wrong with the first call Triton rejects here: the function stays whole
    # creation id -> when the analysis first met it. Ids are addresses, whose order is the allocator's:
    # "the first of these creations" must mean the first in the source, whichever parser built the tree.
    order: dict = field(default_factory=dict)

    @property
    def forms(self) -> dict:
        """Creation id -> {Form}: what its sites became."""
        found: dict = {}
        for site in self.sites.values():
            for creation in site.creations:
                found.setdefault(creation, set()).add(site.form)
        return found

    @property
    def guarded(self) -> set:
        """Creation ids whose descriptors are chosen at launch (TTD009)."""
        return {creation for site in self.sites.values() if site.guarded for creation in site.creations}

    @property
    def reasons(self) -> dict:
        """Creation id -> {code: message}, why some of its sites are masked pointers."""
        return self._merged("reasons")

    @property
    def relied(self) -> dict:
        """Creation id -> {fact: where}, what its descriptors rely on (TTD010)."""
        return self._merged("relied")

    def _merged(self, attribute: str) -> dict:
        found: dict = {}
        for site in self.sites.values():
            for creation in site.creations:
                found.setdefault(creation, {}).update(getattr(site, attribute))
        return {creation: notes for creation, notes in found.items() if notes}

    def met(self, creation: int) -> None:
        self.order.setdefault(creation, len(self.order))

    def in_order(self, creations) -> list[int]:
        return sorted(creations, key=self.order.__getitem__)

    def find(self, c: int) -> int:
        while self.parent.get(c, c) != c:
            c = self.parent[c]
        return c

    def union(self, creations: frozenset[int]) -> None:
        first, *rest = self.in_order({self.find(c) for c in creations})
        for root in rest:
            self.parent[root] = first


@dataclass
class Loop:
    """A loop being analysed: its head state (for the fixed point), and the paths that leave early."""

    node: cst.CSTNode
    assigned: frozenset[str]
    head: State
    breaks: list = field(default_factory=list)
    continues: list = field(default_factory=list)


@dataclass
class FunctionEdits:
    """What the rewrite applies to one function, by id of the node each edit replaces or goes before; the edits
    of block pointers that stay (refused) are left out. Every edit is a record, built into syntax by
    rewrite/forms/."""

    function: int  # id of the FunctionDef
    expressions: dict[int, object] = field(default_factory=dict)  # what replaces an expression
    statements: dict[int, object] = field(default_factory=dict)  # what replaces a statement
    before_loop: dict[int, list[CreationStatements]] = field(default_factory=dict)  # handles created before a loop
    before_line: dict[int, list] = field(default_factory=dict)  # statements before a line's
    signature: Signature | None = None  # its new parameters and decorators, or its removal
    accesses: dict[int, HandleAccess | MaskedAccess | NamedMaskAccess] = field(default_factory=dict)


@dataclass
class HandleAccess:
    """A load or store that goes through a handle, as the analysis decided it: a descriptor (TTD003), one chosen
    at launch (TTD009), or a compat tile (TTD007). The rewrite builds its syntax from this record alone
    (rewrite/forms/handle_access.py). Its repr shows the expressions as code."""

    form: Form  # a descriptor or a compat tile
    member: str  # "load" or "store"
    creations: frozenset  # the ids of the creations it reads
    stem: str  # the block pointer's stem, which names its handles
    padding: str  # the padding of the handle it reads: "zero" or "nan"
    offsets: list  # the offset in each dimension
    block: list  # the block shape
    language: cst.BaseExpression  # how the module names triton.language
    permutation: list = field(default_factory=list)  # a descriptor's order of dimensions (TTD103)
    stores_tile: bool = False  # a descriptor store of a tile (not of a scalar or a value to broadcast)
    shim: cst.BaseExpression | None = None  # a compat tile's: how migrated code names the shim
    checked: cst.BaseExpression | None = None  # a compat tile's: the `boundary_check` as given
    element: cst.BaseExpression | None = None  # a compat tile's base, whose dtype a stored literal scalar takes
    guard: str | None = None  # chosen at launch (TTD009), or by a test of its block widths: the flag
    widths_tested: bool = False  # chosen by the compile-time test of its block widths (TTD107)
    fallback: MaskedAccess | None = None  # chosen at launch: masked pointers (TTD006) otherwise
    handle: str | None = None  # the handle's name, known once the analysis is over (FunctionAnalysis.edits)

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass
class MaskedAccess:
    """A load or store on masked pointers (TTD006), as the analysis decided it: where its pointers come from,
    the parts and offsets they are computed from, the bounds each `boundary_check` variant masks. The rewrite
    builds its syntax from this record alone (rewrite/forms/masked_access.py)."""

    member: str  # "load" or "store"
    creations: frozenset  # the ids of the creations it reads
    language: cst.BaseExpression  # how the module names triton.language
    variants: list  # (test, dimensions checked): one access each, chosen on the tests (None: the last)
    named: bool  # through the pointers the block pointer's name holds (`held`), else computed here
    held: cst.BaseExpression  # the name that holds the pointers (an advance's base for `tl.advance(p, ...)`)
    pointer: cst.BaseExpression  # the access's pointer as the source spells it
    base: cst.BaseExpression
    strides: list
    offsets: list  # the offset in each dimension
    axes: list  # masked_pointers.Axis per dimension: offset, block, range
    shape: list
    lower: list  # per dimension: whether the offset may be negative (the mask checks `>= 0` too)
    padding: object  # a literal option, or the name of a constexpr holding one
    given: tuple | None = None  # the `mask=`, `other=` the source gave, where the access never compiled (user_mask)
    # known once the analysis is over (FunctionAnalysis.edits):
    moving: set | None = None  # the dimensions the block pointer moves in: held pointers leave them out
    created_here: bool | None = None  # the pointer is the creation (`tl.load(tl.make_block_ptr(...))`)

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass
class NamedMaskAccess:
    """A load or store on masked pointers whose mask each of its creations assigns (access_forms.py
    masks_at_creation: fla's `m_h`): it reads the pointers and the mask by their names. Built by
    rewrite/forms/masked_access.py."""

    member: str  # "load" or "store"
    creations: frozenset  # the ids of the creations it reads
    language: cst.BaseExpression  # how the module names triton.language
    held: cst.BaseExpression  # the name that holds the pointers
    mask: str  # the name that holds the mask
    padding: object  # a literal option, or the name of a constexpr holding one

    def __repr__(self) -> str:
        return _record_repr(self)


def _record_repr(record) -> str:
    """A record as a reader wants it: expressions as code, node ids (its creations, a node) left out."""
    shown = {key: _shown(value) for key, value in vars(record).items()
             if value is not None and key not in ("creations", POINTER_ARGUMENT)}
    return f"{type(record).__name__}({', '.join(f'{key}={value}' for key, value in shown.items())})"


def _shown(value):
    """A record's field as a reader wants it: expressions as code."""
    if type(value) in _RECORDS:
        return repr(value)
    if isinstance(value, cst.CSTNode):
        return repr(code_of(value))
    if isinstance(value, list):
        return f"[{', '.join(_shown(v) for v in value)}]"
    if isinstance(value, tuple):
        return f"({', '.join(_shown(v) for v in value)})"
    if isinstance(value, dict):
        return f"{{{', '.join(f'{_shown(k)}: {_shown(v)}' for k, v in value.items())}}}"
    if isinstance(value, (set, frozenset)):
        return f"{{{', '.join(_shown(v) for v in sorted(value))}}}" if value else "set()"
    if hasattr(value, "__dataclass_fields__"):  # an axis
        return f"{type(value).__name__}({', '.join(f'{k}={_shown(v)}' for k, v in vars(value).items())})"
    return repr(value)


@dataclass(frozen=True)
class CompileError:
    """A use Triton rejects at compile time wherever it is reached (bookkeeping.never_compiles, a `mask=` on a
    block-pointer access): `tl.static_assert(False, "<message>")`, rejected there just the same, in place of the
    call, or as a statement of its own. Built by rewrite/forms/statements.py and expressions.py."""

    language: cst.BaseExpression  # how the module names triton.language
    message: str

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class OffsetStep:
    """One offset variable of an advance (TTD002): `var += value`, or `var = value`."""

    var: str
    value: cst.BaseExpression
    increment: bool


@dataclass(frozen=True)
class AdvanceMove:
    """What `q = tl.advance(p, ...)` (or a copy `q = p`) becomes (advances.py): the offset variables it moves,
    and `q = p` where some masked access reads the pointers `q` holds (they leave out the offsets it moves
    in). Built by rewrite/forms/statements.py."""

    creations: frozenset  # the ids of the creations it moves
    steps: tuple  # OffsetStep per dimension that moves or lives in a variable
    # (name, the name it takes them from): the pointers it holds, known once the analysis is over
    # (FunctionAnalysis.edits; None: no access reads them)
    pointers: tuple[str, str] | None = None

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class NoneAssignments:
    """`p = None` on a path that creates no block pointer (results.placeholder_statements): `None` for each
    name the other paths assign instead (handles, parts, offsets)."""

    names: tuple[str, ...]

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class Passed:
    """The parts a call site passes for one block-pointer parameter (TTD008; None: a fixed literal the helper
    keeps)."""

    names: list[str]
    values: list[cst.BaseExpression | None]


@dataclass(frozen=True)
class HelperCallParts:
    """A call of a helper that receives block pointers as their parts (crossing.py, TTD008): each block-pointer
    argument, by the id of its Arg in `call`, replaced by the parts it passes. Built by
    rewrite/forms/expressions.py."""

    call: cst.Call
    passed: dict  # id of an Arg -> Passed

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class BaseTest:
    """`p is None` on a block pointer whose parts the rewrite passes: its base is `None` exactly where `p` is,
    so the test asks `base` (crossing.none_test)."""

    base: cst.Name

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class ReturnedOffsets:
    """`return acc, p` of a helper that hands back a parameter's block pointer: `return acc, p_off0, p_off1`
    (`values`: what the tuple returns)."""

    statement: cst.Return
    values: tuple

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class UnpackedOffsets:
    """`acc, p = helper(acc, p)` where the helper hands `p` back: its offsets unpacked into the caller's offset
    variables (`targets`: the names assigned)."""

    statement: cst.Assign
    targets: tuple

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class ElementType:
    """`p.dtype.element_ty` (or `p.type.element_ty`) of a block pointer (sites.type_query): what it means once
    the block pointer is gone. Known once the analysis is over (FunctionAnalysis.edits): `source` "pointers"
    (the pointers `p` holds: their dtype), "descriptor" (the handle `handle`'s dtype) or "base" (the element
    type of `base`, its first creation's). Built by rewrite/forms/expressions.py."""

    creations: frozenset
    stem: str
    pointers: bool  # the name holds its pointers
    source: str | None = None
    handle: str | None = None
    base: cst.BaseExpression | None = None

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class HandleCreation:
    """One handle a creation makes, for one padding: a descriptor (`p_desc = tl.make_tensor_descriptor(...)`,
    TTD001) or a compat tile (`p_tile = compat.make_tile(...)`, TTD007)."""

    target: str  # the handle's name
    source: str  # the block pointer's name
    call: cst.Call  # the `make_block_ptr` call
    spelt: dict  # argument -> its elements, where the call has no literal tuple (Creation.spelt)
    padding: str
    function: cst.BaseExpression | None = None  # a descriptor's: `tl.make_tensor_descriptor` as the module names it
    permutation: list | None = None  # a descriptor's order of dimensions (TTD103)
    shim: cst.BaseExpression | None = None  # a compat tile's: how migrated code names the shim
    impl: str | None = None  # a compat tile's: "emu" or "auto"
    guard: str | None = None  # a compat tile's chosen at launch (TTD009): "auto" under this flag, "emu" otherwise

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class CreationStatements:
    """What a `make_block_ptr` statement becomes (results.creation_record), or what goes before the loop its
    handles are created before: the handles it creates there, each only where its base is not `None`
    (`present`: a helper parameter's base part, where some call passes `None`), under the creation's own
    condition (`condition`, `p = tl.make_block_ptr(...) if FLAG else None`) and, for a guarded or width-tested
    descriptor, only under the flag `only_with` (TTD009, TTD107); then the variables its masked pointers read:
    parts that differ between merged creations, offsets that live in variables (each with the extent it runs
    along: rewrite/running_offsets.py), its pointers and its mask. Built by rewrite/forms/creation.py."""

    handles: tuple = ()  # HandleCreation per padding
    present: str | None = None
    condition: cst.IfExp | None = None
    call: cst.Call | None = None  # the creation's call, one side of `condition`
    only_with: str | None = None
    parts: tuple = ()  # (name, value) of each part and materialized offset, in order
    running: tuple = ()  # (offset variable, the extent it runs along)
    pointers: tuple | None = None  # (name, base, strides, axes): the pointers its name holds
    mask: tuple | None = None  # (name, bounds, rank): the mask its creations assign

    def __repr__(self) -> str:
        return _record_repr(self)


@dataclass(frozen=True)
class LaunchGuard:
    """The decorator that checks a kernel's launch and sets its flag (TTD009)."""

    guard: str  # how the module names the launch support's guard
    flag: str
    check: str  # how the module names the launch support's check
    checks: tuple  # guards.Check per tensor


@dataclass(frozen=True)
class Signature:
    """What becomes of a function's `def` (results.signature): removed (every call inlined it), or its
    block-pointer parameters replaced by their parts (`parameters`: name -> [(part, is constexpr)]) and
    re-created on entry (`entry`: CreationStatements, TTD008); the launch guard (TTD009) and the allocator hook
    (`hook`, TTD010) above `@triton.jit`; the compile-time test of block widths (`width_flag` over
    `width_tests`, TTD107) first in its body. Built by rewrite/forms/signature.py."""

    language: cst.BaseExpression
    removed: bool = False
    parameters: dict = field(default_factory=dict)
    entry: tuple = ()
    guard: LaunchGuard | None = None
    hook: str | None = None
    width_flag: str | None = None
    width_tests: tuple = ()

    def __repr__(self) -> str:
        return _record_repr(self)


_RECORDS = (HandleAccess, MaskedAccess, NamedMaskAccess, CompileError, AdvanceMove, NoneAssignments, HelperCallParts,
            BaseTest, ReturnedOffsets, UnpackedOffsets, ElementType, HandleCreation, CreationStatements, Signature)
