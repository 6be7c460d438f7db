"""What the two masked-pointer spellings compile to on NVIDIA sm_90, with the Triton this runs under (an
experiment, not a test; it needs no GPU).

    python benchmarks/experiments/ptx_compare.py MODULE_A MODULE_B        # modules of benchmarks/kernels/
    PYTHONPATH=.triton39 python benchmarks/experiments/ptx_compare.py ... # the same with Triton 3.9

On the H100 (Triton 3.6, the only Triton the GPU machine has) three kernels of the suite run slower in
today's spelling (an offset vector per axis, `o_m = pid_m * BM + tl.arange(0, BM).to(tl.int64)`) than in
a9fbbd1's (the block's corner as a scalar, the coordinates inside it): add_one 4097x4104, batched_transpose
64x1000x1000 and gated_chunks. Users migrate to run on Triton 3.9. This compiles those kernels from two
modules as the suite launches them (its constexprs, 16-byte aligned tensors and strides, as the JIT
specialises them) and prints, per kernel and module, the PTX's instruction count and the instructions that
differ between spellings: global loads and stores by width, 64-bit multiplies, 64-bit comparisons; on a
machine with a GPU, the registers and spills of the binary ptxas made of it.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import re
import sys
from pathlib import Path

import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernels"))

# kernel -> (argument types, constexprs as the suite passes them, arguments the JIT sees as multiples of 16)
KERNELS = {
    "add_one": ({"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32", "stride_xm": "i32",
                 "stride_ym": "i32"}, {"BM": 64, "BN": 128}, ("x_ptr", "y_ptr", "N", "stride_xm", "stride_ym")),
    "batched_transpose": ({"x_ptr": "*fp16", "y_ptr": "*fp16", "M": "i32", "N": "i32", "stride_xb": "i32",
                           "stride_xm": "i32", "stride_yb": "i32", "stride_yn": "i32"},
                          {"BLOCK_M": 64, "BLOCK_N": 64}, ("x_ptr", "y_ptr", "stride_xb", "stride_yb")),
    "gated_chunks": ({"k_ptr": "*fp16", "g_ptr": "*fp16", "o_ptr": "*fp16", "T": "i32"},
                     {"H": 16, "K": 64, "BT": 64}, ("k_ptr", "g_ptr", "o_ptr", "T")),
}
COUNTED = {
    "global loads/stores": r"\b(?:ld|st)\.global[.\w]*",
    "64-bit multiplies": r"\bmul\.(?:lo|wide)\.[su]64\b|\bmul\.wide\.[su]32\b",
    "64-bit comparisons": r"\bsetp\.\w+\.[su]64\b",
}


def compiled(module: str, kernel: str):
    fn = getattr(importlib.import_module(module), kernel)
    types, constexprs, aligned = KERNELS[kernel]
    index = {name: i for i, name in enumerate(fn.arg_names)}
    source = ASTSource(fn=fn, signature={n: "constexpr" if n in constexprs else types[n] for n in fn.arg_names},
                       constexprs={(index[n],): v for n, v in constexprs.items()},
                       attrs={(index[n],): [["tt.divisibility", 16]] for n in aligned})
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})


def registers(kernel) -> object:
    """Registers a thread uses and spills, from the loaded binary: only where there is a GPU to load it on."""
    try:
        kernel._init_handles()
    except Exception:  # noqa: BLE001  (no GPU, or no driver: the PTX alone is the answer)
        return "no GPU"
    return {"registers": kernel.n_regs, "spills": kernel.n_spills}


def summary(kernel) -> dict[str, object]:
    body = [line.strip() for line in kernel.asm["ptx"].splitlines()
            if line.strip() and not line.strip().startswith(("//", ".", "$", "{", "}"))]
    found = {"instructions": len(body), "sm_90 binary": registers(kernel)}
    for what, pattern in COUNTED.items():
        found[what] = dict(sorted(collections.Counter(m for line in body for m in re.findall(pattern, line)).items()))
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("modules", nargs=2)
    args = parser.parse_args()
    print(f"triton {triton.__version__}, sm_90")
    for kernel in KERNELS:
        for module in args.modules:
            print(f"{kernel:18} {module:16} {summary(compiled(module, kernel))}")


if __name__ == "__main__":
    main()
