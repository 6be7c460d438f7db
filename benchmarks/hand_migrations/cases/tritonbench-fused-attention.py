"""Tritonbench's fused-attention forward on its block-pointer path (`_attn_fwd`, ENABLE_TMA and ENABLE_WS off:
the path the humans moved to pointers), causal and not. Its K and V loads have no boundary check: N_CTX is a
multiple of the blocks, as in the tutorial it comes from. The kernel casts P to bfloat16 for the second dot,
so V and O are bfloat16, and Triton 3.8's interpreter multiplies bfloat16 values as their raw bit patterns:
O is then meaningless as attention but still a function of every bit each version loads."""

import torch
import triton
from _hand import attention_tensors, module, pin
from triton_migrate.verify.cases import case

MODULES = {"attention": "tritonbench/kernels/triton_fused_attention.py"}
BLOCK = 32


def _forward(mod, device, z, h, n_ctx, causal, head_dim=64):
    pin(mod._attn_fwd, BLOCK_M=BLOCK, BLOCK_N=BLOCK, ENABLE_TMA=False, LOOP_SCHEDULE="default")
    q, k, v, o, m = attention_tensors(device, z, h, n_ctx, head_dim, v_dtype=torch.bfloat16)
    grid = (triton.cdiv(n_ctx, BLOCK), z * h, 1)

    def launch():
        mod._attn_fwd[grid](q, k, v, 0.5, m, o, None, None, None, None, *q.stride(), *k.stride(), *v.stride(),
                            *o.stride(), z, h, n_ctx, HEAD_DIM=head_dim, STAGE=3 if causal else 1, ENABLE_WS=False)

    return launch, {"o": o, "m": m}


@case(module("attention"))
def causal(mod, device):
    return _forward(mod, device, 1, 2, 128, causal=True)


@case(module("attention"))
def full(mod, device):
    return _forward(mod, device, 2, 1, 96, causal=False)
