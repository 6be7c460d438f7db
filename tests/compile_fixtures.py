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

TESTS = Path(__file__).resolve().parent
sys.path[:0] = [str(TESTS), str(TESTS.parent / "fixtures")]
TARGETS = {"sm_80": ("cuda", 80, 32), "sm_90": ("cuda", 90, 32), "gfx942": ("hip", "gfx942", 64)}


def _type_of(value) -> str:
    import torch

    if isinstance(value, torch.Tensor):
        return "*" + {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16", torch.int32: "i32",
                      torch.int16: "i16", torch.int8: "i8", torch.bool: "i1", torch.uint8: "u8",
                      torch.int64: "i64", torch.float64: "fp64"}[value.dtype]
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i32" if -2**31 <= value < 2**31 else "i64"
    return "fp32"


def _source(fn, args, kwargs):
    from triton.compiler import ASTSource

    values = dict(zip(fn.arg_names, args), **kwargs)
    signature, constexprs = {}, {}
    for index, param in enumerate(fn.params):
        value = values[param.name] if param.name in values else param.default
        # The JIT specialises an integer argument equal to 1 to a constant, as a launch would.
        if param.is_constexpr or (isinstance(value, int) and not isinstance(value, bool) and value == 1):
            signature[param.name], constexprs[(index,)] = "constexpr", value
        else:
            signature[param.name] = _type_of(value)
    return ASTSource(fn=fn, signature=signature, constexprs=constexprs)


def _unwrapped(fn, args, kwargs):
    """An autotuned kernel compiles as its JIT function with its first configuration's constants."""
    while not isinstance(fn, __import__("triton").runtime.jit.JITFunction):
        configs = getattr(fn, "configs", None)
        if configs:
            kwargs = {**configs[0].kwargs, **kwargs}
        fn = fn.fn
    return fn, args, kwargs


def compile_case(case_dir: Path, which: str = "after.py") -> list[dict]:
    import triton
    from triton.backends.compiler import GPUTarget

    import differential as D

    module = D.import_path(case_dir / which, f"{case_dir.name}_compile")
    launches: list = []
    kernel_type = triton.runtime.jit.KernelInterface
    launch = kernel_type.__getitem__
    # `kernel[grid](...)` records the call instead of launching it (there is no GPU here).
    kernel_type.__getitem__ = lambda fn, grid: lambda *args, **kwargs: launches.append((fn, args, kwargs))
    try:
        harness = D.load_harness(case_dir)
        _, inputs = next(iter(harness.cases()))
        harness.run(module, inputs)
    finally:
        kernel_type.__getitem__ = launch
    first_launch = {id(fn): _unwrapped(fn, args, kwargs) for fn, args, kwargs in reversed(launches)}
    results = []
    for target, spec in TARGETS.items():
        for fn, args, kwargs in first_launch.values():
            entry = {"fixture": case_dir.name, "kernel": fn.__name__, "target": target}
            try:
                compiled = triton.compile(_source(fn, args, kwargs), target=GPUTarget(*spec))
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
