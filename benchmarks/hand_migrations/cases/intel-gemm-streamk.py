"""Intel's stream-K GEMM kernels. The module's `matmul` asks the XPU for its core count and uses 256-wide
blocks; the case schedules the same two launches (a stream-K first wave over 4 programs, then the full
tiles) with 32-wide blocks. K is a multiple of the block: a program that starts inside a tile moves its block
pointers' base by the iterations already done but keeps the shape (M, K), so where K is not a multiple of
BLOCK_SIZE_K the original reads past the end of each row (the next row, or past the buffer on the last).
"""

import triton
from _hand import gemm_operands, module, pin, stub_modules, unaligned
from triton_migrate.verify.cases import case

stub_modules("triton_kernels_benchmark")
MODULES = {"gemm": ("benchmarks/triton_kernels_benchmark/gemm_streamk_benchmark.py", "# Benchmark Performance")}
BLOCK = 32
PROGRAMS = 4


def _gemm(mod, device, shape):
    for kernel in (mod.first_wave, mod.full_tiles):
        pin(kernel, BLOCK_SIZE_M=BLOCK, BLOCK_SIZE_N=BLOCK, BLOCK_SIZE_K=BLOCK, GROUP_SIZE_M=2)
    a, b, c = gemm_operands(device, shape)
    c.zero_()
    m, k, n = shape
    iters_per_tile = triton.cdiv(k, BLOCK)
    total_tiles = triton.cdiv(m, BLOCK) * triton.cdiv(n, BLOCK)
    streamk_tiles = total_tiles % PROGRAMS + (PROGRAMS if total_tiles - total_tiles % PROGRAMS > PROGRAMS else 0)
    streamk_iters = streamk_tiles * iters_per_tile
    strides = (*a.stride(), *b.stride(), *c.stride())

    def launch():
        mod.first_wave[(PROGRAMS,)](a, b, c, m, n, k, *strides, streamk_iters // PROGRAMS, streamk_iters % PROGRAMS,
                                    iters_per_tile)
        mod.full_tiles[(total_tiles - streamk_tiles,)](a, b, c, m, n, k, *strides, streamk_tiles)

    return launch, {"c": c}


@case(module("gemm"))
def aligned(mod, device):
    return _gemm(mod, device, (96, 96, 40))


@unaligned(module("gemm"))
def ragged(mod, device):
    return _gemm(mod, device, (90, 64, 50))
