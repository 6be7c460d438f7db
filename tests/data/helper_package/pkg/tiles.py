"""Block-pointer helpers that the kernels of kernels.py import (the shape of a real package)."""

import triton
import triton.language as tl


@triton.jit
def load_tile(p, EVEN: tl.constexpr):
    if EVEN:
        return tl.load(p)
    else:
        return tl.load(p, boundary_check=(0, 1), padding_option="zero")


@triton.jit
def step(p, BN: tl.constexpr):
    p = tl.advance(p, (0, BN))
    return p


@triton.jit
def step_rows(p, BM: tl.constexpr):
    p = tl.advance(p, (BM, 0))
    return p


@triton.jit
def back(p, BM: tl.constexpr):
    return tl.advance(p, (-BM, 0))


@triton.jit(noinline=True)
def scale_tile(src, dst, factor):
    tl.store(dst, tl.load(src, boundary_check=(0, 1)) * factor, boundary_check=(0, 1))
