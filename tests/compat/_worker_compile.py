"""Compile-only worker (no GPU needed): compile a shim kernel for sm_80, sm_90 and gfx942 with each implementation;
print JSON {target|impl: "tma"/"no-tma"/"FAIL: ..."}.

``python _worker_compile.py [TARGETS]`` takes a comma-separated subset of sm_80, sm_90, gfx942, gfx1250 (default: the
first three; tests/compat/version_matrix.py adds gfx1250, where a descriptor lowered to TDM reports "tdm")."""

import json
import sys
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
TARGETS = {"sm_80": GPUTarget("cuda", 80, 32), "sm_90": GPUTarget("cuda", 90, 32),
           "gfx942": GPUTarget("hip", "gfx942", 64), "gfx1250": GPUTarget("hip", "gfx1250", 32)}
names = sys.argv[1].split(",") if len(sys.argv) > 1 else ["sm_80", "sm_90", "gfx942"]
res = {}
for t in (TARGETS[n] for n in names):
    for impl in C.available():
        try:
            k = triton.compile(ASTSource(fn=kern, signature=sig, constexprs={(6, ): 64, (7, ): 64, (8, ): impl}),
                               target=t)
            if "cp.async.bulk.tensor" in k.asm.get("ptx", ""):
                res[f"{t.arch}|{impl}"] = "tma"
            elif "tensor_load_to_lds" in k.asm.get("amdgcn", ""):
                res[f"{t.arch}|{impl}"] = "tdm"
            else:
                res[f"{t.arch}|{impl}"] = "no-tma"
        except Exception as e:  # noqa: BLE001
            res[f"{t.arch}|{impl}"] = "FAIL: " + str(e)[-300:]
print(json.dumps(res))
