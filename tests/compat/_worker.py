"""Interpreter worker for the compat tests: run in a subprocess with TRITON_INTERPRET=1 (and PYTHONPATH pointing at
another Triton when testing another version).  Runs every case with every implementation the installed Triton
provides and writes the raw output buffers to an .npz file: ``python _worker.py OUT.npz``.
"""

import json
import os
import sys
import warnings

assert os.environ.get("TRITON_INTERPRET") == "1", "run me under TRITON_INTERPRET=1"
warnings.filterwarnings("ignore", message="tl.make_block_ptr is deprecated")

import numpy as np  # noqa: E402
import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import triton_migrate.compat as C  # noqa: E402

#: physical layouts of the 3-D and row-sum cases.  The defaults use row pitches that are 16-byte but not 16-element
#: multiples (24 and 72 fp32); tests/compat/version_matrix.py switches to 32 and 80 for the 3.3-3.5 interpreters,
#: which check descriptor strides in elements (semantics brief 5.4).
PHYS3D = (6, 16, 24)
ROWSUM_PITCH = 72

SENT = {torch.float32: -7777.0, torch.float16: -77.0, torch.bfloat16: -77.0, torch.int32: -7777, torch.int8: -77}


@triton.jit
def copy2d(x, y, M, N, sxm, sym, OFF0, IMPL: tl.constexpr, PAD: tl.constexpr, BM: tl.constexpr,
           BN: tl.constexpr, LBC: tl.constexpr, SBC: tl.constexpr, LALL: tl.constexpr, SALL: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    hx = C.make_tile(x, (M, N), (sxm, 1), (BM, BN), PAD, IMPL)
    hy = C.make_tile(y, (M, N), (sym, 1), (BM, BN), PAD, IMPL)
    off = (pm * BM + OFF0, pn * BN)
    if LALL:
        v = C.load(hx, off)
    else:
        v = C.load(hx, off, LBC)
    if SALL:
        C.store(hy, off, v)
    else:
        C.store(hy, off, v, SBC)


@triton.jit
def copy1d(x, y, N, sx, IMPL: tl.constexpr, PAD: tl.constexpr, B: tl.constexpr, LBC: tl.constexpr,
           SBC: tl.constexpr, LALL: tl.constexpr, SALL: tl.constexpr):
    p = tl.program_id(0)
    hx = C.make_tile(x, (N, ), (1, ), (B, ), PAD, IMPL)
    hy = C.make_tile(y, (N, ), (1, ), (B, ), PAD, IMPL)
    if LALL:
        v = C.load(hx, (p * B, ))
    else:
        v = C.load(hx, (p * B, ), LBC)
    if SALL:
        C.store(hy, (p * B, ), v)
    else:
        C.store(hy, (p * B, ), v, SBC)


@triton.jit
def copy3d(x, y, A, M, N, sxa, sxm, sya, sym, IMPL: tl.constexpr, PAD: tl.constexpr, BA: tl.constexpr,
           BM: tl.constexpr, BN: tl.constexpr, LBC: tl.constexpr, SBC: tl.constexpr, LALL: tl.constexpr,
           SALL: tl.constexpr):
    pa = tl.program_id(0)
    pm = tl.program_id(1)
    pn = tl.program_id(2)
    hx = C.make_tile(x, (A, M, N), (sxa, sxm, 1), (BA, BM, BN), PAD, IMPL)
    hy = C.make_tile(y, (A, M, N), (sya, sym, 1), (BA, BM, BN), PAD, IMPL)
    off = (pa * BA, pm * BM, pn * BN)
    if LALL:
        v = C.load(hx, off)
    else:
        v = C.load(hx, off, LBC)
    if SALL:
        C.store(hy, off, v)
    else:
        C.store(hy, off, v, SBC)


@triton.jit
def rowsum(x, out, M, N, sxm, IMPL: tl.constexpr, PAD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    # K-loop with compat.advance on loop-carried integer offsets; fp32 accumulation
    pm = tl.program_id(0)
    hx = C.make_tile(x, (M, N), (sxm, 1), (BM, BN), PAD, IMPL)
    ho = C.make_tile(out, (M, ), (1, ), (BM, ), "zero", IMPL)
    off = (pm * BM, 0)
    acc = tl.zeros((BM, ), tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):
        acc += tl.sum(C.load(hx, off).to(tl.float32), axis=1)
        off = C.advance(off, (0, BN))
    C.store(ho, (pm * BM, ), acc)


@triton.jit
def which(x, out, N, IMPL: tl.constexpr, B: tl.constexpr, PAD: tl.constexpr):
    h = C.make_tile(x, (N, ), (1, ), (B, ), PAD, IMPL)
    tl.store(out, C.impl_of(h))


def _bc_arg(bc):
    """(LBC, LALL) kernel args for a boundary_check spec: None means 'all' (the default call)."""
    return ((0, ), True) if bc is None else (tuple(bc), False)


def make_buffers(dtype, phys_shape, view, y_shift, seed):
    """x: random data in a flat buffer; y: sentinel-filled flat buffer, view at element offset y_shift."""
    g = torch.Generator().manual_seed(seed)
    n = int(np.prod(phys_shape))
    if dtype.is_floating_point:
        xflat = torch.randn(n + 64, generator=g).to(dtype)
    else:
        xflat = torch.randint(-100, 100, (n + 64, ), generator=g, dtype=torch.int32).to(dtype)
    yflat = torch.full((n + 64 + y_shift, ), SENT[dtype], dtype=dtype)
    x = xflat[:n].view(phys_shape)[view]
    y = yflat[y_shift:y_shift + n].view(phys_shape)[view]
    return xflat, yflat, x, y


def cases():
    out = []
    f32, f16, i32 = torch.float32, torch.float16, torch.int32
    for dt, pads in ((f32, ("zero", "nan", "")), (f16, ("zero", "nan")), (i32, ("zero", ))):
        for pad in pads:
            for lbc, sbc in ((None, None), ((0, ), None), ((1, ), None), ((), None), ((0, 1), (0, 1)), (None, (0, )),
                             (None, (1, )), ((1, ), (0, )), ((1, ), (1, ))):
                out.append(dict(kind="2d", dtype=dt, pad=pad, lbc=lbc, sbc=sbc, off0=0))
    # negative / shifted outer offsets
    out.append(dict(kind="2d", dtype=f32, pad="nan", lbc=None, sbc=None, off0=-5))
    out.append(dict(kind="2d", dtype=f32, pad="zero", lbc=(1, ), sbc=(1, ), off0=3))
    for pad in ("zero", "nan"):
        for lbc, sbc in ((None, None), ((), None), (None, ())):
            out.append(dict(kind="1d", dtype=f32, pad=pad, lbc=lbc, sbc=sbc))
        for lbc, sbc in ((None, None), ((0, 2), None), ((1, ), (1, 2)), (None, (0, 1))):
            out.append(dict(kind="3d", dtype=f32, pad=pad, lbc=lbc, sbc=sbc))
    out.append(dict(kind="rowsum", dtype=f32, pad="zero"))
    out.append(dict(kind="rowsum", dtype=f16, pad="zero"))
    return out


def case_id(c):
    return "|".join(f"{k}={c[k]}" for k in sorted(c) if k != "dtype") + f"|dtype={str(c['dtype'])[6:]}"


def run_case(c, impl):
    """Returns dict name -> numpy array (raw flat buffers, viewed as integers so NaN payloads compare exactly)."""
    dt = c["dtype"]
    if c["kind"] == "2d":
        # logical 50 x 70 inside a physical 80 x 96 buffer (spare rows/cols absorb unchecked accesses)
        xflat, yflat, x, y = make_buffers(dt, (80, 96), (slice(6, 56), slice(0, 70)), 16, 1)
        lbc, lall = _bc_arg(c["lbc"])
        sbc, sall = _bc_arg(c["sbc"])
        copy2d[(4, 3)](x, y, 50, 70, x.stride(0), y.stride(0), c["off0"], impl, c["pad"], 16, 32, lbc, sbc, lall, sall)
    elif c["kind"] == "1d":
        xflat, yflat, x, y = make_buffers(dt, (128, ), (slice(0, 70), ), 32, 2)
        lbc, lall = _bc_arg(c["lbc"])
        sbc, sall = _bc_arg(c["sbc"])
        copy1d[(3, )](x, y, 70, 1, impl, c["pad"], 32, lbc, sbc, lall, sall)
    elif c["kind"] == "3d":
        xflat, yflat, x, y = make_buffers(dt, PHYS3D, (slice(0, 3), slice(0, 10), slice(0, 20)), 16, 3)
        lbc, lall = _bc_arg(c["lbc"])
        sbc, sall = _bc_arg(c["sbc"])
        copy3d[(2, 2, 2)](x, y, 3, 10, 20, x.stride(0), x.stride(1), y.stride(0), y.stride(1), impl, c["pad"], 2, 8,
                          16, lbc, sbc, lall, sall)
    else:
        g = torch.Generator().manual_seed(4)
        x = torch.randn(40, ROWSUM_PITCH, generator=g).to(dt)[:, :70]
        yflat = torch.full((64, ), -7777.0)
        rowsum[(3, )](x, yflat[8:48], 40, 70, x.stride(0), impl, c["pad"], 16, 32)
        xflat = x
    def raw(t):
        t = t.contiguous()
        return t.view(torch.int8).numpy().view({1: np.int8, 2: np.int16, 4: np.int32}[t.element_size()]).copy()

    return {"y": raw(yflat), "x": raw(xflat)}


def run_which():
    res = {}
    x8 = torch.zeros(64, dtype=torch.int8)
    xb = torch.zeros(64, dtype=torch.bool)
    x32 = torch.zeros(64, dtype=torch.float32)
    o = torch.zeros(1, dtype=torch.int32)
    for name, t, B, pad in (("f32_b32", x32, 32, "zero"), ("f32_b2", x32, 2, "zero"), ("bool_b32", xb, 32, "zero"),
                            ("i8_b16", x8, 16, "zero"), ("i8_b8", x8, 8, "zero"), ("f32_nan", x32, 32, "nan")):
        for impl in ("auto", ) + C.available():
            which[(1, )](t, o, 64, impl, B, pad)
            res[f"{name}|{impl}"] = int(o.item())
    return res


def main():
    path = sys.argv[1]
    arrays = {}
    meta = {"version": triton.__version__, "available": list(C.available()), "default": C.default_impl,
            "cases": [], "which": run_which()}
    for c in cases():
        cid = case_id(c)
        meta["cases"].append(cid)
        for impl in C.available():
            for k, v in run_case(c, impl).items():
                arrays[f"{cid}#{impl}#{k}"] = v
    np.savez(path, **arrays)
    with open(path + ".json", "w") as f:
        json.dump(meta, f)


if __name__ == "__main__":
    main()
