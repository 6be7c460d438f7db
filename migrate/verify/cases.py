"""Cases mode: explicit inputs for users who prefer them to running a whole program (benchmarks, a suite of
shapes). A cases file declares functions with `@case("module.py")`; each receives the kernel module and the
torch device name, builds its inputs and returns a zero-argument `launch` callable and the output tensors:

    import torch
    from triton_migrate.verify.cases import case

    @case("kernels/matmul.py")                 # relative to this file
    def gemm_128(mod, device):
        a = torch.randn(128, 64, device=device)
        b = torch.randn(64, 128, device=device)
        c = torch.empty(128, 128, device=device)
        return (lambda: mod.matmul[(4, 4)](a, b, c, 128, 128, 64)), {"c": c}

`migrate verify cases FILE` imports the original module and its migrated version side by side in one
process (under unique module names), runs every case on both with the same seed, compares each output's
whole buffer bit for bit (NaN-aware) and times `launch` (median of the repeats).
"""

from __future__ import annotations

import importlib.util
import itertools
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

_REGISTRY: dict[str, list[Case]] = {}  # defining module's file → its cases, in definition order
_counter = itertools.count()


@dataclass(frozen=True)
class Case:
    name: str
    module: Path  # the kernel module, absolute
    build: Callable


def case(module: str, name: str | None = None):
    """Declare a case for the kernel module at `module` (relative to the file that declares the case)."""
    def register(build):
        declared_in = Path(sys.modules[build.__module__].__file__).resolve()
        entry = Case(name or build.__name__, (declared_in.parent / module).resolve(), build)
        _REGISTRY.setdefault(str(declared_in), []).append(entry)
        return build
    return register


def load_cases(path: Path) -> list[Case]:
    path = path.resolve()
    _REGISTRY.pop(str(path), None)
    import_path(path, "cases")
    return _REGISTRY.get(str(path), [])


def import_path(path: Path, tag: str):
    """Import a file as a fresh module under a unique name, registered in sys.modules (Triton's JIT looks a
    kernel's globals and source up through it); the file's directory is importable for its siblings."""
    name = f"_tm_verify_{tag}_{path.stem}_{next(_counter)}"
    if str(path.parent) not in sys.path:
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python source file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def run_case(entry: Case, module, device, warmup: int, repeat: int) -> tuple[dict, list[float]]:
    """Outputs (whole buffers, raw bits on the host) after one launch, and the timed repeats."""
    import torch

    from .tensors import capture

    torch.manual_seed(0)
    launch, outputs = entry.build(module, device.torch_device)
    device.ensure_allocator()
    first = device.time_ms(launch)
    device.synchronize()
    state = {name: (capture(t, 1 << 62).host_bits, t.dtype, _view(t)) for name, t in outputs.items()}
    return state, device.samples_ms(launch, warmup, repeat) or [first]


def _view(t) -> dict:
    return {"offset": t.storage_offset(), "shape": list(t.shape), "stride": list(t.stride())}


def compare_case(entry: Case, original, migrated, device, warmup: int, repeat: int):
    from .compare import KernelResult
    from .tensors import difference, locate

    result = KernelResult(entry.name, launches_a=1, launches_b=1, compared=1)
    state_a, times_a = run_case(entry, original, device, warmup, repeat)
    state_b, times_b = run_case(entry, migrated, device, warmup, repeat)
    for name in sorted(set(state_a) | set(state_b)):
        if name not in state_a or name not in state_b:
            result.differences.append({"launch": 0, "what": "output", "arg": name, "reason": "missing on one side"})
            continue
        (bits_a, dtype, view), (bits_b, _, _) = state_a[name], state_b[name]
        diff = difference(bits_a, bits_b, dtype)
        if diff is not None:
            diff["where"] = locate(diff["max_abs_at"], view) if "max_abs_at" in diff else "-"
            result.differences.append({"launch": 0, "what": "output", "arg": name, **diff})
            result.max_abs = max(result.max_abs, diff.get("max_abs", 0.0))
            result.max_ulp = max(result.max_ulp, diff.get("max_ulp", 0))
    result.identical = int(not result.differences)
    if times_a and times_b:
        result.time_a_ms, result.time_b_ms = statistics.median(times_a), statistics.median(times_b)
        result.launch_ratios = [] if result.ratio is None else [result.ratio]
    return result
