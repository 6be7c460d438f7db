"""An autotuned block-pointer kernel behind a torch.autograd.Function, as libraries launch them: each
process's autotuner picks the configuration it times fastest."""

from pathlib import Path

import torch
import triton
import triton.language as tl

CONFIGS = [triton.Config({"BN": 16}), triton.Config({"BN": 32})]


def as_this_process_would(configs, named_args, **kwargs):
    """Stands in for timing: two processes' autotuners may choose differently. Here the project's own
    process keeps the first configuration and a process in any copy of it the second, every time."""
    return configs[:1] if Path.cwd().name == "project" else configs[1:]


@triton.autotune(CONFIGS, key=["N"], prune_configs_by={"early_config_prune": as_this_process_would})
@triton.jit
def row_sums(x_ptr, out_ptr, M, N, stride_xm, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_xm, 1), (pid * BM, 0), (BM, BN), (1, 0))
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):  # the order of the additions depends on BN
        acc += tl.load(x, boundary_check=(0, 1), padding_option="zero")
        x = tl.advance(x, (0, BN))
    out = tl.make_block_ptr(out_ptr, (M,), (1,), (pid * BM,), (BM,), (0,))
    tl.store(out, tl.sum(acc, axis=1), boundary_check=(0,))


@triton.autotune(CONFIGS, key=["N"], prune_configs_by={"early_config_prune": as_this_process_would})
@triton.jit
def spread_rows(g_ptr, dx_ptr, M, N, stride_dm, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    g = tl.load(tl.make_block_ptr(g_ptr, (M,), (1,), (pid_m * BM,), (BM,), (0,)), boundary_check=(0,))
    dx = tl.make_block_ptr(dx_ptr, (M, N), (stride_dm, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(dx, tl.broadcast_to(g[:, None], (BM, BN)), boundary_check=(0, 1))


class RowSum(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.empty(x.shape[0], dtype=torch.float32, device=x.device)
        row_sums[(triton.cdiv(x.shape[0], 16),)](x, out, x.shape[0], x.shape[1], x.stride(0), BM=16)
        ctx.shape = x.shape
        return out

    @staticmethod
    def backward(ctx, grad):
        dx = torch.empty(ctx.shape, dtype=torch.float32, device=grad.device)
        M, N = ctx.shape
        grid = lambda meta: (triton.cdiv(M, 16), triton.cdiv(N, meta["BN"]))  # noqa: E731
        spread_rows[grid](grad.contiguous(), dx, M, N, dx.stride(0), BM=16)
        return dx
