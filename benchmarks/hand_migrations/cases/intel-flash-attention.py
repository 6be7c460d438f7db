"""The block-pointer FlashAttention forward of Intel's benchmark (`_attn_fwd_with_block_pointers`, K and V
advanced in `_attn_fwd_inner`), launched as the benchmark's `forward` launches it, with both of its program
layouts (N_CTX up to 512 and above). Its loads have no boundary check: N_CTX is a multiple of the blocks."""

import triton
from _hand import attention_tensors, module, stub_modules
from triton_migrate.verify.cases import case

stub_modules("triton_kernels_benchmark")
MODULES = {"attention": "benchmarks/triton_kernels_benchmark/flash_attention_benchmark.py"}
BLOCK = 32


def _forward(mod, device, z, h, n_ctx, causal, head_dim=64):
    q, k, v, o, m = attention_tensors(device, z, h, n_ctx, head_dim)
    blocks = triton.cdiv(n_ctx, BLOCK)
    grid = (blocks, 1, z * h) if n_ctx <= 512 else (z, h, blocks)

    def launch():
        mod._attn_fwd_with_block_pointers[grid](
            q, k, v, 0.5, m, o, *q.stride(), *k.stride(), *v.stride(), *o.stride(), z, h, N_CTX=n_ctx,
            BLOCK_M=BLOCK, BLOCK_DMODEL=head_dim, BLOCK_N=BLOCK, STAGE=3 if causal else 1)

    return launch, {"o": o, "m": m}


@case(module("attention"))
def causal(mod, device):
    return _forward(mod, device, 2, 2, 96, causal=True)


@case(module("attention"))
def full(mod, device):
    return _forward(mod, device, 1, 2, 128, causal=False)


@case(module("attention"))
def long_causal(mod, device):
    return _forward(mod, device, 1, 1, 544, causal=True)
