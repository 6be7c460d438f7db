"""Compile mode: cross-compile every recorded kernel on the CPU for GPU targets, with the signature,
specialisation and constexprs of its recorded launches, and say what the compiler made of it.

The worker runs in a subprocess in the recorded tree (`python -m triton_migrate.verify.compile RECORDING
TARGETS`), without TRITON_INTERPRET, so that the kernels' modules give real JITFunctions. Each target's own
backend specialises the arguments, as its launcher would: AMD's adds `tt.pointer_range=32` for buffers
under 2 GB, every backend `tt.divisibility=16` for 16-byte aligned pointers and integers.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TARGETS = {"sm_80": ("cuda", 80, 32), "sm_86": ("cuda", 86, 32), "sm_89": ("cuda", 89, 32),
           "sm_90": ("cuda", 90, 32), "sm_100": ("cuda", 100, 32), "sm_120": ("cuda", 120, 32),
           "gfx942": ("hip", "gfx942", 64), "gfx950": ("hip", "gfx950", 64), "gfx1250": ("hip", "gfx1250", 32)}
IR_STAGES = ("ttir", "ttgir", "llir", "ptx", "amdgcn")
_TYPES = {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16", "int32": "i32", "int64": "i64", "int8": "i8",
          "uint8": "u8", "int16": "i16", "bool": "i1", "float64": "fp64"}


def launch_source(fn, args, kwargs):
    """The ASTSource that a launch `fn[grid](*args, **kwargs)` compiles, its constexprs and its launch options
    (num_warps, ...): for scripts that capture launches instead of running them (fixtures, benchmarks). The
    JIT specialises an integer argument equal to 1 to a constant, as a launch would."""
    from triton.compiler import ASTSource

    options = {k: v for k, v in kwargs.items() if k not in fn.arg_names}
    values = dict(zip(fn.arg_names, args), **{k: v for k, v in kwargs.items() if k in fn.arg_names})
    signature, constexprs = {}, {}
    for index, param in enumerate(fn.params):
        value = values[param.name] if param.name in values else param.default
        if param.is_constexpr or (isinstance(value, int) and not isinstance(value, bool) and value == 1
                                  and not param.do_not_specialize):
            signature[param.name], constexprs[(index,)] = "constexpr", value
        else:
            signature[param.name] = _type_of(value)
    return ASTSource(fn=fn, signature=signature, constexprs=constexprs), constexprs, options


def _type_of(value) -> str:
    import torch

    if isinstance(value, torch.Tensor):
        return "*" + _TYPES[str(value.dtype).removeprefix("torch.")]
    if isinstance(value, bool):
        return "i1"
    if isinstance(value, int):
        return "i32" if -2**31 <= value < 2**31 else "i64"
    return "fp32"


def parse_targets(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [t for t in names if t not in TARGETS]
    if unknown:
        raise ValueError(f"unknown target(s) {', '.join(unknown)}; known: {', '.join(TARGETS)}")
    return names


def compile_recording(directory: Path, tree: Path, targets: list[str], timeout: float = 600) -> dict:
    """Run the worker; returns {"kernel|target": result} and stores it (and the IR) in the recording."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = os.pathsep.join([str(tree)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    done = subprocess.run([sys.executable, "-m", "triton_migrate.verify.compile", str(directory.resolve()),
                           ",".join(targets)], cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        return {"error": f"compile worker failed (rc={done.returncode}): {done.stderr[-2000:]}"}
    return json.loads(lines[-1])


# ----------------------------------------------------------------------------------------- worker
def _worker(directory: Path, targets: list[str]) -> dict:
    import warnings

    warnings.filterwarnings("ignore", message="tl.make_block_ptr is deprecated")
    from .recording import load

    index = load(directory)
    results = {}
    for launch in _first_launches(index["launches"]):
        for target in targets:
            results[f"{launch['kernel']}|{target}"] = _compile_one(launch, target, directory)
    return results


def _first_launches(launches: list[dict]) -> list[dict]:
    """The first launch of each kernel: one compile per kernel and target keeps the matrix readable (later
    launches with other specialisations, e.g. other alignments or constexprs, are not compiled)."""
    seen, chosen = set(), []
    for launch in launches:
        if launch["kernel"] not in seen:
            seen.add(launch["kernel"])
            chosen.append(launch)
    return chosen


def _compile_one(launch: dict, target_name: str, directory: Path) -> dict:
    """The compiler's result for one kernel and target. A kernel that could not even be loaded (its module
    fails to import here) was never given to the compiler: `loaded` False, which the verdict counts as not
    verified, whatever the other version did."""
    try:
        fn = _jit_function(launch)
    except Exception as error:  # noqa: BLE001 - reported per kernel and target, with the others
        return {"ok": False, "loaded": False, "error": _error_line(error)}
    try:
        compiled = _compile(fn, launch, target_name)
    except Exception as error:  # noqa: BLE001 - a failure to compile is a result, reported per target
        return {"ok": False, "error": _error_line(error)}
    ir = _save_ir(compiled, launch, target_name, directory)
    return {"ok": True, **summarize(compiled, target_name), "ir": ir}


def _error_line(error: Exception) -> str:
    lines = [line for line in str(error).strip().splitlines() if line.strip()]
    return f"{type(error).__name__}: {' / '.join(lines[-3:])[:600]}"


def _jit_function(launch: dict):
    from triton.runtime.jit import JITFunction

    module_name, qualname = launch["kernel"].split(":", 1)
    module = _import(module_name, launch.get("source"))
    obj = module
    for part in qualname.split("."):
        obj = getattr(obj, part)
    while not isinstance(obj, JITFunction) and hasattr(obj, "fn"):  # autotuner / heuristics wrappers
        obj = obj.fn
    if not isinstance(obj, JITFunction):
        raise TypeError(f"{launch['kernel']} is not a @triton.jit function here")
    return obj


def _import(module_name: str, source: str | None):
    if module_name != "__main__":
        try:
            return importlib.import_module(module_name)
        except ImportError:
            if source is None:
                raise
    if source is None:
        raise ImportError("the launch was recorded in a script, and names no source file to import it from")
    path = Path(source).resolve()
    sys.path.insert(0, str(path.parent))
    # A script is imported under another name (its `if __name__ == "__main__":` block does not run); launches
    # at its top level are skipped: there is no GPU driver here, and only the kernels' definitions are needed.
    spec = importlib.util.spec_from_file_location(f"_tm_compile_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"{path} is not a Python source file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    with _launches_skipped():
        spec.loader.exec_module(module)
    return module


@contextlib.contextmanager
def _launches_skipped():
    from triton.runtime.jit import JITFunction

    run = JITFunction.run
    JITFunction.run = lambda self, *args, grid, warmup, **kwargs: None
    try:
        yield
    finally:
        JITFunction.run = run


class _Pointer:
    """Stands in for a tensor argument at specialisation time: dtype, alignment and buffer size matter."""

    def __init__(self, arg: dict) -> None:
        from .recording import dtype_of

        self.dtype = dtype_of(arg["dtype"])
        self._align = arg["align"]
        self._bytes = arg["buffer_bytes"]

    def data_ptr(self) -> int:
        return 1 << 20 | self._align

    def ptr_range(self) -> int:
        return self._bytes


def _argument(arg: dict):
    import triton.language as tl

    if arg["kind"] == "tensor":
        return _Pointer(arg)
    value = arg["value"]
    if isinstance(value, dict) and "tl_dtype" in value:
        return getattr(tl, value["tl_dtype"])
    if isinstance(value, dict):
        raise TypeError(f"argument {value['repr']} cannot be rebuilt for compilation")
    return value


def _compile(fn, launch: dict, target_name: str):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource, make_backend
    from triton.runtime.jit import create_function_from_signature

    target = GPUTarget(*TARGETS[target_name])
    backend = make_backend(target)
    args = {name: _argument(arg) for name, arg in launch["args"].items() if "[" not in name and "." not in name}
    options = launch.get("options", {})
    binder = create_function_from_signature(fn.signature, fn.params, backend)
    bound, specialization, parsed = binder(**args, **options)
    parsed, signature, constexprs, attrs = fn._pack_args(backend, options, bound, specialization, parsed)
    return triton.compile(ASTSource(fn, signature, constexprs, attrs), target=target, options=parsed.__dict__)


def summarize(kernel, target_name: str) -> dict:
    asm = kernel.asm
    isa = asm.get("ptx", "") or asm.get("amdgcn", "")
    metadata = kernel.metadata
    found = {"tma": "cp.async.bulk.tensor" in isa,
             "amd_tdm": "tensor_load_to_lds" in isa or "tensor_store_from_lds" in isa,
             "buffer_ops": bool(re.search(r"\bbuffer_(load|store|atomic)", isa)),
             "shared_bytes": getattr(metadata, "shared", None),
             "global_scratch_bytes": getattr(metadata, "global_scratch_size", None),
             "num_warps": getattr(metadata, "num_warps", None)}
    found.update(_amd_registers(isa) if "amdgcn" in asm else _ptxas_registers(asm.get("ptx", ""), target_name))
    return found


def _amd_registers(isa: str) -> dict:
    def value(pattern):
        match = re.search(pattern, isa)
        return int(match.group(1)) if match else None

    return {"registers": value(r"\.vgpr_count:\s+(\d+)"), "sgprs": value(r"\.sgpr_count:\s+(\d+)"),
            "spills": (value(r"\.vgpr_spill_count:\s+(\d+)") or 0) + (value(r"\.sgpr_spill_count:\s+(\d+)") or 0)}


def _ptxas_registers(ptx: str, target_name: str) -> dict:
    """Registers and spills come from ptxas (Triton's own copy), which reports them for the PTX."""
    from triton.backends.nvidia.compiler import get_ptxas

    capability = TARGETS[target_name][1]
    if not isinstance(capability, int):
        raise ValueError(f"{target_name}: ptxas compiles for CUDA targets only")
    arch = f"sm_{capability}" + ("a" if capability >= 90 else "")
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "k.ptx"
        source.write_text(ptx)
        ptxas = [get_ptxas(capability).path, "-v", f"--gpu-name={arch}", str(source), "-o", f"{source}.o"]
        done = subprocess.run(ptxas, capture_output=True, text=True)
    registers = re.search(r"Used (\d+) registers", done.stderr)
    spills = re.findall(r"(\d+) bytes spill (?:stores|loads)", done.stderr)
    return {"registers": int(registers.group(1)) if registers else None,
            "spills": sum(map(int, spills)) if spills else None}


def _save_ir(kernel, launch: dict, target_name: str, directory: Path) -> dict:
    out = directory / "compile"
    out.mkdir(exist_ok=True)
    saved = {}
    for stage in IR_STAGES:
        if stage in kernel.asm:
            name = f"{_safe(launch['kernel'])}.{target_name}.{stage}"
            (out / name).write_text(kernel.asm[stage])
            saved[stage] = f"compile/{name}"
    return saved


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_-" else "_" for c in name)


if __name__ == "__main__":
    print(json.dumps(_worker(Path(sys.argv[1]), sys.argv[2].split(","))))
