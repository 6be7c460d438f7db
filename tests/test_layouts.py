"""Arguments of any layout: a block-pointer argument that spans lines (black's one argument per line and
`+ offset` lines, yapf's alignment with the opening bracket, hand-wrapped code with backslashes and
comments) is legal only inside the call's parentheses. The rewrite copies bases, offsets, deltas and
stored values out of them; wherever they land, the result must parse, be a fixed point, keep every
comment and compute the same bits.

The kernels of tests/data/layouts/ are fixtures/black_layout/before.py laid out otherwise, so that
fixture's harness runs them.
"""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import libcst as cst
import pytest
from differential import FIXTURES, compare_outputs, run_fixture

from triton_migrate.engine import migrate_source
from triton_migrate.policy import Policy, Statement
from triton_migrate.rewrite.bound_comment import is_written_here
from triton_migrate.rules import _launch_support as launch_support
from triton_migrate.syntax.build import movable
from triton_migrate.syntax.forms import block_width

LAYOUTS = Path(__file__).resolve().parent / "data" / "layouts"
KERNELS = {"black": FIXTURES / "black_layout" / "before.py", "yapf": LAYOUTS / "yapf.py", "hand": LAYOUTS / "hand.py"}
STATED = (Statement("aligned", "test"), Statement("aligned-rows", "test"))
POLICIES = {"auto": Policy(), "pointer": Policy(target="pointer"),
            "descriptor": Policy(target="descriptor", assume=STATED), "compat": Policy(target="compat")}


def comments(source: str) -> list[str]:
    """Its comments, less the one the rewrite writes on its masks' bounds."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return sorted({token.string for token in tokens if token.type == tokenize.COMMENT
                   and not is_written_here(token.string)})


def without_check_function(source: str) -> str:
    """The module less the `try` that imports the launch support of a launch guard (TTD009) and the comment
    above a compile-time test of block widths (TTD107): the tool's own, not the kernel's."""
    module = cst.parse_module(source)
    kept = [s for s in module.body if not (isinstance(s, cst.Try) and launch_support.MODULE in module.code_for_node(s))]
    return module.with_changes(body=kept).code.replace(block_width.COMMENT, "")


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("layout", KERNELS)
def test_every_layout_migrates_to_a_fixed_point_that_keeps_its_comments(layout, policy):
    source = KERNELS[layout].read_text()
    new = migrate_source(source, policy=POLICIES[policy]).new_source  # raised "does not parse" before
    assert new is not None and "make_block_ptr" not in new
    compile(new, "after.py", "exec")
    assert migrate_source(new, policy=POLICIES[policy]).new_source is None
    assert comments(without_check_function(new)) == comments(source)


@pytest.mark.parametrize("layout, policy", [("yapf", "pointer"), ("hand", "auto"), ("hand", "pointer")])
def test_migrated_layouts_compute_the_same_bits(layout, policy, tmp_path):
    after = tmp_path / f"{layout}_after.py"
    after.write_text(migrate_source(KERNELS[layout].read_text(), policy=POLICIES[policy]).new_source)
    case = FIXTURES / "black_layout"
    expected, actual = run_fixture(case, str(KERNELS[layout])), run_fixture(case, str(after))
    assert [m for name in expected for m in compare_outputs(expected[name], actual[name], name)] == []


@pytest.mark.parametrize("code, moved", [
    ("f(\n    q\n    + (bos * H + i_h) * K,\n)", "q + (bos * H + i_h) * K"),  # black: operator at line start
    ("f(q +\n  i_h * K)", "q + i_h * K"),  # yapf: operator at line end
    ("f(q + \\\n    i_h * K)", "q + i_h * K"),  # a backslash
    ("f(\n    tl.cast(\n        x,\n        tl.int64,\n    ),\n)", "tl.cast(x, tl.int64)"),  # magic trailing comma
    ("f((\n    a,\n))", "(a,)"),  # a one-element tuple keeps its comma
    ("f(x[\n    i,\n])", "x[i,]"),  # and so does a tuple index
    ("f(a\n  .b)", "a.b"),
    ("f(q  # the base\n  + off)", "(q  # the base\n  + off)"),  # a comment: parenthesised, kept
    ("f((q  # the base\n  + off))", "(q  # the base\n  + off)"),
    ("f(i_t * BT)", "i_t * BT"),
])
def test_movable_puts_an_argument_on_one_line_or_in_parentheses(code, moved):
    argument = cst.parse_expression(code).args[0].value
    assert cst.Module([]).code_for_node(movable(argument)) == moved
    cst.parse_statement(f"y = {moved}\n")


def test_starred_deltas_are_refused_and_left_untouched():
    """`tl.advance(p, (*deltas,))` has no per-dimension delta to copy: the analysis refuses it (TTD118)
    however it is laid out, and that block pointer stays as it is."""
    source = KERNELS["black"].read_text().replace("            (\n                0,\n                BK,\n",
                                                  "            (\n                *steps,\n")
    assert "*steps" in source
    outcome = migrate_source(source.replace("NK: tl.constexpr\n", "NK: tl.constexpr, steps=(0, 8)\n"))
    assert [d.code for d in outcome.refused] == ["TTD118"]
