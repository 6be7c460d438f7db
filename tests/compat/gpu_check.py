"""Hardware check of the compat shim (not collected by pytest): run on an NVIDIA GPU from the repository root,
``python tests/compat/gpu_check.py``.  Loads compat/ as triton_migrate.compat without installing the package.
Prints one JSON object: guard decisions + correctness on aligned / misaligned / odd-width tensors, the allocator from
a worker thread, and do_bench timings of the three implementations on two kernels."""

import importlib.util
import json
import sys
import threading
import types
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", message="tl.make_block_ptr is deprecated")
REPO = Path(__file__).resolve().parents[2]
if "triton_migrate" not in sys.modules:
    try:
        import triton_migrate.compat  # noqa: F401
    except ImportError:
        pkg = types.ModuleType("triton_migrate")
        pkg.__path__ = [str(REPO / "migrate")]
        sys.modules["triton_migrate"] = pkg
        spec = importlib.util.spec_from_file_location("triton_migrate.compat", REPO / "compat" / "__init__.py",
                                                      submodule_search_locations=[str(REPO / "compat")])
        mod = importlib.util.module_from_spec(spec)
        sys.modules["triton_migrate.compat"] = mod
        spec.loader.exec_module(mod)

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.testing import do_bench  # noqa: E402

import triton_migrate.compat as C  # noqa: E402


@triton.jit
def add1(x, y, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr, IMPL: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    hx = C.make_tile(x, (M, N), (sxm, 1), (BM, BN), "zero", IMPL)
    hy = C.make_tile(y, (M, N), (sym, 1), (BM, BN), "zero", IMPL)
    C.store(hy, (pm * BM, pn * BN), C.load(hx, (pm * BM, pn * BN)) + 1)


@triton.jit
def rowsum(x, out, M, N, sxm, BM: tl.constexpr, BN: tl.constexpr, IMPL: tl.constexpr):
    pm = tl.program_id(0)
    hx = C.make_tile(x, (M, N), (sxm, 1), (BM, BN), "zero", IMPL)
    ho = C.make_tile(out, (M, ), (1, ), (BM, ), "zero", IMPL)
    off = (pm * BM, 0)
    acc = tl.zeros((BM, ), tl.float32)
    for _ in range(0, tl.cdiv(N, BN)):
        acc += tl.sum(C.load(hx, off).to(tl.float32), axis=1)
        off = C.advance(off, (0, BN))
    C.store(ho, (pm * BM, ), acc)


guarded_add1 = C.guard(add1, stores=("y", ), diagnose=True)
BM, BN = 64, 128


def launch(x, y, impl=None, guarded=True):
    M, N = x.shape
    grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    if guarded:
        guarded_add1[grid](x, y, M, N, x.stride(0), y.stride(0), BM, BN)
        return guarded_add1.last_impl
    add1[grid](x, y, M, N, x.stride(0), y.stride(0), BM, BN, impl)
    return impl


def main():
    res = {"triton": triton.__version__, "torch": torch.__version__, "device": torch.cuda.get_device_name(),
           "capability": list(torch.cuda.get_device_capability()), "available": list(C.available()),
           "default": C.default_impl, "profile": C.device_profile()}
    res["ensure_allocator_main"] = C.ensure_allocator()
    res["ensure_allocator_main_again"] = C.ensure_allocator()

    # 1. aligned: descriptor path, TMA
    x = torch.randn(1000, 1000, device="cuda", dtype=torch.float16)
    y = torch.empty_like(x)
    impl = launch(x, y)
    torch.cuda.synchronize()
    res["aligned"] = {"impl": impl, "correct": bool(torch.equal(y, x + 1))}

    # 2. misaligned view (base + 2 B): the guard must pick the emulation (a descriptor would fault)
    base = torch.randn(1000, 1008, device="cuda", dtype=torch.float16)
    xv = base[:, 1:1001]
    yv = torch.empty(1000, 1000, device="cuda", dtype=torch.float16)
    impl = launch(xv, yv)
    torch.cuda.synchronize()
    res["misaligned_view"] = {"impl": impl, "correct": bool(torch.equal(yv, xv + 1)),
                              "reasons": guarded_add1.last_verdict.reasons}

    # 3. odd-width store into a wider sentinel buffer: guard -> emu, neighbours intact; unguarded desc overruns
    xs = torch.randn(256, 80, device="cuda", dtype=torch.float32)[:, :70]
    out = {}
    for mode in ("guarded", "desc-unguarded", "emu-unguarded"):
        buf = torch.full((256, 80), -7777.0, device="cuda")
        yo = buf[:, :70]
        if mode == "guarded":
            impl = launch(xs, yo)
        else:
            impl = launch(xs, yo, mode.split("-")[0], guarded=False)
        torch.cuda.synchronize()
        out[mode] = {"impl": impl, "correct": bool(torch.equal(yo, xs + 1)),
                     "clobbered_neighbours": int((buf[:, 70:] != -7777.0).sum().item())}
    res["odd_width_store"] = out

    # 4. threads: a fresh thread has no allocator (ContextVar); the guard installs one there
    def in_thread(fn):
        box = {}

        def body():
            try:
                box["value"] = fn()
            except Exception as e:  # noqa: BLE001
                box["error"] = f"{type(e).__name__}: {str(e)[:160]}"

        th = threading.Thread(target=body)
        th.start()
        th.join()
        return box

    def raw_desc():
        y2 = torch.empty_like(x)
        launch(x, y2, "desc", guarded=False)
        torch.cuda.synchronize()
        return bool(torch.equal(y2, x + 1))

    def guarded_desc():
        y2 = torch.empty_like(x)
        impl = launch(x, y2)
        torch.cuda.synchronize()
        return [impl, bool(torch.equal(y2, x + 1)), C.ensure_allocator()]

    res["thread_unguarded_desc"] = in_thread(raw_desc)
    res["thread_guarded"] = in_thread(guarded_desc)

    # 5. timings (ms, do_bench median) of the three implementations on two kernels
    t = {}
    xb = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    yb = torch.empty_like(xb)
    xr = torch.randn(4096, 4104, device="cuda", dtype=torch.float16)
    ob = torch.empty(4096, device="cuda", dtype=torch.float32)
    for impl in C.available():
        g = (triton.cdiv(8192, BM), triton.cdiv(8192, BN))
        t[f"add1_8192x8192_fp16|{impl}"] = round(do_bench(
            lambda: add1[g](xb, yb, 8192, 8192, 8192, 8192, BM, BN, impl)), 4)
        add1[g](xb, yb, 8192, 8192, 8192, 8192, BM, BN, impl)
        t[f"add1_ok|{impl}"] = bool(torch.equal(yb, xb + 1))
        gr = (triton.cdiv(4096, 64), )
        t[f"rowsum_4096x4104_fp16|{impl}"] = round(do_bench(
            lambda: rowsum[gr](xr, ob, 4096, 4104, xr.stride(0), 64, 128, impl)), 4)
        rowsum[gr](xr, ob, 4096, 4104, xr.stride(0), 64, 128, impl)
        t[f"rowsum_maxerr|{impl}"] = float((ob - xr.float().sum(1)).abs().max().item())
    res["timings_ms"] = t
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
