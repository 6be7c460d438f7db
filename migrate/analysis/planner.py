"""Per block pointer and per access: descriptor, masked pointers, or untouched — and why.

An *obstacle* is a reason a descriptor access would be illegal or unsafe. Hard obstacles are facts of the
source (no unit stride, an unaligned innermost offset, ...). Soft ones depend on run-time values: the row
width of a store (TMA overruns it) and the alignment of the data, run-time strides and base offsets. A
soft obstacle the user's stated facts cover (TTD010) is `stated`. The policy decides what soft obstacles
cost; this module is the only place that looks at the policy.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol

import libcst as cst

from triton_migrate.forms import Form, Origin, Target
from triton_migrate.policy import Policy
from triton_migrate.rules import (
    ttd006_masked_pointers,
    ttd010_stated_facts,
    ttd101_unchecked_dimension,
    ttd102_inner_offset_alignment,
    ttd103_no_unit_stride,
    ttd104_volatile,
    ttd105_rank,
    ttd106_int64_offsets,
    ttd107_narrow_block,
    ttd109_ambiguous_value,
    ttd110_negative_store_offset,
    ttd111_store_row_width,
    ttd112_runtime_alignment,
    ttd113_min_triton,
    ttd115_masked_access,
    ttd117_padding_option,
)
from triton_migrate.syntax.nodes import canonical_code, int_value

from .facts import FunctionFacts

# What the compat shim cannot express: volatile, rank above 5, a padding chosen at compile time (one per tile), a
# user's mask (masked pointers keep it)
SHIM_UNSUPPORTED = (ttd104_volatile.CODE, ttd105_rank.CODE, ttd115_masked_access.CODE, ttd117_padding_option.CODE)


# The fact that covers an obstacle, where the user states it (TTD010): soft ones, which a launch could check
# too (TTD009), and two hard ones, which depend on program ids: no launch checks them, a stated fact may.
COVERING_FACT = {ttd112_runtime_alignment.CODE: "aligned", ttd111_store_row_width.CODE: "aligned-rows",
                 ttd101_unchecked_dimension.CODE: "in-bounds", ttd110_negative_store_offset.CODE: "in-bounds"}


@dataclass(frozen=True)
class Obstacle:
    code: str
    message: str
    hard: bool = True
    stated: str | None = None  # an obstacle that a stated fact covers: where it was stated

    def blocks(self, policy: Policy) -> bool:
        """`--target descriptor` relies on nothing that is neither proven nor stated; `--strict` on nothing
        that is not proven (and so states nothing)."""
        return (self.hard and self.stated is None) or (policy.strict and self.code == ttd112_runtime_alignment.CODE) \
            or (_target(policy) is Target.DESCRIPTOR and self.stated is None)


def _target(policy: Policy) -> Target:
    """What the user asks for: the only read of `policy.target` (tests/test_architecture.py)."""
    return Target(policy.target)


def _tuned(policy: Policy, name: str, inherited: str | None) -> str | None:
    """A function's tuned target (`migrate tune`), its own or the one it inherits from its callers; compat
    stays file-wide."""
    chosen = dict(policy.kernel_targets).get(name, inherited)
    return None if _target(policy) is Target.COMPAT else chosen


def for_function(policy: Policy, name: str, inherited: str | None = None) -> Policy:
    """The policy for one function: its tuned target, if it has one, else the one it `inherited` from its
    callers (compat stays file-wide)."""
    chosen = _tuned(policy, name, inherited)
    return policy if chosen is None else replace(policy, target=chosen)


def origin(policy: Policy, name: str, inherited: str | None = None) -> Origin:
    """Where one function's target comes from (`policy`: its module's)."""
    if _tuned(policy, name, inherited) is not None:
        return Origin.TUNED
    return Origin.DEFAULT if _target(policy) is Target.AUTO else Origin.CONFIGURATION


def uses_shim(policy: Policy) -> bool:
    """`--target compat`: every block pointer becomes a tile of the compat shim."""
    return _target(policy) is Target.COMPAT


def descriptors_only(policy: Policy) -> bool:
    """`--target descriptor`: descriptors or nothing (what cannot have one is left untouched)."""
    return _target(policy) is Target.DESCRIPTOR


def pointers_only(policy: Policy) -> bool:
    """`--target pointer`: masked pointers everywhere."""
    return _target(policy) is Target.POINTER


def may_rely_on_stated(policy: Policy) -> bool:
    """Whether a descriptor may rely on facts the user states (TTD010): not under `--strict`, which relies on
    nothing it has not proven, nor under a target that makes no plain descriptor."""
    return not policy.strict and _target(policy) in (Target.AUTO, Target.DESCRIPTOR)


def target_origin(policy: Policy, origin: Origin) -> Origin | None:
    """Where the target came from, where the target alone makes every access masked pointers; else None."""
    return origin if pointers_only(policy) else None


def choose(obstacles: list[Obstacle], policy: Policy, member: str) -> Form | None:
    """A descriptor (plain: what it needs is proven or stated, TTD010), a guarded one (a descriptor if the launch
    check passes, masked pointers otherwise: TTD009), masked pointers, a compat tile, or None (leave the access,
    and so its block pointer, untouched)."""
    target = _target(policy)
    if target is Target.POINTER:
        return Form.POINTER
    if target is Target.COMPAT:  # the shim keeps block-pointer semantics itself, up to rank 5; no volatile
        return None if any(o.code in SHIM_UNSUPPORTED for o in obstacles) else Form.COMPAT
    blocking = [o for o in obstacles if o.blocks(policy)]
    if target is Target.DESCRIPTOR:
        return None if blocking else Form.DESCRIPTOR
    if not blocking and all(o.stated for o in obstacles if not o.hard):
        return Form.DESCRIPTOR
    overrun = member == "store" and any(o.code == ttd111_store_row_width.CODE for o in obstacles)
    return Form.POINTER if blocking or overrun or relies_beyond_launch(obstacles) else Form.GUARDED


class LaunchChecks(Protocol):
    """What the launch of one access's block pointer allows (analysis/launch.py), asked only where it matters."""

    def beyond_emulation(self) -> bool:
        """A compat tile of a rank the shim's emulation lacks."""

    def unguardable(self) -> str | None:
        """Why no launch check can guard a descriptor here, or None."""

    def pays_off(self) -> bool:
        """Whether a launch guard's second kernel is worth its cost."""

    def width_testable(self) -> bool:
        """Whether the block widths a descriptor needs can be tested at compile time (TTD107)."""

    def compat_guardable(self) -> bool:
        """Whether a compat tile's descriptor can be chosen at launch (TTD009)."""


@dataclass(frozen=True)
class Choice:
    """What one access becomes (None: left untouched, for `refusal`), the obstacles that decided it and
    whether a launch check chooses its descriptor (TTD009)."""

    form: Form | None
    obstacles: list[Obstacle]
    refusal: Obstacle | None = None
    guarded: bool = False


def choose_access(obstacles: list[Obstacle], policy: Policy, member: str, checks: LaunchChecks) -> Choice:
    """`choose`, and then what the launch allows: a descriptor it cannot check or test falls back to masked
    pointers, with the obstacle that says why (under `--target descriptor`, the access is refused instead)."""
    form = choose(obstacles, policy, member)
    if form is Form.COMPAT and checks.beyond_emulation():
        form, obstacles = Form.POINTER, [*obstacles, Obstacle(ttd105_rank.CODE, ttd105_rank.BEYOND_EMULATION)]
    if form is None:
        return Choice(None, obstacles, deciding(obstacles, policy))
    fallback = _fallback(form, checks)
    if fallback is not None:
        refused = fallback.code == ttd107_narrow_block.CODE and descriptors_only(policy)
        return Choice(Form.POINTER, [*obstacles, fallback], fallback if refused else None)
    guarded = form is Form.GUARDED or (form is Form.COMPAT and checks.compat_guardable())
    return Choice(form, obstacles, guarded=guarded)


def _fallback(form: Form, checks: LaunchChecks) -> Obstacle | None:
    """Why a descriptor the obstacles allow becomes masked pointers after all: no launch check can guard it,
    a guard would not pay off, or its block widths cannot be tested (no fallback then)."""
    if form is Form.GUARDED:
        unguardable = checks.unguardable()
        if unguardable is not None:
            return Obstacle(ttd112_runtime_alignment.CODE, ttd112_runtime_alignment.unguardable(unguardable))
        if not checks.pays_off():
            return Obstacle(ttd006_masked_pointers.CODE, ttd006_masked_pointers.NOT_WORTH_IT)
    elif form is Form.DESCRIPTOR and not checks.width_testable():
        return Obstacle(ttd107_narrow_block.CODE, ttd107_narrow_block.UNTESTED)
    return None


@dataclass(frozen=True)
class Decision:
    """What one access (or helper call) of some block pointers became, on the analysis' last pass over it (a
    loop's first pass may see an offset that the fixed point no longer proves, so each pass replaces the last,
    and what a block pointer became is what its sites became in the end): its form (a guarded descriptor is a
    descriptor, `guarded`), why masked pointers (`reasons`: the obstacles' codes -> their messages), what a
    descriptor relies on (`relied`: fact -> where it was stated, TTD010) and where the function's target came from
    (TTD006's note). Made here only."""

    creations: frozenset
    form: Form
    origin: Origin
    guarded: bool = False  # a descriptor (or compat tile) chosen at launch (TTD009)
    reasons: Mapping[str, str] = field(default_factory=dict)
    relied: Mapping[str, str] = field(default_factory=dict)


def decision(creations: frozenset, form: Form, obstacles: list[Obstacle], policy: Policy, origin: Origin,
             stated: Mapping[str, str | None] | None = None, guarded: bool = False) -> Decision:
    """The decision for one access whose form is chosen: why masked pointers (the obstacles that decided it)
    or what a plain descriptor relies on (the facts stated that cover its soft obstacles, and `stated`: where
    the unit stride (`contiguous`) or the block widths (`widths`) were stated, if the descriptor relies on
    them; a guarded one has them checked at launch)."""
    reasons, relied = {}, {}
    beyond_launch = relies_beyond_launch(obstacles)
    for obstacle in obstacles:
        emulated = form in (Form.POINTER, Form.COMPAT) and obstacle.blocks(policy)
        if emulated or (form is Form.POINTER and obstacle.code == ttd111_store_row_width.CODE):
            reasons[obstacle.code] = obstacle.message
        elif form is Form.POINTER and beyond_launch and not obstacle.stated:  # what else it would rely on
            reasons[obstacle.code] = unstated(obstacle).message
        elif form is Form.DESCRIPTOR and obstacle.stated:
            relied[COVERING_FACT[obstacle.code]] = obstacle.stated
    if form is Form.DESCRIPTOR:
        relied.update({fact: where for fact, where in (stated or {}).items() if where is not None})
    return Decision(creations, Form.DESCRIPTOR if form is Form.GUARDED else form, origin, guarded, reasons, relied)


def relies_beyond_launch(obstacles: list[Obstacle]) -> bool:
    """Whether a descriptor here relies on a stated fact that no launch checks (`in-bounds`): it may, plain,
    where every other fact it needs is stated too, never as a launch guard's choice (TTD009), whose report
    lists only what the launch checks."""
    return any(o.hard and o.stated for o in obstacles)


def deciding(obstacles: list[Obstacle], policy: Policy) -> Obstacle:
    """The obstacle that makes `choose` leave an access untouched (the reason reported, with the fact that
    would make it migratable where one would)."""
    if uses_shim(policy):
        return next(o for o in obstacles if o.code in SHIM_UNSUPPORTED)
    first = next(o for o in obstacles if o.blocks(policy))
    return first if first.code not in COVERING_FACT or policy.strict else unstated(first)


def unstated(obstacle: Obstacle) -> Obstacle:
    """The obstacle, with the fact that would cover it named."""
    return replace(obstacle, message=ttd010_stated_facts.unstated(obstacle.message, COVERING_FACT[obstacle.code]))


def creation_obstacles(shape, strides, offsets, block, order, facts: FunctionFacts, policy: Policy,
                       stride_parameters: frozenset[str] = frozenset(), contiguous: bool = False,
                       of_view: bool = False, views_agree: bool = True) -> tuple[int | None, list[Obstacle], bool]:
    """The unit-stride dimension (None if there is none), what rules out any descriptor, and whether the
    unit stride is the one the user stated (`contiguous`), not one the source proves. `stride_parameters`:
    names that count as kernel stride parameters besides the function's own (a helper's parts that every
    caller fills with one). `of_view`: `contiguous` was stated on the creation's line, of this block pointer's
    last dimension; stated of a tensor (a kernel, an argument, the configuration), it is of the tensor's
    innermost dimension, which a view has last unless it is transposed: where `order` names another one, the
    strides must say which (a literal 1), else no descriptor (`order` is a hint, fixture order_wrong_hint), and
    so where the tensor's views put different strides last (`views_agree` false)."""
    rank = len(block)
    found = []
    if policy.min_triton < ttd113_min_triton.DESCRIPTORS:
        found.append(Obstacle(ttd113_min_triton.CODE, ttd113_min_triton.NO_DESCRIPTORS))
    if rank > ttd105_rank.MAX_RANK:
        found.append(Obstacle(ttd105_rank.CODE, ttd105_rank.message(rank)))
    read = [stride_read(s) for s in strides]
    unit = ttd103_no_unit_stride.unit_stride_dimension(read, order, facts.params | stride_parameters)
    # What the user states of the data beats `order`, a hint (fixture order_wrong_hint); a literal 1 is proof.
    # Stated of the tensor, not of this view, and `order` naming another dimension innermost than the last, the
    # fact cannot say which stride is 1: never decide it from `order` (a hint, which Triton does not check); what
    # the source proves stands.
    literal_one = any(ttd103_no_unit_stride.is_one(s) for s in read)
    undecided = contiguous and not of_view and not literal_one and \
        (not views_agree or ttd103_no_unit_stride.hint_disagrees(read, order))
    stated = ttd103_no_unit_stride.stated_unit_dimension(read, facts.params) \
        if contiguous and not undecided and not literal_one else None
    unit = unit if stated is None else stated
    if unit is None and undecided:
        found.append(Obstacle(ttd103_no_unit_stride.CODE, ttd103_no_unit_stride.undecided_message(order, views_agree)))
    elif unit is None:
        found.append(Obstacle(ttd103_no_unit_stride.CODE, ttd103_no_unit_stride.MESSAGE))
    elif ttd107_narrow_block.too_narrow(width := int_value(block[unit])):
        found.append(Obstacle(ttd107_narrow_block.CODE, ttd107_narrow_block.message(width)))
    if any(facts.mentions_int64(offset) for offset in offsets):
        found.append(Obstacle(ttd106_int64_offsets.CODE, ttd106_int64_offsets.MESSAGE))
    return unit, found, stated is not None


def merge_obstacles(creations: list) -> list[Obstacle]:
    """What rules out a descriptor for block pointers merged from several paths: a descriptor is created
    with one order (an `if HEAD_FIRST:` choosing `(1, 0)` or `(0, 1)`); masked pointers do not care."""
    orders = list(dict.fromkeys(tuple(c.permutation) for c in creations))
    if len(orders) < 2:
        return []
    return [Obstacle(ttd109_ambiguous_value.CODE, ttd109_ambiguous_value.MERGED_ORDERS)]


def access_obstacles(member: str, offsets_proven: list[dict], unchecked_in_bounds: list[bool], unit: int | None,
                     volatile: bool, padding: str | cst.Name, row_width_proven: bool, requirements: list[str],
                     policy: Policy) -> list[Obstacle]:
    """What rules out a descriptor for one load or store (given that the block pointer allows one)."""
    found = []
    for dim, in_bounds in enumerate(unchecked_in_bounds):
        if not in_bounds:
            found.append(Obstacle(ttd101_unchecked_dimension.CODE, ttd101_unchecked_dimension.message(dim)))
    if unit is not None and not offsets_proven[unit]["aligned"]:
        found.append(Obstacle(ttd102_inner_offset_alignment.CODE, ttd102_inner_offset_alignment.message(unit)))
    if volatile:
        found.append(Obstacle(ttd104_volatile.CODE, ttd104_volatile.MESSAGE))
    if isinstance(padding, cst.Name):
        found.append(Obstacle(ttd117_padding_option.CODE,
                              ttd117_padding_option.padding_chosen_at_compile_time(padding.value)))
    if padding == "nan" and policy.min_triton < ttd113_min_triton.PADDED_DESCRIPTORS:
        found.append(Obstacle(ttd113_min_triton.CODE, ttd113_min_triton.NO_NAN_PADDING))
    if member == "store":
        negative = [d for d, proven in enumerate(offsets_proven) if not proven["nonnegative"]]
        if negative:
            found.append(Obstacle(ttd110_negative_store_offset.CODE, ttd110_negative_store_offset.message(negative[0])))
        if not row_width_proven:
            found.append(Obstacle(ttd111_store_row_width.CODE, ttd111_store_row_width.MESSAGE, hard=False))
    found.extend(Obstacle(ttd112_runtime_alignment.CODE, requirement, hard=False) for requirement in requirements)
    return found


def alignment_requirements(base: cst.BaseExpression, strides: list, block: list, unit: int,
                           facts: FunctionFacts) -> list[str]:
    """What the caller must guarantee for a descriptor to be legal on NVIDIA sm_90+: each non-unit stride,
    and each term added to the base pointer, a multiple of 16 bytes (unless provably so)."""
    terms = [s for d, s in enumerate(strides) if d != unit] + _base_offsets(base)
    data = ttd112_runtime_alignment.data_alignment(canonical_code(_base_root(base)))
    return [data] + [ttd112_runtime_alignment.term_alignment(facts.canonical_code(term)) for term in terms
                     if not facts.is_aligned(term, block[unit])]


def _base_root(base: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(base, cst.BinaryOperation) and isinstance(base.operator, (cst.Add, cst.Subtract)):
        base = base.left
    return base


def unproven_base_offsets(base: cst.BaseExpression, block: list, unit: int, facts: FunctionFacts) -> list:
    """The terms the kernel adds to the base pointer that are not provably multiples of 16 bytes. A launch
    guard sees only the argument tensors, never these."""
    return [term for term in _base_offsets(base) if not facts.is_aligned(term, block[unit])]


def _base_offsets(base: cst.BaseExpression) -> list:
    if isinstance(base, cst.BinaryOperation) and isinstance(base.operator, cst.Add):
        return _base_offsets(base.left) + [base.right]
    return []


def row_width_proven(shape: list, block: list, unit: int | None) -> bool:
    if unit is None:
        return False
    return ttd111_store_row_width.row_width_proven(int_value(shape[unit]), int_value(block[unit]),
                                                   same_extent(shape[unit], block[unit]))


def dimension_in_bounds(shape: cst.BaseExpression, block: cst.BaseExpression,
                        offset: cst.BaseExpression | None) -> bool:
    """TTD101's condition for one unchecked dimension of one creation, `offset` None where paths disagree."""
    return ttd101_unchecked_dimension.in_bounds(None if offset is None else int_value(offset), int_value(shape),
                                                int_value(block), same_extent(shape, block))


def same_extent(shape: cst.BaseExpression, block: cst.BaseExpression) -> bool:
    return canonical_code(shape) == canonical_code(block)


def stride_read(stride: cst.BaseExpression) -> ttd103_no_unit_stride.Stride:
    """A stride as TTD103 reads it: the integer a literal is, the name a bare name is, else None."""
    value = int_value(stride)
    if value is not None:
        return value
    return stride.value if isinstance(stride, cst.Name) else None
