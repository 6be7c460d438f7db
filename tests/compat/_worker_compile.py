"""Compile-only worker (no GPU needed): compile a shim kernel for sm_80, sm_90 and gfx942 with each implementation;
print JSON {target|impl: "tma"/"no-tma"/"FAIL: ..."}."""

import json
import warnings

warnings.filterwarnings("ignore", message="tl.make_block_ptr is deprecated")

import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.compiler import ASTSource  # noqa: E402

import triton_migrate.compat as C  # noqa: E402


@triton.jit
def kern(x, y, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr, IMPL: tl.constexpr):
    pm = tl.program_id(0)
    hx = C.make_tile(x, (M, N), (sxm, 1), (BM, BN), "nan", IMPL)
    hy = C.make_tile(y, (M, N), (sym, 1), (BM, BN), "zero", IMPL)
    off = (pm * BM, 0)
    for _ in range(0, tl.cdiv(N, BN)):
        v = C.load(hx, off)
        w = C.load(hx, off, (0, ))
        C.store(hy, off, v + w)
        off = C.advance(off, (0, BN))


sig = {"x": "*fp16", "y": "*fp16", "M": "i32", "N": "i32", "sxm": "i32", "sym": "i32", "BM": "constexpr",
       "BN": "constexpr", "IMPL": "constexpr"}
res = {}
for t in (GPUTarget("cuda", 80, 32), GPUTarget("cuda", 90, 32), GPUTarget("hip", "gfx942", 64)):
    for impl in C.available():
        try:
            k = triton.compile(ASTSource(fn=kern, signature=sig, constexprs={(6, ): 64, (7, ): 64, (8, ): impl}),
                               target=t)
            res[f"{t.arch}|{impl}"] = "tma" if "cp.async.bulk.tensor" in k.asm.get("ptx", "") else "no-tma"
        except Exception as e:  # noqa: BLE001
            res[f"{t.arch}|{impl}"] = "FAIL: " + str(e)[-300:]
print(json.dumps(res))
