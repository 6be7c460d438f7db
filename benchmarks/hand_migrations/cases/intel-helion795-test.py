"""The Helion-generated matmul + bias + ReLU kernel of Intel's regression test. Its shapes are constants
(1024 × 1024), so every tile is whole; the case launches it directly (the module's launcher is Helion's)."""

import torch
import triton
from _hand import module, stub_modules
from triton_migrate.verify.cases import case

stub_modules("helion", "helion.runtime")
MODULES = {"helion": ("python/test/unit/intel/helion795.py", "bias = torch.ones")}


@case(module("helion"))
def matmul_bias_relu(mod, device):
    x = torch.randn(1024, 1024, device=device).to(torch.float16)
    y = (torch.randn(1024, 1024, device=device) / 32).to(torch.float16)
    bias = torch.randn(1, 1024, device=device).to(torch.float16)
    out = torch.full((1024, 1024), float("nan"), device=device, dtype=torch.float16)
    grid = (triton.cdiv(1024, 128) * triton.cdiv(1024, 128),)
    return (lambda: mod._helion_matmul[grid](x, y, bias, out, 128, 128, 64)), {"out": out}
