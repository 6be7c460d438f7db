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
    a_off1 = 0
    b_off0 = 0
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        a_rows = (pid_m * BM + tl.arange(0, BM)).to(tl.int64)
        a_cols = a_off1 + tl.arange(0, BK)
        a_ptrs = a_ptr + a_rows[:, None] * stride_am + a_cols[None, :]
        a_mask = (a_rows[:, None] < M) & (a_cols[None, :] < K)
        b_rows = (b_off0 + tl.arange(0, BK)).to(tl.int64)
        b_cols = pid_n * BN + tl.arange(0, BN)
        b_ptrs = b_ptr + b_rows[:, None] * stride_bk + b_cols[None, :]
        b_mask = (b_rows[:, None] < K) & (b_cols[None, :] < N)
        acc += tl.dot(tl.load(a_ptrs, mask=a_mask, other=0.0),
                      tl.load(b_ptrs, mask=b_mask, other=0.0))
        a_off1 += BK
        b_off0 += BK
    c_rows = (pid_m * BM + tl.arange(0, BM)).to(tl.int64)
    c_cols = pid_n * BN + tl.arange(0, BN)
    c_ptrs = c_ptr + c_rows[:, None] * stride_cm + c_cols[None, :]
    c_mask = (c_rows[:, None] < M) & (c_cols[None, :] < N)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=c_mask)


@triton.jit
def add_one(x_ptr, y_ptr, M, N, stride_xm, stride_ym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x_rows = (pid_m * BM + tl.arange(0, BM)).to(tl.int64)
    x_cols = pid_n * BN + tl.arange(0, BN)
    x_ptrs = x_ptr + x_rows[:, None] * stride_xm + x_cols[None, :]
    x_mask = (x_rows[:, None] < M) & (x_cols[None, :] < N)
    y_rows = (pid_m * BM + tl.arange(0, BM)).to(tl.int64)
    y_cols = pid_n * BN + tl.arange(0, BN)
    y_ptrs = y_ptr + y_rows[:, None] * stride_ym + y_cols[None, :]
    y_mask = (y_rows[:, None] < M) & (y_cols[None, :] < N)
    tl.store(y_ptrs, tl.load(x_ptrs, mask=x_mask) + 1, mask=y_mask)


@triton.jit
def rms_norm(x_ptr, w_ptr, y_ptr, M, stride_xm, stride_ym, eps, D: tl.constexpr, BM: tl.constexpr):
    pid = tl.program_id(0)
    x_rows = (pid * BM + tl.arange(0, BM)).to(tl.int64)
    x_cols = tl.arange(0, D)
    x_ptrs = x_ptr + x_rows[:, None] * stride_xm + x_cols[None, :]
    x_mask = x_rows[:, None] < M
    v = tl.load(x_ptrs, mask=x_mask).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(v * v, axis=1) / D + eps)
    w_idx = tl.arange(0, D)
    w_ptrs = w_ptr + w_idx
    out = v * rstd[:, None] * tl.load(w_ptrs).to(tl.float32)[None, :]
    y_rows = (pid * BM + tl.arange(0, BM)).to(tl.int64)
    y_cols = tl.arange(0, D)
    y_ptrs = y_ptr + y_rows[:, None] * stride_ym + y_cols[None, :]
    y_mask = y_rows[:, None] < M
    tl.store(y_ptrs, out.to(y_ptr.dtype.element_ty), mask=y_mask)


@triton.jit
def gated_chunks(k_ptr, g_ptr, o_ptr, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_h = tl.program_id(0)
    b_h = tl.zeros((K,), dtype=tl.float32)
    for i_t in range(0, tl.cdiv(T, BT)):
        p_k_rows = (i_t * BT + tl.arange(0, BT)).to(tl.int64)
        p_k_cols = tl.arange(0, K)
        p_k_ptrs = k_ptr + i_h * K + p_k_rows[:, None] * H * K + p_k_cols[None, :]
        p_k_mask = (p_k_rows[:, None] < T) & (p_k_cols[None, :] < K)
        b_k = tl.load(p_k_ptrs, mask=p_k_mask).to(tl.float32)
        p_g_idx = (i_t * BT + tl.arange(0, BT)).to(tl.int64)
        p_g_ptrs = g_ptr + i_h + p_g_idx * H
        p_g_mask = p_g_idx < T
        b_g = tl.load(p_g_ptrs, mask=p_g_mask).to(tl.float32)
        b_h = b_h * tl.exp(tl.sum(b_g)) + tl.sum(b_k * b_g[:, None], axis=0)
        p_o_rows = (i_t * BT + tl.arange(0, BT)).to(tl.int64)
        p_o_cols = tl.arange(0, K)
        p_o_ptrs = o_ptr + i_h * K + p_o_rows[:, None] * H * K + p_o_cols[None, :]
        p_o_mask = (p_o_rows[:, None] < T) & (p_o_cols[None, :] < K)
        tl.store(p_o_ptrs, (b_k + b_h[None, :]).to((o_ptr + i_h * K).dtype.element_ty), mask=p_o_mask)
