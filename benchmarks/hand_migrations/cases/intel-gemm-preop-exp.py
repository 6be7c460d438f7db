"""Intel's GEMM + exp(A) benchmark kernels (plain and batched) through the module's own `matmul`.

The kernel casts A to bfloat16 before the dot, and Triton 3.8's interpreter multiplies bfloat16 values as their
raw 16-bit patterns: C is meaningless as a product, but it is still a function of every bit each version
loads, so the comparison still holds both versions to the same loads.
"""

import torch
from _hand import GEMM_SHAPES, gemm_operands, module, pin, stub_modules, unaligned
from triton_migrate.verify.cases import case

stub_modules("triton_kernels_benchmark")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_preop_exp_benchmark.py", "X_VALS = ")}


def _gemm(mod, device, shape):
    for kernel in (mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched):
        pin(kernel, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2)
    a, b, c = gemm_operands(device, shape, torch.bfloat16)  # as the benchmark: B must match A's bf16
    return (lambda: mod.matmul(a, b, c)), {"c": c}


@case(module("gemm"))
def aligned(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["aligned"])


@unaligned(module("gemm"))
def ragged(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["ragged"])


@case(module("gemm"))
def batched(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["batched"])
