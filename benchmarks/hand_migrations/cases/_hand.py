"""What the cases of compare.py share. A cases file (cases/PAIR.py) is a `migrate verify cases` file:

    from _hand import module, pin
    from triton_migrate.verify.cases import case

    MODULES = {"gemm": ("benchmarks/gemm_benchmark.py", "X_VALS = ")}   # key → path in the tree[, cut]

    @case(module("gemm"))
    def gemm_72x40x72(mod, device):
        pin(mod.matmul_kernel, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32)
        ...
        return (lambda: mod.matmul(a, b, c)), {"c": c}

`MODULES` is read by compare.py without importing the file: each key names a kernel module by its path in the
repository, and optionally the start of the first top-level line not to import (a benchmark's driver code that
needs a GPU or runs for minutes); compare.py then imports a copy that ends before it, in both versions.
`module(key)` is where that module is on this run. The original and the tool's migration are imported side by
side and every case runs on both (same seed), their outputs compared bit for bit.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
import types

# GEMM shapes: every row a multiple of 16 bytes in fp16 (the descriptor form, where the tool guards one, runs),
# none of them (the fallback runs), and a batch; no dimension a multiple of the 32-wide blocks.
GEMM_SHAPES = {"aligned": (72, 72, 40), "ragged": (50, 37, 45), "batched": (2, 40, 72, 56)}


def module(key: str) -> str:
    return json.loads(os.environ["HAND_MIGRATION_MODULES"])[key]


def unaligned(module_path: str, name: str | None = None):
    """`@case(module_path)` for a case whose inputs break what a user states when vouching for descriptors
    (16-byte aligned bases and strides, a contiguous last dimension): skipped under compare.py
    --aligned-cases-only, where the tool may rely on such facts (a descriptor over a row of 74 bytes faults
    on the GPU, and the interpreter refuses it)."""
    from triton_migrate.verify.cases import case

    if os.environ.get("HAND_MIGRATION_ALIGNED_ONLY"):
        return lambda build: build
    return case(module_path, name)


def pin(kernel, **meta) -> None:
    """Give every autotuner wrapped around `kernel` the one configuration `meta`: the interpreter then runs
    it once instead of timing every configuration (and the original and the migration run the same one)."""
    import triton
    from triton.runtime.autotuner import Autotuner

    while hasattr(kernel, "fn") and not inspect.isfunction(kernel):
        if isinstance(kernel, Autotuner):
            kernel.configs = [triton.Config(dict(meta), num_warps=4)]
        kernel = kernel.fn


def cpu_driver() -> None:
    """Modules that ask Triton's driver for the device or target at import (`DEVICE =
    triton.runtime.driver.active.get_active_torch_device()`) fail where no GPU driver is active, as on a
    machine that only has the interpreter: give them one that answers the CPU. Where a driver is active,
    nothing changes."""
    import torch
    import triton
    from triton.backends.compiler import GPUTarget

    try:
        triton.runtime.driver.active.get_current_target()
        return
    except RuntimeError:
        pass

    class _Interpreter:
        def get_active_torch_device(self):
            return torch.device("cpu")

        def get_current_target(self):
            return GPUTarget("cpu", 0, 1)

    triton.runtime.driver.set_active(_Interpreter())


class _Anything:
    """A stand-in for a module the kernels do not use: every attribute and call gives another one, and it
    leaves a function or class it decorates as it is."""

    def __getattr__(self, name):
        return _Anything()

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and not kwargs and (inspect.isfunction(args[0]) or inspect.isclass(args[0])):
            return args[0]
        return _Anything()


def stub_modules(*names: str) -> None:
    """Let `import NAME` succeed for host-side helpers (benchmark suites, vendor kernels) that are not
    installed here and that the cases never call."""
    def attribute(name):
        if name.startswith("__"):  # what inspect and importlib ask of a module: it has none of it
            raise AttributeError(name)
        return _Anything()

    # The package's folder where the migration added its launch-support module (compare.py): the migrated
    # modules import it from the package (`from triton_kernels_benchmark._triton_launch import ...`).
    support = json.loads(os.environ.get("HAND_MIGRATION_SUPPORT", "[]"))
    for name in names:
        stub = types.ModuleType(name)
        stub.__getattr__ = attribute
        stub.__path__ = [folder for folder in support if os.path.basename(folder) == name.rsplit(".", 1)[-1]]
        sys.modules.setdefault(name, stub)


def pin_gemm(*kernels) -> None:
    """Pin the GEMM kernels to 32-wide blocks (the shapes of GEMM_SHAPES are not multiples of them)."""
    for kernel in kernels:
        pin(kernel, BLOCK_SIZE_M=32, BLOCK_SIZE_N=32, BLOCK_SIZE_K=32, GROUP_SIZE_M=2)


def gemm_operands(device: str, shape: tuple, dtype=None):
    """A (…, M×K) and B (…, K×N) of small random values (integers in int8) and C (…, M×N) filled with a
    sentinel: NaN in float32, -7 in int32. float16 by default: Triton 3.8's interpreter multiplies bfloat16
    values as their raw bit patterns (|C| ~ 1e10 for inputs of order 1)."""
    import torch

    *batch, m, k, n = shape
    dtype = dtype or torch.float16
    if dtype == torch.int8:
        a = torch.randint(-127, 128, (*batch, m, k), device=device, dtype=dtype)
        b = torch.randint(-127, 128, (*batch, k, n), device=device, dtype=dtype)
        return a, b, torch.full((*batch, m, n), -7, device=device, dtype=torch.int32)
    a = (torch.randn(*batch, m, k, device=device) / 4).to(dtype)
    b = torch.randn(*batch, k, n, device=device).to(dtype)
    return a, b, torch.full((*batch, m, n), float("nan"), device=device)


def gemm_cases(module_path: str, build) -> None:
    """Declare a case per shape of GEMM_SHAPES, `build(mod, device, shape)` giving its launch and outputs;
    the ragged one is @unaligned. The cases belong to the file that defines `build`."""
    from triton_migrate.verify.cases import case

    for name, shape in GEMM_SHAPES.items():
        def launch(mod, device, shape=shape):
            return build(mod, device, shape)

        launch.__module__ = build.__module__
        (unaligned if name == "ragged" else case)(module_path, name)(launch)


def attention_tensors(device: str, z: int, h: int, n_ctx: int, head_dim: int = 64, v_dtype=None):
    """Q, K, V (Z×H×N_CTX×HEAD_DIM, float16; V in `v_dtype` if given), O like V and M (Z×H×N_CTX, float32),
    the outputs filled with NaN."""
    import torch

    q, k, v = (torch.randn(z, h, n_ctx, head_dim, device=device).to(torch.float16) for _ in range(3))
    v = v.to(v_dtype or v.dtype)
    return q, k, v, torch.full_like(v, float("nan")), torch.full((z, h, n_ctx), float("nan"), device=device)
