"""Compile generated kernels for a GPU target on this CPU (the interpreter accepts what compilers reject: a name
whose type differs between a run-time `if`'s branches, a non-constexpr global). A subprocess without
TRITON_INTERPRET, so that `@triton.jit` gives real JITFunctions:

    python tests/fuzz/compiled.py JOBS_PT OUT_PT      # jobs: [(key, kernel path, launch)]; out: {key: error|None}
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import torch

if (TESTS := str(Path(__file__).resolve().parents[1])) not in sys.path:  # run as a script: the tests' modules
    sys.path.insert(0, TESTS)

TARGET = "sm_90"


def compile_all(jobs: list[tuple[str, str, dict]]) -> dict[str, str | None]:
    """Each job's kernel compiled for TARGET as its launch would: None, or the compiler's last words."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    with tempfile.TemporaryDirectory(prefix="fuzz_compile_") as directory:
        job_path, out_path = os.path.join(directory, "jobs.pt"), os.path.join(directory, "out.pt")
        torch.save(jobs, job_path)
        done = subprocess.run([sys.executable, str(Path(__file__).resolve()), job_path, out_path], env=env,
                              capture_output=True, text=True, cwd=directory, check=False)
        if done.returncode != 0:
            raise RuntimeError(done.stderr[-3000:])
        return torch.load(out_path, weights_only=False)


def _compile_one(path: str, spec: dict) -> str | None:
    import differential as D
    import triton
    from compile_fixtures import guard_sides, recorded_launches, unwrapped
    from triton.backends.compiler import GPUTarget

    from fuzz import launch
    from triton_migrate.verify.compile import TARGETS, launch_source

    module = D.import_path(Path(path), "compile")
    launched = unwrapped(*recorded_launches(lambda: launch.run(module, spec))[0])
    for fn, args, kwargs in guard_sides(*launched):  # the launch's tensors rarely let a guard pick descriptors
        try:
            triton.compile(launch_source(fn, args, kwargs)[0], target=GPUTarget(*TARGETS[TARGET]))
        except Exception as error:  # noqa: BLE001 - the error is the result
            return reason(error)
    return None


def reason(error: BaseException) -> str:
    """The compiler's excerpt of the innermost failing statement, then its message on the last line (a
    CompilationError that wraps another has no message of its own)."""
    while getattr(error, "error_message", None) is None and error.__cause__ is not None:
        error = error.__cause__
    message = getattr(error, "error_message", None) or f"{type(error).__name__}: {error}"
    excerpt = str(error).removesuffix(message).strip() if hasattr(error, "error_message") else ""
    last = [line for line in message.strip().splitlines() if line.strip()][-1:] or [type(error).__name__]
    return f"{excerpt[-1500:]}\n{last[0][:300]}".strip()


def _main(job_path: str, out_path: str) -> int:
    import warnings

    warnings.simplefilter("ignore")
    results = {}
    for key, path, spec in torch.load(job_path, weights_only=False):
        try:
            results[key] = _compile_one(path, spec)
        except Exception as error:  # noqa: BLE001 - reported per kernel
            results[key] = f"{type(error).__name__}: {error}"[:300]
    torch.save(results, out_path)
    return 0


if __name__ == "__main__":
    sys.exit(_main(*sys.argv[1:3]))
