"""A deliberately wrong migration of project/kernels/ops.py (the verify tests feed it in with --migrated):
scale_rows' store mask is off by one column (`<= N`), so each tile writes the padding zero into the first
element of the next row. matmul is migrated correctly."""

import torch
import triton
import triton.language as tl


@triton.jit
def scale_rows(x_ptr, y_ptr, M, N, stride_xm, stride_ym, alpha, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x_desc = tl.make_tensor_descriptor(x_ptr, [M, N], [stride_xm, 1], [BM, BN])
    off = 0
    for _ in range(0, tl.cdiv(N, BN)):
        v = x_desc.load([pid * BM, off])
        rows = pid * BM + tl.arange(0, BM)
        cols = off + tl.arange(0, BN)
        mask = (rows[:, None] < M) & (cols[None, :] <= N)
        tl.store(y_ptr + rows[:, None] * stride_ym + cols[None, :], v * alpha, mask=mask)
        off += BN


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BM, BK])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BK, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc += tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]), input_precision="ieee")
    c_desc = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1], [BM, BN])
    c_desc.store([pid_m * BM, pid_n * BN], acc)


def scale(x: torch.Tensor, alpha: float) -> torch.Tensor:
    y = torch.empty_like(x)
    scale_rows[(triton.cdiv(x.shape[0], 16), )](x, y, x.shape[0], x.shape[1], x.stride(0), y.stride(0), alpha,
                                                BM=16, BN=32)
    return y


def mm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty(M, N, device=a.device, dtype=torch.float32)
    grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
    matmul[grid](a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0), BM=16, BN=32, BK=16)
    return c
