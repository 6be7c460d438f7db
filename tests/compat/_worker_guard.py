"""Interpreter worker: a guarded @triton.jit kernel picks desc for aligned tensors and emu for misaligned views;
the unguarded descriptor path on the misaligned view fails (the interpreter asserts what TMA would fault on)."""

import json
import os
import threading
import warnings

assert os.environ.get("TRITON_INTERPRET") == "1"
warnings.filterwarnings("ignore", message="tl.make_block_ptr is deprecated")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402

import triton_migrate.compat as C  # noqa: E402


@C.guard(stores=("y", ))
@triton.jit
def add1(x, y, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr, IMPL: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    hx = C.make_tile(x, (M, N), (sxm, 1), (BM, BN), "zero", IMPL)
    hy = C.make_tile(y, (M, N), (sym, 1), (BM, BN), "zero", IMPL)
    C.store(hy, (pm * BM, pn * BN), C.load(hx, (pm * BM, pn * BN)) + 1)
    tl.store(y + M * sym, C.impl_of(hx).to(y.dtype.element_ty))  # impl marker one row past the logical end


def run(x, y, **kw):
    M, N = x.shape
    add1[(triton.cdiv(M, 16), triton.cdiv(N, 32))](x, y, M, N, x.stride(0), y.stride(0), 16, 32, **kw)


def main():
    res = {}
    x = torch.randn(40, 64)
    buf = torch.zeros(41, 64)
    run(x, buf[:40])
    res["aligned"] = [add1.last_impl, bool(torch.equal(buf[:40], x + 1)), float(buf[40, 0])]
    xb = torch.randn(40, 65)
    xv = xb[:, 1:]  # base + 4 B, row pitch 260 B
    buf = torch.zeros(41, 64)
    run(xv, buf[:40])
    res["misaligned"] = [add1.last_impl, bool(torch.equal(buf[:40], xv + 1)), float(buf[40, 0]),
                         add1.last_verdict.reasons]
    try:
        run(xv, torch.zeros(41, 64)[:40], IMPL="desc")  # explicit override bypasses the guard's choice
        res["forced_desc"] = "ran"
    except Exception as e:  # noqa: BLE001
        res["forced_desc"] = f"{type(e).__name__}: {str(e)[:200]}"
    box = []
    th = threading.Thread(target=lambda: (run(x, buf[:40]), box.append(add1.last_impl)))
    th.start()
    th.join()
    res["thread"] = box
    print(json.dumps(res))


if __name__ == "__main__":
    main()
