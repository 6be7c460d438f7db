"""The worker processes: a first run starts them while it still reads the tree (they import the engine on
the cores that would idle); a run with a cache, or with one file to analyse, starts none before it knows
it needs them; what the workers find is what one process finds."""

from __future__ import annotations

import pytest
from test_cli import KERNEL, invoke, put, tree  # noqa: F401 (tree is a fixture)

from triton_migrate.frontend import runs, workers


@pytest.fixture
def events(monkeypatch):
    """What happened, in order: "start N" (a pool of N workers), "tasks" (the reading is done)."""
    happened = []
    start, tasks = workers.Workers._start, runs._tasks

    def recorded_start(self, count):
        happened.append(f"start {count}")
        return start(self, count)

    def recorded_tasks(*args):
        happened.append("tasks")
        return tasks(*args)

    monkeypatch.setattr(workers.Workers, "_start", recorded_start)
    monkeypatch.setattr(runs, "_tasks", recorded_tasks)
    return happened


def kernels(root, count):
    for number in range(count):
        put(root, f"k{number}.py", KERNEL.replace("def copy(", f"def copy{number}("))


def test_a_first_run_starts_its_workers_while_it_reads(tree, events):
    kernels(tree, 3)
    result = invoke("-j2", "--output-format", "concise")
    assert events == ["start 2", "tasks"]
    assert result.stdout == invoke("-j1", "--no-cache", "--output-format", "concise").stdout


def test_no_cache_is_a_first_run(tree, events):
    kernels(tree, 2)
    invoke("-j2", "--no-cache")
    assert events == ["start 2", "tasks"]


def test_a_run_with_a_cache_starts_workers_only_for_what_it_misses(tree, events):
    kernels(tree, 3)
    invoke("-j2")
    del events[:]
    invoke("-j2")
    assert events == ["tasks"]  # every file served
    put(tree, "k0.py", KERNEL.replace("def copy(", "def edited("))
    put(tree, "k1.py", KERNEL.replace("def copy(", "def edited_too("))
    invoke("-j2")
    assert events == ["tasks", "tasks", "start 2"]  # after reading, for the two files the cache missed


def test_one_file_is_analysed_in_this_process(tree, events):
    kernels(tree, 1)
    put(tree, "plain.py", "import triton\n")
    invoke("-j2", "--no-cache")
    assert events == ["tasks"]


def test_one_job_never_starts_a_pool(tree, events):
    kernels(tree, 3)
    invoke("-j1", "--no-cache")
    assert events == ["tasks"]
