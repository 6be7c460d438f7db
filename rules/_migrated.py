"""Which rule words a migrated block pointer: no rule of its own, the registry the rewrite rules (TTD001,
TTD006 to TTD010) put their wording of a migrated site in. Each registers, with `@words(order)`, a function
that reads the site (plain values: `Migrated`) and returns its message, or None where the site is not the
rule's; the engine asks them in `order`, and the first that answers names the code. A new rewrite rule
registers itself in its own module: nothing else changes.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Callable, Optional


@dataclass(frozen=True)
class Migrated:
    """A migrated block pointer as the rules read it."""

    what: str  # the block pointer as the report names it (`block pointer `p``, a parameter's parts, ...)
    stem: str  # the stem its handles are named from
    notes: str  # the notes, parenthesised, with a leading space; "" for none
    parts_only: bool  # every access passes it to helpers as its parts
    compat: bool  # its accesses (those passing parts aside) are compat tiles
    pointer: bool  # its accesses (those passing parts aside) are masked pointers
    guarded: bool  # its descriptor is chosen at launch (TTD009)
    facts: str  # the stated facts its descriptor relies on, spelt (TTD010); "" for none


Words = Callable[[Migrated], Optional[str]]
_REGISTERED: list[tuple[int, str, Words]] = []


def words(order: int) -> Callable[[Words], Words]:
    """Registers the decorated function as its module's (`CODE`'s) wording of a migrated site."""

    def register(function: Words) -> Words:
        _REGISTERED.append((order, sys.modules[function.__module__].CODE, function))
        _REGISTERED.sort(key=lambda entry: entry[0])
        return function

    return register


def describe(site: Migrated) -> tuple[str, str]:
    """The code and message of the first rule, in order, that words this site."""
    from . import RULES  # noqa: F401 (every rule imported: registered)

    return next((code, message) for _, code, function in _REGISTERED if (message := function(site)) is not None)
