"""Which spelling of a chunk loop's row axis runs fastest on a GPU (an experiment, not a test).

    python benchmarks/experiments/chunk_axis_width.py [--rounds 5]

The suite's gated_chunks (fla's chunked state update: a loop over chunks of T rows, each loaded, reduced and
stored) ran at 1.02x of its block pointers in today's form and at 1.11x in a9fbbd1's. Four ways: the block
pointers; `range64`, today's (`o_t = i_t * BT + tl.arange(0, BT).to(tl.int64)`, the mask compared in 64
bits); `widen_at_use`, a9fbbd1's (int32 rows and mask, widened where the stride scales them); `mask32`, the
64-bit rows for the addresses and an int32 copy for the mask; `corner_local`, exact without 64-bit rows: the
block's first row widened as a scalar, the rows inside it scaled once before the loop, and the mask
`tl.arange(0, BT) < T - i_t * BT`, which cannot wrap. Prints each one's time and its ratio to the
block pointers, the median of interleaved rounds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch
import triton
import triton.language as tl
from axis_width import compare  # this script's folder is on sys.path when it runs

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernels"))
from original import gated_chunks  # noqa: E402  (the suite's kernel, with its block pointers)


@triton.jit
def _step(p_k, p_g, p_o, m_t, b_h):
    b_k = tl.load(p_k, mask=m_t[:, None]).to(tl.float32)
    b_g = tl.load(p_g, mask=m_t).to(tl.float32)
    b_h = b_h * tl.exp(tl.sum(b_g)) + tl.sum(b_k * b_g[:, None], axis=0)
    tl.store(p_o, (b_k + b_h[None, :]).to(p_o.dtype.element_ty), mask=m_t[:, None])
    return b_h


@triton.jit
def g_range64(k_ptr, g_ptr, o_ptr, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_h = tl.program_id(0)
    b_h = tl.zeros((K,), dtype=tl.float32)
    o_k = tl.arange(0, K)
    for i_t in range(0, tl.cdiv(T, BT)):
        o_t = i_t * BT + tl.arange(0, BT).to(tl.int64)
        b_h = _step(k_ptr + i_h * K + o_t[:, None] * (H * K) + o_k[None, :], g_ptr + i_h + o_t * H,
                    o_ptr + i_h * K + o_t[:, None] * (H * K) + o_k[None, :], o_t < T, b_h)


@triton.jit
def g_widen_at_use(k_ptr, g_ptr, o_ptr, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_h = tl.program_id(0)
    b_h = tl.zeros((K,), dtype=tl.float32)
    o_k = tl.arange(0, K)
    for i_t in range(0, tl.cdiv(T, BT)):
        o_t = i_t * BT + tl.arange(0, BT)
        b_h = _step(k_ptr + i_h * K + o_t.to(tl.int64)[:, None] * (H * K) + o_k[None, :],
                    g_ptr + i_h + o_t.to(tl.int64) * H,
                    o_ptr + i_h * K + o_t.to(tl.int64)[:, None] * (H * K) + o_k[None, :], o_t < T, b_h)


@triton.jit
def g_mask32(k_ptr, g_ptr, o_ptr, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_h = tl.program_id(0)
    b_h = tl.zeros((K,), dtype=tl.float32)
    o_k = tl.arange(0, K)
    for i_t in range(0, tl.cdiv(T, BT)):
        o_t = i_t * BT + tl.arange(0, BT).to(tl.int64)
        b_h = _step(k_ptr + i_h * K + o_t[:, None] * (H * K) + o_k[None, :], g_ptr + i_h + o_t * H,
                    o_ptr + i_h * K + o_t[:, None] * (H * K) + o_k[None, :], i_t * BT + tl.arange(0, BT) < T, b_h)


@triton.jit
def g_corner_local(k_ptr, g_ptr, o_ptr, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr):
    i_h = tl.program_id(0)
    b_h = tl.zeros((K,), dtype=tl.float32)
    o_i = tl.arange(0, BT)
    inner = o_i.to(tl.int64)[:, None] * (H * K) + tl.arange(0, K)[None, :]  # the same in every iteration
    for i_t in range(0, tl.cdiv(T, BT)):
        start = tl.cast(i_t * BT, tl.int64)
        b_h = _step(k_ptr + i_h * K + start * (H * K) + inner, g_ptr + i_h + start * H + o_i.to(tl.int64) * H,
                    o_ptr + i_h * K + start * (H * K) + inner, o_i < T - i_t * BT, b_h)


FORMS = ("range64", "widen_at_use", "mask32", "corner_local")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    kernels = {"block": gated_chunks, **{form: globals()[f"g_{form}"] for form in FORMS}}
    for T, H, K in [(8192, 16, 64), (1000, 8, 64), (4097, 32, 128)]:
        k = torch.randn(T, H, K, device="cuda", dtype=torch.float16)
        g = torch.rand(T, H, device="cuda", dtype=torch.float16) * -0.01

        def run(kernel, k=k, g=g, T=T, H=H, K=K):
            o = torch.empty_like(k)
            return o, lambda: kernel[(H,)](k, g, o, T, H=H, K=K, BT=64)
        compare(f"gated_chunks T={T} H={H} K={K}", kernels, run, args.rounds)

if __name__ == "__main__":
    main()
