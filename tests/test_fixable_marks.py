"""Issue 43 item 5: `[*]` (fixable) means exactly what `--write` changes. A block pointer given to a load or store
as its `mask=`, `other=` or stored value was marked fixable by `--check`; `--write` failed on the file (the rewrite
read a name it no longer bound) and left it unchanged, and the next `--check` said it again. Here: the command
line on those cases, and on every fixture the marks of a check (no rewrite) against those of `--write`."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_cli import codes, invoke, put, snapshot
from triton_migrate import engine

PACKAGE = Path(__file__).resolve().parent / "data" / "helper_package"  # kernels.py passes block pointers to tiles.py
FIXTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures").glob("*/before.py"))

GIVEN_AS = """\
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))
    offs = tl.arange(0, BM)
    {use}
"""
USES = {"mask": "x = tl.load(y_ptr + offs, mask=p)", "other": "x = tl.load(y_ptr + offs, other=p)",
        "store_mask": "tl.store(y_ptr + offs, 1, mask=p)", "value": "tl.store(y_ptr + offs, p)"}


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("use", USES)
def test_a_block_pointer_given_as_an_argument_of_another_access_is_not_marked_fixable(tree, use):
    kernel = put(tree, "k.py", GIVEN_AS.format(use=USES[use]))
    check = invoke("-j1", "--no-cache")
    assert "[*]" not in check.stdout and codes(check.stdout) == ["TTD118"], check.stdout
    assert "can be migrated" not in check.stderr, check.stderr
    written = invoke("--write", "-j1", "--no-cache")
    assert written.exit_code == 1 and "error" not in written.stderr, written.stderr
    assert kernel.read_text() == GIVEN_AS.format(use=USES[use])  # refused: left byte for byte


SUPPRESSED = GIVEN_AS.format(use="q = tl.make_block_ptr(y_ptr, (M, N), (N, 1), (0, 0), (BM, BN), (1, 0))\n"
                                   "    tl.store(q, tl.load(p, boundary_check=(0, 1)), boundary_check=(0, 1))"
                             ).replace("(1, 0))\n    offs", "(1, 0))  # noqa: TTD006\n    offs")


def test_a_site_of_a_file_that_a_suppression_holds_back_is_not_marked_fixable(tree):
    """`--write` leaves the whole file alone when one migratable site is suppressed; a check said `[*]` for the
    others, and "1 can be migrated", where --write then changed nothing."""
    put(tree, "k.py", SUPPRESSED)
    check = invoke("-j1", "--no-cache")
    assert "[*]" not in check.stdout and "not migrated: the file is left untouched because of line 7" in check.stdout
    assert "can be migrated" not in check.stderr, check.stderr
    before = snapshot(tree)
    assert invoke("--write", "-j1", "--no-cache").exit_code == 1 and snapshot(tree) == before


def test_a_file_held_back_with_the_file_it_shares_helpers_with_is_not_marked_fixable(tree):
    shutil.copytree(PACKAGE, tree, dirs_exist_ok=True)
    tiles = tree / "pkg" / "tiles.py"
    lines = tiles.read_text().splitlines(keepends=True)
    site = next(i for i, line in enumerate(lines) if line.startswith("def step("))  # TTD001 of `p`, fixable
    lines[site] = lines[site].rstrip("\n") + "  # noqa: TTD001\n"
    tiles.write_text("".join(lines))
    check = invoke("-j1", "--no-cache", "pkg")
    assert "pkg/kernels.py" in check.stdout and "[*]" not in check.stdout, check.stdout
    assert "can be migrated" not in check.stderr, check.stderr
    before = snapshot(tree)
    assert invoke("--write", "-j1", "--no-cache", "pkg").exit_code == 1 and snapshot(tree) == before


@pytest.mark.parametrize("before", FIXTURES, ids=[p.parent.name for p in FIXTURES])
def test_what_a_check_marks_fixable_is_what_the_rewrite_migrates(before):
    source = before.read_text()
    checked = engine.migrate_source(source, verify=False, rewrite=False)
    try:
        written = engine.migrate_source(source)
    except engine.SourceError:  # --write leaves the file untouched: the check must not promise a change either
        assert not _fixable(checked)
        return
    assert _marks(checked) == _marks(written)
    if _fixable(written):
        assert written.new_source is not None
        assert not _fixable(engine.migrate_source(written.new_source, verify=False, rewrite=False))


def _marks(outcome) -> list[tuple[int, int, str, bool]]:
    return [(d.line, d.column, d.code, d.fixed) for d in outcome.diagnostics]


def _fixable(outcome) -> bool:
    return any(d.fixed for d in outcome.diagnostics)
