"""TTD113 min-triton-version: the oldest Triton the code must support lacks what a descriptor needs.

What it does: reports a block pointer (or a NaN-padded load) that `min-triton-version` keeps off descriptors: they
need Triton 3.4 (NaN padding 3.5).

Why: `tl.make_tensor_descriptor` exists from Triton 3.4; `padding_option="nan"` on a descriptor, and
stores that cast the value to the descriptor's type, from 3.5. With
`min-triton-version` below 3.4 every block pointer uses masked pointers; below 3.5, loads with NaN padding
do, and descriptor stores cast explicitly.

Example:

    # min-triton-version = "3.3"
    p = tl.make_block_ptr(x, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    # masked pointers (TTD006)

Fix safety: no fix of its own: the site keeps masked pointers (TTD006) under `--target auto`, or is left untouched
under `--target descriptor`, with this code as the reason.

Fixtures: min_triton_3_4.
"""
CODE = "TTD113"
NAME = "min-triton-version"
SUMMARY = "the minimum Triton version to support has no (padded) descriptors"
DESCRIPTORS = (3, 4)
PADDED_DESCRIPTORS = (3, 5)
NO_DESCRIPTORS = "descriptors need Triton 3.4"
NO_NAN_PADDING = "NaN padding on a descriptor needs Triton 3.5"
