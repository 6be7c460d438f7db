"""Buffers and the launch of a generated kernel, from the plain data of `Program.launch` (so that a Triton 3.9
subprocess rebuilds exactly the same inputs). Imports torch only: the caller has chosen which Triton runs.

Every tensor lives inside a larger buffer laid out in the drawn order of dims, with margins wide enough for
every unchecked access (grammar.Gen.need): the input's margins hold distinct finite markers (a read that moved
shows as another value, and never as a NaN that would hide the rest of a reduction), the output's hold the
fixtures' sentinel NaN (fixtures/_harness_util.py), so a write that moved or went missing shows. The innermost
physical dimension and margin are rounded to 16 bytes: base and strides are 16-byte aligned, as descriptors
need and the stated fact `aligned` says.
"""

from __future__ import annotations

import math
import warnings

import torch

SENTINEL_BITS = 0x7FC0DEAD  # fixtures/_harness_util.py: the float32 sentinel NaN that differential.py knows


GUARD = 1024  # elements before and after each buffer, compared too: a migrated kernel that strays past the
# margins shows as a difference instead of writing into memory the process uses (and crashing it)


def buffer(spec: dict, fill: str, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(the whole storage, guards included; the logical view inside it) for one tensor of the launch."""
    shape, perm, margins = spec["shape"], spec["perm"], spec["margins"]
    sizes = [shape[d] + 2 * margins[d] for d in perm]
    sizes[-1] = (sizes[-1] + 3) // 4 * 4
    storage = torch.empty(math.prod(sizes) + 2 * GUARD, dtype=torch.float32)
    if fill == "markers":
        storage.copy_(-100.0 - torch.arange(storage.numel(), dtype=torch.float32) / 64)
    else:
        storage.view(torch.int32).fill_(SENTINEL_BITS)
    whole = storage[GUARD:GUARD + math.prod(sizes)].view(sizes)
    view = whole[tuple(slice(margins[d], margins[d] + shape[d]) for d in perm)]
    logical = view.permute([perm.index(d) for d in range(len(perm))])
    if fill == "markers":
        generator = torch.Generator().manual_seed(seed)
        logical.copy_(torch.randn(logical.shape, generator=generator))
    return storage, logical


def run(module, launch: dict, seed: int = 0) -> dict[str, torch.Tensor]:
    """Launch `module.kernel` on fresh buffers; returns the whole buffers, input included (a stray write)."""
    x_whole, x = buffer(launch["tensors"]["x"], "markers", seed)
    y_whole, y = buffer(launch["tensors"]["y"], "sentinel", seed)
    args = [x, y, *x.shape, *x.stride(), *y.stride(), *launch["scalars"].values()]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tl.make_block_ptr's deprecation, once per kernel
        module.kernel[(launch["grid"],)](*args, **launch["constexprs"])
    return {"x": x_whole, "y": y_whole}
