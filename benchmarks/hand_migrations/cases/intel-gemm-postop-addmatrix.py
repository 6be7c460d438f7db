"""Intel's GEMM + add-matrix benchmark kernels (plain and batched; D is loaded after the K loop) through the
module's own `matmul`, in fp16 and int8 (the benchmark runs bf16 and int8: see _hand.gemm_operands)."""

import torch
from _hand import GEMM_SHAPES, gemm_operands, module, pin, stub_modules, unaligned
from triton_migrate.verify.cases import case

stub_modules("triton_kernels_benchmark", "psutil")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_postop_addmatrix_benchmark.py", "X_VALS = ")}


def _gemm(mod, device, shape, dtype=torch.float16):
    for kernel in (mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched):
        pin(kernel, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2)
    if dtype == torch.int8:
        *batch, m, k, n = shape
        a = torch.randint(-127, 128, (*batch, m, k), device=device, dtype=dtype)
        b = torch.randint(-127, 128, (*batch, k, n), device=device, dtype=dtype)
        d = torch.randint(-1000, 1000, (*batch, m, n), device=device, dtype=torch.int32)
        c = torch.full_like(d, -7)
    else:
        a, b, c = gemm_operands(device, shape, dtype)
        d = torch.randn_like(c)
    return (lambda: mod.matmul(a, b, d, c)), {"c": c}


@case(module("gemm"))
def aligned(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["aligned"])


@unaligned(module("gemm"))
def ragged(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["ragged"])


@case(module("gemm"))
def batched(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["batched"])


@case(module("gemm"))
def int8_aligned(mod, device):
    return _gemm(mod, device, (48, 64, 80), torch.int8)
