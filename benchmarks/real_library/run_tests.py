"""Run a real library's own tests before and after migration, one copy of the library per policy.

    python benchmarks/real_library/run_tests.py LIB_DIR OUT_DIR [options] [-- PYTEST_ARGS...]

LIB_DIR is copied to WORK/original (WORK is OUT_DIR unless --work names another folder), then to
WORK/default, WORK/strict and WORK/compat, which `migrate --write` rewrites with no flag, `--strict` and
`--target compat`. The same pytest selection (PYTEST_ARGS, or DEFAULT_TESTS, written for
flash-linear-attention) then runs in each copy, from that copy's folder, with the copy first on PYTHONPATH.
The trees' tests run at the same time, the CPUs shared out among them as pytest-xdist workers: compiling
the autotuners' configs is most of the time, and one test compiles its configs one after another, so a tree
alone would leave most CPUs idle while its slowest tests finish (--sequential runs one tree at a time).
OUT_DIR receives at most seven files: summary.txt (what is printed at the end: a table per tree, the
distinct failures, the tests whose outcome differs from the original's), summary.json, log.txt (every
command's output) and TREE.xml, pytest's JUnit report per tree.

The codemod runs from this checkout as it is at run time: its packages are laid out as pyproject.toml's
package-dir maps them, as links into the checkout, and put on PYTHONPATH (the compat tree imports
triton_migrate.compat from there too). Requirements of the tool and of the library that the interpreter
lacks are installed from --wheels (default: the checkout's .whl/) into WORK/_deps, without the network.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
MIGRATE = "import sys; sys.argv[0] = 'migrate'; from triton_migrate.cli import main; main()"
POLICIES = {"default": [], "strict": ["--strict"], "compat": ["--target", "compat"]}
TREES = ("original", *POLICIES)
# flash-linear-attention at 7e46dffc: forward and backward through autograd against the ops' reference
# implementations, odd head dims (60, 100), lengths that are not a multiple of the chunk, variable-length
# batches; these ops' kernels are mostly block pointers. Mostly H=4 and D=100, so that kernels these ops share
# (solve_tril, the WY representation, the chunked state) compile once per tree. Heavy and light alternate:
# pytest-xdist's worksteal first hands each worker a contiguous share.
DEFAULT_TESTS = [
    "tests/ops/test_gla.py::test_chunk_varlen[H4-D100-cu_seqlens[0, 15, 100, 300, 1200, 2000]-torch.float16]",
    "tests/ops/test_solve_tril.py::test_solve_tril_varlen[H4-D100-chunk_size64-cu_seqlens[0, 15, 100, 300, 1200,"
    " 2000]]",
    "tests/ops/test_gdn.py::test_chunk[B3-T1024-H4-HV4-D100-scale1-gate_logit_normalizer0.1-mask_p0"
    "-use_qk_l2norm_in_kernelFalse-torch.float16]",
    "tests/ops/test_delta.py::test_chunk[B2-T100-H4-D60-scale0.1-False]",
    "tests/ops/test_gdn.py::test_chunk_varlen[H4-HV4-D100-mask_p0-cu_seqlens[0, 15, 100, 300, 1200, 2000]"
    "-torch.float16]",
    "tests/ops/test_simple_gla.py::test_chunk[B2-T500-H3-D60-scale1-gate_logit_normalizer1-torch.float16]",
    "tests/ops/test_delta.py::test_chunk_varlen[H4-D100-cu_seqlens[0, 15, 100, 300, 1200, 1599, 1800, 2000]"
    "-torch.float16]",
    "tests/ops/test_simple_gla.py::test_chunk_varlen[H4-D100-cu_seqlens[0, 15, 100, 300, 1200, 2000]"
    "-torch.float16]",
]


def parse_args(argv: list[str]) -> argparse.Namespace:
    own, pytest_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    parser = argparse.ArgumentParser(usage=__doc__.split("\n\n")[1].strip(),
                                     description="Run a library's tests before and after migration.")
    parser.add_argument("lib_dir", type=Path)
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--work", type=Path, help="where the copies go (default: OUT_DIR)")
    parser.add_argument("--trees", default=",".join(TREES), help=f"comma-separated, of {', '.join(TREES)}")
    parser.add_argument("-n", "--workers", type=int,
                        help="pytest-xdist workers per tree, 0 for none (default: the CPUs shared among the trees"
                             " that run at once)")
    parser.add_argument("--sequential", action="store_true", help="one tree's tests after another's")
    parser.add_argument("--timeout", type=float, help="seconds for each tree's tests, then they are interrupted")
    parser.add_argument("--wheels", type=Path, default=REPO / ".whl", help="wheels of missing requirements")
    parser.add_argument("--requires", default="",
                        help="requirements the library's tests need and its pyproject.toml does not declare, "
                             "comma-separated, each installed from --wheels without its own (mlstm_kernels: "
                             "matplotlib and what it needs)")
    parser.add_argument("--allocator", action="store_true",
                        help="give every thread a torch-backed Triton allocator (see allocator.py)")
    parser.add_argument("--package", default="fla", help="the library's top-level package (default: fla)")
    parser.add_argument("--migrate-only", action="store_true", help="copy and migrate, run no tests")
    args = parser.parse_args(own)
    args.pytest_args = pytest_args or DEFAULT_TESTS
    args.trees = args.trees.split(",")
    args.requires = [r for r in args.requires.split(",") if r]
    if unknown := set(args.trees) - set(TREES):
        parser.error(f"unknown tree {', '.join(sorted(unknown))}; choose from {', '.join(TREES)}")
    if not (args.lib_dir / "pyproject.toml").is_file() and not (args.lib_dir / "setup.py").is_file():
        parser.error(f"{args.lib_dir} does not look like a Python project (no pyproject.toml or setup.py)")
    args.work = (args.work or args.out_dir).resolve()
    if args.workers is None:
        args.workers = max(1, (os.cpu_count() or 1) // (1 if args.sequential else len(args.trees)))
    # flash-linear-attention's conftest takes a frame whose file name holds 'tests/' or 'test_' for a test's
    # own, and then stops poisoning torch.empty with NaNs: a copy under such a folder would test less.
    if "tests/" in f"{args.work}/" or "test_" in str(args.work):
        parser.error(f"--work {args.work}: a path with 'tests/' or 'test_' in it weakens the library's tests")
    return args


class Log:
    """log.txt: every command and its output, as it comes."""

    def __init__(self, path: Path):
        self.file = path.open("w")

    def section(self, title: str) -> None:
        self.write(f"\n===== {title}\n")

    def write(self, text: str) -> None:
        self.file.write(text)
        self.file.flush()


def lay_out_tool(root: Path) -> None:
    """This checkout's packages under `root` as an install would place them, linked so that edits show."""
    package_dir = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"]
    for name, folder in sorted(package_dir.items(), key=lambda item: item[0].count(".")):
        target, source = root.joinpath(*name.split(".")), REPO / folder
        if "." not in name:
            target.mkdir(parents=True)
            for entry in source.iterdir():
                if entry.name != "__pycache__":
                    (target / entry.name).symlink_to(entry)
        elif not target.exists():
            target.symlink_to(source, target_is_directory=True)
        elif target.resolve() != source.resolve():
            sys.exit(f"pyproject.toml maps {name} to {folder}, but {target} is already {target.resolve()}")


def missing_requirements(pyprojects: list[Path], extra: list[str] = ()) -> list[str]:
    """The `project.dependencies` of these pyproject.toml files, and the `extra` requirements, that this
    interpreter does not satisfy."""
    from importlib.metadata import PackageNotFoundError, version

    from packaging.requirements import Requirement

    declared = []
    for pyproject in pyprojects:
        project = tomllib.loads(pyproject.read_text()).get("project", {}) if pyproject.is_file() else {}
        declared += project.get("dependencies", [])
    missing = []
    for requirement in map(Requirement, [*declared, *extra]):
        if requirement.marker and not requirement.marker.evaluate():
            continue
        try:
            installed = version(requirement.name)
        except PackageNotFoundError:
            installed = None
        if installed is None or not requirement.specifier.contains(installed, prereleases=True):
            missing.append(str(requirement))
    return missing


def install_missing(args: argparse.Namespace, deps: Path, log: Log) -> None:
    pyprojects = [REPO / "pyproject.toml", *([] if args.migrate_only else [args.lib_dir / "pyproject.toml"])]
    missing = missing_requirements(pyprojects, args.requires)
    if not missing:
        return
    log.section(f"installing from {os.path.relpath(args.wheels)}: {', '.join(missing)}")
    command = [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--no-compile", "--quiet",
               "--find-links", str(args.wheels), "--target", str(deps), *missing]
    done = subprocess.run(command, capture_output=True, text=True)
    log.write(done.stdout + done.stderr)
    if done.returncode:
        sys.exit(f"could not install {', '.join(missing)} from {args.wheels}:\n{done.stderr}")


def migrate(tree: Path, flags: list[str], env: dict, log: Log) -> dict:
    command = [sys.executable, "-c", MIGRATE, "--write", "--isolated", "--no-cache", *flags, "."]
    log.section(f"{tree.name}: migrate --write --isolated --no-cache {' '.join(flags)} .")
    start = time.monotonic()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True)
    log.write(done.stdout + done.stderr)
    counts = re.search(r"Migrated (\d+) sites? in (\d+) files?(?:; (\d+) sites? left)?", done.stderr)
    migrated, files, left = (int(n or 0) for n in counts.groups()) if counts else (0, 0, 0)
    errors = [line for line in (done.stdout + done.stderr).splitlines() if ": error:" in line]
    return {"rc": done.returncode, "migrated": migrated, "files": files, "left": left, "errors": errors,
            "summary": done.stderr.strip().splitlines()[-1:] or [""], "seconds": time.monotonic() - start}


def check_import(tree: Path, env: dict, top_level: str) -> None:
    """Refuse to test a copy if its package is not the one Python imports from it."""
    probe = f"import {top_level}, os; print(os.path.realpath({top_level}.__file__))"
    done = subprocess.run([sys.executable, "-c", probe], cwd=tree, env=env, capture_output=True, text=True)
    found = done.stdout.strip().splitlines()[-1:] or [done.stderr.strip()]
    if done.returncode or not found[0].startswith(f"{tree.resolve()}/"):
        sys.exit(f"{tree}: `import {top_level}` does not come from this copy: {found[0]}")


class Pytest:
    """One tree's pytest run, its output in WORK/TREE.pytest.log until it is added to log.txt."""

    def __init__(self, tree: Path, args: argparse.Namespace, env: dict):
        self.tree, self.report, self.output = tree, args.out_dir / f"{tree.name}.xml", tree.with_suffix(".pytest.log")
        xdist = ["-n", str(args.workers), "--dist", "worksteal"] if args.workers else []
        plugins = ["-p", "allocator"] if args.allocator else []
        self.command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugins, *xdist, "-q", "-rfE",
                        "--durations=8", f"--junitxml={self.report}", *args.pytest_args]
        self.report.unlink(missing_ok=True)  # an earlier run's report would pass for this one's
        self.start, self.interrupted = time.monotonic(), False
        with self.output.open("w") as output:
            self.process = subprocess.Popen(self.command, cwd=tree, env=env, stdout=output,
                                            stderr=subprocess.STDOUT, start_new_session=True)

    def interrupt(self) -> None:
        """Stop the tests as --timeout does (pytest still writes the report of those that finished)."""
        if self.process.poll() is None:
            self.interrupted = True
            os.killpg(self.process.pid, signal.SIGINT)

    def finish(self, deadline: float | None, log: Log) -> dict:
        timed_out = False
        try:
            self.process.wait(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            timed_out = True  # SIGINT first: pytest then still writes the report of the tests that finished
            os.killpg(self.process.pid, signal.SIGINT)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        log.section(f"{self.tree.name}: {' '.join(self.command[1:])}")
        log.write(self.output.read_text(errors="replace"))
        return {"rc": self.process.returncode, "timed_out": timed_out or self.interrupted,
                "seconds": time.monotonic() - self.start,
                **read_junit(self.report)}


RANK = {"passed": 0, "skipped": 1, "error": 2, "failed": 3}


def read_junit(report: Path) -> dict:
    """Per test: passed, failed, skipped or error, and for the last two what the failure says. A test that
    failed and then also errored in teardown appears twice in the report: it counts once, as failed. A test
    that was interrupted is not in the outcomes (it shows as not run)."""
    outcomes, messages = {}, {}
    cases = ElementTree.parse(report).getroot().iter("testcase") if report.is_file() else []
    for case in cases:
        if case.get("name") is None:
            continue  # pytest interrupted: an empty <testcase/> stands for the test it stopped, which did not pass
        test = f"{case.get('classname', '')}::{case.get('name', '')}"
        found = next(((case.find(tag), outcome) for tag, outcome in
                      (("failure", "failed"), ("error", "error"), ("skipped", "skipped"))
                      if case.find(tag) is not None), (None, "passed"))
        if RANK[found[1]] > RANK.get(outcomes.get(test), -1):
            outcomes[test] = found[1]
            if found[1] in ("failed", "error"):
                messages[test] = failure_lines(found[0])
    return {"outcomes": outcomes, "messages": messages}


def failure_lines(element) -> list[str]:
    """The exception pytest shows (its `E` lines) and where it was raised, at most six lines."""
    text = element.text or ""
    raised = [line[1:].strip() for line in text.splitlines() if line.startswith("E ")]
    where = [line for line in text.splitlines() if re.match(r"^\S+\.py:\d+: ", line)]
    return (raised[:5] or [element.get("message", "").strip()]) + where[-1:]


COLUMNS = ("tree", "migrated", "left", "unprocessed", "passed", "failed", "skipped", "error", "seconds")


def summarise(results: dict) -> str:
    """The table (sites migrated and left, files the codemod could not process, test outcomes), then why."""
    rows = [COLUMNS]
    for tree, result in results.items():
        mig, test = result.get("migrate"), result.get("pytest")
        row = [tree, *((mig["migrated"], mig["left"], len(mig["errors"])) if mig else ("-",) * 3)]
        if test:
            outcomes = list(test["outcomes"].values())
            row += [outcomes.count(kind) for kind in COLUMNS[4:8]] + [f"{test['seconds']:.0f}"]
            row[-1] += " (timed out)" * test["timed_out"]
            row[-1] += f" (no report, pytest exit {test['rc']}: see log.txt)" * (not outcomes)
        rows.append(row)
    lines = ["  ".join(f"{cell!s:>11}" for cell in row) for row in rows]
    for tree, result in results.items():
        if result.get("migrate", {}).get("errors"):
            lines += [f"\n{tree}: the codemod could not process:", *(f"  {e}" for e in result["migrate"]["errors"])]
    return "\n".join(lines + distinct_failures(results) + changed_outcomes(results))


def write_summary(out_dir: Path, results: dict) -> str:
    text = summarise(results)
    (out_dir / "summary.txt").write_text(text + "\n")
    (out_dir / "summary.json").write_text(json.dumps(results, indent=1) + "\n")
    return text


def distinct_failures(results: dict) -> list[str]:
    """Failures grouped by what they say, numbers blanked out, each with the trees and tests it hit."""
    groups: dict[str, dict] = {}
    for tree, result in results.items():
        for test, message in result.get("pytest", {}).get("messages", {}).items():
            key = re.sub(r"\d+(\.\d+)?(e[-+]?\d+)?", "#", message[0] if message else "")
            group = groups.setdefault(key, {"message": message, "hits": []})
            group["hits"].append(f"{tree}: {test}")
    lines = []
    for number, group in enumerate(groups.values(), 1):
        lines += [f"\nfailure {number} ({len(group['hits'])} tests):", *(f"  | {m}" for m in group["message"])]
        lines += [f"  - {hit}" for hit in group["hits"][:6]] + ([f"  - ... {len(group['hits']) - 6} more"]
                                                                 if len(group["hits"]) > 6 else [])
    return lines


def changed_outcomes(results: dict) -> list[str]:
    lines = []
    for tree, changed in outcome_changes(results).items():
        lines += [f"\n{tree}: outcome differs from original in {len(changed)} tests:", *changed]
    return lines


def outcome_changes(results: dict) -> dict[str, list[str]]:
    """Per migrated tree, each test whose outcome is not the original's, a test that one side did not run
    (a tree that timed out) included."""
    original = results.get("original", {}).get("pytest", {}).get("outcomes")
    if original is None:
        return {}
    changes = {}
    for tree, result in results.items():
        outcomes = result.get("pytest", {}).get("outcomes", {})
        changed = [f"  {test}: {original.get(test, 'not run')} -> {outcomes.get(test, 'not run')}"
                   for test in sorted({*original, *outcomes}) if original.get(test) != outcomes.get(test)]
        if tree != "original" and changed:
            changes[tree] = changed
    return changes


def run_tests(args: argparse.Namespace, search_path: list[str], tool_env: dict, results: dict, log: Log) -> None:
    """Every tree's pytest, all at once (or one after another with --sequential), up to --timeout each."""
    envs = {tree: {**tool_env, "PYTHONPATH": os.pathsep.join([str(args.work / tree), *search_path])}
            for tree in args.trees}
    for tree in args.trees:
        check_import(args.work / tree, envs[tree], args.package)
    runs: dict[str, Pytest] = {}
    # pytest runs in a session of its own (so that its workers can be stopped together): a SIGTERM to this
    # script (an outer `timeout`) must stop them too, or they hold the GPU into the next run.
    def interrupt_all(*_) -> None:
        for run in runs.values():
            run.interrupt()

    signal.signal(signal.SIGTERM, interrupt_all)
    for tree in args.trees:
        runs[tree] = Pytest(args.work / tree, args, envs[tree])
        if args.sequential:
            results[tree]["pytest"] = runs[tree].finish(args.timeout and time.monotonic() + args.timeout, log)
            write_summary(args.out_dir, results)  # after every tree, so that a run cut short still leaves one
    deadline = args.timeout and time.monotonic() + args.timeout
    for tree in [] if args.sequential else args.trees:
        results[tree]["pytest"] = runs[tree].finish(deadline, log)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    args.out_dir.mkdir(parents=True, exist_ok=True)
    args.work.mkdir(parents=True, exist_ok=True)
    log = Log(args.out_dir / "log.txt")
    tool, deps = args.work / "_tool", args.work / "_deps"
    for folder in (tool, deps, *(args.work / tree for tree in TREES)):
        shutil.rmtree(folder, ignore_errors=True)
    lay_out_tool(tool)
    install_missing(args, deps, log)
    # The inherited PYTHONPATH last: missing_requirements saw what it holds; check_import catches a stray copy.
    inherited = [os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []
    search_path = [str(tool), str(deps), *([str(HERE)] if args.allocator else []), *inherited]
    tool_env = {**os.environ, "PYTHONPATH": os.pathsep.join(search_path)}
    original = args.work / "original"
    shutil.copytree(args.lib_dir, original, symlinks=True,
                    ignore=shutil.ignore_patterns(".git", "__pycache__", ".triton-migrate-cache"))
    results: dict[str, dict] = {}
    for tree in args.trees:
        results[tree] = {}
        if tree != "original":
            shutil.copytree(original, args.work / tree, symlinks=True)
            results[tree]["migrate"] = migrate(args.work / tree, POLICIES[tree], tool_env, log)
    if not args.migrate_only:
        run_tests(args, search_path, tool_env, results, log)
    print(write_summary(args.out_dir, results))
    # A check, not only a report: any test whose outcome a migration changed, or a tree that did not finish.
    unfinished = [tree for tree, result in results.items() if result.get("pytest", {}).get("timed_out")]
    return 1 if outcome_changes(results) or unfinished else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
