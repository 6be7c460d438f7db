"""TTD106 int64-offsets: offsets computed in int64 (descriptor offsets are int32).

Why: descriptor offsets must be int32 (an int64 tensor is rejected) and shapes are truncated to int32.
Offsets built with `.to(tl.int64)` were usually widened on purpose to avoid overflow; narrowing
them would be a silent change.

Fixtures: int64_offsets_refused.
"""

CODE = "TTD106"
NAME = "int64-offsets"
SUMMARY = "offsets computed in int64 (descriptor offsets are int32)"
MESSAGE = "offsets are computed in int64; descriptor offsets are int32"
