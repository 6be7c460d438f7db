"""What the launch guard (TTD009) costs the host: time per launch of a small GEMM, original vs migrated.

    python benchmarks/launch_overhead.py [--migrated migrated_prev migrated] [--launches 2000] [--json OUT]

The guard (`@launch_guard`, before 2026-11-28 `@triton.heuristics`) runs `descriptor_fits` on every launch
before Triton's own launch path, and a kernel that takes descriptors calls the Triton allocator for their
scratch memory. The GEMM is 64x64x64, so the device finishes long before Python launches the next one: the
time per launch is the host's. Modules interleave, best of 5 rounds of `--launches`. Each module runs in a
context of its own (`contextvars.Context`: Triton's allocator is a ContextVar), so that each gets the
allocator its own launch support installs, as a user's program does; the original needs none.
`migrated_prev` is the form before the change: `git show f7b8afd:benchmarks/kernels/migrated.py >
benchmarks/kernels/migrated_prev.py`.
"""

from __future__ import annotations

import argparse
import contextvars
import json
import os
import sys
import time
from pathlib import Path

import torch

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from run_suite import load  # noqa: E402


def pin_to_one_core() -> None:
    """Run on one core: a process the scheduler moves between cores pays for it in the launches it times,
    and the device's host shares its cores with other work."""
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})


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
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--json", help="also write the results here")
    args = parser.parse_args()
    pin_to_one_core()
    modules = {name: load(name) for name in ["original", *args.migrated]}
    contexts = {name: contextvars.Context() for name in modules}
    # what the guard's own layer costs: the guarded kernel launched as its JIT function, the flag passed by hand
    kernels = {name: (module.gemm, {}, contexts[name]) for name, module in modules.items()}
    for name, module in list(modules.items()):
        if hasattr(module.gemm, "values"):
            for flag in (True, False):
                kernels[f"{name}.fn[{flag}]"] = (module.gemm.fn, {"USE_DESCRIPTORS": flag}, contexts[name])
    names = list(kernels)
    a, b = (torch.randn(64, 64, device="cuda", dtype=torch.float16) for _ in range(2))
    c = torch.empty(64, 64, device="cuda", dtype=torch.float16)
    launch = (a, b, c, 64, 64, 64, a.stride(0), b.stride(0), c.stride(0))
    options = {"BM": 64, "BN": 64, "BK": 64}
    best = {name: float("inf") for name in names}
    for _ in range(args.rounds):
        for name in names:  # a guarded kernel before its bare JIT function: its check installs the allocator
            kernel, flag, context = kernels[name]
            best[name] = min(best[name], context.run(per_launch_us, kernel, launch, {**options, **flag},
                                                     args.launches))
    for name in names:
        print(f"{name:<24} {best[name]:7.2f} us/launch  ({best[name] - best['original']:+.2f} us vs original)")
    if args.json:
        Path(args.json).write_text(json.dumps({"us_per_launch": best, "launches": args.launches}, indent=1))


if __name__ == "__main__":
    main()
