"""The worker processes of a run, started early where the run will need them.

Each worker spends a fifth of a second importing the engine (libcst's node classes, mostly) before its first
task. A run that no earlier run left a cache for starts them as soon as it has read a second file with
block pointers, so that they import while this process still reads and groups the tree. A run with a cache
starts them only once it knows what the cache does not serve: a warm check needs none.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from concurrent.futures import Executor

Task = tuple  # the jobs (jobs.Job) analysed together
Analyse = Callable[[Task], list]


def import_engine() -> None:
    import triton_migrate.engine  # noqa: F401 (what every task needs first)


class Workers:
    """A pool of `count` processes, started by `expect` (early) or `run` (when the tasks are known)."""

    def __init__(self, count: int, cache_dir: str | None) -> None:
        from triton_migrate.frontend import cache  # light: hashlib and json

        self.count = count
        self.early = count > 1 and (cache_dir is None or not cache.has_entries(cache_dir))
        self.sites = 0  # files read so far that may hold a site
        self.pool: Executor | None = None

    def __enter__(self) -> Workers:
        return self

    def __exit__(self, *_exc) -> None:
        if self.pool is not None:
            self.pool.shutdown(cancel_futures=True)

    def expect(self) -> None:
        """One more file read needs the engine: from the second on, an early run starts the workers."""
        self.sites += 1
        if self.early and self.pool is None and self.sites >= 2:
            self._start(self.count)

    def wanted(self, tasks: int) -> bool:
        """Whether `tasks` go to the workers rather than run in this process."""
        return self.pool is not None or (tasks > 1 and self.count > 1)

    def run(self, tasks: list[Task], analyse: Analyse, done: Callable[[int], None]) -> dict[int, list]:
        """id(task) -> its results; `done(files)` after each task."""
        from concurrent.futures import as_completed

        pool = self.pool if self.pool is not None else self._start(min(self.count, len(tasks)))
        # Largest first, so that one big file started last does not leave the other workers idle.
        ordered = sorted(tasks, key=lambda task: -sum(len(job.data) for job in task))
        futures = {pool.submit(analyse, task): task for task in ordered}
        for future in as_completed(futures):
            done(len(futures[future]))
        return {id(task): _collect(task, future, analyse) for future, task in futures.items()}

    def _start(self, count: int) -> Executor:
        from concurrent.futures import ProcessPoolExecutor  # a tree without sites needs none

        pool = self.pool = ProcessPoolExecutor(max_workers=count, initializer=import_engine)
        for _ in range(count):  # processes start on demand: one per task not taken by an idle one
            pool.submit(os.getpid)
        return pool


def _collect(task: Task, future, analyse: Analyse) -> list:
    try:
        return future.result()
    except Exception:  # a worker died (a crash in a native parser takes the whole pool down)
        return _alone(task, analyse)


def _alone(task: Task, analyse: Analyse) -> list:
    """Re-run one task in a process of its own, so that only the files that crash it fail."""
    from concurrent.futures import ProcessPoolExecutor

    try:
        with ProcessPoolExecutor(max_workers=1) as pool:
            return pool.submit(analyse, task).result()
    except Exception as exc:
        from triton_migrate.frontend.output import FileResult

        return [FileResult(job.path, error=f"internal error: the analysis crashed: {type(exc).__name__}: {exc}")
                for job in task]
