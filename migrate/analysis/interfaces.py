"""What a call passes for a block-pointer parameter of a helper (`SiteFacts`, recorded by crossing.py at each
call), and the interface every call of the program agrees on (`merge`, which program.py's rounds settle): the
parts that cross the call, in the order they are passed."""

from __future__ import annotations

from dataclasses import dataclass

from triton_migrate.rules import ttd201_crosses_function


@dataclass(frozen=True)
class SiteFacts:
    """What one call site passes for a block-pointer parameter."""

    rank: int
    order: tuple[int, ...] | None  # None: not a literal (`v_order: tl.constexpr = ...`); only a unit needs it
    fixed: tuple[str | None, ...]  # per shape, stride and block part: how the helper can spell it, or None
    aligned: tuple[bool, ...]
    nonnegative: tuple[bool, ...]
    unit: int | None = None  # the dimension the caller's block pointer has a unit stride in (TTD103)
    nullable: bool = False  # `None` (or `0`) at some call, or on some path to it: the parts then are `None`
    zero: bool = False  # one of those is a `0`, which a `p is None` tells apart from `None` (none_test refuses)

    def kept(self) -> dict[tuple[str, int], str]:
        """The parts the helper spells itself (a literal, or one of its own parameters) instead of receiving."""
        fixable = [(kind, d) for kind in ("shape", "stride", "block") for d in range(self.rank)]
        return {part: text for part, text in zip(fixable, self.fixed) if text is not None}

    def passed(self) -> list[tuple[str, int]]:
        """The parts every call site passes, in order."""
        kept = self.kept()
        return [part for part in part_kinds(self.rank) if part not in kept]


# What a call site that passes `None` (or `0`) where others pass a block pointer records instead of SiteFacts.
ABSENT, ABSENT_ZERO = "absent", "absent (0)"


def merge(found: list) -> SiteFacts | str:
    """The interface every call site agrees on (`found`: their SiteFacts, and ABSENT where a call passes `None`),
    or why there is none. Orders that differ between call sites (`load_fn(Q_block_ptr, ...)` with `(1, 0)`,
    `load_fn(K_block_ptr, ...)` with `(0, 1)`) leave the order unknown: it carries no semantics (masked pointers
    never read it), and a unit stride they disagree on is none (the helper's accesses get masked pointers)."""
    facts = [f for f in found if f not in (ABSENT, ABSENT_ZERO)]
    first = facts[0]
    if any(f.rank != first.rank for f in facts):
        return ttd201_crosses_function.RANKS_DIFFER  # a copy of the helper per call signature fits (program.py)
    return SiteFacts(first.rank, first.order if all(f.order == first.order for f in facts) else None,
                     tuple(v if all(f.fixed[i] == v for f in facts) else None for i, v in enumerate(first.fixed)),
                     tuple(all(f.aligned[d] for f in facts) for d in range(first.rank)),
                     tuple(all(f.nonnegative[d] for f in facts) for d in range(first.rank)),
                     first.unit if all(f.unit == first.unit for f in facts) else None,
                     len(facts) < len(found) or any(f.nullable for f in facts),
                     ABSENT_ZERO in found or any(f.zero for f in facts))


def part_kinds(rank: int) -> list[tuple[str, int]]:
    """The parts in the order they are passed: ("base", 0), ("shape", d)..., ("stride", d)..., ("start", d)...,
    ("block", d)...; `SiteFacts.fixed` follows the shape, stride and block entries. The offsets arrive as
    `p_start<d>`, not as the helper's own `p_off<d>`: Triton cannot carry a parameter through a loop when a
    caller passes a literal (it becomes a constexpr), so a helper that moves one copies it first."""
    return [("base", 0)] + [(kind, d) for kind in ("shape", "stride", "start", "block") for d in range(rank)]
