"""Edits inside the statements a rewrite builds: applied wherever they sit, though only the expressions that
lead to one are entered (speed), and every statement comes out a new node (wrap.py lays out new ones)."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest

from triton_migrate.analysis.records import CompileError
from triton_migrate.engine import migrate_source
from triton_migrate.rewrite.apply import Edits, Rewriter, uses_name

ROOT = Path(__file__).resolve().parent.parent


def test_an_edit_deep_in_a_built_statement_is_applied_and_the_statement_is_new():
    statement = cst.parse_statement("y = f(a, g(b.c)) + h(d)\n").body[0]
    inner = statement.value.left.args[1].value  # g(b.c)
    edits = Edits()
    edits.expressions[id(inner)] = CompileError(cst.Name("tl"), "replaced")
    [built] = Rewriter(edits, lambda original, updated: updated)._edited([statement])
    assert cst.Module([]).code_for_node(built) == 'y = f(a, tl.static_assert(False, "replaced")) + h(d)'
    assert built is not statement
    plain = cst.parse_statement("z = 1\n").body[0]  # no edit inside: rebuilt all the same
    [untouched] = Rewriter(edits, lambda original, updated: updated)._edited([plain])
    assert cst.Module([]).code_for_node(untouched) == "z = 1" and untouched is not plain


@pytest.mark.parametrize("fixture", sorted(p.parent.name for p in (ROOT / "fixtures").glob("*/before.py")))
def test_nodes_off_the_edit_paths_are_left_as_they_are(fixture, monkeypatch):
    """The rewriter skips its leave_ methods (and the dead-code pass) on nodes off the paths to the edits: the
    output must be that of a rewriter that calls them on every node it meets."""
    source = (ROOT / "fixtures" / fixture / "before.py").read_text()
    fast = migrate_source(source).new_source
    monkeypatch.setattr(Rewriter, "on_leave", cst.CSTTransformer.on_leave)
    assert fast == migrate_source(source).new_source


class _Names(cst.CSTVisitor):
    def __init__(self) -> None:
        self.seen: set[str] = set()

    def visit_Name(self, node: cst.Name) -> None:
        self.seen.add(node.value)


@pytest.mark.parametrize("fixture", ["gemm_loop_advance", "helper_chain", "launch_guard"])
def test_uses_name_answers_as_a_visit_of_every_name(fixture):
    """uses_name stops at the first Name that spells it: for every name, used or not, its answer must be that
    of libcst's own visit of the whole tree."""
    module = cst.parse_module((ROOT / "fixtures" / fixture / "before.py").read_text())
    names = _Names()
    module.visit(names)
    for name in [*sorted(names.seen), "_descriptor_fits", "tl_", "x_desc"]:
        assert uses_name(module, name) == (name in names.seen), name
