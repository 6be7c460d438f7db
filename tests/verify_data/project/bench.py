"""A script that launches the project's kernels (used by the verify tests and the GPU demonstration)."""

import sys

import torch

from kernels.ops import mm, scale

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"

if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 64
    g = torch.Generator().manual_seed(0)
    a = torch.randn(size, size, generator=g).to(DEVICE)
    b = torch.randn(size, size, generator=g).to(DEVICE)
    print(float(scale(a, 3.0).sum()), float(mm(a, b).sum()))
