"""The block-pointer matmul tutorial's kernels (plain and batched) through its own `matmul`, which allocates the
result: the case copies it into a NaN-filled buffer."""

import torch
from _hand import GEMM_SHAPES, gemm_operands, module, pin, unaligned
from triton_migrate.verify.cases import case

MODULES = {"matmul": ("python/tutorials/10-experimental-block-pointer.py", "FP16_TYPES = ")}


def _matmul(mod, device, shape, dtype, accum_dtype, res_dtype):
    for kernel in (mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched):
        pin(kernel, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2)
    if dtype == torch.int8:
        *batch, m, k, n = shape
        a = torch.randint(-127, 128, (*batch, m, k), device=device, dtype=dtype)
        b = torch.randint(-127, 128, (*batch, k, n), device=device, dtype=dtype)
    else:
        a, b, _ = gemm_operands(device, shape, dtype)
    *batch, m, _, n = shape
    out = torch.full((*batch, m, n), -7, device=device, dtype=res_dtype)
    return (lambda: out.copy_(mod.matmul(a, b, accum_dtype, res_dtype))), {"c": out}


@case(module("matmul"))
def fp16_aligned(mod, device):
    return _matmul(mod, device, GEMM_SHAPES["aligned"], torch.float16, torch.float32, torch.float16)


@unaligned(module("matmul"))
def fp16_ragged(mod, device):
    return _matmul(mod, device, GEMM_SHAPES["ragged"], torch.float16, torch.float32, torch.float16)


@case(module("matmul"))
def fp32_batched(mod, device):
    return _matmul(mod, device, GEMM_SHAPES["batched"], torch.float32, torch.float32, torch.float32)


@unaligned(module("matmul"))
def int8_ragged(mod, device):
    return _matmul(mod, device, GEMM_SHAPES["ragged"], torch.int8, torch.int32, torch.int32)
