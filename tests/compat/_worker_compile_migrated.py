"""Compile-only worker (no GPU needed): the kernels of bp_kernels.py migrated with `--target compat`, and a kernel
written against the shim that leaves `padding_option` and `impl` at their defaults, compiled for sm_80, sm_90 and
gfx942 on the installed Triton, with the implementation that TRITON_MIGRATE_COMPAT selects.

Prints one JSON object {"kernel|target": {"ok": ..., "tma": copies or "error": ...}}."""

import importlib.util
import json
import sys
import tempfile
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", message="tl.make_block_ptr is deprecated")

import torch  # noqa: E402
import triton  # noqa: E402
import triton.language as tl  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

import triton_migrate.compat as compat  # noqa: E402
from triton_migrate.engine import migrate_source  # noqa: E402
from triton_migrate.policy import Policy  # noqa: E402
from triton_migrate.verify.compile import TARGETS, launch_source  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent.parent / "fixtures"))  # _triton_launch.py, which the migrated module imports
import bp_kernels  # noqa: E402


@triton.jit
def defaults(x, y, M, N, sxm, sym, BM: tl.constexpr, BN: tl.constexpr):
    """Hand-written: every padding, the defaults omitted, boundary-check subsets on loads and stores."""
    pm = tl.program_id(0)
    hx = compat.make_tile(x, (M, N), (sxm, 1), (BM, BN))
    hx_none = compat.make_tile(x, (M, N), (sxm, 1), (BM, BN), "")
    hx_nan = compat.make_tile(x, (M, N), (sxm, 1), (BM, BN), padding_option="nan")
    hy = compat.make_tile(y, (M, N), (sym, 1), (BM, BN), "zero")
    off = (pm * BM, 0)
    v = compat.load(hx, off) + compat.load(hx_none, off, (1, )) + compat.load(hx_nan, off, (0, ))
    compat.store(hy, off, v, (0, ))
    compat.store(hy, off, v)


def migrated_module():
    source = (HERE / "bp_kernels.py").read_text()
    outcome = migrate_source(source, policy=Policy(target="compat"))
    assert not outcome.refused and outcome.new_source, outcome.diagnostics
    path = Path(tempfile.mkdtemp()) / "bp_kernels_compat.py"
    path.write_text(outcome.new_source)
    spec = importlib.util.spec_from_file_location("bp_kernels_compat", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _root_cause(error: BaseException) -> str:
    """The exception a CompilationError wraps says what went wrong; its own message is the source excerpt."""
    while (error.__cause__ or error.__context__) is not None:
        error = error.__cause__ or error.__context__
    return f"{type(error).__name__}: {error}"[-400:]


def main():
    module = migrated_module()
    x, y = torch.randn(64, 80), torch.zeros(64, 80)
    kernels = [(name, getattr(module, kernel), args) for name, kernel, _, args, _ in bp_kernels.launches(torch, "cpu")]
    kernels.append(("defaults", defaults, (x, y, 64, 80, 80, 80, 16, 32)))
    results = {}
    for target in ("sm_80", "sm_90", "gfx942"):
        for name, fn, args in kernels:
            # a launch guard (TTD009) lets the shim's own choice stand (TRITON_MIGRATE_COMPAT) where its check
            # passes: compile that variant
            kwargs = {"USE_DESCRIPTORS": True} if hasattr(fn, "values") else {}
            fn = getattr(fn, "fn", fn) if kwargs else fn
            try:
                compiled = triton.compile(launch_source(fn, args, kwargs)[0], target=GPUTarget(*TARGETS[target]))
                tma = compiled.asm.get("ptx", "").count("cp.async.bulk.tensor")
                results[f"{name}|{target}"] = {"ok": True, "tma": tma}
            except Exception as error:  # noqa: BLE001 - the error is the result
                results[f"{name}|{target}"] = {"ok": False, "error": _root_cause(error)}
    print(json.dumps({"triton": triton.__version__, "impl": compat.default_impl, "results": results}))


if __name__ == "__main__":
    main()
