"""What a compat tile is made as (`compat.make_tile`'s `impl`): the emulation, a descriptor where the shim can
make one, or the one of the two that the launch picks (TTD009)."""

from __future__ import annotations

from typing import Protocol

from .records import Creation
from .shared import Run, Subject

COMPAT_EMULATED_RANK = 3  # the shim's emulation, a guarded tile's fallback, has ranks 1 to 3


class Results(Protocol):
    """What a tile's choice reads of the analysis's results (results.py's Results, which calls `choice`)."""

    fn: Subject

    @property
    def run(self) -> Run: ...

    def same_name_handles(self, creation: Creation) -> list[Creation]: ...

    def compat_impl(self, creation: Creation) -> str: ...

    def is_guarded(self, creations) -> bool: ...


def choice(results: Results, creation: Creation) -> tuple[str, str | None]:
    """A compat tile's `impl` and the flag that picks it at launch, the same for every tile assigned to one
    name that Triton carries through a loop: a tile's kind is part of its type, so a tile that may be a
    descriptor before the loop and one the loop re-makes as the emulation do not compile (KDA's backward:
    `p_dAqk` row-major, then column-major in the loop). Where they differ, each is the emulation, always legal."""
    own = own_choice(results, creation)
    for other in results.same_name_handles(creation):
        first, then = (results.run.creations[c] for c in results.fn.knowledge.in_order((id(creation.call),
                                                                                         id(other.call))))
        if first.carried_into_loops_of(then) and own_choice(results, other) != own:
            return "emu", None
    return own


def own_choice(results: Results, creation: Creation) -> tuple[str, str | None]:
    """The tile's choice on its own: "auto" under the launch's flag where the launch checks it; the emulation
    where a descriptor is wrong for it or nothing checks it."""
    impl = results.compat_impl(creation)
    if impl == "auto" and results.is_guarded({id(creation.call)}):
        return impl, results.fn.guard_flag
    if impl == "auto" and len(creation.block) <= COMPAT_EMULATED_RANK:  # no launch check: the emulation, always legal
        return "emu", None
    return impl, None
