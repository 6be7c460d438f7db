"""Where a guarded kernel's launch time goes: the pieces of the launch guard (TTD009) timed one by one.

    python benchmarks/experiments/launch_variants.py [--launches 2000] [--json OUT]

The 64x64x64 GEMM of launch_overhead.py (host-bound), best of 5 rounds of `--launches`, interleaved:

* `original`: the block-pointer kernel;
* `fn[False]` / `fn[True] empty` / `fn[True] cached`: the migrated kernel's JIT function with the flag passed
  by hand (no guard layer): masked pointers; descriptors with an allocator that calls `torch.empty` per launch
  (what the launch support installed until now); descriptors with one that keeps a buffer per stream;
* `heuristics old`: the guard as emitted before (`@triton.heuristics` + the pasted `descriptor_fits`);
* `heuristics fast`: `@triton.heuristics` with the faster check and the caching allocator;
* `lean fast`: the same check behind a one-frame wrapper instead of `@triton.heuristics`.

Each variant runs in a context of its own (`contextvars.Context`), so that each sees only its allocator.
`kernels/migrated_prev.py` is the guard as emitted before: `git show f7b8afd:benchmarks/kernels/migrated.py`;
`migrated.py` was then still that form, and `gemm.fn` is the same JIT function in both.
"""

from __future__ import annotations

import argparse
import contextvars
import json
import sys
import time
from pathlib import Path

import torch
import triton
from triton.runtime import _allocation

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from run_suite import load  # noqa: E402


def empty_allocator(size, alignment, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


_buffers: dict = {}


def cached_allocator(size, alignment, stream):
    if torch.cuda.is_current_stream_capturing():
        return torch.empty(size, dtype=torch.int8, device="cuda")
    key = (torch.cuda.current_device(), stream)
    buffer = _buffers.get(key)
    if buffer is None or buffer.numel() < size:
        buffer = _buffers[key] = torch.empty(size, dtype=torch.int8, device="cuda")
    return buffer


_current = _allocation._allocator
_NULL = _allocation.NullAllocator


def fast_fits(tensor, width, *multiples, unit_stride=1):
    try:
        size = tensor.element_size()
        start = tensor.data_ptr()
    except AttributeError:
        return False
    if start % 16 or width * size < 16 or unit_stride != 1 or tensor.dtype is torch.bool:
        return False
    for multiple in multiples:
        if multiple * size % 16:
            return False
    if isinstance(_current.get(), _NULL):
        triton.set_allocator(cached_allocator)
    return True


class Lean:
    def __init__(self, flag, check, kernel):
        self.fn, self.flag, self.check, self.arg_names = kernel, flag, check, kernel.arg_names

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            kwargs[self.flag] = self.check(dict(zip(self.arg_names, args), **kwargs))
            return self.fn.run(*args, grid=grid, warmup=False, **kwargs)
        return launch


def per_launch_us(kernel, args, kwargs, launches: int) -> float:
    kernel[(1, 1)](*args, **kwargs)
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(launches):
        kernel[(1, 1)](*args, **kwargs)
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / launches * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--json")
    args = parser.parse_args()
    original, prev, new = load("original"), load("migrated_prev"), load("migrated")
    fn = new.gemm.fn
    check = (lambda a: fast_fits(a["a_ptr"], a["BK"], a["stride_am"]) and fast_fits(a["b_ptr"], a["BN"], a["stride_bk"]))
    flag = "USE_DESCRIPTORS"
    variants = {  # name -> (kernel, extra kwargs, allocator set first or None)
        "original": (original.gemm, {}, None),
        "fn[False]": (fn, {flag: False}, None),
        "fn[True] empty": (fn, {flag: True}, empty_allocator),
        "fn[True] cached": (fn, {flag: True}, cached_allocator),
        "heuristics old": (prev.gemm, {}, None),
        "heuristics fast": (triton.heuristics({flag: check})(fn), {}, None),
        "lean fast": (Lean(flag, check, fn), {}, None),
    }
    contexts = {name: contextvars.Context() for name in variants}
    for name, (_, _, allocator) in variants.items():
        if allocator is not None:
            contexts[name].run(triton.set_allocator, allocator)
    a, b = (torch.randn(64, 64, device="cuda", dtype=torch.float16) for _ in range(2))
    c = torch.empty(64, 64, device="cuda", dtype=torch.float16)
    launch = (a, b, c, 64, 64, 64, a.stride(0), b.stride(0), c.stride(0))
    options = {"BM": 64, "BN": 64, "BK": 64}
    best = {name: float("inf") for name in variants}
    for _ in range(5):
        for name, (kernel, extra, _) in variants.items():
            best[name] = min(best[name], contexts[name].run(per_launch_us, kernel, launch, {**options, **extra},
                                                            args.launches))
    for name in variants:
        print(f"{name:<18} {best[name]:7.2f} us/launch  ({best[name] - best['original']:+.2f} us vs original)")
    if args.json:
        Path(args.json).write_text(json.dumps({"us_per_launch": best, "launches": args.launches}, indent=1))


if __name__ == "__main__":
    main()
