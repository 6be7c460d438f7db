"""TTD106 int64-offsets: offsets computed in int64 (descriptor offsets are int32).

What it does: reports a block pointer whose offsets are computed in int64; no descriptor is used for it.

Why: descriptor offsets must be int32 (an int64 tensor is rejected) and shapes are truncated to int32.
Offsets built with `.to(tl.int64)` were usually widened on purpose to avoid overflow; narrowing
them would be a silent change.

Example:

    off = pid.to(tl.int64) * BM
    p = tl.make_block_ptr(x, (M, N), (stride_m, 1), (off, 0), (BM, BN), (1, 0))
    # masked pointers (TTD006), addresses in 64 bits

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: int64_offsets_refused.
"""
CODE = "TTD106"
NAME = "int64-offsets"
SUMMARY = "offsets computed in int64 (descriptor offsets are int32)"
MESSAGE = "offsets are computed in int64; descriptor offsets are int32"
ADVANCED = "advanced by an int64 delta; descriptor offsets are int32"
