"""Intel's split-K GEMM kernel through the module's own `matmul`. Its loads have no boundary check, so the
shapes are multiples of the blocks (as the benchmark's are); SPLIT_K = 1 stores through a block pointer,
SPLIT_K = 2 adds atomically through plain pointers."""

from _hand import gemm_operands, module, pin, stub_modules
from triton_migrate.verify.cases import case

stub_modules("triton_kernels_benchmark")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_splitk_benchmark.py", "# Benchmark Performance")}


def _gemm(mod, device, shape, split_k):
    pin(mod._kernel, BLOCK_M=32, BLOCK_N=32, BLOCK_K=32, GROUP_M=2, SPLIT_K=split_k)
    a, b, c = gemm_operands(device, shape)
    c.zero_()
    return (lambda: mod.matmul(a, b, c)), {"c": c}


@case(module("gemm"))
def one_split(mod, device):
    return _gemm(mod, device, (64, 64, 96), split_k=1)


@case(module("gemm"))
def two_splits(mod, device):
    return _gemm(mod, device, (96, 128, 64), split_k=2)
