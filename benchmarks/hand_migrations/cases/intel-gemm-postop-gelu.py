"""Intel's GEMM + GELU benchmark kernels (plain and batched) through the module's own `matmul`.

The interpreter cannot multiply a tensor by the module-level `kAlpha = tl.constexpr(...)` (it does on a GPU);
both versions get the same value as a plain float, which the interpreter can.
"""

import math

from _hand import gemm_cases, gemm_operands, module, pin_gemm, stub_modules

stub_modules("triton_kernels_benchmark")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_postop_gelu_benchmark.py", "X_VALS = ")}


def _gemm(mod, device, shape):
    mod.kAlpha = math.sqrt(2.0 / math.pi)
    pin_gemm(mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched)
    a, b, c = gemm_operands(device, shape)
    return (lambda: mod.matmul(a, b, c)), {"c": c}


gemm_cases(module("gemm"), _gemm)
