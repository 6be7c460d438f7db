"""Run every realistic case in its original form (block pointers) and in each migrated form, and compare.

    python tests/realistic/run.py --device cuda --json out.json      # on a GPU
    python tests/realistic/run.py --device cpu --json out.json       # Triton's interpreter (TRITON_INTERPRET=1)

The migrated forms are made now, by the tool, from kernels/*.py into a temporary directory: `auto` (the
default), `strict` (`--strict`) and `compat` (`--target compat`). Each case×form runs in a subprocess of its own
(a CUDA error poisons the process's context), on outputs that sit in sentinel-filled storage. A form passes when
its outputs are bit-identical to the original's (NaN-aware) and no sentinel around them changed; the original
passes when it runs and leaves the sentinels alone. Prints one line per case×form and `N passed, M failed`;
exits 1 if anything failed.

`python run.py --worker JOBS.json OUT.pt` is the subprocess: it runs the jobs (`{case, form, kernels}`) in
this process and saves `{"case/form": outputs or the traceback}`.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
KERNELS = HERE / "kernels"
sys.path[:0] = [str(HERE), str(REPO / "tests"), str(REPO / "fixtures")]

import torch  # noqa: E402

from _harness_util import sentinel_fill  # noqa: E402
from realistic_cases import BY_NAME, CASES  # noqa: E402
from differential import compare_tensor  # noqa: E402

# form -> the CLI options it stands for (the Policy fields of triton_migrate.policy)
FORMS = {"auto": {}, "strict": {"strict": True}, "compat": {"target": "compat"}}
_counter = itertools.count()


# --------------------------------------------------------------------------- migrating
def migrate_kernels(form: str, out_dir: Path) -> str | None:
    """Write kernels/*.py migrated to `form` into `out_dir`; None, or why the form could not be made."""
    from triton_migrate.engine import MigrationContext, migrate_sources
    from triton_migrate.policy import Policy

    sources = {path.stem: path.read_text() for path in sorted(KERNELS.glob("*.py"))}
    try:
        outcomes = migrate_sources(sources, MigrationContext(Policy(**FORMS[form])))
    except Exception as error:  # noqa: BLE001  (the tool failing is a result, not a crash of the runner)
        return f"migration failed: {type(error).__name__}: {error}"
    out_dir.mkdir(parents=True)
    for name, source in sources.items():
        refused = [f"{d.code} at {name}.py:{d.line}" for d in outcomes[name].refused]
        if refused:
            return f"migration left sites untouched: {', '.join(refused)}"
        (out_dir / f"{name}.py").write_text(outcomes[name].new_source or source)
    return None


# --------------------------------------------------------------------------- the worker
def import_kernels(path: Path):
    """A fresh module under a unique name, registered in sys.modules (Triton's JIT looks its globals up there)."""
    name = f"_realistic_{path.stem}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def run_case(case_name: str, kernels_dir: Path, device: str) -> dict:
    case = BY_NAME[case_name]
    return case.run(import_kernels(Path(kernels_dir) / f"{case.module}.py"), device)


def run_job(job: dict, device: str):
    """One job's outputs, or its traceback."""
    try:
        outputs = run_case(job["case"], job["kernels"], device)
        if device == "cuda":
            torch.cuda.synchronize()
        return outputs
    except BaseException:  # noqa: BLE001  (one job's failure is its result)
        return traceback.format_exc()


def install_allocator() -> None:
    """What Triton asks of a user whose kernels create descriptors on the device (NVIDIA sm_90+): an allocator,
    set in the launching thread, here the main one. Autograd's backward thread does not see it."""
    import triton

    if hasattr(triton, "set_allocator"):
        triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))


def worker(jobs_path: str, out_path: str) -> int:
    import triton

    spec = json.loads(Path(jobs_path).read_text())
    if spec.get("allocator") == "main":
        install_allocator()
    results = {f"{job['case']}/{job['form']}": run_job(job, spec["device"]) for job in spec["jobs"]}
    torch.save({**results, "__triton__": triton.__version__}, out_path)
    return 0


def run_jobs(jobs: list[dict], device: str, timeout: float, env: dict | None = None, allocator: str = "none") -> dict:
    """Run `jobs` in one subprocess; `{"case/form": outputs or an error text}`."""
    with tempfile.TemporaryDirectory(prefix="realistic_") as tmp:
        jobs_path, out_path = Path(tmp) / "jobs.json", Path(tmp) / "out.pt"
        jobs_path.write_text(json.dumps({"device": device, "allocator": allocator, "jobs": jobs}))
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(jobs_path), str(out_path)]
        try:
            proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return {f"{j['case']}/{j['form']}": f"timed out after {timeout:.0f} s" for j in jobs}
        if not out_path.exists():
            why = f"worker died (rc={proc.returncode}):\n{proc.stdout[-2000:]}{proc.stderr[-4000:]}"
            return {f"{j['case']}/{j['form']}": why for j in jobs}
        return torch.load(out_path, weights_only=False)


# --------------------------------------------------------------------------- judging
def margin_damage(outputs: dict) -> list[str]:
    """Outputs whose storage changed outside the output view (the sentinel there was overwritten)."""
    msgs = []
    for name, (storage, owned) in outputs.items():
        fresh = sentinel_fill(torch.empty_like(storage.reshape(-1)))
        msg = compare_tensor(storage.reshape(-1)[~owned.reshape(-1)], fresh[~owned.reshape(-1)], f"{name} margin")
        if msg:
            msgs.append(msg)
    return msgs


def error_summary(trace: str) -> str:
    """The innermost error of a traceback's last line (the interpreter wraps it in InterpreterError layers)."""
    last = trace.strip().splitlines()[-1] if trace.strip() else "error"
    inner = re.findall(r"\b(?!InterpreterError)(\w+Error)\(\\*[\"']([^\\\"']+)", last)
    return f"{inner[-1][0]}: {inner[-1][1]}" if inner else last


def judge(result, reference) -> list[str]:
    """What is wrong with one form's result; `reference` is the original's (None for the original itself)."""
    if isinstance(result, str):
        return [error_summary(result), result]
    msgs = margin_damage(result)
    if reference is None:
        return msgs
    if isinstance(reference, str):
        return ["the original failed, nothing to compare with"]
    if set(result) != set(reference):
        return msgs + [f"outputs {sorted(result)} != original's {sorted(reference)}"]
    for name in sorted(result):
        msg = compare_tensor(result[name][0], reference[name][0], name)
        if msg:
            msgs.append(msg)
    return msgs


# --------------------------------------------------------------------------- main
def child_env(device: str) -> dict:
    env = dict(os.environ)
    env["TRITON_INTERPRET"] = "1" if device == "cpu" else "0"
    return env


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--json", metavar="PATH", help="write the results here")
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--forms", default="auto,strict,compat", help="migrated forms to run (the original always runs)")
    ap.add_argument("-j", "--jobs", type=int, default=None, help="subprocesses at once (default: 1 on cuda, CPUs on cpu)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds per case×form")
    ap.add_argument("--allocator", choices=("main", "none"), default="main",
                    help="cuda: install a Triton allocator in the main thread first, as Triton's docs ask (default), "
                         "or none (does the migrated code run where the original ran, unchanged?)")
    ap.add_argument("--worker", nargs=2, metavar=("JOBS", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return worker(*args.worker)

    cases = [BY_NAME[n] for n in args.cases.split(",") if n] or CASES
    forms = [f for f in args.forms.split(",") if f]
    jobs = args.jobs or (1 if args.device == "cuda" else os.cpu_count())
    with tempfile.TemporaryDirectory(prefix="realistic_forms_") as tmp:
        dirs, broken = {"original": KERNELS}, {}
        for form in forms:
            dirs[form] = Path(tmp) / form
            broken[form] = migrate_kernels(form, dirs[form])
        pairs = [(c.name, f) for c in cases for f in ["original"] + forms if not broken.get(f)]

        def one(pair):
            case, form = pair
            job = {"case": case, "form": form, "kernels": str(dirs[form])}
            allocator = args.allocator if args.device == "cuda" else "none"
            return run_jobs([job], args.device, args.timeout, child_env(args.device), allocator)[f"{case}/{form}"]

        with ThreadPoolExecutor(jobs) as pool:
            raw = dict(zip(pairs, pool.map(one, pairs)))

    rows = []
    for case in cases:
        for form in ["original"] + forms:
            if broken.get(form):
                problems = [broken[form]]
            else:
                reference = None if form == "original" else raw[(case.name, "original")]
                problems = judge(raw[(case.name, form)], reference)
            rows.append({"case": case.name, "form": form, "passed": not problems,
                         "reason": problems[0] if problems else "", "detail": problems[1:]})
            print(f"{'PASS' if not problems else 'FAIL'}  {case.name:32} {form:9} {rows[-1]['reason']}")
    passed = sum(r["passed"] for r in rows)
    print(f"{passed} passed, {len(rows) - passed} failed")
    if args.json:
        Path(args.json).write_text(json.dumps({"device": args.device, "torch": torch.__version__,
                                               "passed": passed, "failed": len(rows) - passed,
                                               "results": rows}, indent=1))
    return 0 if passed == len(rows) else 1


if __name__ == "__main__":
    sys.exit(main())
