"""The cases: which kernel module each one launches, and on what.

A case is a function `(mod, device) -> {name: (tensor, covered)}` that launches the kernels of `mod` (the original
module or a migrated copy of it) and returns every output: `tensor` is the whole storage the output lives in (the
output view plus a sentinel margin around it), `covered` a bool mask of the cells the output view owns. Every
other cell must still hold the sentinel afterwards. Inputs are deterministic (seeded on the CPU), so two runs of
a case differ only where the kernels differ.

Only torch is imported here, not triton: the caller decides when triton is imported (`TRITON_INTERPRET`, the
Triton 3.9 path).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
if str(FIXTURES) not in sys.path:
    sys.path.insert(0, str(FIXTURES))

from _harness_util import sentinel_fill  # noqa: E402  (the sentinels the bit comparison knows)

# the margin every output gets on each side of its storage, in elements (64 bytes in fp16)
MARGIN = 32


@dataclass(frozen=True)
class Case:
    name: str
    module: str  # a file of kernels/, without .py
    run: Callable
    about: str


def randn(shape, dtype, device, seed, scale=1.0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g) * scale).to(dtype).to(device)


def in_storage(shape, dtype, device, lead=MARGIN, strides=None):
    """An output view of `shape` (`strides`: default contiguous) starting `lead` elements into a flat,
    sentinel-filled storage with MARGIN elements after its last cell. Returns `(view, storage)`."""
    strides = strides or torch.empty(shape).stride()
    span = 1 + sum((n - 1) * s for n, s in zip(shape, strides))
    storage = sentinel_fill(torch.empty(lead + span + MARGIN, dtype=dtype, device=device))
    return storage.as_strided(shape, strides, lead), storage


def covered(view, storage):
    """The cells of `storage` that `view` owns."""
    index = torch.arange(storage.numel()).as_strided(view.shape, view.stride(), view.storage_offset())
    mask = torch.zeros(storage.numel(), dtype=torch.bool)
    mask[index.reshape(-1)] = True
    return mask


def outputs(**views_and_storages):
    return {name: (storage.cpu(), covered(view, storage)) for name, (view, storage) in views_and_storages.items()}


def plain(**tensors):
    """Outputs that torch allocated itself (no margin to check)."""
    return {name: (t.detach().cpu(), torch.ones(t.shape, dtype=torch.bool)) for name, t in tensors.items()}


# --------------------------------------------------------------------------- chunk_o (fla)
def _chunk_o(mod, device, dtype, H, K, seqlens=None, B=1, T=None):
    cu_seqlens = None
    if seqlens is not None:
        cu_seqlens = torch.tensor([0] + seqlens, dtype=torch.int32).cumsum(0).to(torch.int32).to(device)
        T = sum(seqlens)
    q, k, v = (randn((B, T, H, K), dtype, device, seed, 0.5) for seed in (1, 2, 3))
    o = in_storage((B, T, H, K), dtype, device)
    mod.chunk_fwd_o(q, k, v, o[0], K**-0.5, cu_seqlens=cu_seqlens)
    return outputs(o=o)


def chunk_o_k64_fp32(mod, device):
    return _chunk_o(mod, device, torch.float32, H=2, K=64, B=2, T=40)


def chunk_o_varlen_k60_fp16(mod, device):
    return _chunk_o(mod, device, torch.float16, H=2, K=60, seqlens=[13, 27, 17])


def chunk_o_varlen_k100_bf16(mod, device):
    return _chunk_o(mod, device, torch.bfloat16, H=2, K=100, seqlens=[5, 32, 11])


# --------------------------------------------------------------------------- attention (Triton tutorial)
def _attention(mod, device, dtype, q, k, v, D):
    Z, H, N = q.shape[:3]
    o = in_storage((Z, H, N, D), dtype, device)
    mod.attention(q, k, v, o[0], D**-0.5)
    return outputs(o=o)


def attention_d64_fp16(mod, device):
    q, k, v = (randn((1, 2, 40, 64), torch.float16, device, seed) for seed in (4, 5, 6))
    return _attention(mod, device, torch.float16, q, k, v, 64)


def attention_bnhd_d60_fp16(mod, device):
    # [Z, N, H, D] tensors seen as [Z, H, N, D]: each head starts H*60*2 = 120 bytes after the previous one
    q, k, v = (randn((1, 40, 2, 60), torch.float16, device, seed).transpose(1, 2) for seed in (4, 5, 6))
    return _attention(mod, device, torch.float16, q, k, v, 60)


def attention_k_transposed_fp16(mod, device):
    # k kept as [Z, H, D, N] (a K-cache laid out for K^T) and passed transposed: its unit stride is along N
    q, v = (randn((1, 2, 40, 64), torch.float16, device, seed) for seed in (4, 6))
    k = randn((1, 2, 64, 40), torch.float16, device, 5).transpose(2, 3)
    return _attention(mod, device, torch.float16, q, k, v, 64)


def attention_sliced_rows_fp32(mod, device):
    # q and v sliced out of wider rows (65 floats: a row stride of 260 bytes), k transposed ([Z, H, D, N] storage)
    q = randn((1, 2, 40, 65), torch.float32, device, 7)[..., :64]
    k = randn((1, 2, 64, 40), torch.float32, device, 8).transpose(2, 3)
    v = randn((1, 2, 40, 65), torch.float32, device, 9)[..., 1:]
    return _attention(mod, device, torch.float32, q, k, v, 64)


# --------------------------------------------------------------------------- l2norm (fla) and rms norm (tutorial)
def l2norm_rows_d60_fp16(mod, device):
    x = randn((37, 60), torch.float16, device, 10)
    y = in_storage((37, 60), torch.float16, device)
    rstd = in_storage((37,), torch.float32, device)
    mod.l2norm_fwd(x, y[0], rstd[0])
    return outputs(y=y, rstd=rstd)


def l2norm_autograd_d64_bf16(mod, device):
    # forward and backward through a torch.autograd.Function: on CUDA the backward kernel is launched on
    # autograd's own thread, where the allocator the runner installed in the main thread is not set
    x = randn((3, 13, 64), torch.bfloat16, device, 11).requires_grad_()
    dy = randn((3, 13, 64), torch.bfloat16, device, 12)
    y = mod.l2norm(x)
    y.backward(dy)
    return plain(y=y, dx=x.grad)


def matmul_autograd_fp16(mod, device):
    # a K loop into tl.dot, where the default keeps (guarded) descriptors; backward runs on autograd's thread
    a = randn((100, 96), torch.float16, device, 15).requires_grad_()
    b = randn((96, 64), torch.float16, device, 16).requires_grad_()
    dc = randn((100, 64), torch.float16, device, 17)
    c = mod.matmul_autograd(a, b)
    c.backward(dc)
    return plain(c=c, da=a.grad, db=b.grad)


def rms_norm_mid_storage_fp32(mod, device):
    # x = buf[3:].view(M, N): the rows start 12 bytes into the storage, sentinels around them
    buf = sentinel_fill(torch.empty(3 + 5 * 100 + MARGIN, dtype=torch.float32, device=device))
    x = buf[3 : 3 + 5 * 100].view(5, 100)
    x.copy_(randn((5, 100), torch.float32, device, 13))
    w = randn((100,), torch.float32, device, 14)
    y = in_storage((5, 100), torch.float32, device)
    mod.rms_norm(x, w, y[0])
    return outputs(y=y)


def rms_norm_sliced_rows_bf16(mod, device):
    # x[:, :100] of a [M, 103] tensor: a row stride of 206 bytes; y is a slice of wider rows as well
    x = randn((6, 103), torch.bfloat16, device, 15)[:, :100]
    w = randn((100,), torch.bfloat16, device, 16)
    y = in_storage((6, 100), torch.bfloat16, device, strides=(103, 1))
    mod.rms_norm(x, w, y[0])
    return outputs(y=y)


# --------------------------------------------------------------------------- axpy (1-D)
def axpy_fp16(mod, device):
    x, y = (randn((200,), torch.float16, device, seed) for seed in (17, 18))
    out = in_storage((200,), torch.float16, device)
    mod.axpy(x, y, out[0], 0.5)
    return outputs(out=out)


def axpy_mid_storage_fp32(mod, device):
    # x[1:] and an output that starts one element into its storage
    x = randn((201,), torch.float32, device, 19)[1:]
    y = randn((200,), torch.float32, device, 20)
    out = in_storage((200,), torch.float32, device, lead=MARGIN + 1)
    mod.axpy(x, y, out[0], 0.5)
    return outputs(out=out)


CASES = [
    Case("chunk_o_k64_fp32", "chunk_o", chunk_o_k64_fp32, "fla chunk_fwd_kernel_o, fixed length, aligned (control)"),
    Case("chunk_o_varlen_k60_fp16", "chunk_o", chunk_o_varlen_k60_fp16, "fla chunk_o, cu_seqlens, head dim 60"),
    Case("chunk_o_varlen_k100_bf16", "chunk_o", chunk_o_varlen_k100_bf16, "fla chunk_o, cu_seqlens, head dim 100"),
    Case("attention_d64_fp16", "attention", attention_d64_fp16, "tutorial attention, contiguous (control)"),
    Case("attention_bnhd_d60_fp16", "attention", attention_bnhd_d60_fp16,
         "tutorial attention, [Z,N,H,D] transposed, D=60"),
    Case("attention_k_transposed_fp16", "attention", attention_k_transposed_fp16, "tutorial attention, k transposed"),
    Case("attention_sliced_rows_fp32", "attention", attention_sliced_rows_fp32,
         "tutorial attention, sliced rows, k transposed"),
    Case("l2norm_rows_d60_fp16", "l2norm", l2norm_rows_d60_fp16, "fla l2norm forward, D=60"),
    Case("l2norm_autograd_d64_bf16", "l2norm", l2norm_autograd_d64_bf16,
         "fla l2norm through autograd (GPU: backward thread)"),
    Case("matmul_autograd_fp16", "matmul", matmul_autograd_fp16, "GEMM K loop through autograd (GPU: backward thread)"),
    Case("rms_norm_mid_storage_fp32", "rms_norm", rms_norm_mid_storage_fp32, "row norm, x = buf[3:].view(M, N)"),
    Case("rms_norm_sliced_rows_bf16", "rms_norm", rms_norm_sliced_rows_bf16, "row norm, x[:, :100] of [M, 103]"),
    Case("axpy_fp16", "axpy", axpy_fp16, "1-D kernel, aligned (control)"),
    Case("axpy_mid_storage_fp32", "axpy", axpy_mid_storage_fp32, "1-D kernel, x[1:], output mid-storage"),
]

BY_NAME = {case.name: case for case in CASES}
