"""The fused-attention tutorial's block-pointer forward kernel (`_attn_fwd`; its descriptor twin and the
backward kernels had no block pointers), launched as the tutorial's `forward` launches it when there is no
TMA. Its loads have no boundary check: the tutorial requires N_CTX to be a multiple of the blocks."""

import triton
from _hand import attention_tensors, cpu_driver, module, pin
from triton_migrate.verify.cases import case

cpu_driver()
MODULES = {"attention": "python/tutorials/06-fused-attention.py"}


def _forward(mod, device, z, h, n_ctx, causal, head_dim=64):
    pin(mod._attn_fwd, BLOCK_M=32, BLOCK_N=32)
    q, k, v, o, m = attention_tensors(device, z, h, n_ctx, head_dim)
    grid = (triton.cdiv(n_ctx, 32), z * h, 1)

    def launch():
        mod._attn_fwd[grid](q, k, v, 0.5, m, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(), z, h,
                            N_CTX=n_ctx, HEAD_DIM=head_dim, STAGE=3 if causal else 1)

    return launch, {"o": o, "m": m}


@case(module("attention"))
def causal(mod, device):
    return _forward(mod, device, 1, 2, 128, causal=True)


@case(module("attention"))
def full(mod, device):
    return _forward(mod, device, 2, 1, 96, causal=False)
