import torch

from kernels.ops import mm, scale

DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


def test_scale():
    x = torch.randn(40, 72, generator=torch.Generator().manual_seed(0)).to(DEVICE)
    torch.testing.assert_close(scale(x, 0.5), x * 0.5)


def test_mm():
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(40, 48, generator=g).to(DEVICE), torch.randn(48, 64, generator=g).to(DEVICE)
    torch.testing.assert_close(mm(a, b), a @ b, rtol=1e-4, atol=1e-4)
