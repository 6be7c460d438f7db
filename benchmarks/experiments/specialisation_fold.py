"""Can a kernel choose its form from the alignment Triton already specialises on? (issue 35; an experiment,
not a test; it needs no GPU.)

    PYTHONPATH=.triton36 python benchmarks/experiments/specialisation_fold.py
    PYTHONPATH=.triton39 python benchmarks/experiments/specialisation_fold.py

Triton's JIT keys each compiled kernel on whether every pointer and integer argument is a multiple of 16,
and passes that to the compiler as `tt.divisibility`. If the compiler folded a branch on that alignment, a
guarded kernel could test it in its own body: no Python at launch, the aligned compilation holding only
the descriptor path and the other one only the masked-pointer path. `chosen` below branches on the
alignment of its pointer and stride, and is compiled for NVIDIA sm_90 twice: once with the two arguments
specialised as multiples of 16, as the JIT compiles an aligned launch, and once without. For each it prints
whether the branch is still in the TTGIR, how many TMA and plain global loads the PTX has, and the global
scratch memory asked of the allocator at every launch. Triton 3.6 and 3.9, 2026-11-28: nothing folds. Both
compilations keep both paths and ask for 128 bytes of scratch: every compilation would carry both forms,
an aligned launch would still branch at run time, and every launch, aligned or not, would still call the
allocator (about 1 us on an H200, launch_floor.py).
"""

from __future__ import annotations

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

SIGNATURE = {"x_ptr": "*fp16", "y_ptr": "*fp16", "n": "i32", "stride": "i32", "BLOCK": "constexpr"}
ALIGNED = {(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]], (3,): [["tt.divisibility", 16]]}


@triton.jit
def chosen(x_ptr, y_ptr, n, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK + tl.arange(0, BLOCK)
    cols = tl.arange(0, BLOCK)
    if (x_ptr.to(tl.int64, bitcast=True) % 16 == 0) & (stride % 8 == 0):
        tile = tl.make_tensor_descriptor(x_ptr, [n, n], [stride, 1], [BLOCK, BLOCK]).load([pid * BLOCK, 0])
    else:
        mask = (rows[:, None] < n) & (cols[None, :] < n)
        tile = tl.load(x_ptr + rows[:, None] * stride + cols[None, :], mask=mask, other=0.0)
    tl.store(y_ptr + rows[:, None] * BLOCK + cols[None, :], tile)


def main() -> None:
    print(f"Triton {triton.__version__}, sm_90")
    for label, attrs in (("pointer and stride multiples of 16", ALIGNED), ("no specialisation", {})):
        source = ASTSource(fn=chosen, signature=SIGNATURE, constexprs={"BLOCK": 64}, attrs=attrs)
        kernel = triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})
        ptx = kernel.asm["ptx"]
        print(f"  {label:36} branch kept: {'scf.if' in kernel.asm['ttgir']!s:5}  "
              f"TMA loads: {ptx.count('cp.async.bulk.tensor')}  global loads: {ptx.count('ld.global')}  "
              f"scratch per launch: {kernel.metadata.global_scratch_size} bytes")


if __name__ == "__main__":
    main()
