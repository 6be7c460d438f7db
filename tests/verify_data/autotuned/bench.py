"""Forward and backward through autograd: the launches `migrate verify` and `migrate tune` record."""

import torch

from kernels.rows import RowSum

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

if __name__ == "__main__":
    g = torch.Generator().manual_seed(0)
    x = torch.randn(40, 100, generator=g).to(DEVICE).requires_grad_()
    weights = torch.randn(40, generator=g).to(DEVICE)
    (RowSum.apply(x) * weights).sum().backward()
    print(float(x.grad.sum()))
