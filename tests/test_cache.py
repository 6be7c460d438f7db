"""The check cache: a second run reads results instead of analysing, and says exactly the same; any change to
the file, the policy or the tool's own source misses; a damaged entry is analysed again; --no-cache leaves none."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from test_cli import KERNEL, REFUSED, invoke, put, tree  # noqa: F401 (tree is a fixture)

from triton_migrate import cache, engine


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
    path.write_text(KERNEL.replace("x = tl.make_block_ptr", "x = tl.make_block_ptr  # edited\n    x = tl.make_block_ptr", 1))
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
