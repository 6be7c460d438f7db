"""Block-pointer kernels shaped like real ones (the originals the benchmark migrates).

GEMM with loop-carried advances, a 2-D elementwise kernel, an RMS norm over rows, and a chunked
linear-attention-style kernel that re-creates block pointers inside its loop and loads per-head gates
through a strided 1-D block pointer (no descriptor is legal for those: masked pointers).
"""

import triton
import triton.language as tl


@triton.jit
def gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
         BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    a = tl.make_block_ptr(a_ptr, (M, K), (stride_am, 1), (pid_m * BM, 0), (BM, BK), (1, 0))
    b = tl.make_block_ptr(b_ptr, (K, N), (stride_bk, 1), (0, pid_n * BN), (BK, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(tl.load(a, boundary_check=(0, 1), padding_option="zero"),
                      tl.load(b, boundary_check=(0, 1), padding_option="zero"))
        a = tl.advance(a, (0, BK))
        b = tl.advance(b, (BK, 0))
    c = tl.make_block_ptr(c_ptr, (M, N), (stride_cm, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(c, acc.to(c.dtype.element_ty), boundary_check=(0, 1))


@triton.jit
def add_one(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_ym, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1)) + 1, boundary_check=(0, 1))


@triton.jit
def rms_norm(x_ptr, w_ptr, y_ptr, M, stride_xm, stride_ym, eps, D: tl.constexpr, BM: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, D), (stride_xm, 1), (pid * BM, 0), (BM, D), (1, 0))
    w = tl.make_block_ptr(w_ptr, (D,), (1,), (0,), (D,), (0,))
    y = tl.make_block_ptr(y_ptr, (M, D), (stride_ym, 1), (pid * BM, 0), (BM, D), (1, 0))
    v = tl.load(x, boundary_check=(0,)).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(v * v, axis=1) / D + eps)
    out = v * rstd[:, None] * tl.load(w).to(tl.float32)[None, :]
    tl.store(y, out.to(y.dtype.element_ty), boundary_check=(0,))


@triton.jit
def gated_chunks(k_ptr, g_ptr, o_ptr, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_h = tl.program_id(0)
    b_h = tl.zeros((K,), dtype=tl.float32)
    for i_t in range(0, tl.cdiv(T, BT)):
        p_k = tl.make_block_ptr(k_ptr + i_h * K, (T, K), (H * K, 1), (i_t * BT, 0), (BT, K), (1, 0))
        p_g = tl.make_block_ptr(g_ptr + i_h, (T,), (H,), (i_t * BT,), (BT,), (0,))
        b_k = tl.load(p_k, boundary_check=(0, 1)).to(tl.float32)
        b_g = tl.load(p_g, boundary_check=(0,)).to(tl.float32)
        b_h = b_h * tl.exp(tl.sum(b_g)) + tl.sum(b_k * b_g[:, None], axis=0)
        p_o = tl.make_block_ptr(o_ptr + i_h * K, (T, K), (H * K, 1), (i_t * BT, 0), (BT, K), (1, 0))
        tl.store(p_o, (b_k + b_h[None, :]).to(p_o.dtype.element_ty), boundary_check=(0, 1))
