"""gpt-oss's attention with sinks through the module's own `attention`, as its test calls it (grouped
heads, causal from `start_q`, with and without a sliding window); fewer heads than the test, for the
interpreter, and fp16 where the test uses bf16 (see _hand.gemm_operands). The module pads queries and keys
to the 64-wide blocks, and the kernel reads keys up to `start_q` + the end of its query block (and, with a
window, from a start that is not a multiple of 64, one block further) without a bound: the cases keep every
block it reads inside the padded keys (past them the original reads beyond the buffer: a different result
on every run). No count is a multiple of 64."""

import torch
from _hand import module
from triton_migrate.verify.cases import case

MODULES = {"attention": "gpt_oss/triton/attention.py"}


def _attention(mod, device, num_queries, num_keys, sliding_window, start_q, batch=1, heads=2, groups=2):
    q = torch.randn(batch, num_queries, heads, groups, 64, device=device).half()
    k = torch.randn(batch, num_keys, heads, 64, device=device).half()
    v = torch.randn(batch, num_keys, heads, 64, device=device).half()
    sinks = torch.randn(heads * groups, device=device).half()
    start = torch.tensor([start_q], dtype=torch.int32, device=device)
    out = torch.full((batch, num_queries, heads * groups * 64), float("nan"), device=device, dtype=torch.float16)
    return (lambda: out.copy_(mod.attention(q, k, v, sinks, 0.125, sliding_window, start))), {"o": out}


@case(module("attention"))
def prefill(mod, device):
    return _attention(mod, device, num_queries=100, num_keys=100, sliding_window=None, start_q=0)


@case(module("attention"))
def sliding_window(mod, device):
    return _attention(mod, device, num_queries=70, num_keys=200, sliding_window=32, start_q=40, batch=2)


@case(module("attention"))
def decode(mod, device):
    return _attention(mod, device, num_queries=1, num_keys=100, sliding_window=None, start_q=60)
