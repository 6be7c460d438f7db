"""What the launch guard (TTD009) costs the host: time per launch of a small GEMM, original vs migrated.

    python benchmarks/launch_overhead.py [--migrated migrated migrated_prev] [--launches 2000] [--json OUT]

`@triton.heuristics` runs `descriptor_fits` on every launch (a few attribute reads and a ContextVar look-up)
before Triton's own launch path. The GEMM is 64x64x64, so the device finishes long before Python launches
the next one: the time per launch is the host's. Modules interleave, best of 5 rounds of `--launches`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import cases as C  # noqa: E402
from run_suite import load  # noqa: E402


def per_launch_us(kernel, args, kwargs, launches: int) -> float:
    kernel[(1, 1)](*args, **kwargs)  # compile outside the timing
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(launches):
        kernel[(1, 1)](*args, **kwargs)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / launches * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--migrated", nargs="+", default=["migrated"], help="migrated modules in kernels/")
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    C.install_allocator("cuda")
    modules = {name: load(name) for name in ["original", *args.migrated]}
    # what the guard's own layer costs: the guarded kernel launched as its JIT function, the flag passed by hand
    kernels = {name: (module.gemm, {}) for name, module in modules.items()}
    for name, module in list(modules.items()):
        if hasattr(module.gemm, "values"):
            for flag in (True, False):
                kernels[f"{name}.fn[{flag}]"] = (module.gemm.fn, {"USE_DESCRIPTORS": flag})
    names = list(kernels)
    a, b = (torch.randn(64, 64, device="cuda", dtype=torch.float16) for _ in range(2))
    c = torch.empty(64, 64, device="cuda", dtype=torch.float16)
    launch = (a, b, c, 64, 64, 64, a.stride(0), b.stride(0), c.stride(0))
    options = {"BM": 64, "BN": 64, "BK": 64}
    best = {name: float("inf") for name in names}
    for _ in range(5):
        for name in names:
            kernel, flag = kernels[name]
            best[name] = min(best[name], per_launch_us(kernel, launch, {**options, **flag}, args.launches))
    for name in names:
        print(f"{name:<24} {best[name]:7.2f} us/launch  ({best[name] - best['original']:+.2f} us vs original)")
    if args.json:
        Path(args.json).write_text(json.dumps({"us_per_launch": best, "launches": args.launches}, indent=1))


if __name__ == "__main__":
    main()
