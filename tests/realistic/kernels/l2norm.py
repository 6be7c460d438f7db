"""L2 normalisation over the last dimension with its backward, in the style of flash-linear-attention's
`l2norm.py`: forward and backward kernels over `[T, D]` row blocks and a `torch.autograd.Function` whose
backward launches a kernel (on CUDA, autograd runs backward on a thread of its own).
"""

import os

import torch
import triton
import triton.language as tl

# Triton's interpreter has no benchmarker: autotune over one config there
NUM_WARPS = [4] if os.environ.get("TRITON_INTERPRET") == "1" else [1, 2]


@triton.autotune(
    configs=[triton.Config({}, num_warps=num_warps) for num_warps in NUM_WARPS],
    key=["D"],
)
@triton.jit
def l2norm_fwd_kernel(
    x,
    y,
    rstd,
    eps,
    T,
    D: tl.constexpr,
    BD: tl.constexpr,
    BT: tl.constexpr,
):
    i_t = tl.program_id(0)
    p_x = tl.make_block_ptr(x, (T, D), (D, 1), (i_t * BT, 0), (BT, BD), (1, 0))
    b_x = tl.load(p_x, boundary_check=(0, 1)).to(tl.float32)
    b_rstd = 1 / tl.sqrt(tl.sum(b_x * b_x, 1) + eps)
    b_y = b_x * b_rstd[:, None]
    p_y = tl.make_block_ptr(y, (T, D), (D, 1), (i_t * BT, 0), (BT, BD), (1, 0))
    tl.store(p_y, b_y.to(p_y.dtype.element_ty), boundary_check=(0, 1))
    p_rstd = tl.make_block_ptr(rstd, (T,), (1,), (i_t * BT,), (BT,), (0,))
    tl.store(p_rstd, b_rstd.to(p_rstd.dtype.element_ty), boundary_check=(0,))


@triton.jit
def l2norm_bwd_kernel(
    y,
    rstd,
    dy,
    dx,
    T,
    D: tl.constexpr,
    BD: tl.constexpr,
    BT: tl.constexpr,
):
    i_t = tl.program_id(0)
    p_y = tl.make_block_ptr(y, (T, D), (D, 1), (i_t * BT, 0), (BT, BD), (1, 0))
    p_dy = tl.make_block_ptr(dy, (T, D), (D, 1), (i_t * BT, 0), (BT, BD), (1, 0))
    p_rstd = tl.make_block_ptr(rstd, (T,), (1,), (i_t * BT,), (BT,), (0,))
    b_y = tl.load(p_y, boundary_check=(0, 1)).to(tl.float32)
    b_dy = tl.load(p_dy, boundary_check=(0, 1)).to(tl.float32)
    b_rstd = tl.load(p_rstd, boundary_check=(0,)).to(tl.float32)
    b_dx = b_dy * b_rstd[:, None] - tl.sum(b_dy * b_y, 1)[:, None] * b_y * b_rstd[:, None]
    p_dx = tl.make_block_ptr(dx, (T, D), (D, 1), (i_t * BT, 0), (BT, BD), (1, 0))
    tl.store(p_dx, b_dx.to(p_dx.dtype.element_ty), boundary_check=(0, 1))


def l2norm_fwd(x, y, rstd, eps=1e-6, BT=16):
    T, D = x.shape
    l2norm_fwd_kernel[(triton.cdiv(T, BT),)](x, y, rstd, eps, T, D=D, BD=triton.next_power_of_2(D), BT=BT)
    return y


def l2norm_bwd(y, rstd, dy, dx, BT=16):
    T, D = y.shape
    l2norm_bwd_kernel[(triton.cdiv(T, BT),)](y, rstd, dy, dx, T, D=D, BD=triton.next_power_of_2(D), BT=BT)
    return dx


class L2NormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, eps=1e-6):
        x_shape = x.shape
        x = x.reshape(-1, x.shape[-1]).contiguous()
        y = torch.empty_like(x)
        rstd = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
        l2norm_fwd(x, y, rstd, eps)
        ctx.save_for_backward(y, rstd)
        return y.view(x_shape)

    @staticmethod
    def backward(ctx, dy):
        y, rstd = ctx.saved_tensors
        dy_shape = dy.shape
        dy = dy.reshape(-1, dy.shape[-1]).contiguous()
        dx = torch.empty_like(dy)
        l2norm_bwd(y, rstd, dy, dx)
        return dx.view(dy_shape), None


def l2norm(x, eps=1e-6):
    return L2NormFunction.apply(x, eps)
