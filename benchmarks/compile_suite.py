"""Compile every benchmark kernel for an H100 (NVIDIA sm_90) on the CPU, as the GPU timing launches it.

    python benchmarks/compile_suite.py [--modules original migrated migrated_pointer migrated_tuned] [--filter gemm]

The launches of the large (GPU) cases are recorded on torch's "meta" device instead of being run, and each
distinct (kernel, argument types, constexprs, launch options) is compiled with
`triton.compile(ASTSource(...), target=GPUTarget("cuda", 90, 32))`. One JSON line per compile: module,
kernel, the first case that launches it, ok or the error, and the number of TMA copies in the TTGIR.
Exit status 1 if anything fails. TRITON_INTERPRET must not be set.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from triton_migrate.verify.compile import TARGETS, launch_source

HERE = Path(__file__).resolve().parent
TARGET = TARGETS["sm_90"]
def record_launches(module, size: str, name_filter: str) -> list[tuple[str, object, tuple, dict]]:
    """(case name, kernel, args, kwargs) of every launch the cases make, without running any."""
    import cases as C
    import triton

    launches = []
    kernel_type = triton.runtime.jit.KernelInterface
    launch = kernel_type.__getitem__
    current = [""]
    kernel_type.__getitem__ = lambda fn, grid: lambda *args, **kwargs: launches.append((current[0], fn, args, kwargs))
    try:
        mem = C.Memory("meta")
        for case in C.suite(size):
            if name_filter in case.name:
                current[0] = case.name
                setup = case.setup(mem)
                setup.run(module, setup.new_outputs(mem))
    finally:
        kernel_type.__getitem__ = launch
    return launches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--modules", nargs="+", default=["original", "migrated", "migrated_pointer", "migrated_tuned"])
    parser.add_argument("--size", choices=("large", "small"), default="large")
    parser.add_argument("--filter", default="", help="only the cases whose name contains this")
    args = parser.parse_args()
    if os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"):
        sys.exit("unset TRITON_INTERPRET: this compiles for the GPU")
    sys.path.insert(0, str(HERE))
    import triton
    from run_suite import load
    from triton.backends.compiler import GPUTarget

    failed = 0
    for name in args.modules:
        module = load(name)
        seen = set()
        for case, fn, fargs, fkwargs in record_launches(module, args.size, args.filter):
            src, constexprs, options = launch_source(fn, fargs, fkwargs)
            key = (fn.__name__, tuple(sorted(src.signature.items())), tuple(sorted(constexprs.items())),
                   tuple(sorted(options.items())))
            if key in seen:
                continue
            seen.add(key)
            entry = {"module": name, "kernel": fn.__name__, "case": case, "options": options}
            start = time.perf_counter()
            try:
                compiled = triton.compile(src, target=GPUTarget(*TARGET), options=options)
                entry.update(ok=True, tma_copies=compiled.asm.get("ttgir", "").count("async_tma_copy"))
            except Exception as error:  # noqa: BLE001 - the error is the result
                failed += 1
                entry.update(ok=False, error=str(error).strip().splitlines()[-1][:400])
            entry["seconds"] = round(time.perf_counter() - start, 2)
            print(json.dumps(entry), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
