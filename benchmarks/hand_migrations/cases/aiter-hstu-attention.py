"""AMD aiter's HSTU attention forward (`_hstu_attn_fwd`, jagged sequences given by offsets; K and V block
pointers advanced in the loop), causal and not, with and without multiple targets; sequence lengths that are
not multiples of the blocks. aiter's own package is not imported (it builds native extensions on import).
The interpreter has no `fast_expf`/`fast_dividef` (libdevice): both versions get the same plain exp and
division in their place.
"""

import torch
import triton
import triton.language as tl
from _hand import module, stub_modules
from triton_migrate.verify.cases import case

stub_modules("aiter", "aiter.ops", "aiter.ops.triton", "aiter.ops.triton.utils", "aiter.ops.triton.utils._triton",
             "aiter.ops.triton.utils._triton.kernel_repr", "aiter.ops.triton.utils.core")
MODULES = {"hstu": "aiter/ops/triton/_triton_kernels/attention/hstu_attention.py"}
BLOCK = 32


@triton.jit
def _expf(x):
    return tl.exp(x)


@triton.jit
def _dividef(x, y):
    return x / y


def _forward(mod, device, lengths, causal, targets=None, heads=2, dim=32):
    mod.fast_expf, mod.fast_dividef = _expf, _dividef
    offsets = torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], device=device, dtype=torch.int64)
    total, longest = int(offsets[-1]), max(lengths)
    q, k, v = (torch.randn(total, heads, dim, device=device).to(torch.float16) for _ in range(3))
    out = torch.full_like(q, float("nan"))
    num_targets = torch.tensor(targets or [0] * len(lengths), device=device, dtype=torch.int64)
    grid = (triton.cdiv(longest, BLOCK), len(lengths) * heads)

    def launch():
        mod._hstu_attn_fwd[grid](
            q, k, v, None, offsets, num_targets, out, q.stride(0), q.stride(1), k.stride(0), k.stride(1),
            v.stride(0), v.stride(1), out.stride(0), out.stride(1), 0.25, heads, longest, 0, 0, 0,
            CAUSAL=causal, HAS_MULTIPLE_TARGETS=targets is not None, IS_DELTA_Q=False, ALLOW_TF32=False,
            BLOCK_D_Q=dim, BLOCK_D_V=dim, BLOCK_M=BLOCK, BLOCK_N=BLOCK, HAS_CONTEXTUAL_SEQ_LEN=False,
            HAS_MAX_ATTN_LEN=False, HAS_SORT_BY_LENGTH_INDICES=False)

    return launch, {"out": out}


@case(module("hstu"))
def causal(mod, device):
    return _forward(mod, device, [50, 77], causal=True)


@case(module("hstu"))
def full(mod, device):
    return _forward(mod, device, [45, 20, 70], causal=False)


@case(module("hstu"))
def causal_targets(mod, device):
    return _forward(mod, device, [90, 61], causal=True, targets=[5, 40])
