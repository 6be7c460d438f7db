import triton
import triton.language as tl

from .tiles import rows_from


@triton.jit
def rows_above(x_ptr, out_ptr, M, N, stride_xm, BM: tl.constexpr, BN: tl.constexpr):
    """The tile above each program's: rows above the tensor, read as zeros, for the first."""
    pid = tl.program_id(0)
    tile = rows_from(x_ptr, M, N, stride_xm, pid * BM - BM, BM, BN)
    rows = pid * BM + tl.arange(0, BM)
    cols = tl.arange(0, BN)
    tl.store(out_ptr + rows[:, None] * BN + cols[None, :], tile, mask=rows[:, None] < M)
