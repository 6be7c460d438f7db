"""Block-pointer kernels that `migrate --target compat` turns into compat tiles, with the launches that exercise
them: every padding (`""`, `"zero"`, `"nan"`), ranks 1 to 3, loads and stores, `boundary_check` subsets, an
in-kernel varlen base offset (`q + (bos * H + i_h) * K`, head dim 60) and views that start one element into their
storage. Shared by the compile-only test, the interpreter test and tests/compat/gpu_regression.py.

`launches(torch, device, layout)` lists `(name, kernel, grid, args, outputs)`: `outputs` are the indices of the
arguments the kernel writes. Sizes keep every unchecked dimension in bounds, so all of them are defined reads.
"""

import triton
import triton.language as tl


@triton.jit
def tiles2d(x, y, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr):
    pm = tl.program_id(0)
    p = tl.make_block_ptr(x, (M, N), (sxm, 1), (pm * BM, 0), (BM, BN), (1, 0))
    q = tl.make_block_ptr(y, (M, N), (sym, 1), (pm * BM, 0), (BM, BN), (1, 0))
    first = tl.load(p)  # nothing checked: N >= BN and M is a multiple of BM
    for _ in range(0, tl.cdiv(N, BN)):
        a = tl.load(p, boundary_check=(0, 1), padding_option="nan")
        b = tl.load(p, boundary_check=(1, ), padding_option="zero")
        c = tl.load(p, boundary_check=(1, ), padding_option="")
        tl.store(q, a + b * 2 + c * 3 + first, boundary_check=(0, 1))
        p = tl.advance(p, (0, BN))
        q = tl.advance(q, (0, BN))


@triton.jit
def rows1d(x, y, N, B: tl.constexpr):
    pid = tl.program_id(0)
    p = tl.make_block_ptr(x, (N, ), (1, ), (pid * B, ), (B, ), (0, ))
    q = tl.make_block_ptr(y, (N, ), (1, ), (pid * B, ), (B, ), (0, ))
    v = tl.load(p, boundary_check=(0, ), padding_option="nan")
    tl.store(q, v * 2, boundary_check=(0, ))


@triton.jit
def batched3d(x, y, M, N, sxb, sxm, syb, sym, BM: tl.constexpr, BN: tl.constexpr):
    pb = tl.program_id(0)
    pm = tl.program_id(1)
    p = tl.make_block_ptr(x, (4, M, N), (sxb, sxm, 1), (pb, pm * BM, 0), (1, BM, BN), (2, 1, 0))
    q = tl.make_block_ptr(y, (4, M, N), (syb, sym, 1), (pb, pm * BM, 0), (1, BM, BN), (2, 1, 0))
    v = tl.load(p, boundary_check=(1, 2), padding_option="zero")
    tl.store(q, v + 1, boundary_check=(1, 2))
    tl.store(q, v - 1, boundary_check=(0, 1, 2))


@triton.jit
def varlen_heads(q, o, cu_seqlens, H, K: tl.constexpr, BT: tl.constexpr, BK: tl.constexpr):
    """The flash-linear-attention layout: packed sequences of heads of K elements, the base moved in the kernel."""
    i_t = tl.program_id(0)
    i_n = tl.program_id(1)
    i_h = tl.program_id(2)
    bos = tl.load(cu_seqlens + i_n)
    T = tl.load(cu_seqlens + i_n + 1) - bos
    p_q = tl.make_block_ptr(q + (bos * H + i_h) * K, (T, K), (H * K, 1), (i_t * BT, 0), (BT, BK), (1, 0))
    p_o = tl.make_block_ptr(o + (bos * H + i_h) * K, (T, K), (H * K, 1), (i_t * BT, 0), (BT, BK), (1, 0))
    v = tl.load(p_q, boundary_check=(0, 1))
    tl.store(p_o, v * 2 + 1, boundary_check=(0, 1))


#: layouts: "aligned" (16-byte bases, pitches, heads), "shifted" (every tensor a view one element into its storage)
LAYOUTS = ("aligned", "shifted")


def launches(torch, device, layout="aligned"):
    gen = torch.Generator().manual_seed(1)
    shift = 1 if layout == "shifted" else 0

    def tensor(shape, dtype, fill):
        count = 1
        for s in shape:
            count *= s
        if fill:
            flat = (torch.randn(count + shift, generator=gen) * 4).to(dtype)
        else:
            flat = torch.zeros(count + shift, dtype=dtype)
        return flat[shift:].view(*shape).to(device)

    M, N = 64, 80
    x2, y2 = tensor((M, N), torch.float32, True), tensor((M, N), torch.float32, False)
    x1, y1 = tensor((100, ), torch.float16, True), tensor((100, ), torch.float16, False)
    x3, y3 = tensor((4, 40, 24), torch.float32, True), tensor((4, 40, 24), torch.float32, False)
    H, K = 4, 60  # the row pitch H * K x 2 B = 480 B is aligned, a head start (K x 2 B = 120 B) is not
    cu = torch.tensor([0, 5, 37, 50], dtype=torch.int32).to(device)
    q, o = tensor((50, H, K), torch.float16, True), tensor((50, H, K), torch.float16, False)
    return [
        ("tiles2d", "tiles2d", (M // 16, ), (x2, y2, M, N, x2.stride(0), y2.stride(0), 16, 32), (1, )),
        ("rows1d", "rows1d", (4, ), (x1, y1, 100, 32), (1, )),
        ("batched3d", "batched3d", (4, 3), (x3, y3, 40, 24, x3.stride(0), x3.stride(1), y3.stride(0),
                                            y3.stride(1), 16, 16), (1, )),
        ("varlen_heads", "varlen_heads", (2, 3, H), (q, o, cu, H, K, 16, 64), (1, )),
    ]
