"""RMS norm over rows with a run-time row stride, in the style of the Triton tutorial `05-layer-norm.py`
(one program per row, the row read in `BLOCK_N` pieces with `tl.advance`), written with block pointers.
"""

import triton
import triton.language as tl


@triton.jit
def rms_norm_fwd_kernel(
    X,
    Y,
    W,
    stride_x_row,
    stride_y_row,
    N,
    eps,
    BLOCK_N: tl.constexpr,
):
    row = tl.program_id(0)
    p_x = tl.make_block_ptr(X + row * stride_x_row, (N,), (1,), (0,), (BLOCK_N,), (0,))
    _sum = tl.zeros([BLOCK_N], dtype=tl.float32)
    for off in range(0, N, BLOCK_N):
        b_x = tl.load(p_x, boundary_check=(0,)).to(tl.float32)
        _sum += b_x * b_x
        p_x = tl.advance(p_x, (BLOCK_N,))
    rstd = 1 / tl.sqrt(tl.sum(_sum, axis=0) / N + eps)

    p_x = tl.make_block_ptr(X + row * stride_x_row, (N,), (1,), (0,), (BLOCK_N,), (0,))
    p_w = tl.make_block_ptr(W, (N,), (1,), (0,), (BLOCK_N,), (0,))
    p_y = tl.make_block_ptr(Y + row * stride_y_row, (N,), (1,), (0,), (BLOCK_N,), (0,))
    for off in range(0, N, BLOCK_N):
        b_x = tl.load(p_x, boundary_check=(0,)).to(tl.float32)
        b_w = tl.load(p_w, boundary_check=(0,)).to(tl.float32)
        b_y = b_x * rstd * b_w
        tl.store(p_y, b_y.to(p_y.dtype.element_ty), boundary_check=(0,))
        p_x = tl.advance(p_x, (BLOCK_N,))
        p_w = tl.advance(p_w, (BLOCK_N,))
        p_y = tl.advance(p_y, (BLOCK_N,))


def rms_norm(x, w, y, eps=1e-6, BLOCK_N=32):
    M, N = x.shape
    assert x.stride(-1) == 1 and y.stride(-1) == 1
    rms_norm_fwd_kernel[(M,)](x, y, w, x.stride(0), y.stride(0), N, eps, BLOCK_N=BLOCK_N)
    return y
