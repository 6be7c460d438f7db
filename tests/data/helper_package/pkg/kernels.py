import triton
import triton.language as tl

from . import tiles
from .tiles import load_tile, scale_tile


@triton.jit
def row_sums(x_ptr, out_ptr, M, N, stride_xm, BM: tl.constexpr, BN: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (pid * BM, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM,), dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):
        acc += tl.sum(load_tile(x, EVEN), axis=1)
        x = tiles.step(x, BN)
    offs = pid * BM + tl.arange(0, BM)
    tl.store(out_ptr + offs, acc, mask=offs < M)


@triton.jit
def scale(x_ptr, y_ptr, M, N, stride_xm, stride_ym, factor, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    src = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    dst = tl.make_block_ptr(y_ptr, (M, N), (stride_ym, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    scale_tile(src, dst, factor)


@triton.jit
def col_sums(x_ptr, out_ptr, M, N, stride_xm, BM: tl.constexpr, BN: tl.constexpr, REVERSE: tl.constexpr):
    """Loads in the kernel, moved by the helpers of tiles.py (issue 43): down the rows, or up from the last."""
    pid = tl.program_id(0)
    first = M - BM if REVERSE else 0
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (first, pid * BN), (BM, BN), (1, 0))
    acc = tl.zeros((BN,), dtype=tl.float32)
    for _ in range(0, tl.cdiv(M, BM)):
        acc += tl.sum(tl.load(x, boundary_check=(0, 1), padding_option="zero"), axis=0)
        if REVERSE:
            x = tiles.back(x, BM)
        else:
            x = tiles.step_rows(x, BM)
    offs = pid * BN + tl.arange(0, BN)
    tl.store(out_ptr + offs, acc, mask=offs < N)
