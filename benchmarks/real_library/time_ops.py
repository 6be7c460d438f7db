"""Time a real library's ops in several copies of it (before and after migration), interleaved.

    python benchmarks/real_library/time_ops.py TREE_DIR... [--ops chunk_simple_gla,...] [--dims 128,100]

Written for flash-linear-attention: each op runs forward (under no_grad) and forward+backward through
autograd, bf16, B=4 T=4096 H=16 (--shape), for each head dim of --dims. Every (tree, op) gets a worker
process of its own that imports `fla` from that tree (with this checkout's triton_migrate on its path, for
the compat tree). The ops autotune over dozens of configs per kernel, so there are three phases:

1. compile: all workers at once run every case once with an autotuner that only compiles and runs each
   config once (compiling is most of the time, and it needs the CPUs, not the GPU);
2. tune: one worker at a time, the autotuners time the configs for real (do_bench with --tune-ms, shorter
   than Triton's 25/100 ms default to fit the time), on an otherwise idle GPU; outputs and gradients are
   fingerprinted here. Each tree tunes for itself, as a user's process would; with --pin-tuning the other
   trees take the first tree's choice for every autotuner key instead (matched by the config's text), which
   separates the code from the autotuner's pick but is not what a user gets: a config tuned for one form
   can spill in another (fla's chunk_gated_delta_rule_fwd_kernel_h_blockdim64 at K=100, num_warps=2,
   num_stages=2, BV=32, sm_90: 0 bytes spilled as block pointers, 200 as masked pointers);
3. measure: --rounds rounds; each round times every case in every tree with triton.testing.do_bench
   (median), one tree at a time, the trees' order rotating from round to round.

Printed after every round, per case and tree: the median over the rounds so far in ms, the fastest round, the
speed-up over the first tree (of the fastest rounds: see report()), and whether the outputs (and gradients)
are bit-identical to the first tree's, else the largest relative difference of their norms.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OPS = ("chunk_simple_gla", "chunk_delta_rule", "chunk_gated_delta_rule", "chunk_gla")


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path, help="library copies; ratios are to the first")
    parser.add_argument("--ops", default=",".join(OPS[:3]), help=f"comma-separated, of {', '.join(OPS)}")
    parser.add_argument("--dims", default="128,100", help="head dims, comma-separated")
    parser.add_argument("--shape", default="4,4096,16", help="B,T,H")
    parser.add_argument("--modes", default="fwd,fwdbwd", help="fwd, fwdbwd or both")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bench-ms", default="25,100", help="do_bench warmup,rep of each measurement")
    parser.add_argument("--tune-ms", default="5,25", help="do_bench warmup,rep of each autotuning config")
    parser.add_argument("--pin-tuning", action="store_true",
                        help="the other trees take the first tree's autotuning choices instead of tuning")
    parser.add_argument("--kernels", action="store_true",
                        help="at the end, each case's GPU kernels side by side (torch's profiler)")
    parser.add_argument("--allocator", action="store_true", help="torch-backed Triton allocator in every thread")
    parser.add_argument("--past-640", action="store_true",
                        help="run the gated chunk_bwd_dqkwg that fla refuses on Hopper with Triton 3.4-3.7.0 "
                             "(its issue #640: that Triton computes it wrongly); for timing, in every tree alike")
    parser.add_argument("--json", type=Path, help="also write every measurement here")
    args = parser.parse_args(argv)
    args.ops = args.ops.split(",")
    if unknown := set(args.ops) - set(OPS):
        parser.error(f"unknown op {', '.join(sorted(unknown))}; choose from {', '.join(OPS)}")
    if missing := [tree for tree in args.trees if not (tree / "fla" / "__init__.py").is_file()]:
        parser.error(f"no fla/__init__.py in {', '.join(map(str, missing))}")
    shape = [int(n) for n in args.shape.split(",")]
    args.cases = [{"op": op, "dim": int(dim), "shape": shape, "mode": mode}
                  for op in args.ops for dim in args.dims.split(",") for mode in args.modes.split(",")]
    args.bench_ms, args.tune_ms = ([int(n) for n in ms.split(",")] for ms in (args.bench_ms, args.tune_ms))
    return args


def label(case: dict) -> str:
    return f"{case['op']} D={case['dim']} {case['mode']}"


# ---- the worker: one per (tree, op), answering one JSON request per line on stdin ----

def inputs(op: str, dim: int, shape: list[int]) -> dict:
    """The op's arguments, the same in every tree: seeded, normalised keys, log-space decays, sigmoid betas."""
    import torch
    import torch.nn.functional as F

    B, T, H = shape
    generator = torch.Generator(device="cuda").manual_seed(0)

    def randn(*size, dtype=torch.bfloat16):
        return torch.randn(size, generator=generator, device="cuda", dtype=torch.float32).to(dtype)

    q, v = randn(B, T, H, dim), randn(B, T, H, dim)
    k = F.normalize(randn(B, T, H, dim, dtype=torch.float32), p=2, dim=-1).to(torch.bfloat16)
    extra = {
        "chunk_simple_gla": lambda: {"g": F.logsigmoid(randn(B, T, H, dtype=torch.float32))},
        "chunk_gla": lambda: {"g": F.logsigmoid(randn(B, T, H, dim))},
        "chunk_delta_rule": lambda: {"beta": randn(B, T, H).sigmoid()},
        "chunk_gated_delta_rule": lambda: {"g": F.logsigmoid(randn(B, T, H, dtype=torch.float32)),
                                           "beta": randn(B, T, H).sigmoid()},
    }[op]()
    return {"q": q, "k": k, "v": v, **extra}


@functools.cache
def shared_inputs(op: str, dim: int, shape: tuple) -> dict:
    """One set of inputs for the fwd and fwdbwd cases of an op and head dim (GPU memory is shared by all
    workers)."""
    return {name: t.requires_grad_() for name, t in inputs(op, dim, list(shape)).items()}


class Case:
    def __init__(self, case: dict):
        import fla.ops

        self.function = getattr(fla.ops, case["op"])
        self.case = case
        self.step = self.forward if case["mode"] == "fwd" else self.forward_backward

    @functools.cached_property
    def tensors(self) -> dict:
        """Made on first use, so that a failure to make them is the failure of a step."""
        return shared_inputs(self.case["op"], self.case["dim"], tuple(self.case["shape"]))

    @functools.cached_property
    def do(self):
        """The output gradient, seeded: the same in every tree and every process (unseeded, it made every
        run's gradients differ from every other's)."""
        import torch

        v = self.tensors["v"]
        generator = torch.Generator(device=v.device).manual_seed(1)
        return torch.randn(v.shape, generator=generator, device=v.device, dtype=torch.float32).to(v.dtype)

    def forward(self):
        import torch

        with torch.no_grad():
            return self.function(**self.tensors)[0]

    def forward_backward(self):
        output = self.function(**self.tensors)[0]
        output.backward(self.do)
        return output

    def run(self) -> None:
        self.step()

    def fingerprint(self) -> dict:
        """Per output (and gradient, under fwdbwd): a hash of its bytes and its norm."""
        import hashlib

        import torch

        for t in self.tensors.values():
            t.grad = None
        named = {"o": self.step(), **{f"d{n}": t.grad for n, t in self.tensors.items() if t.grad is not None}}
        return {name: [hashlib.sha1(t.detach().contiguous().view(torch.uint8).cpu().numpy()).hexdigest()[:12],
                       t.double().norm().item()] for name, t in named.items()}


def compile_only(kernel_call, quantiles=None, **_):
    """An autotuner benchmark that only compiles and runs the config once: every config scores the same."""
    kernel_call()
    return [1.0, 1.0, 1.0] if quantiles else 1.0


def autotuners() -> dict:
    """Every autotuner alive, by its kernel's module and name (the same in every tree)."""
    import gc
    import warnings

    from triton.runtime.autotuner import Autotuner

    with warnings.catch_warnings():  # isinstance() on some of torch's lazy objects warns
        warnings.simplefilter("ignore")
        tuners = [o for o in gc.get_objects() if isinstance(o, Autotuner)]
    return {f"{t.base_fn.__module__}.{t.base_fn.__qualname__}": t for t in tuners}


class PinnedChoices(dict):
    """An autotuner's cache that answers a key another tree tuned with that tree's config (matched by text);
    a key it does not know is tuned as usual."""

    def __init__(self, configs: list, choices: dict):
        super().__init__()
        self.configs, self.choices = configs, choices

    def __contains__(self, key) -> bool:
        if not dict.__contains__(self, key) and repr(key) in self.choices:
            self.update({key: c for c in self.configs if str(c) == self.choices[repr(key)]})
        return dict.__contains__(self, key)


def set_benchmark(benchmark, pinned: dict | None = None) -> None:
    """Give every autotuner this benchmark and make it forget its choices (not its compiled kernels),
    or take the choices in pinned ({autotuner: {repr(key): str(config)}})."""
    for name, tuner in autotuners().items():
        tuner.__dict__["do_bench"] = benchmark  # shadows Triton's cached_property of that name
        tuner.cache = PinnedChoices(tuner.configs, pinned.get(name, {})) if pinned is not None else {}


def choices() -> dict:
    return {name: {repr(key): str(config) for key, config in tuner.cache.items()}
            for name, tuner in autotuners().items() if tuner.cache}


def kernel_times(case: Case, steps: int = 20) -> dict:
    """µs per step of each GPU kernel that a step launches (torch's profiler, summed over launches)."""
    import torch
    from torch.profiler import ProfilerActivity, profile

    case.run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as profiler:
        for _ in range(steps):
            case.run()
        torch.cuda.synchronize()
    return {event.key: event.self_device_time_total / steps for event in profiler.key_averages()
            if event.self_device_time_total > 0}


def serve(request: dict, cases: dict) -> dict:
    from triton.testing import do_bench

    if request["do"] == "compile":
        import fla.ops  # noqa: F401 - first, and with it every autotuner, before they are switched

        set_benchmark(compile_only)
        for case in request["cases"]:
            cases[label(case)] = Case(case)
        return {name: answer(case.run) for name, case in cases.items()}
    if request["do"] == "tune":
        warmup, rep = request["tune_ms"]
        set_benchmark(functools.partial(do_bench, warmup=warmup, rep=rep), request.get("pinned"))
        return {name: answer(case.fingerprint) for name, case in cases.items()}
    if request["do"] == "choices":
        return choices()
    if request["do"] == "kernels":
        return kernel_times(cases[request["case"]])
    case = cases[request["case"]]
    warmup, rep = request["bench_ms"]
    grads = list(case.tensors.values()) if case.case["mode"] == "fwdbwd" else None
    return {"ms": do_bench(case.step, warmup=warmup, rep=rep, grad_to_none=grads, return_mode="median")}


def serve_requests(serve) -> None:
    """A worker's loop: a JSON request a line on stdin, serve(request, cases) answered a line on stdout."""
    channel = os.fdopen(os.dup(1), "w")  # the answers' own; whatever else writes to stdout goes to stderr
    os.dup2(2, 1)
    cases: dict = {}
    for line in sys.stdin:
        request = json.loads(line)
        channel.write(json.dumps(answer(lambda: serve(request, cases), synchronize=False)) + "\n")
        channel.flush()


def answer(work, synchronize=True) -> dict:
    """The result of work(), or the error it raised: one case failing in one tree is a result."""
    import torch

    try:
        result = work()
        if synchronize:  # so that an error of the kernels is this work's
            torch.cuda.synchronize()
        return {"result": result}
    except Exception as error:
        return {"error": f"{type(error).__name__}: {error}".splitlines()[0][:300]}


def run_worker() -> None:
    if os.environ.get("TIME_OPS_ALLOCATOR"):
        import allocator

        allocator.install()
    if os.environ.get("TIME_OPS_PAST_640"):
        # fla's own check (fla/ops/common/chunk_o.py) reads this flag at each call: the backward of
        # chunk_simple_gla and chunk_gated_delta_rule then runs as on Triton >= 3.7.1, the same code in
        # every tree, so the trees' times and gradients still compare (not fla's, which #640 says are off).
        import fla.ops.common.chunk_o

        fla.ops.common.chunk_o.TRITON_ABOVE_3_7_1 = True
    serve_requests(serve)


# ---- the parent ----

class Worker:
    """A process of `script --worker` in `tree` (this file's, or another's that speaks its protocol)."""

    def __init__(self, tree: Path, op: str, env: dict, script: str = __file__):
        self.tree, self.op = tree, op
        self.process = subprocess.Popen([sys.executable, script, "--worker"], cwd=tree, env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(self, request: dict) -> None:
        with contextlib.suppress(BrokenPipeError):  # a worker that died: receive() says so
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()

    def receive(self) -> dict:
        line = self.process.stdout.readline()
        return json.loads(line) if line else {"error": f"worker exited ({self.process.wait()})"}

    def ask(self, request: dict) -> dict:
        self.send(request)
        return self.receive()

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        self.process.wait()


def tree_names(trees: list[Path]) -> list[str]:
    names = [tree.name for tree in trees]
    if len(set(names)) < len(names):  # two copies named alike: tell them apart by their parent too
        names = [f"{tree.parent.name}/{tree.name}" for tree in trees]
    return names


def start_workers(args: argparse.Namespace, tool: Path) -> dict[tuple[str, str], Worker]:
    from run_tests import lay_out_tool

    lay_out_tool(tool)
    inherited = [os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []
    workers = {}
    for name, tree in zip(tree_names(args.trees), args.trees):
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree.resolve()), str(tool), str(HERE), *inherited]),
               "FLA_CACHE_RESULTS": "0"}  # no autotuning result from disk: each is made in phase 2
        if args.allocator:
            env["TIME_OPS_ALLOCATOR"] = "1"
        if args.past_640:
            env["TIME_OPS_PAST_640"] = "1"
        for op in args.ops:
            workers[name, op] = Worker(tree, op, env)
    return workers


def prepare(workers: dict, args: argparse.Namespace) -> dict:
    """Phases 1 and 2. Returns per case label and tree name the fingerprint, or the error of either phase; each
    tree's autotuning choices per op go into args.choices (a kernel's speed in two trees is the code's only
    where both chose the same config)."""
    for (name, op), worker in workers.items():
        worker.send({"do": "compile", "cases": [case for case in args.cases if case["op"] == op]})
    fingerprints: dict[str, dict] = {label(case): {} for case in args.cases}
    for (name, op), worker in workers.items():
        for case_label, result in per_case(worker.receive(), args, op).items():
            if "error" in result:
                fingerprints[case_label][name] = result
    print("compiled", file=sys.stderr, flush=True)
    first_tree_choices: dict[str, dict] = {}
    args.choices = {}
    for (name, op), worker in workers.items():
        request = {"do": "tune", "tune_ms": args.tune_ms}
        if op in first_tree_choices and args.pin_tuning:
            request["pinned"] = first_tree_choices[op]
        for case_label, result in per_case(worker.ask(request), args, op).items():
            fingerprints[case_label].setdefault(name, result)
        chosen = worker.ask({"do": "choices"}).get("result", {})
        args.choices.setdefault(name, {})[op] = chosen
        first_tree_choices.setdefault(op, chosen)
        print(f"tuned {name} {op}" + (" (the first tree's choices)" if "pinned" in request else ""),
              file=sys.stderr, flush=True)
    return fingerprints


def per_case(reply: dict, args: argparse.Namespace, op: str) -> dict:
    """A worker's answer for each of its cases; the error for all of them if the whole request failed."""
    labels = [label(case) for case in args.cases if case["op"] == op]
    return reply["result"] if "result" in reply else dict.fromkeys(labels, reply)


def measure(workers: dict, names: list[str], args: argparse.Namespace, fingerprints: dict) -> None:
    """Phase 3. The report so far after every round, so that a run cut short still leaves one."""
    times: dict[str, dict[str, list]] = {label(c): {name: [] for name in names} for c in args.cases}
    for round_ in range(args.rounds):
        order = names[round_ % len(names):] + names[:round_ % len(names)]
        for case in args.cases:
            for name in order:
                reply = workers[name, case["op"]].ask({"do": "time", "case": label(case), "bench_ms": args.bench_ms})
                times[label(case)][name].append(reply["result"]["ms"] if "result" in reply else reply["error"])
        print(f"\nafter round {round_ + 1} of {args.rounds}:\n{report(names, times, fingerprints)}", flush=True)
        if args.json:
            args.json.write_text(json.dumps({"cases": args.cases, "trees": [str(t) for t in args.trees],
                                             "times": times, "fingerprints": fingerprints,
                                             "choices": args.choices}, indent=1) + "\n")


def kernel_report(workers: dict, names: list[str], args: argparse.Namespace) -> str:
    """Per case, every kernel's µs per step in each tree and the first tree's time / this tree's."""
    lines = []
    for case in args.cases:
        replies = {name: workers[name, case["op"]].ask({"do": "kernels", "case": label(case)}) for name in names}
        per_tree = {name: reply.get("result", {}) for name, reply in replies.items()}
        lines.append(f"\n{label(case)}: µs per step" + "".join(f"  {name}" for name in names))
        first = per_tree[names[0]]
        for kernel in sorted(set().union(*per_tree.values()), key=lambda k: -first.get(k, 0)):
            cells = [f"{per_tree[name][kernel]:9.1f}" if kernel in per_tree[name] else "        -" for name in names]
            ratios = [f"{first[kernel] / per_tree[name][kernel]:.3f}" if kernel in first and kernel in per_tree[name]
                      else "-" for name in names[1:]]
            lines.append(f"  {kernel[:60]:60} {' '.join(cells)}  {' '.join(ratios)}")
        totals = {name: sum(times.values()) for name, times in per_tree.items()}
        if all(totals.values()):  # the op's GPU time, free of the host's jitter that the timings above carry
            cells = " ".join(f"{totals[name]:9.1f}" for name in names)
            ratios = " ".join(f"{totals[names[0]] / totals[name]:.3f}" for name in names[1:])
            lines.append(f"  {'all kernels (GPU time per step)':60} {cells}  {ratios}")
    return "\n".join(lines)


def agreement(ours: dict, theirs: dict) -> str:
    if "error" in ours or "error" in theirs:
        return ours.get("error", "")[:80] or "first tree failed"
    ours, theirs = ours["result"], theirs["result"]
    if all(ours[n][0] == theirs[n][0] for n in ours):
        return "same bits"
    worst = max((abs(ours[n][1] - theirs[n][1]) / (abs(theirs[n][1]) or 1), n) for n in ours)
    return f"differs: |norm| rel {worst[0]:.1e} ({worst[1]})"


def report(names: list[str], times: dict, fingerprints: dict) -> str:
    """Per case and tree: the median and fastest time, and the speed-up over the first tree: its fastest
    round's time / this tree's. The fastest round, because the slow rounds are the host's, not the kernels':
    these ops are a few short kernels launched from Python, and a copy of the same tree measured round by
    round 0.26 ms, then 0.47 ms, against the first copy's 0.49 and 0.26 ms (medians of ratios 0.55–1.09,
    fastest rounds 0.99–1.01)."""
    lines = [f"{'case':36} {'tree':14} {'median ms':>10} {'min ms':>8} {'speed-up':>8}  outputs vs first tree"]
    for case, per_tree in times.items():
        fastest = {name: min((x for x in values if isinstance(x, float)), default=None)
                   for name, values in per_tree.items()}
        for name in names:
            check = agreement(fingerprints[case].get(name, {"error": "not tuned"}),
                              fingerprints[case].get(names[0], {"error": "not tuned"}))
            if fastest[name] is None:  # the first error: of compiling or tuning, else of timing
                error = fingerprints[case].get(name, {}).get("error") or per_tree[name][0]
                lines.append(f"{case:36} {name:14} {'failed':>10}  {error}"[:240])
                continue
            median = statistics.median(x for x in per_tree[name] if isinstance(x, float))
            speed_up = f"{fastest[names[0]] / fastest[name]:8.3f}" if fastest[names[0]] else "       -"
            lines.append(f"{case:36} {name:14} {median:10.3f} {fastest[name]:8.3f} {speed_up}  {check}")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv == ["--worker"]:
        run_worker()
        return 0
    args = parse_args(argv)
    names = tree_names(args.trees)
    with tempfile.TemporaryDirectory() as tool:
        workers = start_workers(args, Path(tool))
        try:
            measure(workers, names, args, prepare(workers, args))
            if args.kernels:
                print(kernel_report(workers, names, args), flush=True)
        finally:
            for worker in workers.values():
                worker.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
