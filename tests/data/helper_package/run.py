"""Launch the package's kernels in the interpreter and save every output buffer (argv: OUT.pt)."""

import sys

import torch
from pkg import kernels

BM, BN = 16, 32


def launches():
    for M, N, even in [(32, 64, True), (37, 70, False)]:
        g = torch.Generator().manual_seed(M)
        width = N + 8 + (-N) % 4  # rows 16-byte aligned, as the descriptors require (`migrate report` lists it)
        x = torch.randint(-8, 8, (M, width), generator=g).float()[:, :N]
        sums = torch.full((M + 16,), float("nan"))
        kernels.row_sums[(triton_cdiv(M, BM),)](x, sums, M, N, x.stride(0), BM=BM, BN=BN, EVEN=even)
        y = torch.full((M + 2, width), float("nan"))
        view = y[1:M + 1, :N]
        kernels.scale[(triton_cdiv(M, BM) + 1, triton_cdiv(N, BN))](x, view, M, N, x.stride(0), y.stride(0), 3.0,
                                                                   BM=BM, BN=BN)
        yield f"row_sums_{M}x{N}", sums
        for reverse in (False, True):
            cols = torch.full((N + 16,), float("nan"))
            kernels.col_sums[(triton_cdiv(N, BN),)](x, cols, M, N, x.stride(0), BM=BM, BN=BN, REVERSE=reverse)
            yield f"col_sums_{M}x{N}_{'reverse' if reverse else 'forward'}", cols
        yield f"scale_{M}x{N}", y


def triton_cdiv(a, b):
    return -(-a // b)


if __name__ == "__main__":
    torch.save({name: t.clone() for name, t in launches()}, sys.argv[1])
