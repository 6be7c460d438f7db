"""The check cache: a second run reads results instead of analysing, and says exactly the same; any change to
the file, the policy or the tool's own source misses; a damaged entry is analysed again; --no-cache leaves none."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli import KERNEL, REFUSED, invoke, put, tree  # noqa: F401 (tree is a fixture)
from test_groups import HEAD, UTILS
from test_groups import KERNEL as GROUP_KERNEL

from triton_migrate import engine
from triton_migrate.frontend import cache


def entries(root):
    return sorted((root / cache.DIRECTORY).rglob("*")) if (root / cache.DIRECTORY).exists() else []


def test_a_second_check_reads_the_cache_and_says_the_same(tree, monkeypatch):
    put(tree, "k.py", KERNEL)
    put(tree, "r.py", REFUSED)
    first = invoke("--output-format", "concise")
    assert len([p for p in entries(tree) if p.is_file() and p.parent.name == cache.tool_digest()]) == 2
    monkeypatch.setattr(engine, "migrate_source", lambda *a, **k: (_ for _ in ()).throw(AssertionError("analysed")))
    second = invoke("--output-format", "concise")
    assert (second.exit_code, second.stdout, second.stderr) == (first.exit_code, first.stdout, first.stderr)
    assert (tree / cache.DIRECTORY / ".gitignore").read_text() == "*\n"


def test_a_changed_file_or_policy_is_analysed_again(tree):
    path = put(tree, "k.py", KERNEL)
    invoke()
    path.write_text(KERNEL.replace("x = tl.make_block_ptr",
                                   "x = tl.make_block_ptr  # edited\n    x = tl.make_block_ptr", 1))
    edited = invoke("--output-format", "concise")
    assert edited.stdout == invoke("--no-cache", "--output-format", "concise").stdout
    pointer = invoke("--target", "pointer", "--output-format", "concise")
    assert "TTD006" in pointer.stdout and "TTD001" not in pointer.stdout


def test_a_damaged_entry_is_analysed_again(tree):
    put(tree, "k.py", KERNEL)
    expected = invoke("--output-format", "concise").stdout
    for entry in entries(tree):
        if entry.is_file() and entry.parent.name == cache.tool_digest():
            entry.write_text("{not json")
    assert invoke("--output-format", "concise").stdout == expected


def test_no_cache_writes_nothing(tree):
    put(tree, "k.py", KERNEL)
    invoke("--no-cache")
    assert entries(tree) == []


def test_the_digest_covers_the_rules_wherever_they_live():
    # An editable checkout keeps rules/ beside migrate/: an edited rule must not read old entries.
    rules = Path(importlib.util.find_spec("triton_migrate.rules").origin).resolve().parent
    assert any(rules == folder or folder in rules.parents for folder in cache.source_folders())


# --- files migrated together: one entry per group -----------------------------------------------------------------

def count_analyses(monkeypatch) -> list:
    """Every group the engine analyses, by its members' names."""
    analysed, real = [], engine.migrate_sources

    def counting(sources, *args, **kwargs):
        if len(sources) > 1:
            analysed.append(sorted(Path(p).name for p in sources))
        return real(sources, *args, **kwargs)

    monkeypatch.setattr(engine, "migrate_sources", counting)
    return analysed


def put_group(root):
    put(root, "utils.py", UTILS.format(extra="", scaled=""))
    put(root, "kernel.py", GROUP_KERNEL.format(args=""))
    put(root, "lone.py", KERNEL)


def test_a_group_is_served_from_the_cache(tree, monkeypatch):
    put_group(tree)
    analysed = count_analyses(monkeypatch)
    first = invoke("-j1", "--output-format", "concise")
    assert analysed == [["kernel.py", "utils.py"]]
    second = invoke("-j1", "--output-format", "concise")
    assert analysed == [["kernel.py", "utils.py"]]  # not again
    assert (second.exit_code, second.stdout, second.stderr) == (first.exit_code, first.stdout, first.stderr)


@pytest.mark.parametrize("change", ["helper", "kernel", "joins"])
def test_a_change_to_any_member_analyses_the_group_again(tree, monkeypatch, change):
    put_group(tree)
    first = invoke("-j1", "--output-format", "concise")
    analysed = count_analyses(monkeypatch)
    assert invoke("-j1", "--output-format", "concise").stdout == first.stdout and analysed == []  # served
    if change == "helper":  # one line more: the helper's site moves down
        put(tree, "utils.py", "# edited\n" + UTILS.format(extra="", scaled=""))
    elif change == "kernel":  # one line more: the kernel's site moves down
        put(tree, "kernel.py", "# edited\n" + GROUP_KERNEL.format(args=""))
    else:  # a new caller of the helper joins the group
        put(tree, "other.py", HEAD + "from utils import helper\n\n\n@triton.jit\ndef other(x_ptr, y_ptr):\n"
                                     "    tl.store(y_ptr, helper(x_ptr))\n")
    del analysed[:]
    warm = invoke("-j1", "--output-format", "concise")
    assert [names for names in analysed if "utils.py" in names] == \
        [["kernel.py", "other.py", "utils.py"] if change == "joins" else ["kernel.py", "utils.py"]]
    cold = invoke("-j1", "--no-cache", "--output-format", "concise")
    assert (warm.exit_code, warm.stdout) == (cold.exit_code, cold.stdout) != (first.exit_code, first.stdout)


def test_a_warm_check_starts_no_worker_and_never_imports_libcst(tree):
    put_group(tree)
    assert invoke("-j2").exit_code == 1
    code = ("import sys, concurrent.futures.process as p\n"
            "p.ProcessPoolExecutor = None  # any worker would fail the run\n"
            "from triton_migrate.cli import main\n"
            "try:\n    main(['-j2', '.'])\nexcept SystemExit as exit:\n    status = exit.code\n"
            "print(status, 'libcst' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tree)
    assert done.stdout.split()[-2:] == ["1", "False"], done.stdout + done.stderr
