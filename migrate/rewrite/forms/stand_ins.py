"""What the builders leave for the function passes to settle (rewrite/passes.py): a placeholder name for
each axis and bound of the masked-pointer form, until rewrite/offsets.py decides where it is defined and what
it is called, and the running offsets a creation assigns, which rewrite/running_offsets.py merges where they
always hold the same value. One per module rewritten."""

from __future__ import annotations

import libcst as cst

PLACEHOLDER = "__triton_migrate_"  # no user code spells such a name


class StandIns:
    def __init__(self) -> None:
        self.placeholders: dict[str, tuple[object, bool]] = {}  # name -> (an axis or a bound, wide)
        self.running: dict[str, str] = {}  # offset variable -> the extent it runs along

    def placeholder(self, spec, wide: bool = False) -> cst.Name:
        """A stand-in for `spec`'s value (an axis or a bound of TTD006); `wide`: an axis a stride scales
        (64-bit addresses)."""
        name = f"{PLACEHOLDER}{len(self.placeholders)}"
        self.placeholders[name] = (spec, wide)
        return cst.Name(name)
