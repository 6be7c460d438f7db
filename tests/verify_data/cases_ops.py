"""Explicit cases for project/kernels/ops.py (cases mode: `migrate verify cases cases_ops.py`)."""

import torch

from triton_migrate.verify.cases import case


@case("project/kernels/ops.py")
def scale_40x72(mod, device):
    x = torch.randn(40, 72, device=device)
    y = torch.empty_like(x)
    return (lambda: mod.scale_rows[(3, )](x, y, 40, 72, x.stride(0), y.stride(0), 0.5, BM=16, BN=32)), {"y": y}


@case("project/kernels/ops.py")
def matmul_40x48x64(mod, device):
    a, b = torch.randn(40, 48, device=device), torch.randn(48, 64, device=device)
    c = torch.full((40, 64), float("nan"), device=device)
    return (lambda: mod.matmul[(3, 2)](a, b, c, 40, 64, 48, a.stride(0), b.stride(0), c.stride(0),
                                       BM=16, BN=32, BK=16)), {"c": c}
