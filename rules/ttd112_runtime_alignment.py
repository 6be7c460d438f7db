"""TTD112 runtime-alignment: the descriptor would rely on run-time values being 16-byte aligned.

What it does: reports a descriptor that would rely on the data, a stride or a base offset being 16-byte aligned at
run time, which no source proves.

Why: on NVIDIA sm_90+ every stride but the last must be a multiple of 16 bytes and the base address
16-byte aligned. Nothing checks this in compiled code: a misaligned base faults ("misaligned address")
and a misaligned run-time stride gives **silently wrong data**. Strides that are
multiples of the innermost block size, and base offsets built from them, are proven; the data's alignment
never is.

What happens: by default the launch checks it (TTD009: a descriptor where the launch's arguments allow
it, masked pointers otherwise), or, where none can be written, the access uses masked pointers (TTD006).
Where you state `aligned` for the tensor (TTD010), the descriptor relies on it and the report lists it.
Under `--target descriptor` an access whose alignment no one stated is left untouched with this code,
which names the fact to state; under `--strict`, masked pointers.

Example:

    p = tl.make_block_ptr(x + row * stride_m, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    # checked at launch (TTD009), or stated (TTD010); under --strict masked pointers

Fix safety: no fix of its own: by default the launch checks it (TTD009); under `--target descriptor` the site is
left untouched with this code, under `--strict` it keeps masked pointers (TTD006).

Fixtures: the property test (strict and default runs), stated_facts_gemm.
"""
from __future__ import annotations

CODE = "TTD112"
NAME = "runtime-alignment"
SUMMARY = "descriptor legality depends on run-time alignment (strict mode uses masked pointers)"


def data_alignment(tensor: str) -> str:
    return f"the data of `{tensor}` must be 16-byte aligned (a view may start mid-storage)"


def term_alignment(term: str) -> str:
    return f"`{term}` × itemsize must be a multiple of 16 bytes"


def unguardable(why: str) -> str:
    """A descriptor that would need a launch check (TTD009) where none can be written (`why`)."""
    return f"a descriptor would need a launch check, and none can be written: {why}"
