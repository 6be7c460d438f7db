"""attention-gym's KDA (Kimi delta attention) Triton kernels through their own launchers: the output kernel
(`chunk_gla_fwd_o_gk`) and the inter-chunk state recurrence (`chunk_gated_delta_rule_fwd_h`). Both launchers
take complete 64-token chunks only; the value width is not a multiple of the 64-wide value blocks. The other
two migrated kernels (`chunk_kda_bwd_kernel_dAv`, `chunk_kda_fwd_kernel_intra_sub_chunk_forloop`) are launched
only from the CuTe DSL paths and have no case here. The kernels call `exp2`, which attention-gym binds at
import to `tl.math.exp2` or libdevice's: the interpreter only runs it through a jitted function, which both
versions get in its place. Inputs are float32: with bfloat16 ones the interpreter's results are
garbage (|o| ~ 1e11 for inputs of order 1, in both versions alike).
"""

import sys

import torch
import triton
import triton.language as tl
from _hand import module
from triton_migrate.verify.cases import case

MODULES = {"output": "attn_gym/linear/kda/fwd/triton/chunk_gla_fwd_o.py",
           "state": "attn_gym/linear/kda/fwd/triton/chunk_delta_h.py"}
NEEDS = ["attn_gym"]  # the modules import `attn_gym.linear.kda.utils` from their repository
sys.path.insert(0, module("output").removesuffix(MODULES["output"]))
B, T, H, K, V, CHUNK = 1, 128, 2, 64, 80, 64


@triton.jit
def _exp2(x):
    return tl.math.exp2(x)


def _gates(device):
    return -(torch.rand(B, T, H, K, device=device) * 0.1).cumsum(1).view(B, T // CHUNK, CHUNK, H, K).cumsum(2) \
        .view(B, T, H, K) / T


@case(module("output"))
def output(mod, device):
    mod.exp2 = _exp2
    q = torch.randn(B, T, H, K, device=device).float()
    v = torch.randn(B, T, H, V, device=device).float()
    a = (torch.randn(B, T, H, CHUNK, device=device) / CHUNK).float()
    h = (torch.randn(B, T // CHUNK, H, K, V, device=device) / K).float()
    g = _gates(device)
    out = torch.full_like(v, float("nan"))
    return (lambda: out.copy_(mod.chunk_gla_fwd_o_gk(q, v, g, a, h, K ** -0.5, chunk_size=CHUNK))), {"o": out}


@case(module("state"))
def state(mod, device):
    mod.exp2 = _exp2
    k = (torch.randn(B, T, H, K, device=device) / 8).float()
    w = (torch.randn(B, T, H, K, device=device) / 8).float()
    u = torch.randn(B, T, H, V, device=device).float()
    h0 = torch.randn(B, H, K, V, device=device)
    results = {"h": torch.full((B, T // CHUNK, H, K, V), float("nan"), device=device),
               "v_new": torch.full_like(u, float("nan")),
               "final": torch.full((B, H, K, V), float("nan"), device=device)}
    gk = _gates(device)

    def launch():
        for name, value in zip(results, mod.chunk_gated_delta_rule_fwd_h(k, w, u, gk, h0, chunk_size=CHUNK)):
            results[name].copy_(value)

    return launch, results
