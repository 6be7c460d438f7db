"""Intel's GEMM + add-matrix benchmark kernels (plain and batched; D is loaded after the K loop) through the
module's own `matmul`, in fp16 and int8 (the benchmark runs bf16 and int8: see _hand.gemm_operands)."""

import torch
from _hand import gemm_cases, gemm_operands, module, pin_gemm, stub_modules
from triton_migrate.verify.cases import case

stub_modules("triton_kernels_benchmark", "psutil")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_postop_addmatrix_benchmark.py", "X_VALS = ")}


def _gemm(mod, device, shape, dtype=torch.float16):
    pin_gemm(mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched)
    a, b, c = gemm_operands(device, shape, dtype)
    d = torch.randint_like(c, -1000, 1000) if dtype == torch.int8 else torch.randn_like(c)
    return (lambda: mod.matmul(a, b, d, c)), {"c": c}


gemm_cases(module("gemm"), _gemm)


@case(module("gemm"))
def int8_aligned(mod, device):
    return _gemm(mod, device, (48, 64, 80), torch.int8)
