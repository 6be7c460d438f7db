"""Issue 9, safe writes: `migrate --write` SIGKILLed in the middle of its writes, and at random points, never
leaves a file that is neither its old text nor its complete new text.

Where a kill can do harm is between the steps of a write, and a kill timed by the clock lands there only if
the machine is as fast as the test expected (issue 29: on a busy machine none did). So the first test kills
each run exactly there: the real CLI in a subprocess, told by `TRITON_MIGRATE_PAUSE_AT=STEP:N` (fileio.py) to
stop itself when its N-th write reaches STEP, is SIGKILLed (its whole process group) once it has stopped. The
tree must then hold N - 1 or N migrated files, every other file its old bytes, and at most the one temporary
file of the interrupted write; a run started on what the kill left must finish the job and remove it.

The campaign kills runs at random moments (of the whole run, or of its write phase), again and again, each
run on what the last kill left, as a user re-running after a crash would; once everything is migrated the
tree is reset. Where those kills land depends on timing, so it only checks what must hold wherever they land.
`tests/fuzz_campaign.py --kill N` runs a longer campaign.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache

from test_reliability import CLI, REFUSED, kernel, migrated

from triton_migrate.frontend.fileio import PAUSE_STEPS

CI_ITERATIONS = 50
CI_FILES = 6
UNIFORM_SHARE = 0.3  # the other kills aim at the write phase


@dataclass
class Stats:
    iterations: int = 0
    killed: int = 0
    finished_first: int = 0  # the run ended before its kill was due
    half_done: int = 0  # kills that left some files old and others new: a write phase was interrupted
    temporaries_left: int = 0  # kills that left a temporary file (it must not be a source, and goes later)
    problems: list[str] = field(default_factory=list)

    def add(self, other: Stats) -> None:
        for name in ("iterations", "killed", "finished_first", "half_done", "temporaries_left"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.problems += other.problems


@cache
def versions(files: int) -> dict[str, tuple[bytes, bytes]]:
    """Each file's old and new bytes. Call it on the main thread before starting the trees' threads: on
    Python 3.11, `ast.parse` on two threads at once can raise a spurious SystemError (CPython gh-106905)."""
    texts = {f"k{i:03d}.py": kernel(i) for i in range(files)}
    texts.update({"refused.py": REFUSED, "clean.py": "import triton\n"})
    return {name: (text.encode(), migrated(text.encode())) for name, text in texts.items()}


class Tree:
    """A directory of kernel files whose every file is expected to hold its old or its new bytes."""

    def __init__(self, root: str, files: int) -> None:
        self.root = root
        self.versions = versions(files)
        self.reset()

    def reset(self) -> None:
        for name, (old, _) in self.versions.items():
            with open(os.path.join(self.root, name), "wb") as handle:
                handle.write(old)

    def temporaries(self) -> list[str]:
        return [name for name in os.listdir(self.root) if name not in self.versions]

    def state(self) -> tuple[int, list[str]]:
        """How many files hold their new bytes; every file holding neither version is a problem."""
        new, problems = 0, []
        for name, (old, migrated_bytes) in self.versions.items():
            with open(os.path.join(self.root, name), "rb") as handle:
                data = handle.read()
            new += data == migrated_bytes != old
            if data not in (old, migrated_bytes):
                problems.append(f"{name}: neither the old nor the new text ({len(data)} bytes)")
        stray = [n for n in self.temporaries() if not (n.startswith(".") and n.endswith(".tmp"))]
        return new, problems + [f"unexpected file {n}" for n in stray]

    def start(self, pause_at: str = "") -> subprocess.Popen:
        return subprocess.Popen([*CLI, "--write", "-j1", "."], cwd=self.root, start_new_session=True,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "TRITON_MIGRATE_PAUSE_AT": pause_at})


@dataclass(frozen=True)
class Timing:
    total: float  # seconds from start to exit
    write_phase: float  # seconds from the first temporary file to exit


def wait_for_write_phase(tree: Tree, process: subprocess.Popen) -> float:
    while process.poll() is None and not tree.temporaries():
        time.sleep(0.0002)
    return time.monotonic()


def calibrate(tree: Tree) -> Timing:
    tree.reset()
    started = time.monotonic()
    process = tree.start()
    writing = wait_for_write_phase(tree, process)
    process.wait()
    ended = time.monotonic()
    tree.reset()
    return Timing(ended - started, max(ended - writing, 0.001))


def iteration(tree: Tree, timing: Timing, rng: random.Random, stats: Stats) -> None:
    process = tree.start()
    if rng.random() < UNIFORM_SHARE:
        time.sleep(rng.uniform(0, timing.total))
    else:
        wait_for_write_phase(tree, process)
        time.sleep(rng.uniform(0, timing.write_phase))
    stats.iterations += 1
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
        stats.killed += 1
    else:
        stats.finished_first += 1
    process.wait()
    new, problems = tree.state()
    stats.problems += problems
    stats.half_done += 0 < new < len(tree.versions) - 2  # refused.py and clean.py never change
    stats.temporaries_left += bool(tree.temporaries())
    if new == len(tree.versions) - 2:
        tree.reset()


def finish(tree: Tree, stats: Stats) -> None:
    """An uninterrupted run completes the migration and clears every temporary file."""
    process = tree.start()
    process.wait(timeout=300)
    new, problems = tree.state()
    stats.problems += problems
    if new != len(tree.versions) - 2:
        stats.problems.append(f"the final run left {len(tree.versions) - 2 - new} files unmigrated")
    stats.problems += [f"temporary file left after a complete run: {n}" for n in tree.temporaries()]


def worker(root: str, files: int, iterations: int, seed: int) -> Stats:
    tree, rng, stats = Tree(root, files), random.Random(seed), Stats()
    timing = calibrate(tree)
    for _ in range(iterations):
        iteration(tree, timing, rng, stats)
    finish(tree, stats)
    return stats


def campaign(root: str, iterations: int, files: int, seed: int, workers: int = 2) -> Stats:
    """`workers` independent trees killed in parallel; the iterations are shared out among them."""
    shares = [iterations // workers + (i < iterations % workers) for i in range(workers)]
    roots = [os.path.join(root, f"tree{i}") for i in range(workers)]
    for directory in roots:
        os.makedirs(directory)
    versions(files)
    with ThreadPoolExecutor(workers) as pool:
        results = pool.map(worker, roots, [files] * workers, shares, [seed + i for i in range(workers)])
    total = Stats()
    for result in results:
        total.add(result)
    return total


def stopped(process: subprocess.Popen, hang_guard_s: float = 600) -> bool:
    """Wait until the process stops itself at its pause point (True) or exits without reaching it (False).
    WNOWAIT leaves its state to be collected by `process.wait()`."""
    deadline = time.monotonic() + hang_guard_s
    while time.monotonic() < deadline:
        found = os.waitid(os.P_PID, process.pid, os.WSTOPPED | os.WEXITED | os.WNOWAIT | os.WNOHANG)
        if found is not None:
            return found.si_code == os.CLD_STOPPED
        time.sleep(0.01)
    raise AssertionError(f"the run neither stopped nor exited in {hang_guard_s} s")


def kill_at(root: str, step: str, write: int) -> list[str]:
    """Kill a run when its `write`-th file write reaches `step`; what the kill left, then what a run on it
    left, must be as the module's docstring says. Returns the problems found."""
    tree = Tree(root, CI_FILES)
    process = tree.start(pause_at=f"{step}:{write}")
    if not stopped(process):
        process.wait()
        return [f"{step}:{write}: the run ended without reaching its pause point"]
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    new, problems = tree.state()
    replaced = write if step == "replaced" else write - 1
    if new != replaced:
        problems.append(f"{new} files migrated, not {replaced}")
    if len(tree.temporaries()) != (step != "replaced"):
        problems.append(f"temporary files left: {tree.temporaries()}")
    stats = Stats()
    finish(tree, stats)
    return [f"{step}:{write}: {problem}" for problem in problems + stats.problems]


# Every step of the first write and of the last (the kernel files are written, the refused and the clean file
# are not): killed at the first, the tree is untouched or has one new file; at the last, all but one or all.
KILL_POINTS = [(step, write) for write in (1, CI_FILES) for step in PAUSE_STEPS]


def test_sigkill_between_the_steps_of_a_write_leaves_old_or_new_text(tmp_path):
    roots = [str(tmp_path / f"{step}-{write}") for step, write in KILL_POINTS]
    for root in roots:
        os.makedirs(root)
    versions(CI_FILES)
    with ThreadPoolExecutor(2) as pool:
        problems = pool.map(kill_at, roots, *zip(*KILL_POINTS))
    assert [p for found in problems for p in found] == []


def test_sigkill_at_random_points_leaves_old_or_new_text(tmp_path):
    stats = campaign(str(tmp_path), CI_ITERATIONS, CI_FILES, seed=9)
    assert stats.problems == []
    assert stats.iterations == CI_ITERATIONS
