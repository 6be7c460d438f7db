"""The long block-pointer fuzz campaign (issue 34): generated kernels, every policy, Triton 3.8 and 3.9, figures.

    python tests/fuzz/campaign.py --kernels 2000 --seed 1 --jobs 2 --findings DIR --tally DIR/tally.txt
    python tests/fuzz/campaign.py --replay '[3, 0, 1, ...]' --policy compat    # one program, shown in full

Kernel k of a campaign is `grammar.generate(seed + k)`. `--jobs N` checks batches of kernels in N worker
processes (each with its own Triton 3.9 worker) and tallies them in seed order, so the figures and findings are
those of `--jobs 1`. Each failure class (symptom, policy, message) is shrunk the first time it shows
(`--shrink-seconds`, 0: off; in this process) and written to `--findings` as `fuzz-<class>.md`; every failure is
counted and none stops the run. A run stopped early (`--seconds`, SIGTERM, Ctrl-C) reports what it ran and the
seed to go on from (`--seed`); `--tally FILE` keeps the figures so far in FILE after every batch, so even a
killed run leaves them. Exit status 1 if anything failed.
"""

from __future__ import annotations

import argparse
import ast
import multiprocessing
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")  # before triton is imported, by the generated kernels
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz import compiled, grammar, invalid, runner, shrink


class Tally:
    def __init__(self) -> None:
        self.kernels = 0
        self.outcomes: Counter[str] = Counter()  # per policy run
        self.refusals: Counter[str] = Counter()  # refused codes
        self.classes: Counter[str] = Counter()
        self.first: dict[str, tuple[int, grammar.Program, runner.Verdict]] = {}
        self.features: Counter[str] = Counter()
        self.invalid: Counter[str] = Counter()

    def add(self, seed: int, program: grammar.Program, verdicts: list[runner.Verdict]) -> list[str]:
        """Count one kernel's verdicts; returns the classes seen for the first time."""
        self.kernels += 1
        self.features.update(program.features)
        new = []
        for verdict in verdicts:
            self.outcomes[f"{verdict.policy}: {verdict.outcome}"] += 1
            for code in filter(None, verdict.detail.split(",") if verdict.outcome in ("refused", "partial") else []):
                self.refusals[code] += 1
            if verdict.failed:
                self.classes[verdict.klass()] += 1
                finding = verdict.finding()  # one finding for a class seen in several policies
                if finding not in self.first:
                    self.first[finding] = (seed, program, verdict)
                    new.append(finding)
        return new

    def report(self, seconds: float) -> str:
        runs = sum(self.outcomes.values())
        failures = sum(self.classes.values())
        lines = [(f"kernels {self.kernels}, policy runs {runs}, failures {failures} in {len(self.classes)} classes, "
                  f"{seconds:.0f} s")]
        lines += ["", "outcomes (policy: outcome):"] + [f"  {n:7d}  {k}" for k, n in sorted(self.outcomes.items())]
        lines += ["", "refusals by code (policy runs):"] + [f"  {n:7d}  {k}" for k, n in self.refusals.most_common()]
        lines += ["", "failures by class:"] + [f"  {n:7d}  {k}" for k, n in self.classes.most_common()]
        if self.invalid:
            lines += ["", "invalid programs:"] + [f"  {n:7d}  {k}" for k, n in self.invalid.most_common()]
        return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", type=int, default=1000)
    parser.add_argument("--invalid", type=int, default=0, help="invalid programs to check (refusal, no crash)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes that check kernels")
    parser.add_argument("--batch", type=int, default=25, help="kernels per round trip to the 3.9 worker")
    parser.add_argument("--findings", type=Path, help="write each failure class here, shrunk")
    parser.add_argument("--shrink-seconds", type=float, default=120.0)
    parser.add_argument("--compile", action="store_true", help=f"also compile for {compiled.TARGET} (CPU only)")
    parser.add_argument("--seconds", type=float, default=0, help="stop after this long (0: no limit)")
    parser.add_argument("--replay", help="the choices of one program (a finding's), run and shown")
    parser.add_argument("--policy", help="with --replay: only this policy")
    parser.add_argument("--tally", type=Path, help="write the figures so far here after every batch")
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)
    if args.jobs < 1:
        parser.error("--jobs: at least 1")
    work = Lazy(args.compile)
    try:
        if args.replay:
            return replay(work.runner, ast.literal_eval(args.replay), args.policy)
        return campaign(work, args)
    finally:
        work.close()


class Lazy:
    """This process's runner (the Triton 3.9 worker is a process start): made when first needed, which with
    --jobs > 1 is only to shrink a failure."""

    def __init__(self, compile_for_gpu: bool) -> None:
        self.compile_for_gpu = compile_for_gpu
        self._runner: runner.Runner | None = None

    @property
    def runner(self) -> runner.Runner:
        if self._runner is None:
            directory = tempfile.mkdtemp(prefix="fuzz-campaign-")
            self._runner = runner.Runner(directory, compile_for_gpu=self.compile_for_gpu)
        return self._runner

    def close(self) -> None:
        if self._runner is not None:
            self._runner.worker.close()


_pool_runner: runner.Runner | None = None  # a pool worker's own


def _start_pool_worker(compile_for_gpu: bool) -> None:
    global _pool_runner
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the pool
    _pool_runner = runner.Runner(tempfile.mkdtemp(prefix="fuzz-campaign-"), compile_for_gpu=compile_for_gpu)
    multiprocessing.util.Finalize(None, _pool_runner.worker.close, exitpriority=10)


def check_batch(seeds: range, work: runner.Runner | None = None) -> list[tuple[int, grammar.Program, list]]:
    """(seed, program, verdicts) for each seed, checked by `work` (a pool worker's runner when None)."""
    programs = [grammar.generate(seed) for seed in seeds]
    return list(zip(seeds, programs, (work or _pool_runner).check(programs)))


def checked_batches(work: Lazy, args):
    """Each batch's results in seed order, from this process or from a pool of --jobs workers."""
    batches = [range(first, min(first + args.batch, args.seed + args.kernels))
               for first in range(args.seed, args.seed + args.kernels, args.batch)]
    if args.jobs == 1:
        yield from (check_batch(seeds, work.runner) for seeds in batches)
        return
    context = multiprocessing.get_context("spawn")  # a fresh interpreter each: no forked torch or 3.9 worker
    with context.Pool(args.jobs, _start_pool_worker, (args.compile,)) as pool:
        yield from pool.imap(check_batch, batches)  # leaving the `with` stops the workers


class Stopped(Exception):
    pass


def _stop(signum, frame):
    raise Stopped(signal.Signals(signum).name)


def replay(work: runner.Runner, choices: list[int], policy: str | None) -> int:
    program = grammar.generate(prefix=choices)
    print(program.source)
    print(f"launch: {program.launch}\nfacts: {program.facts}")
    for verdict in work.check([program], policy)[0]:
        print(f"\n== {verdict.policy}: {verdict.outcome} {verdict.detail[-2000:]}")
    return 0


def campaign(work: Lazy, args) -> int:
    tally = Tally()
    started = time.monotonic()
    print(f"seed {args.seed}, {args.kernels} kernels, batches of {args.batch}, {args.jobs} jobs")
    signal.signal(signal.SIGTERM, _stop)
    batches = checked_batches(work, args)
    try:
        for batch in batches:
            for seed, program, verdicts in batch:
                for klass in tally.add(seed, program, verdicts):
                    print(f"new failure class at seed {seed}: {klass}")
                    if args.findings and args.shrink_seconds:
                        record(work.runner, tally, klass, args)
            print(f"  {tally.kernels} kernels, {sum(tally.classes.values())} failures, "
                  f"{time.monotonic() - started:.0f} s")
            if args.tally:
                args.tally.write_text(tally.report(time.monotonic() - started) + "\n")
            if args.seconds and time.monotonic() - started > args.seconds:
                raise Stopped(f"the limit of {args.seconds:.0f} s")
    except (Stopped, KeyboardInterrupt) as stop:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # finish the report
        print(f"stopped by {stop or 'Ctrl-C'} after seeds {args.seed}-{args.seed + tally.kernels - 1}; "
              f"to go on: --seed {args.seed + tally.kernels} --kernels {args.kernels - tally.kernels}")
    finally:
        batches.close()
    for k in range(args.invalid):
        tally.invalid[invalid.check(invalid.generate(args.seed + k))] += 1
    if args.findings:
        for klass in tally.first:  # the counts, now final
            record(work.runner, tally, klass, args, shrink_again=False)
    print()
    print(tally.report(time.monotonic() - started))
    if args.tally:
        args.tally.write_text(tally.report(time.monotonic() - started) + "\n")
    bad_invalid = sum(n for k, n in tally.invalid.items() if not k.startswith(("refused", "still rejected")))
    return 1 if tally.classes or bad_invalid else 0


_shrunk: dict[str, tuple[grammar.Program, runner.Verdict]] = {}


def record(work: runner.Runner, tally: Tally, klass: str, args, shrink_again: bool = True) -> None:
    seed, program, verdict = tally.first[klass]
    if shrink_again or klass not in _shrunk:
        def fails(candidate):
            return any(v.failed and v.finding() == klass for v in work.check([candidate], verdict.policy)[0])

        work.compile_for_gpu = args.compile and verdict.outcome == "compile-error"  # compiling is slow
        small = shrink.shrink(program, fails, args.shrink_seconds)
        found = next((v for v in work.check([small], verdict.policy)[0] if v.finding() == klass), None)
        _shrunk[klass] = (small, found) if found else (program, verdict)
        work.compile_for_gpu = args.compile
        print(f"  shrunk from {sum(map(bool, program.choices))} to {sum(map(bool, small.choices))} non-zero choices")
    small, found = _shrunk[klass]
    policies = {k.split("/")[1]: n for k, n in tally.classes.items() if runner.Verdict.finding_of(k) == klass}
    path = shrink.write_finding(args.findings, klass, small, found, seed, policies)
    if shrink_again:
        print(f"  written {path.name}")


if __name__ == "__main__":
    sys.exit(main())
