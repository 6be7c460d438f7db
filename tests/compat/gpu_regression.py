"""GPU regression of `migrate --target compat` (a script; pytest does not collect it): the kernels of bp_kernels.py
(paddings "", "zero", "nan"; ranks 1-3; boundary_check subsets; a varlen base offset with a head dim of 60; views one
element into their storage) migrated onto the compat shim must compile and compute the block-pointer originals'
bits on the GPU, with every implementation the installed Triton offers.

    python tests/compat/gpu_regression.py RESULT.json              # from the repository root, on an NVIDIA GPU
    TRITON_INTERPRET=1 python tests/compat/gpu_regression.py RESULT.json --device cpu   # the same logic, no GPU

Needs torch, triton and libcst (the codemod runs here); the repository need not be installed. Each implementation
runs in a subprocess (the shim picks it at import, from TRITON_MIGRATE_COMPAT). A kernel runs with `desc` only where
compat.check, on this device, passes its tensors (a misaligned descriptor would poison the CUDA context); the
others are reported as "guarded". The reference is the original block-pointer kernel where this Triton still has
block pointers, else the emulation. Prints one summary line; exit status 1 if any run differs or fails.
"""

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import types
import warnings
from pathlib import Path

warnings.filterwarnings("ignore", message="tl.make_block_ptr is deprecated")
HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
PACKAGES = {"triton_migrate": "migrate", "triton_migrate.rules": "rules", "triton_migrate.compat": "compat"}


def import_repository() -> None:
    """Map the package names onto the source folders (pyproject's package-dir) unless the package is installed."""
    try:
        import triton_migrate.engine  # noqa: F401
        return
    except ImportError:
        pass
    for name, folder in PACKAGES.items():
        if "." not in name:
            package = types.ModuleType(name)
            package.__path__ = [str(REPO / folder)]
            sys.modules[name] = package
            continue
        spec = importlib.util.spec_from_file_location(name, REPO / folder / "__init__.py",
                                                      submodule_search_locations=[str(REPO / folder)])
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)


def worker(form: str, device: str) -> dict:
    """Run every kernel of one form ("original" or "compat") on both layouts; {layout|case: result}."""
    import_repository()
    import torch

    sys.path.insert(0, str(HERE))
    import _worker_migrated as W

    import triton_migrate.compat as C

    module = W.load(form)
    results = {}
    for layout in ("aligned", "shifted"):
        for name, kernel, grid, args, written in module.launches(torch, device, layout):
            tensors = {str(i): a for i, a in enumerate(args) if isinstance(a, torch.Tensor)}
            verdict = C.check(tensors, [str(i) for i in written])
            if form == "compat" and C.choose_impl(verdict) != C.default_impl:
                results[f"{layout}|{name}"] = {"status": "guarded", "reasons": verdict.reasons}
                continue
            try:
                compiled = getattr(module, kernel)[grid](*args)
                if device == "cuda":
                    torch.cuda.synchronize()
                asm = getattr(compiled, "asm", None) or {}
                results[f"{layout}|{name}"] = {
                    "status": "ran", "tma": asm.get("ptx", "").count("cp.async.bulk.tensor"),
                    "bytes": [args[i].cpu().contiguous().view(torch.uint8).numpy().tobytes().hex() for i in written]}
            except Exception as error:  # noqa: BLE001 - a failure is a result
                results[f"{layout}|{name}"] = {"status": "failed", "error": f"{type(error).__name__}: {error}"[-600:]}
    return {"impl": C.default_impl, "available": list(C.available()), "results": results}


def run_worker(form: str, impl: str, device: str) -> dict:
    env = dict(os.environ, TRITON_MIGRATE_COMPAT=impl)
    done = subprocess.run([sys.executable, __file__, "--worker", form, "--device", device], env=env,
                          capture_output=True, text=True, timeout=900)
    if done.returncode:
        return {"error": done.stderr[-3000:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(reference: dict, runs: dict) -> dict:
    """Per implementation and case: "equal", "DIFF", "guarded" or the failure."""
    verdicts = {}
    for impl, run in runs.items():
        for case, got in run.get("results", {}).items():
            want = reference["results"].get(case, {})
            if got["status"] != "ran":
                verdicts[f"{impl}|{case}"] = got["status"] if got["status"] == "guarded" else "FAILED"
            else:
                verdicts[f"{impl}|{case}"] = "equal" if got["bytes"] == want.get("bytes") else "DIFF"
        if "error" in run:
            verdicts[f"{impl}|worker"] = "FAILED"
    return verdicts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", nargs="?", help="JSON result path")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--worker", choices=("original", "compat"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.device)))
        return 0
    if not args.output:
        parser.error("the JSON result path is required")
    import triton
    import triton.language as tl

    import_repository()
    from triton_migrate.compat import _features

    has_bp = _features.HAS_BP
    reference = run_worker("original", "auto", args.device) if has_bp else run_worker("compat", "emu", args.device)
    runs = {impl: run_worker("compat", impl, args.device) for impl in _features.available()}
    verdicts = compare(reference, runs)
    device = args.device
    if device == "cuda":
        import torch
        device = f"{torch.cuda.get_device_name()} sm_{''.join(map(str, torch.cuda.get_device_capability()))}"
    equal = sum(v == "equal" for v in verdicts.values())
    guarded = sum(v == "guarded" for v in verdicts.values())
    bad = {k: v for k, v in verdicts.items() if v not in ("equal", "guarded")}
    tma = sorted(case for impl, run in runs.items() for case, r in run.get("results", {}).items() if r.get("tma"))
    summary = (f"gpu_regression: {equal} runs bit-identical to the "
               f"{'block-pointer originals' if has_bp else 'emulation'}, {guarded} left to the emulation by the guard, "
               f"{len(bad)} different or failed "
               f"(Triton {triton.__version__}, {device}, implementations {', '.join(runs)}, TMA in {len(tma)} runs)")
    Path(args.output).write_text(json.dumps({"summary": summary, "verdicts": verdicts, "failures": bad,
                                             "tma_runs": tma, "has_make_tensor_descriptor":
                                             hasattr(tl, "make_tensor_descriptor"), "reference": reference,
                                             "runs": runs}, indent=1))
    print(summary)
    return 1 if bad or reference.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
