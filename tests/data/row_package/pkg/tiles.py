"""A helper that creates its own block pointer at the row its caller passes (no block pointer crosses a call)."""

import triton
import triton.language as tl


@triton.jit
def rows_from(x_ptr, M, N, stride_xm, row, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (row, 0), (BM, BN), (1, 0))
    return tl.load(x, boundary_check=(0, 1), padding_option="zero")
