"""Launch the package's kernel in the interpreter and save its outputs (argv: OUT.pt)."""

import sys

import torch
from pkg import kernels

BM, BN = 16, 32


def launches():
    for M, N in [(32, 32), (37, 20)]:
        g = torch.Generator().manual_seed(M)
        # a view that starts mid-storage: the rows above it hold data that a missing lower bound would read
        x = torch.randint(-8, 8, (M + BM, BN), generator=g).float()[BM:, :N]
        out = torch.full((-(-M // BM) * BM, BN), float("nan"))
        kernels.rows_above[(-(-M // BM),)](x, out, M, N, x.stride(0), BM=BM, BN=BN)
        yield f"rows_above_{M}x{N}", out


if __name__ == "__main__":
    torch.save({name: t.clone() for name, t in launches()}, sys.argv[1])
