"""How close to the original a guarded launch can get: the floor of each part of its cost, timed in one run.

    python benchmarks/experiments/launch_floor.py [--launches 2000] [--json OUT]

launch_variants.py found a guarded launch at +5.4 us over the block-pointer original (H200): +2.3 us for the
descriptor form itself (the scratch allocator Triton calls at every launch of a kernel that makes
descriptors), +3.1 us for the guard's Python. This experiment times what each part costs at the least:

* `primitives`: the calls a guard and an allocator make, each alone (ns per call);
* `fn[True] const int` / `const tensor`: descriptors with an allocator that returns one fixed buffer, no
  check at all (the least any allocator can cost), against `fn[True] scratch`, the launch support's;
* `fn[True] lean` / `default-stream`: candidate allocators; the second asks about graph capture only off
  the legacy default stream (handle 0), which CUDA never captures;
* guards: the emitted one, and candidates that bind the arguments in C: by name (`decide(*args, **kwargs)`
  on a function whose parameters are the kernel's; the emitted check would have to change), or through a
  binder made once with the kernel's parameters that hands the emitted `lambda args:` check a dict literal
  (`binder dict`, what the launch support does since 2026-11-28, third session); `zip dict` builds the dict
  with `dict(zip(...))` instead of a comprehension.

What it found (H200, Triton 3.6, two runs on a quiet host, us over the original): the descriptor form with
an allocator that does nothing costs +0.9 to +1.0 (Triton's own launch path for scratch memory); with the
launch support's allocator +2.0 to +2.4, with `default-stream` +1.4 to +1.5; the emitted guard +4.8 to +5.7;
`binder dict + default-stream` +3.5 to +3.8. No guard that checks in Python reaches 1 us: the descriptor
form's floor alone is about 1 us, and the two tensors' checks (`descriptor_fits`, 0.45 us each) and the
guard's frame come on top. Same GEMM and method as launch_overhead.py (64x64x64, host-bound, pinned to one
core, best of 5 rounds, interleaved, a `contextvars.Context` per variant).
"""

from __future__ import annotations

import argparse
import contextvars
import inspect
import json
import sys
import time
from pathlib import Path

import torch
import triton
from triton.runtime import _allocation

HERE = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(HERE))

from launch_overhead import pin_to_one_core  # noqa: E402
from launch_variants import timed  # noqa: E402
from run_suite import KERNELS, load  # noqa: E402

sys.path.insert(0, str(KERNELS))
import _triton_launch as support  # noqa: E402

FLAG = "USE_DESCRIPTORS"


def ns_per_call(fn, calls: int = 200_000) -> float:
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter_ns()
        for _ in range(calls):
            fn()
        best = min(best, (time.perf_counter_ns() - start) / calls)
    return best


def primitives(a) -> dict[str, float]:
    held = _allocation._allocator
    stream = torch.cuda.current_stream().cuda_stream
    calls = {
        "empty loop": lambda: None,
        "t.data_ptr()": a.data_ptr,
        "t.element_size()": a.element_size,
        "t.dtype is torch.bool": lambda: a.dtype is torch.bool,
        "descriptor_fits(t, 64, 64)": lambda: support.descriptor_fits(a, 64, 64),
        "torch.cuda.current_device()": torch.cuda.current_device,
        "torch.cuda.is_current_stream_capturing()": torch.cuda.is_current_stream_capturing,
        "support._scratch(256, 128, stream)": lambda: support._scratch(256, 128, stream),
        "lean_scratch(256, 128, stream)": lambda: lean_scratch(256, 128, stream),
        "default_stream_scratch(256, 128, stream)": lambda: default_stream_scratch(256, 128, stream),
        "allocator ContextVar.get()": held.get if isinstance(held, contextvars.ContextVar) else (lambda: held),
        "support._ensure_allocator()": support._ensure_allocator,
    }
    return {name: ns_per_call(fn) for name, fn in calls.items()}


_lean: dict = {}


def lean_scratch(size, alignment, stream):
    """The launch support's buffer per device and stream, with the key's device read only for the streams
    that every device shares (the legacy and per-thread default streams, handles 0-2): any other handle is
    one stream of one device."""
    if torch.cuda.is_current_stream_capturing():
        return torch.empty(size, dtype=torch.int8, device="cuda")
    key = (torch.cuda.current_device(), stream) if stream < 3 else stream
    held = _lean.get(key)
    if held is None or held[1] < size:
        buffer = torch.empty(size, dtype=torch.int8, device="cuda")
        held = _lean[key] = (buffer, size, buffer.data_ptr())
    return held[2]


class ByName:
    """A guard whose check takes the launch's arguments as parameters, bound by name in C."""

    def __init__(self, kernel, decide, allocator):
        self.fn, self.decide, self.allocator = kernel, decide, allocator

    def __getitem__(self, grid):
        run, decide, allocator = self.fn.run, self.decide, self.allocator

        def launch(*args, **kwargs):
            use = decide(*args, **kwargs)
            if use:
                allocator()
            return run(*args, grid=grid, warmup=False, USE_DESCRIPTORS=use, **kwargs)

        return launch


def default_stream_scratch(size, alignment, stream):
    """`lean_scratch` without the capture check on the legacy default stream (handle 0), which CUDA never
    captures, and with the device read only there: any other handle is one device's stream."""
    if not stream:
        key = torch.cuda.current_device()
    elif torch.cuda.is_current_stream_capturing():
        return torch.empty(size, dtype=torch.int8, device="cuda")
    else:
        key = stream if stream > 2 else (stream, torch.cuda.current_device())
    held = _lean.get(key)
    if held is None or held[1] < size:
        buffer = torch.empty(size, dtype=torch.int8, device="cuda")
        held = _lean[key] = (buffer, size, buffer.data_ptr())
    return held[2]


def binder(kernel, check):
    """What Triton's own binder does: a function with the kernel's parameters (its defaults bound), made
    once, that hands `check` the launch's arguments by name in a dict literal."""
    parameters = inspect.signature(kernel.fn).parameters.values()
    heads = [p.name if p.default is p.empty else f"{p.name}=__default_{p.name}" for p in parameters]
    body = ", ".join(f"{p.name!r}: {p.name}" for p in parameters)
    namespace = {"__check": check, **{f"__default_{p.name}": p.default for p in parameters}}
    exec(f"def bind({', '.join(heads)}, **__options):\n    return __check({{{body}}})", namespace)
    return namespace["bind"]


class Bound(ByName):
    """The emitted check (`lambda args: ...`), its dict made by a binder like Triton's."""

    def __init__(self, kernel, decide, allocator):
        super().__init__(kernel, binder(kernel, decide), allocator)


class Zipped:
    """The emitted guard's check (a function of the arguments by name), the dict built by `dict(zip(...))`."""

    def __init__(self, kernel, decide, allocator):
        self.fn, self.decide, self.allocator = kernel, decide, allocator

    def __getitem__(self, grid):
        run, decide, allocator, names = self.fn.run, self.decide, self.allocator, self.fn.arg_names

        def launch(*args, **kwargs):
            named = dict(zip(names, args))
            named.update(kwargs)
            use = decide(named)
            if use:
                allocator()
            return run(*args, grid=grid, warmup=False, USE_DESCRIPTORS=use, **kwargs)

        return launch


def install(allocator):
    def ensure():
        if isinstance(_allocation._allocator.get(), _allocation.NullAllocator):
            triton.set_allocator(allocator)
    return ensure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--launches", type=int, default=2000)
    parser.add_argument("--json")
    args = parser.parse_args()
    pin_to_one_core()
    original, migrated = load("original"), load("migrated")
    fn = migrated.gemm.fn
    fits = support.descriptor_fits
    a, b = (torch.randn(64, 64, device="cuda", dtype=torch.float16) for _ in range(2))
    spare = torch.empty(1 << 20, dtype=torch.int8, device="cuda")

    def by_name(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, BM, BN, BK):
        return fits(a_ptr, BK, stride_am) and fits(b_ptr, BN, stride_bk)

    def by_dict(args):
        return fits(args["a_ptr"], args["BK"], args["stride_am"]) and fits(args["b_ptr"], args["BN"],
                                                                             args["stride_bk"])

    variants = {  # name -> (kernel, extra kwargs, allocator set first or None)
        "original": (original.gemm, {}, None),
        "fn[False]": (fn, {FLAG: False}, None),
        "fn[True] scratch": (fn, {FLAG: True}, support._scratch),
        "fn[True] lean": (fn, {FLAG: True}, lean_scratch),
        "fn[True] const int": (fn, {FLAG: True}, lambda size, alignment, stream: spare.data_ptr()),
        "fn[True] const tensor": (fn, {FLAG: True}, lambda size, alignment, stream: spare),
        "emitted guard": (migrated.gemm, {}, None),
        "zip dict + lean": (Zipped(fn, by_dict, install(lean_scratch)), {}, None),
        "by name + lean": (ByName(fn, by_name, install(lean_scratch)), {}, None),
        "binder dict + lean": (Bound(fn, by_dict, install(lean_scratch)), {}, None),
        "binder dict + default-stream": (Bound(fn, by_dict, install(default_stream_scratch)), {}, None),
        "fn[True] default-stream": (fn, {FLAG: True}, default_stream_scratch),
        "by name, no check": (ByName(fn, lambda *a, **k: True, install(lean_scratch)), {}, None),
    }
    best = timed(variants, a, b, args.launches)
    calls = contextvars.Context().run(primitives, a)
    for name, ns in calls.items():
        print(f"{name:<44} {ns:7.1f} ns")
    if args.json:
        Path(args.json).write_text(json.dumps({"us_per_launch": best, "ns_per_call": calls,
                                               "launches": args.launches}, indent=1))


if __name__ == "__main__":
    main()
