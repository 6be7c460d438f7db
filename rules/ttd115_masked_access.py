"""TTD115 masked-access: a block-pointer access given `mask=` or `other=` (part of TTD108).

What it does: reports a load or store with a real `mask=` or `other=` on a block pointer. Triton rejects it at
compile time in every version: a `tl.static_assert(False, "...")` goes on the line before it (decision
`compile-error`), and the access migrates to masked pointers with its own mask kept.

Why: the access never compiled, and no migration could make it mean anything. The assertion fails there just the
same, and the access migrates with its mask and'ed with the bounds it checks, so that what computes the mask is
still read: no block-pointer API is left, and the kernel fails to compile as it always did (its masked pointers
are why, TTD006 says). On a line of several statements, where the assertion cannot go before it, the access stays
as it is and is reported. `mask=None` and `other=None` are no mask (Triton 3.7 and earlier took them so) and
migrate as if absent.

Example:

    tl.store(o, acc, mask=valid)
    # tl.static_assert(False, ...) before it; the store migrates to masked pointers, `valid` kept

Fix safety: the assertion keeps the kernel failing as it did, decision `compile-error`. TTD108 selects it too.

Fixtures: store_mask_never_compiled, mask_none.
"""
from __future__ import annotations

CODE = "TTD115"
NAME = "masked-access"
SUMMARY = "a block-pointer access given `mask=` or `other=`, which Triton rejects"

USER_MASK = "an access with `mask=` keeps it on masked pointers"


def masked_access(member: str, keyword: str) -> str:
    """A block-pointer access given `mask=` or `other=` (`keyword`), which Triton rejects."""
    return f"`tl.{member}` with `{keyword}=` on a block pointer"


def masked_assertion(member: str, keyword: str) -> str:
    """What the `tl.static_assert` before such an access says."""
    return f"{masked_access(member, keyword)}: Triton rejects it"


def rejected_access(what: str) -> str:
    """An access Triton rejects, kept with a `tl.static_assert` before it."""
    return (f"{what} (every Triton version): Triton rejects it at compile time wherever it is reached, and so does "
            "the `tl.static_assert` put before it (the access migrates, its mask kept)")


def mask_on_shared_line(member: str, keyword: str) -> str:
    return (f"`tl.{member}` with `{keyword}=` on a block pointer, which Triton rejects at compile time (every "
            "version), on a line of several statements (a `tl.static_assert` that keeps it so would go before it)")
