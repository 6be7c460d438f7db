"""Intel's main GEMM benchmark kernels (plain and batched) through the module's own `matmul`, with A and B
given as stored or transposed (a transposed operand reaches the kernel as strides, its last one not 1)."""

from _hand import GEMM_SHAPES, gemm_operands, module, pin, stub_modules, unaligned
from triton_migrate.verify.cases import case

stub_modules("triton_kernels_benchmark")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_benchmark.py", "X_VALS = ")}


def _gemm(mod, device, shape, transpose_a=False, transpose_b=False):
    plain, batched = mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched
    for kernel in (plain, batched):
        pin(kernel, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2)
    a, b, c = gemm_operands(device, shape)
    a = a.transpose(-1, -2).contiguous() if transpose_a else a
    b = b.transpose(-1, -2).contiguous() if transpose_b else b
    return (lambda: mod.matmul(a, b, c, plain, batched, transpose_a, transpose_b)), {"c": c}


@case(module("gemm"))
def aligned(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["aligned"])


@unaligned(module("gemm"))
def ragged(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["ragged"])


@case(module("gemm"))
def batched(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["batched"])


@unaligned(module("gemm"))
def a_transposed(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["aligned"], transpose_a=True)


@unaligned(module("gemm"))
def batched_b_transposed(mod, device):
    return _gemm(mod, device, GEMM_SHAPES["batched"], transpose_b=True)
