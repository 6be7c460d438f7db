"""Where a guarded kernel's launch time goes: the pieces of the launch guard (TTD009) timed one by one.

    python benchmarks/experiments/launch_variants.py [--launches 2000] [--json OUT]

The 64x64x64 GEMM of launch_overhead.py (host-bound), best of 5 rounds of `--launches`, interleaved:

* `original`: the block-pointer kernel;
* `fn[False]` / `fn[True] empty` / `fn[True] cached`: the migrated kernel's JIT function with the flag passed
  by hand (no guard layer): masked pointers; descriptors with an allocator that calls `torch.empty` per launch
  (what the launch support installed until now); descriptors with one that keeps a buffer per stream;
* `heuristics old`: the guard as emitted before (`@triton.heuristics` + the pasted `descriptor_fits`);
* `heuristics fast`: `@triton.heuristics` with the faster check and the caching allocator;
* `lean fast`: the same check behind a one-frame wrapper instead of `@triton.heuristics`;
* `fn[True] address`: descriptors with the caching allocator returning the buffer's address, not the tensor;
* `emitted now`: the guard as migrate emits it (benchmarks/kernels/migrated.py);
* `leaner dict` / `leaner lazy`: the guard with the address allocator, installed once per launch, the
  arguments gathered in a dict or read lazily by name.

Each variant runs in a context of its own (`contextvars.Context`), so that each sees only its allocator.
`kernels/migrated_prev.py` is the guard as emitted before: `git show f7b8afd:benchmarks/kernels/migrated.py`;
`migrated.py` was then still that form, and `gemm.fn` is the same JIT function in both.
"""

from __future__ import annotations

import argparse
import contextvars
import json
import sys
from pathlib import Path

import torch
import triton
from triton.runtime import _allocation

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from launch_overhead import per_launch_us, pin_to_one_core  # noqa: E402
from run_suite import KERNELS, load  # noqa: E402

sys.path.insert(0, str(KERNELS))
# The launch support the migrated kernels import (the same module object): its check and its allocator are the
# variants' baseline, not copies of them.
import _triton_launch as support  # noqa: E402


def empty_allocator(size, alignment, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


_addresses: dict = {}


def address_allocator(size, alignment, stream):
    """The launch support's buffers (`support._scratch`: one per device and stream), returned as their address
    instead of the tensor: every Triton launcher (3.6-3.9, NVIDIA and AMD) takes an
    int as it is, where a tensor costs a method call and a driver query per launch."""
    if torch.cuda.is_current_stream_capturing():
        return torch.empty(size, dtype=torch.int8, device="cuda")
    key = (torch.cuda.current_device(), stream)
    held = _addresses.get(key)
    if held is None or held[0].numel() < size:
        buffer = torch.empty(size, dtype=torch.int8, device="cuda")
        held = _addresses[key] = (buffer, buffer.data_ptr())
    return held[1]


_current = _allocation._allocator
_NULL = _allocation.NullAllocator


def fast_fits(tensor, width, *multiples, unit_stride=1):
    """The check as it was before the guard installed the allocator: once per tensor checked."""
    if not support.descriptor_fits(tensor, width, *multiples, unit_stride=unit_stride):
        return False
    if isinstance(_current.get(), _NULL):
        triton.set_allocator(support._scratch)
    return True


class Lean:
    def __init__(self, flag, check, kernel):
        self.fn, self.flag, self.check, self.arg_names = kernel, flag, check, kernel.arg_names

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            kwargs[self.flag] = self.check(dict(zip(self.arg_names, args), **kwargs))
            return self.fn.run(*args, grid=grid, warmup=False, **kwargs)
        return launch


class Arguments:
    """A launch's arguments by name, looked up when read: only the few the check reads are touched."""
    __slots__ = ("index", "args", "kwargs")

    def __init__(self, index, args, kwargs):
        self.index, self.args, self.kwargs = index, args, kwargs

    def __getitem__(self, name):
        i = self.index.get(name, len(self.args))
        return self.args[i] if i < len(self.args) else self.kwargs[name]


class Leaner:
    """The guard as it could be: the arguments read lazily, the allocator (returning addresses) installed once
    per launch that takes descriptors, not once per tensor checked."""

    def __init__(self, flag, check, kernel, lazy):
        self.fn, self.flag, self.check, self.lazy = kernel, flag, check, lazy
        self.index = {name: i for i, name in enumerate(kernel.arg_names)}

    def __getitem__(self, grid):
        run, flag, check, index, names = self.fn.run, self.flag, self.check, self.index, self.fn.arg_names
        lazy = self.lazy

        def launch(*args, **kwargs):
            if lazy:
                use = check(Arguments(index, args, kwargs))
            else:
                named = {name: args[i] for i, name in enumerate(names[: len(args)])}
                named.update(kwargs)
                use = check(named)
            if use and isinstance(_current.get(), _NULL):
                triton.set_allocator(address_allocator)
            kwargs[flag] = use
            return run(*args, grid=grid, warmup=False, **kwargs)
        return launch


def timed(variants: dict, a, b, launches: int) -> dict[str, float]:
    """Best µs per launch of each variant (name -> (kernel, extra kwargs, allocator set first or None)) of the
    64x64x64 GEMM over `a` and `b`, each in a context of its own, interleaved, best of 5; printed as it goes."""
    contexts = {name: contextvars.Context() for name in variants}
    for name, (_, _, allocator) in variants.items():
        if allocator is not None:
            contexts[name].run(triton.set_allocator, allocator)
    c = torch.empty(64, 64, device="cuda", dtype=torch.float16)
    launch = (a, b, c, 64, 64, 64, a.stride(0), b.stride(0), c.stride(0))
    options = {"BM": 64, "BN": 64, "BK": 64}
    best = {name: float("inf") for name in variants}
    for _ in range(5):
        for name, (kernel, extra, _) in variants.items():
            best[name] = min(best[name], contexts[name].run(per_launch_us, kernel, launch, {**options, **extra},
                                                            launches))
    width = max(map(len, variants))
    for name in variants:
        print(f"{name:<{width}} {best[name]:7.2f} us/launch  ({best[name] - best['original']:+.2f} us vs original)")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--json")
    args = parser.parse_args()
    pin_to_one_core()
    original, prev, new = load("original"), load("migrated_prev"), load("migrated")
    fn = new.gemm.fn

    def check(a):
        return fast_fits(a["a_ptr"], a["BK"], a["stride_am"]) and fast_fits(a["b_ptr"], a["BN"], a["stride_bk"])

    def bare(a):
        fits = support.descriptor_fits
        return fits(a["a_ptr"], a["BK"], a["stride_am"]) and fits(a["b_ptr"], a["BN"], a["stride_bk"])

    flag = "USE_DESCRIPTORS"
    variants = {  # name -> (kernel, extra kwargs, allocator set first or None)
        "original": (original.gemm, {}, None),
        "fn[False]": (fn, {flag: False}, None),
        "fn[True] empty": (fn, {flag: True}, empty_allocator),
        "fn[True] cached": (fn, {flag: True}, support._scratch),
        "fn[True] address": (fn, {flag: True}, address_allocator),
        "heuristics old": (prev.gemm, {}, None),
        "heuristics fast": (triton.heuristics({flag: check})(fn), {}, None),
        "lean fast": (Lean(flag, check, fn), {}, None),
        "emitted now": (new.gemm, {}, None),
        "leaner dict": (Leaner(flag, bare, fn, lazy=False), {}, None),
        "leaner lazy": (Leaner(flag, bare, fn, lazy=True), {}, None),
    }
    a, b = (torch.randn(64, 64, device="cuda", dtype=torch.float16) for _ in range(2))
    best = timed(variants, a, b, args.launches)
    if args.json:
        Path(args.json).write_text(json.dumps({"us_per_launch": best, "launches": args.launches}, indent=1))


if __name__ == "__main__":
    main()
