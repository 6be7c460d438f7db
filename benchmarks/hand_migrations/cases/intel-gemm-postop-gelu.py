"""Intel's GEMM + GELU benchmark kernels (plain and batched) through the module's own `matmul`.

The interpreter cannot multiply a tensor by the module-level `kAlpha = tl.constexpr(...)` (it does on a GPU);
both versions get the same value as a plain float, which the interpreter can.
"""

import math

from _hand import GEMM_SHAPES, gemm_operands, module, pin, stub_modules, unaligned
from triton_migrate.verify.cases import case

stub_modules("triton_kernels_benchmark")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_postop_gelu_benchmark.py", "X_VALS = ")}


def _gemm(mod, device, shape):
    mod.kAlpha = math.sqrt(2.0 / math.pi)
    for kernel in (mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched):
        pin(kernel, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2)
    a, b, c = gemm_operands(device, shape)
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
