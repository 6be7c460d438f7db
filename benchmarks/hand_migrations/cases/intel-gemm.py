"""Intel's main GEMM benchmark kernels (plain and batched) through the module's own `matmul`, with A and B
given as stored or transposed (a transposed operand reaches the kernel as strides, its last one not 1)."""

from _hand import (
    GEMM_SHAPES,
    gemm_cases,
    gemm_operands,
    module,
    pin_gemm,
    stub_modules,
    unaligned,
)

stub_modules("triton_kernels_benchmark")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_benchmark.py", "X_VALS = ")}


def _gemm(mod, device, shape, transpose_a=False, transpose_b=False):
    plain, batched = mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched
    pin_gemm(plain, batched)
    a, b, c = gemm_operands(device, shape)
    a = a.transpose(-1, -2).contiguous() if transpose_a else a
    b = b.transpose(-1, -2).contiguous() if transpose_b else b
    return (lambda: mod.matmul(a, b, c, plain, batched, transpose_a, transpose_b)), {"c": c}


gemm_cases(module("gemm"), _gemm)


@unaligned(module("gemm"))
def a_transposed(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["aligned"], transpose_a=True)


@unaligned(module("gemm"))
def batched_b_transposed(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["batched"], transpose_b=True)
