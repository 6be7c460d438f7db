"""Inputs that once crashed the engine or lost a user's work (found by the fuzz campaign): each now gives
a clear per-file error, leaves the file as it was, and lets the other files be processed."""

from __future__ import annotations

import warnings

import pytest
from click.testing import CliRunner

from triton_migrate import engine
from triton_migrate.cli import main

KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def copy(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1)), boundary_check=(0, 1))
"""


@pytest.mark.parametrize("body", ["x = " + "[" * 3000 + "]" * 3000, "y = " + " + ".join(["x"] * 20000)])
def test_nesting_that_would_crash_the_native_parser_is_a_source_error(body):
    source = "import triton.language as tl\n" + body + "\ntl.make_block_ptr(x)\n"
    with pytest.raises(engine.SourceError, match="nested"):
        engine.migrate_source(source)


def test_an_order_that_is_not_a_permutation_is_not_taken_as_a_layout():
    source = KERNEL.replace("stride_m, BM", "stride_m, stride_n, BM").replace(
        "(stride_m, 1), (0, 0), (BM, BN), (1, 0))\n    y", "(stride_m, stride_n), (0, 0), (BM, BN), (3, 0))\n    y")
    assert "(3, 0)" in source
    outcome = engine.migrate_source(source)  # once an IndexError, then migrated as if valid
    first = outcome.diagnostics[0]  # Triton rejects it: refused, saying why (issue 34)
    assert (first.code, first.decision) == ("TTD114", "untouched") and "not a permutation" in first.message


def test_the_users_syntax_warnings_are_not_printed():
    source = KERNEL + "\nz = [0x1for x in y]\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        engine.migrate_source(source)


def test_a_file_edited_while_the_run_analyses_it_keeps_the_edit(tmp_path, monkeypatch):
    edited, other = tmp_path / "edited.py", tmp_path / "other.py"
    edited.write_text(KERNEL)
    other.write_text(KERNEL)
    real = engine.migrate_source

    def editing(source, *args, **kwargs):
        edited.write_text(KERNEL + "# the user's edit\n")  # saved from an editor mid-run
        return real(source, *args, **kwargs)

    monkeypatch.setattr(engine, "migrate_source", editing)
    result = CliRunner().invoke(main, ["--write", "-j1", str(tmp_path)])
    assert result.exit_code == 2
    assert edited.read_text() == KERNEL + "# the user's edit\n"
    assert "make_block_ptr" not in other.read_text()
    assert "changed on disk" in result.output


def test_a_loop_whose_body_always_breaks_is_analysed():
    """The state before the loop is empty (the kernel binds no name before it), and was read as "no path": the
    loop's head became None and the next pass failed (internal error). The interpreter runs `break`; Triton's
    compiler rejects it, so this is no fixture, only what the analysis must survive."""
    source = """\
import triton
import triton.language as tl


@triton.jit
def first_block_kernel(x, n, B: tl.constexpr):
    for i in range(0, 4):
        p = tl.make_block_ptr(x, (n,), (1,), (i * B,), (B,), (0,))
        tl.store(p, tl.load(p, boundary_check=(0,)) + 1, boundary_check=(0,))
        break
"""
    outcome = engine.migrate_source(source)
    assert [d.code for d in outcome.diagnostics] == ["TTD006"]
    assert "make_block_ptr" not in outcome.new_source and "break" in outcome.new_source
