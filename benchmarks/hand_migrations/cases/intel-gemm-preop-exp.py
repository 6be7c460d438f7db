"""Intel's GEMM + exp(A) benchmark kernels (plain and batched) through the module's own `matmul`.

The kernel casts A to bfloat16 before the dot, and Triton 3.8's interpreter multiplies bfloat16 values as their
raw 16-bit patterns: C is meaningless as a product, but it is still a function of every bit each version
loads, so the comparison still holds both versions to the same loads.
"""

import torch
from _hand import gemm_cases, gemm_operands, module, pin_gemm, stub_modules

stub_modules("triton_kernels_benchmark")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_preop_exp_benchmark.py", "X_VALS = ")}


def _gemm(mod, device, shape):
    pin_gemm(mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched)
    a, b, c = gemm_operands(device, shape, torch.bfloat16)  # as the benchmark: B must match A's bf16
    return (lambda: mod.matmul(a, b, c)), {"c": c}


gemm_cases(module("gemm"), _gemm)
