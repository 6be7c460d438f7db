"""The emulation's bounds, ``0 <= coord < extent`` as one unsigned comparison (compat/_jit.py ``_inside``),
against Triton 3.8's own block pointers in the interpreter: tiles that start before, across and past the tensor,
over extents that are negative, empty, shorter than a block and a block's length. The output is sentinel-filled
on both sides of the tensor, so a lane the bounds let through writes where a block pointer does not."""

import pytest
import torch
import triton
import triton.language as tl

import triton_migrate.compat as compat


@triton.jit
def copy_tiles(x, y, starts, n, BLOCK: tl.constexpr, IMPL: tl.constexpr):
    start = tl.load(starts + tl.program_id(0))
    hx = compat.make_tile(x, (n,), (1,), (BLOCK,), "zero", IMPL)
    hy = compat.make_tile(y, (n,), (1,), (BLOCK,), "zero", IMPL)
    compat.store(hy, (start,), compat.load(hx, (start,)) + 1)


@pytest.mark.parametrize("n", [-5, 0, 3, 8])
def test_the_emulation_bounds_what_a_block_pointer_bounds(n):
    starts = torch.tensor([-20, -3, 0, 2, 5, 14, 40], dtype=torch.int32)
    results = {}
    for impl in ("bp", "emu"):
        x = torch.arange(64, dtype=torch.float32)[24:]  # memory on both sides of the tensor's n elements
        y = torch.full((64,), -1.0)
        copy_tiles[(len(starts),)](x, y[24:], starts, n, BLOCK=8, IMPL=impl)
        results[impl] = y
    assert torch.equal(results["emu"], results["bp"])
