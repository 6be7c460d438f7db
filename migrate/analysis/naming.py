"""Names for the descriptors and offset variables the rewrite introduces.

`a_block_ptr` becomes `a_desc` with offsets `a_off0`, `a_off1`; FLA's `p_q` becomes `p_q_desc`. Every
generated name is checked against every identifier already in the module, and two block-pointer names
never share a stem, so the rewrite cannot capture or shadow anything.
"""

from __future__ import annotations

import itertools

SUFFIXES = ("_block_ptr", "_blockptr", "_bptr", "_bp", "_ptr")
MAX_RANK = 5
GENERATED_SUFFIXES = ("base", "desc", "desc_nan", "tile", "tile_nan", "idx", "rows", "cols", "ptrs", "mask")
# What follows `<stem>_` in every name generated from a stem.
_PART_KINDS = ("off", "i", "shape", "stride", "start", "block", "range")
_GENERATED = GENERATED_SUFFIXES + tuple(f"{kind}{d}" for kind in _PART_KINDS for d in range(MAX_RANK + 1))


class Namer:
    def __init__(self, taken: set[str]) -> None:
        self.taken = taken
        self.stems: dict[str, str] = {}  # block-pointer name -> stem
        self.inline_names: dict[int, str] = {}  # id of a creation inside a load or store -> the name it gets

    def stem(self, name: str) -> str:
        if name not in self.stems:
            self.stems[name] = self._fresh_stem(name)
        return self.stems[name]

    def _fresh_stem(self, name: str) -> str:
        stripped = next((name[: -len(s)] for s in SUFFIXES if name.endswith(s) and len(name) > len(s)), name)
        candidates = itertools.chain((stripped, name), (f"{name}{k}" for k in range(2, 100)))
        return next(c for c in candidates if self._free(c))

    def _free(self, stem: str) -> bool:
        return stem not in self.stems.values() and not any(f"{stem}_{suffix}" in self.taken for suffix in _GENERATED)

    def inline(self, key: int, preferred: str) -> str:
        """A name for a block pointer created inline (`tl.load(tl.make_block_ptr(...))`), which has none of its
        own: one that no identifier of the module spells, so no block pointer can share its stem. The same for
        the same creation (`key`, its call's id) in every analysis of the function (a program's rounds)."""
        if key not in self.inline_names:
            self.inline_names[key] = self._inline(preferred)
        return self.inline_names[key]

    def _inline(self, preferred: str) -> str:
        preferred = next((preferred[: -len(s)] for s in SUFFIXES if preferred.endswith(s)), preferred)
        candidates = itertools.chain((preferred,), (f"{preferred}{k}" for k in range(2, 100)))
        name = next(c for c in candidates if c not in self.taken and c not in self.stems and self._free(c))
        self.stems[name] = name
        return name

    @staticmethod
    def descriptor(stem: str, padding: str, paddings: set[str], kind: str = "desc") -> str:
        """The handle (`desc`, or a compat `tile`) for one padding of a block pointer."""
        return f"{stem}_{kind}_nan" if padding == "nan" and paddings != {"nan"} else f"{stem}_{kind}"

    def flag(self, name: str) -> str:
        """A module-level name the rewrite adds (the launch guard's flag and check), free in the module."""
        return next(c for c in itertools.chain((name,), (f"{name}_{k}" for k in range(2, 100)))
                    if c not in self.taken)

    def mask(self, name: str) -> str:
        """The mask each creation of a merged block pointer assigns: fla's `m_h` for `p_h` where no name of the
        module is `m_h`, else `p_h_mask`."""
        stem = self.stem(name)
        short = f"m_{stem[2:]}" if stem.startswith("p_") and len(stem) > 2 else None
        if short is not None and short not in self.taken and short not in self.stems.values():
            return short
        return f"{stem}_mask"

    def offset(self, name: str, dim: int) -> str:
        return f"{self.stem(name)}_off{dim}"

    def part(self, name: str, kind: str, dim: int) -> str:
        """A part of a block-pointer parameter (`p_base`, `p_shape0`, `p_stride1`, `p_start0`, `p_block1`), or
        of block pointers merged from several paths (`p_base`, `p_stride0`, `p_range1`)."""
        return f"{self.stem(name)}_base" if kind == "base" else f"{self.stem(name)}_{kind}{dim}"
