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
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BM, BK])
    a_off1 = 0
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BK, BN])
    b_off0 = 0
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(a_desc.load([pid_m * BM, a_off1]),
                      b_desc.load([b_off0, pid_n * BN]))
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
    x_desc = tl.make_tensor_descriptor(x_ptr, [M, N], [stride_xm, 1], [BM, BN])
    y_rows = (pid_m * BM + tl.arange(0, BM)).to(tl.int64)
    y_cols = pid_n * BN + tl.arange(0, BN)
    y_ptrs = y_ptr + y_rows[:, None] * stride_ym + y_cols[None, :]
    y_mask = (y_rows[:, None] < M) & (y_cols[None, :] < N)
    tl.store(y_ptrs, x_desc.load([pid_m * BM, pid_n * BN]) + 1, mask=y_mask)


@triton.jit
def rms_norm(x_ptr, w_ptr, y_ptr, M, stride_xm, stride_ym, eps, D: tl.constexpr, BM: tl.constexpr):
    pid = tl.program_id(0)
    x_desc = tl.make_tensor_descriptor(x_ptr, [M, D], [stride_xm, 1], [BM, D])
    w_desc = tl.make_tensor_descriptor(w_ptr, [D], [1], [D])
    y_desc = tl.make_tensor_descriptor(y_ptr, [M, D], [stride_ym, 1], [BM, D])
    v = x_desc.load([pid * BM, 0]).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(v * v, axis=1) / D + eps)
    out = v * rstd[:, None] * w_desc.load([0]).to(tl.float32)[None, :]
    y_desc.store([pid * BM, 0], out.to(y_desc.dtype))


@triton.jit
def gated_chunks(k_ptr, g_ptr, o_ptr, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_h = tl.program_id(0)
    b_h = tl.zeros((K,), dtype=tl.float32)
    p_k_desc = tl.make_tensor_descriptor(k_ptr + i_h * K, [T, K], [H * K, 1], [BT, K])
    p_o_desc = tl.make_tensor_descriptor(o_ptr + i_h * K, [T, K], [H * K, 1], [BT, K])
    for i_t in range(0, tl.cdiv(T, BT)):
        b_k = p_k_desc.load([i_t * BT, 0]).to(tl.float32)
        p_g_idx = (i_t * BT + tl.arange(0, BT)).to(tl.int64)
        p_g_ptrs = g_ptr + i_h + p_g_idx * H
        p_g_mask = p_g_idx < T
        b_g = tl.load(p_g_ptrs, mask=p_g_mask).to(tl.float32)
        b_h = b_h * tl.exp(tl.sum(b_g)) + tl.sum(b_k * b_g[:, None], axis=0)
        p_o_desc.store([i_t * BT, 0], (b_k + b_h[None, :]).to(p_o_desc.dtype))
