"""A helper that returns a block pointer on one compile-time branch and a raw pointer on the other (issue 34):
a call that decides the branch with a literal is read as the creation it amounts to (fixtures/
helper_mixed_returns runs it bit for bit); one that leaves it to a constexpr of its caller is refused with
what would make it migratable, and its kernel left as it is."""

from __future__ import annotations

from triton_migrate import engine

SOURCE = '''import triton
import triton.language as tl


@triton.jit
def _ptr(base, rows, cols, row0, BR: tl.constexpr, BC: tl.constexpr, USE_BP: tl.constexpr):
    if USE_BP:
        return tl.make_block_ptr(base, (rows, cols), (cols, 1), (row0, 0), (BR, BC), (1, 0))
    else:
        return base + (row0 + tl.arange(0, BR))[:, None] * cols + tl.arange(0, BC)[None, :]


@triton.jit
def chosen_by_caller(a, R, C, BR: tl.constexpr, BC: tl.constexpr, USE_BP: tl.constexpr):
    p = _ptr(a, R, C, tl.program_id(0) * BR, BR, BC, USE_BP)
    if USE_BP:
        v = tl.load(p, boundary_check=(0, 1), padding_option="zero")
    else:
        v = tl.load(p)
    tl.store(a, tl.sum(v))


@triton.jit
def chosen_here(a, b, R, C, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    v = tl.load(_ptr(a, R, C, pid * BR, BR, BC, True), boundary_check=(0, 1), padding_option="zero")
    tl.store(b, tl.sum(v))
'''


def test_a_call_that_leaves_the_branch_to_its_caller_is_refused_saying_what_to_pass():
    outcome = engine.migrate_source(SOURCE)
    caller = [d for d in outcome.diagnostics if d.line == 17]
    assert [d.code for d in caller] == ["TTD201"] and "pass a literal" in caller[0].message, outcome.diagnostics
    assert "v = tl.load(p, boundary_check=(0, 1)" in outcome.new_source  # left as it is


def test_a_call_that_decides_it_with_a_literal_is_migrated():
    outcome = engine.migrate_source(SOURCE)
    assert [d.code for d in outcome.diagnostics if d.line == 26] == ["TTD006"], outcome.diagnostics
    chosen = outcome.new_source[outcome.new_source.index("def chosen_here"):]
    assert "_ptr(" not in chosen and "boundary_check" not in chosen, chosen
