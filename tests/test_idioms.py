"""Idioms of code outside our corpus (issue 34, item 4), each read as the spelling the engine already follows:
the method form of advance, ... Each has a fixture run bit for bit in the interpreter (fixtures/); these tests
show the reading is exact (the same output as the spelling it stands for) and where it refuses."""

from __future__ import annotations

import differential as D
import pytest

from triton_migrate.engine import migrate_source

METHOD_ADVANCE = D.FIXTURES / "method_advance"


def _as_function_advance(source: str) -> str:
    """The method_advance fixture with `tl.advance(p, d)` for each `p.advance(d)`."""
    spelt = source.replace("block = block.advance((ROWS, 0))", "block = tl.advance(block, (ROWS, 0))")
    spelt = spelt.replace("tl.load(x_block.advance((0, BN))", "tl.load(tl.advance(x_block, (0, BN))")
    spelt = spelt.replace("x_block = x_block.advance((BM, 0))", "x_block = tl.advance(x_block, (BM, 0))")
    assert spelt.count("tl.advance(") == 3 and ".advance(" not in spelt.replace("tl.advance(", "")
    return spelt


def test_the_method_form_of_advance_migrates_as_tl_advance_does():
    """`p.advance(d)` in a loop, in branches, inline in a load and in a helper: the same code as `tl.advance`."""
    source = (METHOD_ADVANCE / "before.py").read_text()
    method, function = migrate_source(source), migrate_source(_as_function_advance(source))
    assert method.new_source is not None and method.new_source == function.new_source
    assert [(d.line, d.code) for d in method.diagnostics] == [(d.line, d.code) for d in function.diagnostics]


def test_the_fixtures_interpreter_patch_runs_the_method_as_tl_advance(tmp_path):
    """The harness lets Triton 3.8's interpreter run `p.advance(d)` (its compiler does): the outputs are those
    of the `tl.advance` spelling, bit for bit, so before.py's run is the method's semantics."""
    spelt = tmp_path / "spelt.py"
    spelt.write_text(_as_function_advance((METHOD_ADVANCE / "before.py").read_text()))
    assert D.compare_runs(D.run_fixture(METHOD_ADVANCE), D.run_fixture(METHOD_ADVANCE, str(spelt)), "spelt") == []


HEAD = "import triton\nimport triton.language as tl\n\n\n"
KERNEL = HEAD + """@triton.jit
def k(x_ptr, N, STEPS, BN: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    for _ in range(STEPS):
        {advance}
    tl.store(p, tl.zeros((BN,), tl.float32), boundary_check=(0,))
"""


def test_a_method_advance_by_a_tuple_the_rewrite_cannot_read_is_refused():
    outcome = migrate_source(KERNEL.format(advance="p = p.advance(DELTAS)"))
    assert outcome.new_source is None
    assert [(d.code, d.line) for d in outcome.diagnostics] == [("TTD118", 7)]
    assert "deltas must be a literal tuple" in outcome.diagnostics[0].message


def test_host_codes_advance_method_is_no_site():
    """`.advance()` outside `@triton.jit` code is another object's (an iterator, a scheduler)."""
    source = KERNEL.format(advance="p = p.advance((BN,))") + "\n\ndef drive(clock):\n    clock.advance(1)\n"
    outcome = migrate_source(source)
    assert outcome.new_source is not None and "clock.advance(1)" in outcome.new_source
    assert {d.code for d in outcome.diagnostics} == {"TTD006"}


CHECKED = HEAD + """{module}@triton.jit
def k(x_ptr, N, BN: tl.constexpr, CHECK: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
{local}    tl.store(p, tl.zeros((BN,), tl.float32), boundary_check={check})
"""


@pytest.mark.parametrize("module, local, check", [
    ("ROWS = (0,)\n\n\n", "", "ROWS"),
    ('ROWS = tl.constexpr((0,))\n\n\n', "", "ROWS"),
    ("", "    rows = (0,)\n", "rows"),
])
def test_a_check_named_once_reads_as_its_literal(module, local, check):
    """The same output as the literal's, less the local the migration leaves unread (as F841 would ask)."""
    outcome = migrate_source(CHECKED.format(module=module, local=local, check=check))
    literal = migrate_source(CHECKED.format(module=module, local="", check="(0,)"))
    assert [d.code for d in outcome.diagnostics] == ["TTD006"]
    assert outcome.new_source == literal.new_source


@pytest.mark.parametrize("module, local, check, reason", [
    ("", "", "CHECK", ("`boundary_check` is the parameter `CHECK`, which each launch (or call) chooses: no one "
                       "access is exact for every value it may take")),
    ("", "", "cfg.ROWS", "`boundary_check` is `cfg.ROWS`, whose dimensions the source does not show"),
    ("ROWS = (0,)\nROWS = (1,)\n\n\n", "", "ROWS", "`boundary_check` is `ROWS`"),  # assigned twice
    ("", "    rows = (0,)\n    if N > 4:\n        rows = ()\n", "rows", "`boundary_check` is `rows`"),
    ("CHECK = (0,)\n\n\n", "", "CHECK", "the parameter `CHECK`"),  # the parameter hides the module's name
])
def test_a_check_whose_dimensions_the_source_does_not_show_is_refused_with_why(module, local, check, reason):
    outcome = migrate_source(CHECKED.format(module=module, local=local, check=check))
    assert outcome.new_source is None
    assert [d.code for d in outcome.diagnostics] == ["TTD116"] and reason in outcome.diagnostics[0].message


TUPLE = HEAD + """@triton.jit
def k(a, o, M, N, BM: tl.constexpr, BN: tl.constexpr, CHECK: tl.constexpr):
    pid = tl.program_id(0)
    ps = (tl.make_block_ptr(a, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0)),
          tl.make_block_ptr(o, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0)))
{between}    x = tl.load(ps[{first}], boundary_check=(0, 1))
    tl.store(ps[1], x + 1, boundary_check={check})
    q = tl.make_block_ptr(o, (M, N), (N, 1), (pid * BM, 0), (BM, BN), (1, 0))
    tl.store(q, x, boundary_check=(0, 1))
"""


def test_a_tuple_of_block_pointers_reports_where_and_as_the_source_spells_it():
    outcome = migrate_source(TUPLE.format(between="", first=0, check="(0, 1)"))
    found = [(d.line, d.column, d.code) for d in outcome.diagnostics]
    assert found == [(8, 11, "TTD006"), (9, 11, "TTD006"), (12, 9, "TTD006")]
    assert "block pointer `ps[0]` →" in outcome.diagnostics[0].message
    assert "ps_0 = a + " in outcome.new_source and "(" not in outcome.new_source.split("ps_0 = ")[0][-8:]


@pytest.mark.parametrize("between, first, check", [
    ("    ps = (ps[1], ps[0])\n", 0, "(0, 1)"),  # one by one, the second element would read the new first
    ("    tl.static_assert(len(ps) == 2)\n", 0, "(0, 1)"),  # used whole
    ("", "pid", "(0, 1)"),  # an index that is no literal
    ("", 0, "CHECK"),  # an element that cannot migrate: the module is migrated as written
])
def test_a_tuple_read_otherwise_or_that_cannot_migrate_whole_is_left_as_written(between, first, check):
    source = TUPLE.format(between=between, first=first, check=check)
    outcome = migrate_source(source)
    assert [d.code for d in outcome.diagnostics if d.line in (8, 9)] == ["TTD118", "TTD118"]
    assert outcome.new_source is not None and "ps_0" not in outcome.new_source
    assert "    ps = (tl.make_block_ptr(a, (M, N)" in outcome.new_source  # the tuple as written
    # the function's other block pointer still migrates
    assert "q = (\n        o\n        + tl.cast(pid * BM, tl.int64) * N\n" in outcome.new_source


def test_a_tuple_left_as_written_because_an_element_cannot_migrate_says_so():
    outcome = migrate_source(TUPLE.format(between="", first=0, check="CHECK"))
    creation = next(d for d in outcome.diagnostics if d.line == 8)
    assert "followed as one name per element where every block pointer of its function then migrates; here, " \
           "line 9: TTD116 `boundary_check` is the parameter `CHECK`" in creation.message


@pytest.mark.parametrize(("source", "holds"), [
    ("v = tl.load(ps[0], boundary_check=(0,))", True),
    ("ps[1].advance((0, BK))", True),
    ("ps \n  [ -1 ] . advance((0, BK))", True),  # the name found back across whitespace
    ("(ps)[0].advance((0, BK))", False),  # no name just before the index
    ("[0].advance((0, BK))", False),
    ("p.advance((0, BK))\nx = ps[0]", False),
])
def test_a_tuple_of_block_pointers_is_searched_for_by_an_element_read_where_one_is_taken(source, holds):
    from triton_migrate.analysis.tuples import may_hold

    assert may_hold(source) is holds
