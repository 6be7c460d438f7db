"""Cross-compile every fixture's migrated kernels on the CPU, for NVIDIA sm_90 and AMD gfx942.

The interpreter hides what the compilers reject (noinline tiles, dtype rules, TDM limits); this compiles
the real pipeline with `triton.compile(ASTSource(...), target=GPUTarget(...))`, using the signature and
constexprs of the fixture harness's own launches. Run as a script (TRITON_INTERPRET must be unset):

    python tests/compile_fixtures.py [CASE ...]   ->  one JSON line per (fixture, target)
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from triton_migrate.verify.compile import TARGETS as SPECS
from triton_migrate.verify.compile import launch_source

TESTS = Path(__file__).resolve().parent
sys.path[:0] = [str(TESTS), str(TESTS.parent / "fixtures")]
TARGETS = {name: SPECS[name] for name in ("sm_80", "sm_90", "gfx942")}


def unwrapped(fn, args, kwargs):
    """An autotuned kernel compiles as its JIT function with its first configuration's constants, and with
    what its heuristics compute for the launch (a launch guard's flag, TTD009: see `guard_sides`)."""
    while not isinstance(fn, __import__("triton").runtime.jit.JITFunction):
        configs = getattr(fn, "configs", None)
        if configs:
            kwargs = {**configs[0].kwargs, **kwargs}
        for name, heuristic in getattr(fn, "values", {}).items():
            kwargs = {**kwargs, name: heuristic({**dict(zip(fn.arg_names, args)), **kwargs})}
        fn = fn.fn
    return fn, args, kwargs


GUARD = "USE_DESCRIPTORS"


def recorded_launches(run) -> list[tuple]:
    """What `run()` launches, as (kernel, args, kwargs): each `kernel[grid](...)` records the call instead of
    launching it (there is no GPU here), a launch guard's too (TTD009: its class has a `__getitem__` of its own)."""
    import _triton_launch  # fixtures/
    import triton

    launches: list = []
    kernel_types = (triton.runtime.jit.KernelInterface, _triton_launch._Guarded)
    launch = [kernel_type.__dict__["__getitem__"] for kernel_type in kernel_types]
    for kernel_type in kernel_types:
        kernel_type.__getitem__ = lambda fn, grid: lambda *args, **kwargs: launches.append((fn, args, kwargs))
    try:
        run()
    finally:
        for kernel_type, original in zip(kernel_types, launch):
            kernel_type.__getitem__ = original
    return launches


def guard_sides(fn, args, kwargs):
    """A guarded kernel (TTD009) compiles as the launch guard chose for the launch's inputs, then as the other
    side, which other inputs get: its descriptors (only the compiler checks their code: a compat tile's type
    through a loop, a TMA copy) or its fallback (masked pointers)."""
    if GUARD not in kwargs:
        return [(fn, args, kwargs)]
    return [(fn, args, kwargs), (fn, args, {**kwargs, GUARD: not kwargs[GUARD]})]


def compile_case(case_dir: Path, which: str = "after.py") -> list[dict]:
    import differential as D
    import triton
    from triton.backends.compiler import GPUTarget

    harness = D.load_harness(case_dir)  # first: it may provide what the kernels import (known_reexport_vllm)
    module = D.import_path(case_dir / which, f"{case_dir.name}_compile")
    _, inputs = next(iter(harness.cases()))
    launches = recorded_launches(lambda: harness.run(module, inputs))
    first_launch = {id(fn): unwrapped(fn, args, kwargs) for fn, args, kwargs in reversed(launches)}
    results = []
    for target, spec in TARGETS.items():
        for fn, args, kwargs in (v for launch in first_launch.values() for v in guard_sides(*launch)):
            entry = {"fixture": case_dir.name, "kernel": fn.__name__, "target": target, GUARD: kwargs.get(GUARD)}
            try:
                compiled = triton.compile(launch_source(fn, args, kwargs)[0], target=GPUTarget(*spec))
                ttgir = compiled.asm.get("ttgir", "")
                entry.update(ok=True, tma_copies=ttgir.count("async_tma_copy"), calls=ttgir.count("tt.call"))
            except Exception as error:  # noqa: BLE001 - the error is the result
                entry.update(ok=False, error=str(error).strip().splitlines()[-1][:300])
            results.append(entry)
    return results


def main() -> None:
    assert "TRITON_INTERPRET" not in os.environ or os.environ["TRITON_INTERPRET"] in ("", "0")
    import differential as D

    wanted = set(sys.argv[1:])
    for case_dir in D.fixture_dirs():
        if (not wanted or case_dir.name in wanted) and "loud_error" not in D.fixture_config(case_dir):
            for result in compile_case(case_dir):
                print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
