"""Every generated kernel migrated in every policy and run in the interpreter, compared bit for bit.

The original runs on Triton 3.8 (this process, TRITON_INTERPRET=1 set before triton is imported), each distinct
migrated source on 3.8 here and on 3.9 in one long-lived subprocess (`Worker39`) that serves every batch of a
run, so a batch costs one round trip, not one Python start per kernel. Outputs are the whole buffers, margins
and sentinels included, compared by `differential.compare_outputs` (raw bits; two computed NaNs are equal).

    python tests/fuzz/runner.py serve39      # the subprocess's entry point (PYTHONPATH has Triton 3.9)
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tempfile
import traceback
from dataclasses import dataclass
from pathlib import Path

import torch

if (TESTS := str(Path(__file__).resolve().parents[1])) not in sys.path:  # run as a script: the tests' modules
    sys.path.insert(0, TESTS)

import differential as D

from fuzz import launch

# Symptoms that are failures of the codemod (the rest are outcomes: identical, refused).
FAILURES = ("internal-error", "source-error", "unreported", "error-3.8", "error-3.9", "diff-3.8", "diff-3.9",
            "compile-error", "marks-differ")
FUZZER_BUG = "original-error"  # the generator drew a kernel Triton 3.8 cannot run
# The method form of advance, which Triton 3.8's interpreter cannot run (grammar's docstring).
METHOD_ADVANCE = re.compile(r"([\w\[\]]+)\.advance\((\([^()]*\))\)")


@dataclass
class Verdict:
    policy: str
    # "identical" (migrated, the same bits on 3.8 and 3.9), "partial" (some sites refused, the others migrated:
    # the same bits on 3.8; 3.9 cannot run what is left), "refused" (nothing changed), or one of FAILURES
    outcome: str
    detail: str = ""  # refused codes, or the failure's message
    migrated: str | None = None

    @property
    def failed(self) -> bool:
        return self.outcome in FAILURES or self.outcome == FUZZER_BUG

    def klass(self) -> str:
        """The failure class: symptom, policy, and the message with its particulars (numbers, names) erased."""
        return f"{self.outcome}/{self.policy}/{signature(self.detail)}"

    def finding(self) -> str:
        return self.finding_of(self.klass())

    @staticmethod
    def finding_of(klass: str) -> str:
        """A class without its policy: one finding, whichever policies show it."""
        outcome, _, message = klass.split("/", 2)
        return f"{outcome}/{message}"


def signature(detail: str) -> str:
    lines = [line for line in detail.strip().splitlines() if line.strip()]
    # A chained traceback prints its root cause first: that line names the class, not the wrapper's.
    causes = [line for line in lines if re.match(r"[\w.]*(Error|Exception)\b", line)]
    last = causes[0] if causes else lines[-1] if lines else ""
    if "cells differ" in last:  # a difference: which buffer, not where
        last = re.sub(r"\].*", "]", last.split(":")[-2] if ":" in last else last)
    last = re.sub(r"'[^']*'|`[^`]*`|\"[^\"]*\"", "…", last)
    return re.sub(r"\d+", "N", last)[:120]


def policies(program) -> dict:
    """Every policy a kernel is migrated in: the facts one only where the launch honours them."""
    from triton_migrate.policy import Policy, Statement

    return {"default": Policy(), "pointer": Policy(target="pointer"), "compat": Policy(target="compat"),
            "facts": Policy(assume=tuple(Statement(fact, "the fuzzer's launch") for fact in program.facts))}


def migrate(source: str, policy) -> tuple[str, str, str | None]:
    """(outcome, detail, new source): "internal-error"/"source-error", "marks-differ" (a check, which does not
    rewrite, marks other sites fixable than the rewrite migrates: `[*]` must mean what --write changes),
    "refused", "unreported" or "migrated"."""
    from triton_migrate import engine

    try:
        outcome = engine.migrate_source(source, policy=policy)
        promised = engine.migrate_source(source, policy=policy, verify=False, rewrite=False)
    except engine.SourceError as error:
        return "source-error", f"SourceError: {error}", None
    except Exception as error:  # noqa: BLE001 - an internal error is what the fuzzer looks for
        return "internal-error", "".join(traceback.format_exception_only(error)).strip(), None
    differ = set(_marks(promised)) ^ set(_marks(outcome))
    if differ:
        return "marks-differ", f"check and rewrite disagree on (line, column, code, fixed): {sorted(differ)}", None
    refused = ",".join(sorted({d.code for d in outcome.refused}))
    if outcome.new_source is None:
        return ("refused", refused, None) if refused else ("unreported", "nothing migrated, nothing refused", None)
    return ("refused" if refused else "migrated"), refused, outcome.new_source


def _marks(outcome) -> list[tuple[int, int, str, bool]]:
    return [(d.line, d.column, d.code, d.fixed) for d in outcome.diagnostics]


def run_file(path: Path, program_launch: dict) -> dict[str, torch.Tensor] | str:
    """The buffers after one launch, or the traceback of the failure."""
    try:
        module = D.import_path(path, "fz")
    except BaseException:  # noqa: BLE001 - reported as the run's failure
        return traceback.format_exc()
    try:
        return launch.run(module, program_launch)
    except BaseException:  # noqa: BLE001
        return traceback.format_exc()
    finally:
        sys.modules.pop(module.__name__, None)


def last_line(text: str) -> str:
    return [line for line in text.strip().splitlines() if line.strip()][-1]


class Worker39:
    """One Triton 3.9 interpreter process for many batches: a line with a job file in, a line back."""

    def __init__(self) -> None:
        env = dict(os.environ, TRITON_INTERPRET="1")
        env["PYTHONPATH"] = os.pathsep.join([str(D.TRITON39), *filter(None, [env.get("PYTHONPATH")])])
        self.directory = tempfile.mkdtemp(prefix="fuzz39_")
        self.process = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "serve39"], env=env,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=self.directory)
        self.batches = 0

    def run(self, jobs: list[tuple[str, str, dict]]) -> dict:
        if not jobs:
            return {}
        self.batches += 1
        job_path = os.path.join(self.directory, f"jobs{self.batches}.pt")
        out_path = os.path.join(self.directory, f"out{self.batches}.pt")
        torch.save(jobs, job_path)
        self.process.stdin.write(f"{job_path} {out_path}\n")
        self.process.stdin.flush()
        while True:
            line = self.process.stdout.readline()
            if not line:
                raise RuntimeError("the Triton 3.9 worker died")
            if line.startswith("__done__"):
                break
        results = torch.load(out_path, weights_only=False)
        os.remove(job_path)
        os.remove(out_path)
        return results

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=60)


def _serve39() -> int:
    import triton

    if not triton.__version__.startswith("3.9"):
        print(f"expected Triton 3.9, got {triton.__version__}", file=sys.stderr)
        return 3
    for line in sys.stdin:
        job_path, out_path = line.split()
        results = {key: run_file(Path(path), spec) for key, path, spec in torch.load(job_path, weights_only=False)}
        torch.save(results, out_path)
        print("__done__", flush=True)
    return 0


class Runner:
    """Checks batches of programs; `directory` holds their files (one set per program)."""

    def __init__(self, directory: str, worker: Worker39 | None = None, compile_for_gpu: bool = False,
                 second_triton: bool = True) -> None:
        """`second_triton` False: the installed Triton only, no 3.9 worker (a machine without .triton39)."""
        self.directory = Path(directory)
        self.worker = worker or (Worker39() if second_triton else None)
        self.compile_for_gpu = compile_for_gpu  # also compile original and migrated kernels (compiled.TARGET)
        self.count = 0

    def check(self, programs, only: str | None = None) -> list[list[Verdict]]:
        """For each program, a verdict per policy (`only`: that policy alone)."""
        verdicts, jobs = [], []
        for program in programs:
            results, program_jobs = self.check_38(program, only)
            verdicts.append(results)
            jobs += program_jobs
        if self.worker is None:
            jobs = []
        got = self.worker.run([(key, path, spec) for key, path, spec, _, _ in jobs]) if jobs else {}
        for key, _, _, expected, waiting in jobs:
            outcome = got[key]
            for verdict in waiting:
                if verdict.outcome != "identical":
                    continue  # already failed on 3.8
                if isinstance(outcome, str):
                    verdict.outcome, verdict.detail = "error-3.9", outcome
                else:
                    problems = D.compare_outputs(expected, outcome, "3.9")
                    if problems:
                        verdict.outcome, verdict.detail = "diff-3.9", "\n".join(problems)
        if self.compile_for_gpu:
            self.compile(programs, verdicts)
        return verdicts

    def compile(self, programs, verdicts: list[list[Verdict]]) -> None:
        """Compile each original and each migrated source that ran identically (in part): a migrated kernel that
        the compiler rejects where the original compiled is a failure the interpreter cannot show."""
        from fuzz import compiled

        jobs, waiting = [], {}
        for number, (program, program_verdicts) in enumerate(zip(programs, verdicts)):
            original = self.directory / f"compile_{self.count}_{number}.py"
            original.write_text(program.source)
            jobs.append((str(original), str(original), program.launch))
            for verdict in program_verdicts:
                if verdict.outcome in ("identical", "partial"):
                    path = self.directory / f"compile_{self.count}_{number}_{verdict.policy}.py"
                    path.write_text(verdict.migrated)
                    jobs.append((str(path), str(path), program.launch))
                    waiting[str(path)] = (str(original), verdict)
        errors = compiled.compile_all(jobs)
        for key, (original, verdict) in waiting.items():
            if errors[key] and not errors[original]:
                verdict.outcome, verdict.detail = "compile-error", f"{compiled.TARGET}: {errors[key]}"

    def check_38(self, program, only: str | None):
        self.count += 1
        folder = self.directory / f"p{self.count}"
        folder.mkdir(parents=True, exist_ok=True)
        reference = folder / "reference.py"
        reference.write_text(program.reference)
        expected = run_file(reference, program.launch)
        if isinstance(expected, str):
            return [Verdict("original", FUZZER_BUG, expected)], []
        verdicts: list[Verdict] = []
        by_source: dict[str, list[Verdict]] = {}
        for name, policy in policies(program).items():
            if only and name != only:
                continue
            outcome, detail, new_source = migrate(program.source, policy)
            verdict = Verdict(name, outcome, detail, new_source)
            verdicts.append(verdict)
            if outcome == "migrated":
                verdict.outcome = "identical"  # until a run says otherwise
                by_source.setdefault(new_source, []).append(verdict)
            elif outcome == "refused" and new_source is not None:
                verdict.outcome = "partial"  # runs on 3.8 only
                by_source.setdefault(new_source, []).append(verdict)
        jobs = []
        for source, waiting in by_source.items():
            path = folder / f"m_{hashlib.sha1(source.encode()).hexdigest()[:10]}.py"
            path.write_text(source)
            runnable = path.with_suffix(".38.py")  # what is left of `p.advance(d)`, as the 3.8 interpreter runs it
            runnable.write_text(METHOD_ADVANCE.sub(r"tl.advance(\1, \2)", source))
            actual = run_file(runnable, program.launch)
            if isinstance(actual, str):
                failure = ("error-3.8", actual)
            else:
                problems = D.compare_outputs(expected, actual, "3.8")
                failure = ("diff-3.8", "\n".join(problems)) if problems else None
            if failure:
                for verdict in waiting:
                    verdict.outcome, verdict.detail = failure
            elif any(v.outcome == "identical" for v in waiting):
                jobs.append((str(path), str(path), program.launch, expected, waiting))
        return verdicts, jobs


if __name__ == "__main__":
    if sys.argv[1:] == ["serve39"]:
        sys.exit(_serve39())
    print("usage: runner.py serve39", file=sys.stderr)
    sys.exit(2)
