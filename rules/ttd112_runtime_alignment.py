"""TTD112 runtime-alignment: the descriptor would rely on run-time values being 16-byte aligned.

Why: on NVIDIA sm_90+ every stride but the last must be a multiple of 16 bytes and the base address
16-byte aligned. Nothing checks this in compiled code: a misaligned base faults ("misaligned address")
and a misaligned run-time stride gives **silently wrong data** (semantics brief D5, D6). Strides that are
multiples of the innermost block size, and base offsets built from them, are proven; anything else is a
requirement on the caller, named in the report ("`stride_xm` × itemsize must be a multiple of 16 bytes").

What happens: by default (permissive) the descriptor is used and the requirement is listed on the
diagnostic and in `migrate report`; guard launches with `triton_migrate.compat.guard` to check it at run
time. With `--strict` the access uses masked pointers instead (TTD006).

Fixtures: the property test (strict and permissive runs).
"""

CODE = "TTD112"
NAME = "runtime-alignment"
SUMMARY = "descriptor legality depends on run-time alignment (strict mode uses masked pointers)"
