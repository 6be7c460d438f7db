"""Which integer width for a masked pointer's axis vectors runs fastest on a GPU (an experiment, not a test).

    python benchmarks/experiments/axis_width.py [--rounds 5]

Two kernels of the suite whose migrated form ran slower than the previous form (batched_transpose
64x1000x1000 at 0.76x of the block pointers, add_one 4097x4104 at 1.00x against 1.08x), each written four
ways: the block pointers; `range64`, the axis vector widened before the start is added (o = start +
arange.to(int64), the mask compared in 64 bits); `corner`, the previous form (the corner widened once, the
coordinates inside the block int32 where the stride is 1); `widen_at_use`, int32 axis vectors and masks,
widened where they meet a stride (o[:, None].to(tl.int64) * stride); `sum_first`, range64's offsets summed
before one pointer addition (the order of a block pointer's lowering); `corner_masks64`, corner's addresses
with range64's masks (which of the two makes the corner form fast); `scalar_batch`, range64 with the batch
offset a scalar instead of a one-element vector. Prints each one's time and its ratio to
the block pointers, the median of interleaved rounds.
"""

from __future__ import annotations

import argparse
import statistics

import torch
import triton
import triton.language as tl
from triton.testing import do_bench


@triton.jit
def t_block(x_ptr, y_ptr, M, N, sxb, sxm, syb, syn, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n, pid_b = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    B = tl.num_programs(2)
    x = tl.make_block_ptr(x_ptr, (B, M, N), (sxb, sxm, 1), (pid_b, pid_m * BM, pid_n * BN), (1, BM, BN), (2, 1, 0))
    y = tl.make_block_ptr(y_ptr, (B, N, M), (syb, syn, 1), (pid_b, pid_n * BN, pid_m * BM), (1, BN, BM), (2, 1, 0))
    tl.store(y, tl.permute(tl.load(x, boundary_check=(1, 2)), (0, 2, 1)), boundary_check=(1, 2))


@triton.jit
def _transpose(x, y, m_m, m_n):
    v = tl.load(x, mask=m_m[None, :, None] & m_n[None, None, :])
    tl.store(y, tl.permute(v, (0, 2, 1)), mask=m_n[None, :, None] & m_m[None, None, :])


@triton.jit
def t_range64(x_ptr, y_ptr, M, N, sxb, sxm, syb, syn, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n, pid_b = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    o_b = pid_b + tl.arange(0, 1).to(tl.int64)
    o_m = pid_m * BM + tl.arange(0, BM).to(tl.int64)
    o_n = pid_n * BN + tl.arange(0, BN).to(tl.int64)
    x = x_ptr + o_b[:, None, None] * sxb + o_m[None, :, None] * sxm + o_n[None, None, :]
    y = y_ptr + o_b[:, None, None] * syb + o_n[None, :, None] * syn + o_m[None, None, :]
    _transpose(x, y, o_m < M, o_n < N)


@triton.jit
def t_corner(x_ptr, y_ptr, M, N, sxb, sxm, syb, syn, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n, pid_b = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    r = pid_m * BM + tl.arange(0, BM)
    c = pid_n * BN + tl.arange(0, BN)
    x = (x_ptr + tl.cast(pid_b, tl.int64) * sxb + tl.cast(pid_m * BM, tl.int64) * sxm + pid_n * BN
         + (tl.arange(0, 1).to(tl.int64)[:, None, None] * sxb + tl.arange(0, BM).to(tl.int64)[None, :, None] * sxm
            + tl.arange(0, BN)[None, None, :]))
    y = (y_ptr + tl.cast(pid_b, tl.int64) * syb + tl.cast(pid_n * BN, tl.int64) * syn + pid_m * BM
         + (tl.arange(0, 1).to(tl.int64)[:, None, None] * syb + tl.arange(0, BN).to(tl.int64)[None, :, None] * syn
            + tl.arange(0, BM)[None, None, :]))
    v = tl.load(x, mask=(r[None, :, None] < M) & (c[None, None, :] < N))
    tl.store(y, tl.permute(v, (0, 2, 1)), mask=(c[None, :, None] < N) & (r[None, None, :] < M))


@triton.jit
def t_widen_at_use(x_ptr, y_ptr, M, N, sxb, sxm, syb, syn, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n, pid_b = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    o_b = pid_b + tl.arange(0, 1)
    o_m = pid_m * BM + tl.arange(0, BM)
    o_n = pid_n * BN + tl.arange(0, BN)
    x = x_ptr + o_b[:, None, None].to(tl.int64) * sxb + o_m[None, :, None].to(tl.int64) * sxm + o_n[None, None, :]
    y = y_ptr + o_b[:, None, None].to(tl.int64) * syb + o_n[None, :, None].to(tl.int64) * syn + o_m[None, None, :]
    _transpose(x, y, o_m < M, o_n < N)


@triton.jit
def t_sum_first(x_ptr, y_ptr, M, N, sxb, sxm, syb, syn, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n, pid_b = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    o_b = pid_b + tl.arange(0, 1).to(tl.int64)
    o_m = pid_m * BM + tl.arange(0, BM).to(tl.int64)
    o_n = pid_n * BN + tl.arange(0, BN).to(tl.int64)
    x = x_ptr + (o_b[:, None, None] * sxb + o_m[None, :, None] * sxm + o_n[None, None, :])
    y = y_ptr + (o_b[:, None, None] * syb + o_n[None, :, None] * syn + o_m[None, None, :])
    _transpose(x, y, o_m < M, o_n < N)


@triton.jit
def t_corner_masks64(x_ptr, y_ptr, M, N, sxb, sxm, syb, syn, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n, pid_b = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    o_m = pid_m * BM + tl.arange(0, BM).to(tl.int64)
    o_n = pid_n * BN + tl.arange(0, BN).to(tl.int64)
    x = (x_ptr + tl.cast(pid_b, tl.int64) * sxb + tl.cast(pid_m * BM, tl.int64) * sxm + pid_n * BN
         + (tl.arange(0, 1).to(tl.int64)[:, None, None] * sxb + tl.arange(0, BM).to(tl.int64)[None, :, None] * sxm
            + tl.arange(0, BN)[None, None, :]))
    y = (y_ptr + tl.cast(pid_b, tl.int64) * syb + tl.cast(pid_n * BN, tl.int64) * syn + pid_m * BM
         + (tl.arange(0, 1).to(tl.int64)[:, None, None] * syb + tl.arange(0, BN).to(tl.int64)[None, :, None] * syn
            + tl.arange(0, BM)[None, None, :]))
    _transpose(x, y, o_m < M, o_n < N)


@triton.jit
def t_scalar_batch(x_ptr, y_ptr, M, N, sxb, sxm, syb, syn, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n, pid_b = tl.program_id(0), tl.program_id(1), tl.program_id(2)
    o_m = pid_m * BM + tl.arange(0, BM).to(tl.int64)
    o_n = pid_n * BN + tl.arange(0, BN).to(tl.int64)
    x = x_ptr + tl.cast(pid_b, tl.int64) * sxb + o_m[None, :, None] * sxm + o_n[None, None, :]
    y = y_ptr + tl.cast(pid_b, tl.int64) * syb + o_n[None, :, None] * syn + o_m[None, None, :]
    _transpose(x, y, o_m < M, o_n < N)


@triton.jit
def a_block(x_ptr, y_ptr, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    x = tl.make_block_ptr(x_ptr, (M, N), (sxm, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (sym, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1)) + 1, boundary_check=(0, 1))


@triton.jit
def a_range64(x_ptr, y_ptr, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    o_m = pid_m * BM + tl.arange(0, BM).to(tl.int64)
    o_n = pid_n * BN + tl.arange(0, BN)
    mask = (o_m < M)[:, None] & (o_n < N)[None, :]
    x = tl.load(x_ptr + o_m[:, None] * sxm + o_n[None, :], mask=mask)
    tl.store(y_ptr + o_m[:, None] * sym + o_n[None, :], x + 1, mask=mask)


@triton.jit
def a_corner(x_ptr, y_ptr, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    r = pid_m * BM + tl.arange(0, BM)
    c = pid_n * BN + tl.arange(0, BN)
    inner_x = tl.arange(0, BM).to(tl.int64)[:, None] * sxm + tl.arange(0, BN)[None, :]
    inner_y = tl.arange(0, BM).to(tl.int64)[:, None] * sym + tl.arange(0, BN)[None, :]
    x = x_ptr + tl.cast(pid_m * BM, tl.int64) * sxm + pid_n * BN + inner_x
    y = y_ptr + tl.cast(pid_m * BM, tl.int64) * sym + pid_n * BN + inner_y
    mask = (r[:, None] < M) & (c[None, :] < N)
    tl.store(y, tl.load(x, mask=mask) + 1, mask=mask)


@triton.jit
def a_widen_at_use(x_ptr, y_ptr, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    o_m = pid_m * BM + tl.arange(0, BM)
    o_n = pid_n * BN + tl.arange(0, BN)
    mask = (o_m < M)[:, None] & (o_n < N)[None, :]
    x = x_ptr + o_m[:, None].to(tl.int64) * sxm + o_n[None, :]
    y = y_ptr + o_m[:, None].to(tl.int64) * sym + o_n[None, :]
    tl.store(y, tl.load(x, mask=mask) + 1, mask=mask)


@triton.jit
def a_sum_first(x_ptr, y_ptr, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    o_m = pid_m * BM + tl.arange(0, BM).to(tl.int64)
    o_n = pid_n * BN + tl.arange(0, BN)
    mask = (o_m < M)[:, None] & (o_n < N)[None, :]
    x = tl.load(x_ptr + (o_m[:, None] * sxm + o_n[None, :]), mask=mask)
    tl.store(y_ptr + (o_m[:, None] * sym + o_n[None, :]), x + 1, mask=mask)


@triton.jit
def a_corner_masks64(x_ptr, y_ptr, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    o_m = pid_m * BM + tl.arange(0, BM).to(tl.int64)
    o_n = pid_n * BN + tl.arange(0, BN)
    inner_x = tl.arange(0, BM).to(tl.int64)[:, None] * sxm + tl.arange(0, BN)[None, :]
    inner_y = tl.arange(0, BM).to(tl.int64)[:, None] * sym + tl.arange(0, BN)[None, :]
    x = x_ptr + tl.cast(pid_m * BM, tl.int64) * sxm + pid_n * BN + inner_x
    y = y_ptr + tl.cast(pid_m * BM, tl.int64) * sym + pid_n * BN + inner_y
    mask = (o_m < M)[:, None] & (o_n < N)[None, :]
    tl.store(y, tl.load(x, mask=mask) + 1, mask=mask)


a_scalar_batch = a_range64  # no batch dimension: the same as range64

FORMS = ("block", "range64", "corner", "widen_at_use", "sum_first", "corner_masks64", "scalar_batch")


def transpose_case(batch, M, N, dtype):
    x = torch.randn(batch, M, N, device="cuda", dtype=dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 64), batch)

    def run(kernel):
        y = torch.empty(batch, N, M, device="cuda", dtype=dtype)
        return y, lambda: kernel[grid](x, y, M, N, x.stride(0), x.stride(1), y.stride(0), y.stride(1), BM=64, BN=64)
    return f"batched_transpose {batch}x{M}x{N}", {f: globals()[f"t_{f}"] for f in FORMS}, run


def add_one_case(M, N, dtype):
    x = torch.randn(M, N, device="cuda", dtype=dtype)
    grid = (triton.cdiv(M, 64), triton.cdiv(N, 128))

    def run(kernel):
        y = torch.empty(M, N, device="cuda", dtype=dtype)
        return y, lambda: kernel[grid](x, y, M, N, x.stride(0), y.stride(0), BM=64, BN=128)
    return f"add_one {M}x{N}", {f: globals()[f"a_{f}"] for f in FORMS}, run


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    cases = [transpose_case(64, 1000, 1000, torch.bfloat16), transpose_case(32, 2048, 2048, torch.float16),
             transpose_case(3, 100, 72, torch.float16), add_one_case(4097, 4104, torch.float16),
             add_one_case(8192, 8192, torch.float16), add_one_case(130, 260, torch.float16)]
    for name, kernels, run in cases:
        compare(name, kernels, run, args.rounds)


def compare(name: str, kernels: dict, run, rounds: int) -> None:
    """Run each form of `kernels` (form -> kernel; the first is the block pointers) once, check its output is
    the first's bit for bit, then time them interleaved and print each one's median and its ratio to the
    first. `run(kernel)` gives the output buffer and a launch."""
    launches, reference = {}, None
    for form, kernel in kernels.items():
        y, launch = run(kernel)
        launch()
        if reference is None:
            reference = y
        assert torch.equal(y, reference), f"{name}: {form} differs from the block pointers"
        launches[form] = launch
    times = {form: [] for form in kernels}
    for _ in range(rounds):
        for form, launch in launches.items():
            times[form].append(do_bench(launch, warmup=25, rep=100))
    base = statistics.median(next(iter(times.values())))
    cells = "  ".join(f"{f} {statistics.median(t) * 1e3:8.1f} us {base / statistics.median(t):5.3f}x"
                      for f, t in times.items())
    print(f"{name:32s} {cells}", flush=True)

if __name__ == "__main__":
    main()
