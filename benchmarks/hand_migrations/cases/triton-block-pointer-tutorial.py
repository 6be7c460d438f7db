"""The block-pointer matmul tutorial's kernels (plain and batched) through its own `matmul`, which allocates the
result: the case copies it into a buffer filled with a sentinel. fp16 on the GEMM_SHAPES (the ragged one
@unaligned), fp32 and int8 (its rows of 37 bytes @unaligned too)."""

import torch
from _hand import GEMM_SHAPES, gemm_cases, gemm_operands, module, pin_gemm, unaligned
from triton_migrate.verify.cases import case

MODULES = {"matmul": ("python/tutorials/10-experimental-block-pointer.py", "FP16_TYPES = ")}


def _matmul(mod, device, shape, dtype=torch.float16, accum_dtype=torch.float32, res_dtype=torch.float16):
    pin_gemm(mod.matmul_kernel_with_block_pointers, mod.matmul_kernel_with_block_pointers_batched)
    a, b, c = gemm_operands(device, shape, dtype)
    out = c.to(res_dtype)
    return (lambda: out.copy_(mod.matmul(a, b, accum_dtype, res_dtype))), {"c": out}


gemm_cases(module("matmul"), _matmul)


@case(module("matmul"))
def fp32_batched(mod, device):
    return _matmul(mod, device, GEMM_SHAPES["batched"], torch.float32, torch.float32, torch.float32)


@unaligned(module("matmul"))
def int8_ragged(mod, device):
    return _matmul(mod, device, GEMM_SHAPES["ragged"], torch.int8, torch.int32, torch.int32)
