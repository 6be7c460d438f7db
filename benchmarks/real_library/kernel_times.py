"""Every block-pointer kernel a real library's ops reach, timed per kernel in several copies of the library.

    python benchmarks/real_library/kernel_times.py TREE... --state DIR [--out DIR] [--phase prepare|all]

Written for flash-linear-attention (fla): TREE... are copies of it (make_trees.py: original, default,
facts, tuned); the first is the reference. Each op of --ops runs forward and backward through autograd for
every head dim of --dims and batch of --batches (`fixed`: B=2 T=4096 H=16; `varlen`: one sequence of four
odd lengths, 4096 tokens, through cu_seqlens), bf16 with fp32 gates where fla's tests use them.

Autotuning is the same in every tree, so that the code is measured and not the pick: the reference tree
autotunes (each autotuner limited to --tune-configs of its configs, spread over its list, to bound the
compile time: the whole run must fit two 9-minute GPU calls), and every tree, the reference included, then
runs every kernel with the reference's choice for its key.

Phases (`--phase prepare` stops after the first; the state in --state lets a second call go on, and
TRITON_CACHE_DIR, default DIR/triton-cache, keeps the compiled kernels):

1. prepare: one process per (tree, case), --jobs at a time (compiling is the cost, and needs the CPUs); the
   reference's first, then the others' with its choices. Each runs its case once to compile and tune, then
   once with every kernel launch recorded: its name and a digest of each tensor argument after it ran (the
   reference twice, to find kernels whose results vary from run to run: atomics); and the digests of the
   op's output and gradients. Written to DIR/prepare/TREE/CASE.json; a job whose file exists is skipped.
2. time: one process per tree; --rounds rounds, each timing every case in every tree, the trees' order
   rotating from case to case: --steps steps under torch's profiler, the GPU time of each kernel per step.

The report (printed, and written to --out as kernel_times.md and .json after every round): per kernel and
case, the reference's µs (fastest round, median), each tree's ratio (reference / tree, of the fastest rounds,
so above 1 is faster), whether each launch of the kernel left the same bits as in the reference; the
geometric mean per tree; the kernels under --slow; coverage against block_kernels.py's list.

`--device cpu` runs the same code on the CPU under TRITON_INTERPRET=1 with tiny shapes (B=2 T=40 H=2,
head dims 32 and 20 by default) and wall-clock times of each launch: a test of everything but the GPU's
timing, runnable on a machine without one.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from block_kernels import block_pointer_kernels  # noqa: E402
from time_ops import Worker, answer, autotuners, compile_only, serve_requests, set_benchmark  # noqa: E402

# (B, T, H) of `fixed` and the sequence lengths of `varlen` (odd, so that no chunk but the first of each
# sequence starts aligned), per device
SHAPES = {"cuda": ((2, 4096, 16), (1111, 77, 2047, 861)), "cpu": ((2, 40, 2), (13, 7, 25, 19))}


# ---- the ops and their inputs ----

class Inputs:
    """Seeded tensors of one case, made alike in every tree and process."""

    def __init__(self, device: str, dim: int, batch: str):
        import torch

        (B, T, H), lengths = SHAPES[device]
        if batch == "varlen":
            B, T = 1, sum(lengths)
            self.cu_seqlens = torch.tensor([0, *lengths], device=device).cumsum(0)
        else:
            self.cu_seqlens = None
        self.B, self.T, self.H, self.D = B, T, H, dim
        self.device = device
        # bf16 as fla's users run it; the interpreter cannot build bf16 constants (fla's delta-rule ops,
        # which refuse fp32, then fail on the CPU)
        self.dtype = torch.bfloat16 if device == "cuda" else torch.float32
        self.generator = torch.Generator(device=device).manual_seed(0)

    def randn(self, *size, dtype=None):
        import torch

        values = torch.randn(size, generator=self.generator, device=self.device, dtype=torch.float32)
        return values.to(dtype or self.dtype)

    def qkv(self) -> dict:
        import torch.nn.functional as F

        B, T, H, D = self.B, self.T, self.H, self.D
        q, v = self.randn(B, T, H, D), self.randn(B, T, H, D)
        k = F.normalize(self.randn(B, T, H, D, dtype=None), p=2, dim=-1)
        return {"q": q, "k": k, "v": v}

    def decay(self, *last, fp32: bool = True):
        """Log-space decays of shape (B, T, H, *last)."""
        import torch
        import torch.nn.functional as F

        return F.logsigmoid(self.randn(self.B, self.T, self.H, *last, dtype=torch.float32)).to(
            torch.float32 if fp32 else self.dtype)

    def beta(self):
        return self.randn(self.B, self.T, self.H).sigmoid()


def op_arguments(op: str, x: Inputs) -> dict:
    """The keyword arguments of `fla.ops.<op>` (tensors and options) for one case."""
    import torch

    B, T, H, D = x.B, x.T, x.H, x.D
    varlen = {"cu_seqlens": x.cu_seqlens} if x.cu_seqlens is not None else {}
    qkv = x.qkv()
    if op == "chunk_gla":
        extra = {"g": x.decay(D, fp32=False)}
    elif op == "chunk_simple_gla":
        extra = {"g": x.decay()}
    elif op == "chunk_delta_rule":
        extra = {"beta": x.beta()}
    elif op == "chunk_gated_delta_rule":
        extra = {"g": x.decay(), "beta": x.beta()}
    elif op == "chunk_kda":  # the gate computed in the kernel (fla/ops/kda/gate.py), q and k normalised there
        extra = {"g": x.randn(B, T, H, D), "beta": x.beta(), "A_log": x.randn(H, dtype=torch.float32),
                 "dt_bias": x.randn(H * D, dtype=torch.float32), "use_gate_in_kernel": True,
                 "use_qk_l2norm_in_kernel": True}
    elif op == "chunk_dplr_delta_rule":
        extra = {"a": -qkv["k"] * x.beta()[..., None], "b": qkv["k"].clone(), "gk": x.decay(D, fp32=False)}
    elif op == "chunk_rwkv6":
        qkv["r"] = qkv.pop("q")
        extra = {"w": x.decay(D, fp32=False), "u": x.randn(H, D)}
    elif op == "chunk_gsa":
        extra = {"s": x.randn(B, T, H, 64), "g": x.decay(64, fp32=False)}
    elif op == "chunk_comba":
        extra = {"p": qkv["k"].clone(), "g": x.decay(), "beta": x.beta()}
    elif op in ("parallel_attn", "chunk_linear_attn"):  # the latter normalises: a global cumsum of k
        extra = {}
    else:
        raise ValueError(f"no inputs for {op}")
    return {**qkv, **extra, **varlen}


OPS = ("chunk_gla", "chunk_simple_gla", "chunk_delta_rule", "chunk_gated_delta_rule", "chunk_kda",
       "chunk_dplr_delta_rule", "chunk_rwkv6", "chunk_gsa", "chunk_comba", "parallel_attn",
       "chunk_linear_attn")


def label(case: dict) -> str:
    return f"{case['op']} D={case['dim']} {case['batch']}"


class Case:
    """One op at one head dim and batch: forward, then backward from a seeded output gradient."""

    def __init__(self, case: dict, device: str):
        import fla.ops

        self.function = getattr(fla.ops, case["op"])
        self.arguments = op_arguments(case["op"], Inputs(device, case["dim"], case["batch"]))
        self.tensors = {name: value.requires_grad_() for name, value in self.arguments.items()
                        if hasattr(value, "is_floating_point") and value.is_floating_point()}
        self.do = None

    def step(self):
        import torch

        for tensor in self.tensors.values():
            tensor.grad = None
        result = self.function(**self.arguments)
        output = result[0] if isinstance(result, tuple) else result
        if self.do is None:
            generator = torch.Generator(device=output.device).manual_seed(1)
            self.do = torch.randn(output.shape, generator=generator, device=output.device).to(output.dtype)
        output.backward(self.do)
        return output

    def results(self) -> dict:
        """Digests of the output and every gradient."""
        output = self.step()
        return {"o": digest(output), **{f"d{name}": digest(t.grad) for name, t in self.tensors.items()
                                        if t.grad is not None}}


# ---- what every launch did ----

def digest(tensor) -> str:
    """A digest of a tensor's bytes computed where it lives (hashing on the host would copy gigabytes): the
    sum of its 32-bit words, each times an odd weight of its position, modulo 2^64, and its byte count."""
    import torch

    data = tensor.detach().contiguous().view(-1).view(torch.uint8)
    size = data.numel()
    data = torch.nn.functional.pad(data, (0, -size % 4)).view(torch.int32).to(torch.int64)
    weights = torch.arange(data.numel(), device=data.device, dtype=torch.int64) * 2654435761 + 1
    return f"{size}:{int((data * weights).sum()) & (2**64 - 1):016x}"


class Launches:
    """Records every Triton launch: its kernel's name and, when `digests` is set, a digest of each tensor
    argument after it ran; when `clock` is set, its wall time (the interpreter's launches are synchronous)."""

    def __init__(self):
        self.log: list[tuple[str, list[str], float]] = []
        self.digests = self.clock = False

    def install(self) -> None:
        from triton.runtime.jit import JITFunction

        classes = [JITFunction]
        if os.environ.get("TRITON_INTERPRET") == "1":
            from triton.runtime.interpreter import InterpretedFunction

            classes.append(InterpretedFunction)
        for cls in classes:
            cls.run = self.wrap(cls.run)

    def wrap(self, run):
        def recorded(function, *args, **kwargs):
            if kwargs.get("warmup"):
                return run(function, *args, **kwargs)
            start = time.perf_counter()
            result = run(function, *args, **kwargs)
            seconds = time.perf_counter() - start
            tensors = [value for value in (*args, *kwargs.values()) if hasattr(value, "data_ptr")]
            digests = sorted({digest(t) for t in tensors}) if self.digests else []
            self.log.append((function.fn.__name__, digests, seconds))
            return result
        return recorded

    def take(self) -> list:
        log, self.log = self.log, []
        return log


LAUNCHES = Launches()


def per_kernel(log: list) -> dict[str, list]:
    """kernel -> the digests of its launches, in order."""
    kernels: dict[str, list] = {}
    for name, digests, _ in log:
        kernels.setdefault(name, []).append(digests)
    return kernels


def spread(configs: list, count: int) -> list:
    """`count` of the configs, the first and last among them, evenly spaced over the list."""
    if count <= 0 or len(configs) <= count:
        return configs
    if count == 1:
        return configs[:1]
    return [configs[round(i * (len(configs) - 1) / (count - 1))] for i in range(count)]


def cpu_benchmark(kernel_call, quantiles=None, **_):
    """The interpreter's autotuning benchmark: one call's wall time."""
    start = time.perf_counter()
    kernel_call()
    ms = (time.perf_counter() - start) * 1000
    return [ms, ms, ms] if quantiles else ms


def gpu_benchmark(kernel_call, quantiles=None, **_):
    from triton.testing import do_bench

    return do_bench(kernel_call, warmup=5, rep=20, quantiles=quantiles)


# ---- the worker: one request per line on stdin ----

def prepare(request: dict, cases: dict) -> dict:
    """Compile and tune (or take `pinned`) every case, then record what each launch left."""
    import fla.ops  # noqa: F401 - every autotuner exists from here on
    import torch

    device = request["device"]
    # memory that torch.empty hands out is filled (NaN, the largest integer), so that what a kernel leaves
    # unwritten (fla's A: the upper triangle) reads the same in every run; only here: it costs time
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    for tuner in autotuners().values():
        tuner.configs = spread(tuner.configs, request["tune_configs"])
    pinned = request.get("pinned")
    tuning = cpu_benchmark if device == "cpu" else gpu_benchmark
    set_benchmark(compile_only if pinned is not None else tuning, pinned)
    out: dict = {"cases": {}}
    for case in request["cases"]:
        cases[label(case)] = Case(case, device)
        out["cases"][label(case)] = answer(lambda c=cases[label(case)]: record(c, request["repeats"]),
                                          synchronize=device == "cuda")
    out["choices"] = {name: {repr(key): str(config) for key, config in tuner.cache.items()}
                      for name, tuner in autotuners().items() if tuner.cache}
    if device == "cuda":
        torch.cuda.synchronize()
    return out


def record(case: Case, repeats: int) -> dict:
    """A first run (compiling, tuning), then `repeats` recorded runs: per run, each kernel's launch digests."""
    case.step()
    LAUNCHES.take()
    LAUNCHES.digests = True
    runs = []
    try:
        for _ in range(repeats):
            results = case.results()
            runs.append({"kernels": per_kernel(LAUNCHES.take()), "results": results})
    finally:
        LAUNCHES.digests = False
    return {"runs": runs}


def time_case(request: dict, cases: dict) -> dict:
    """µs per step of each kernel the case launches: GPU time under torch's profiler, or on the CPU the
    wall time of each launch."""
    import torch

    case = cases.get(label(request["case"])) or cases.setdefault(label(request["case"]),
                                                                 Case(request["case"], request["device"]))
    steps = request["steps"]
    case.step()
    if request["device"] == "cpu":
        LAUNCHES.take()
        for _ in range(steps):
            case.step()
        times: dict[str, float] = {}
        for name, _, seconds in LAUNCHES.take():
            times[name] = times.get(name, 0.0) + seconds * 1e6 / steps
        return times
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        for _ in range(steps):
            case.step()
        torch.cuda.synchronize()
    LAUNCHES.take()  # only the interpreter's times are read from it
    return {event.key: event.self_device_time_total / steps for event in profiler.key_averages()
            if event.self_device_time_total > 0}


def compiled() -> dict:
    """Per kernel, the binaries this process launched (on the GPU; the interpreter compiles none): warps,
    stages, registers, spilled bytes, shared memory. In the timing process, where every autotuner takes the
    pinned choice, they are the binaries that were timed."""
    import gc
    import warnings

    from triton.runtime.jit import JITFunction

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        functions = [o for o in gc.get_objects() if isinstance(o, JITFunction)]
    found: dict[str, list] = {}
    for function in functions:
        for caches in function.device_caches.values():
            for kernel in caches[0].values():
                found.setdefault(function.fn.__name__, []).append({
                    "warps": kernel.metadata.num_warps, "stages": kernel.metadata.num_stages,
                    "registers": getattr(kernel, "n_regs", None), "spills": getattr(kernel, "n_spills", None),
                    "shared": kernel.metadata.shared})
    return found


def serve(request: dict, cases: dict) -> dict:
    if request["do"] == "prepare":
        return prepare(request, cases)
    if request["do"] == "compiled":
        return compiled()
    if request["do"] == "pin":
        import fla.ops  # noqa: F401

        for tuner in autotuners().values():
            tuner.configs = spread(tuner.configs, request["tune_configs"])
        set_benchmark(compile_only, request["pinned"])
        return {}
    return time_case(request, cases)


def run_worker() -> None:
    LAUNCHES.install()
    serve_requests(serve)


# ---- the parent ----

def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path, help="library copies; the first is the reference")
    parser.add_argument("--state", type=Path, required=True, help="where phase 1 leaves its results")
    parser.add_argument("--out", type=Path, help="where the report goes (kernel_times.md, .json)")
    parser.add_argument("--phase", choices=("prepare", "all"), default="all")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    parser.add_argument("--ops", default=",".join(OPS), help=f"comma-separated, of {', '.join(OPS)}")
    parser.add_argument("--dims", help="head dims, comma-separated (default 128,100; on the CPU 32,20)")
    parser.add_argument("--batches", default="fixed,varlen", help="comma-separated, of fixed, varlen")
    parser.add_argument("--tune-configs", type=int, default=4, help="configs per autotuner (0: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count(), help="phase 1 processes at a time")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=10, help="steps per measurement")
    parser.add_argument("--slow", type=float, default=0.98, help="the ratio under which a kernel is listed")
    parser.add_argument("--budget-s", type=float, default=1e9,
                        help="start no more phase-1 jobs or timing rounds (past the first) after this many seconds")
    args = parser.parse_args(argv)
    args.ops = args.ops.split(",")
    if unknown := set(args.ops) - set(OPS):
        parser.error(f"unknown op {', '.join(sorted(unknown))}; choose from {', '.join(OPS)}")
    if missing := [tree for tree in args.trees if not (tree / "fla" / "__init__.py").is_file()]:
        parser.error(f"no fla/__init__.py in {', '.join(map(str, missing))}")
    if unknown := set(args.batches.split(",")) - {"fixed", "varlen"}:
        parser.error(f"unknown batch {', '.join(sorted(unknown))}; choose from fixed, varlen")
    dims = args.dims or ("128,100" if args.device == "cuda" else "32,20")
    args.cases = [{"op": op, "dim": int(dim), "batch": batch}
                  for op in args.ops for dim in dims.split(",") for batch in args.batches.split(",")]
    args.names = [tree.name for tree in args.trees]
    if len(set(args.names)) < len(args.names):
        parser.error("the trees' folder names must differ: they name the report's columns")
    args.started = time.monotonic()
    return args


def over_budget(args: argparse.Namespace) -> bool:
    return time.monotonic() - args.started > args.budget_s


def environment(args: argparse.Namespace, tree: Path, tool: Path) -> dict:
    inherited = [os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree.resolve()), str(tool), str(HERE), *inherited]),
           "FLA_CACHE_RESULTS": "0", "PYTHONWARNINGS": "ignore"}
    env.setdefault("TRITON_CACHE_DIR", str((args.state / "triton-cache").resolve()))
    if args.device == "cpu":
        env["TRITON_INTERPRET"] = "1"
    return env


def prepared_path(args: argparse.Namespace, name: str, case: dict) -> Path:
    return args.state / "prepare" / name / f"{case['op']}-D{case['dim']}-{case['batch']}.json"


def run_prepare(args: argparse.Namespace, tool: Path) -> None:
    """Phase 1, a job per (tree, case): the reference's, and each other tree's once the reference has done
    that case (its choices are pinned there). A job a case: the compiling of one case is one process's."""
    reference = args.names[0]
    waiting = [(name, index) for name in args.names for index, case in enumerate(args.cases)
               if not prepared_path(args, name, case).exists()]
    running: dict[tuple[str, int], Worker] = {}
    while waiting or running:
        ready = [job for job in waiting
                 if job[0] == reference or prepared_path(args, reference, args.cases[job[1]]).exists()]
        while ready and len(running) < args.jobs and not over_budget(args):
            job = ready.pop(0)
            waiting.remove(job)
            running[job] = start_prepare(args, tool, *job)
        if not running:
            break  # over budget: the rest is the next call's
        finish_one(args, running)
    print(f"prepare: {len(waiting)} jobs left for the next call" if waiting else "prepare: done",
          file=sys.stderr, flush=True)


def start_prepare(args: argparse.Namespace, tool: Path, name: str, index: int) -> Worker:
    tree, case = args.trees[args.names.index(name)], args.cases[index]
    worker = Worker(tree, case["op"], environment(args, tree, tool), script=__file__)
    request = {"do": "prepare", "device": args.device, "tune_configs": args.tune_configs, "cases": [case],
               "repeats": 2 if name == args.names[0] else 1}
    if name != args.names[0]:
        request["pinned"] = json.loads(prepared_path(args, args.names[0], case).read_text())["choices"]
    worker.send(request)
    return worker


def finish_one(args: argparse.Namespace, running: dict) -> None:
    """Wait for any job to answer; keep its answer (a failure of the whole job too: it is a result)."""
    import select

    streams = {worker.process.stdout: job for job, worker in running.items()}
    readable, _, _ = select.select(list(streams), [], [])
    job = streams[readable[0]]
    worker = running.pop(job)
    reply = worker.receive()
    worker.close()
    result = reply.get("result") or {"error": reply.get("error", "no answer"), "cases": {}, "choices": {}}
    path = prepared_path(args, job[0], args.cases[job[1]])
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result) + "\n")
    failed = [case for case, answer_ in result["cases"].items() if "error" in answer_]
    outcome = result.get("error") or (f"{len(failed)} cases failed: {result['cases'][failed[0]]['error']}"
                                      if failed else "done")
    print(f"prepare {job[0]} {label(args.cases[job[1]])}: {outcome} at {time.monotonic() - args.started:.0f} s",
          file=sys.stderr, flush=True)


def run_timing(args: argparse.Namespace, tool: Path) -> dict:
    """Phase 2; times[case][tree] = a list of {kernel: µs per step}, one per round."""
    workers = {}
    for name, tree in zip(args.names, args.trees):
        workers[name] = Worker(tree, "all", environment(args, tree, tool), script=__file__)
    choices: dict = {}
    for case in args.cases:
        path = prepared_path(args, args.names[0], case)
        if path.exists():
            for tuner, keys in json.loads(path.read_text())["choices"].items():
                choices.setdefault(tuner, {}).update(keys)
    for worker in workers.values():
        worker.send({"do": "pin", "pinned": choices, "tune_configs": args.tune_configs})
    for name, worker in workers.items():
        if "error" in (reply := worker.receive()):
            sys.exit(f"{name}: {reply['error']}")
    times: dict = {label(case): {name: [] for name in args.names} for case in args.cases}
    prepared = load_prepared(args)
    try:
        for round_ in range(args.rounds):
            if round_ and over_budget(args):
                break  # the first round runs whatever the budget: a call's timing is its point
            for index, case in enumerate(args.cases):
                turn = (round_ + index) % len(args.names)
                for name in args.names[turn:] + args.names[:turn]:
                    if "result" not in prepared[name].get(label(case), {}):
                        continue  # a launch that failed may leave the GPU unusable to the process
                    reply = workers[name].ask({"do": "time", "case": case, "device": args.device,
                                               "steps": args.steps})
                    times[label(case)][name].append(reply.get("result") or {"error": reply.get("error")})
            write_report(args, times, f"after round {round_ + 1} of {args.rounds}")
        args.compiled = {name: worker.ask({"do": "compiled"}).get("result", {}) for name, worker in workers.items()}
        write_report(args, times, f"{args.rounds} rounds")
    finally:
        for worker in workers.values():
            worker.close()
    return times


# ---- the report ----

def load_prepared(args: argparse.Namespace) -> dict:
    """prepared[tree][case label] = the job's answer for that case ({"result": {"runs": [...]}} or an error)."""
    prepared: dict = {name: {} for name in args.names}
    for name in args.names:
        for case in args.cases:
            path = prepared_path(args, name, case)
            if path.exists():
                found = json.loads(path.read_text())
                missing = {"error": found.get("error", "no answer")}
                prepared[name][label(case)] = found["cases"].get(label(case), missing)
    return prepared


def identity(prepared: dict, case: str, name: str, reference: str) -> tuple[dict, str]:
    """Per kernel the verdict on its launches in tree `name` against the reference's: `yes`, `NO`, or
    `varies` (two runs of the reference already differ); and the verdict on the op's output and gradients."""
    mine, theirs = prepared[name].get(case, {}), prepared[reference].get(case, {})
    if "result" not in mine or "result" not in theirs:
        return {}, (mine.get("error") or theirs.get("error") or "not prepared")[:60]
    first, *again = theirs["result"]["runs"]
    run = mine["result"]["runs"][0]
    kernels = {}
    for kernel, launches in first["kernels"].items():
        if any(other["kernels"].get(kernel) != launches for other in again):
            kernels[kernel] = "varies"
        else:
            kernels[kernel] = "yes" if run["kernels"].get(kernel) == launches else "NO"
    differing = [n for n, d in first["results"].items() if run["results"].get(n) != d]
    varying = [n for n, d in first["results"].items() if any(o["results"].get(n) != d for o in again)]
    verdict = "same bits" if not differing else f"differ: {','.join(differing)}"
    return kernels, verdict + (f" (varies in the reference: {','.join(varying)})" if varying else "")


def kernel_rows(args: argparse.Namespace, times: dict, prepared: dict) -> list[dict]:
    """One row per (kernel, case) the reference launched as a Triton kernel: per tree the fastest and median
    round's µs (None before phase 2) and the identity verdict."""
    reference = args.names[0]
    rows = []
    for case, per_tree in times.items():
        kernels, _ = identity(prepared, case, reference, reference)
        for kernel in sorted(kernels):
            row = {"kernel": kernel, "case": case, "trees": {}}
            for name in args.names:
                rounds = [found[kernel] for found in per_tree[name] if kernel in found]
                verdict = identity(prepared, case, name, reference)[0].get(kernel, "-")
                row["trees"][name] = {"min": min(rounds, default=None),
                                      "median": statistics.median(rounds) if rounds else None,
                                      "identical": verdict}
            rows.append(row)
    return rows


def ratio(row: dict, name: str, reference: str) -> float | None:
    mine, theirs = row["trees"][name]["min"], row["trees"][reference]["min"]
    return theirs / mine if mine and theirs else None


def geomean(values: list[float]) -> float | None:
    return math.exp(sum(map(math.log, values)) / len(values)) if values else None


def render(args: argparse.Namespace, times: dict, prepared: dict, title: str) -> tuple[str, dict]:
    reference, others = args.names[0], args.names[1:]
    rows = kernel_rows(args, times, prepared)
    lines = [f"# Per-kernel times, {title}", "",
             f"µs per step: the fastest of the rounds (median). Ratio: {reference}'s fastest / the tree's "
             f"(above 1: faster). Same bits: every launch of the kernel left the same bytes in every tensor it "
             f"was given as in {reference} (`varies`: two runs of {reference} already differ).", "",
             f"| kernel | case | {reference} µs | " + " | ".join(f"{n} ratio | {n} same bits" for n in others) + " |",
             "|---|---|---:|" + "---:|---|" * len(others)]
    for row in rows:
        first = row["trees"][reference]
        cells = []
        for name in others:
            value = ratio(row, name, reference)
            cells.append(f"{value:.3f}" if value else "-")
            cells.append(row["trees"][name]["identical"])
        us = f"{first['min']:.1f} ({first['median']:.1f})" if first["min"] else "-"
        lines.append(f"| {row['kernel']} | {row['case']} | {us} | " + " | ".join(cells) + " |")
    summary = {name: geomean([r for r in (ratio(row, name, reference) for row in rows) if r]) for name in others}
    lines += ["", "Geometric mean of the ratios: " + ", ".join(
        f"{name} {value:.3f}" if value else f"{name} -" for name, value in summary.items())]
    slow = [(row, name, ratio(row, name, reference)) for row in rows for name in others]
    slow = sorted((item for item in slow if item[2] and item[2] < args.slow), key=lambda item: item[2])
    lines += ["", f"Under {args.slow}: " + ("none" if not slow else "; ".join(
        f"{row['kernel']} {row['case']} {name} {value:.3f}{binaries(args, row['kernel'], name)}"
        for row, name, value in slow))]
    lines += ["", "Ops (output and gradients against the reference):"]
    for case in times:
        verdicts = ", ".join(f"{name} {identity(prepared, case, name, reference)[1]}" for name in others)
        lines.append(f"- {case}: {verdicts}")
    lines += ["", coverage(args, prepared)]
    return "\n".join(lines) + "\n", {"rows": rows, "geomean": summary}


def binaries(args: argparse.Namespace, kernel: str, name: str) -> str:
    """The reference's and the tree's binaries of a kernel, as `w4 s2 128 regs 0 spilled` each (after the
    timing rounds, where the timing processes were asked)."""
    found = getattr(args, "compiled", {})
    if not found:
        return ""

    def described(tree: str) -> str:
        return ", ".join(f"w{b['warps']} s{b['stages']} {b['registers']} regs {b['spills']} spilled"
                         for b in found.get(tree, {}).get(kernel, [])) or "-"
    return f" ({args.names[0]}: {described(args.names[0])}; {name}: {described(name)})"


def coverage(args: argparse.Namespace, prepared: dict) -> str:
    """Which of the reference's block-pointer kernels the cases launched."""
    holding = block_pointer_kernels(args.trees[0])
    launched = set()
    for answer_ in prepared[args.names[0]].values():
        for run in answer_.get("result", {}).get("runs", [])[:1]:
            launched |= set(run["kernels"])
    reached = sorted(launched & set(holding))
    return (f"Coverage: {len(reached)} of the {len(holding)} kernels with block pointers "
            f"(block_kernels.py) launched: {', '.join(reached)}.")


def write_report(args: argparse.Namespace, times: dict, title: str) -> None:
    text, data = render(args, times, load_prepared(args), title)
    print(text, flush=True)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "kernel_times.md").write_text(text)
        (args.out / "kernel_times.json").write_text(json.dumps(
            {"cases": args.cases, "trees": [str(t) for t in args.trees], "times": times, **data,
             "compiled": getattr(args, "compiled", {})}, indent=1) + "\n")


def main(argv: list[str]) -> int:
    if argv == ["--worker"]:
        run_worker()
        return 0
    import tempfile

    from run_tests import lay_out_tool

    args = parse_args(argv)
    args.state.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tool:
        lay_out_tool(Path(tool))
        run_prepare(args, Path(tool))
        if args.phase == "all":
            run_timing(args, Path(tool))
        elif args.out:  # the identity and coverage so far, with no times
            write_report(args, {label(case): {n: [] for n in args.names} for case in args.cases}, "prepared only")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
