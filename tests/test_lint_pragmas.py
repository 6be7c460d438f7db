"""Migrated code is clean under the project's own ruff configuration (issue 34, item 5).

A kernel parameter read only as the bound of a dimension that no access checks is read by nothing after the
rewrite; it stays (callers pass it), so where the project's ruff checks ARG001 in the file its line gets a
`# noqa: ARG001`, and nowhere else. Every test runs the real ruff on the written file.
"""

import pytest
from test_cli import invoke, put, tree  # noqa: F401 (tree is a fixture)
from test_ruff_rules import ruff

from triton_migrate.frontend.unread_parameters import unread_parameters

# `n_rows` bounds only the rows, which no access checks: the masked pointers do not read it.
ONE_LINE = """\
import triton
import triton.language as tl


@triton.jit
def k2(x_ptr, n_rows, D, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    p = tl.make_block_ptr(x_ptr, shape=(n_rows, D), strides=(D, 1), offsets=(row, 0), block_shape=(1, BLOCK),
                          order=(1, 0))
    tl.store(p, tl.load(p, boundary_check=(1,)) + 1, boundary_check=(1,))
"""


def spread(comment=""):
    """The same kernel with one parameter a line, `n_rows` carrying `comment`."""
    return ONE_LINE.replace("def k2(x_ptr, n_rows, D, BLOCK: tl.constexpr):",
                            f"def k2(\n    x_ptr,\n    n_rows,{comment}\n    D,\n    BLOCK: tl.constexpr,\n):")


def migrate_file(tree, source, config, name="pkg/k.py"):
    """The written file, ruff's (status, codes) on it before and after, and the run's stderr."""
    for config_name, text in config.items():
        put(tree, config_name, text)
    path = put(tree, name, source)
    before = ruff(tree, name)
    result = invoke("--write", "-j1", "--no-cache", name)
    assert result.exit_code == 0, result.output
    return path.read_text(), before, ruff(tree, name), result.stderr


SELECT_ARG = {"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG', 'F', 'RUF100']\n"}


def test_select_all_gets_noqa_and_nothing_new(tree):
    """luke396/assignment2-systems' configuration: everything selected, RUF100 (unused noqa) included."""
    config = {"pyproject.toml": "[tool.ruff]\nline-length = 88\n\n[tool.ruff.lint]\nselect = ['ALL']\n"
              "ignore = ['D203', 'D213', 'COM812']\n"}
    written, (_, before), (_, after), stderr = migrate_file(tree, spread(), config)
    assert "    n_rows,  # noqa: ARG001\n" in written
    assert "ARG001" not in after and "RUF100" not in after
    assert set(after) <= set(before)  # nothing the original did not have (the migration removes some)
    assert "pkg/k.py:8:5: warning: `n_rows` is no longer read by the migrated `k2`" in stderr
    assert "ruff's configuration (pyproject.toml) checks ARG001 in this file" in stderr


def test_one_line_signature_gets_it_at_the_end_of_the_def_line(tree):
    written, before, after, _ = migrate_file(tree, ONE_LINE, SELECT_ARG)
    assert "def k2(x_ptr, n_rows, D, BLOCK: tl.constexpr):  # noqa: ARG001\n" in written
    assert before == after == (0, [])


def test_existing_noqa_list_is_extended(tree):
    config = {"pyproject.toml": "[tool.ruff]\nline-length = 120\n[tool.ruff.lint]\nselect = ['ARG', 'E', 'F']\n"}
    written, before, after, _ = migrate_file(tree, spread("  # noqa: E501"), config)
    assert "    n_rows,  # noqa: E501, ARG001\n" in written
    assert before == after == (0, [])


def test_blanket_noqa_already_covers_it(tree):
    written, before, after, _ = migrate_file(tree, spread("  # noqa"), SELECT_ARG)
    assert "    n_rows,  # noqa\n" in written
    assert after == (0, [])


def test_per_file_ignores_of_the_file_mean_no_noqa(tree):
    config = {"pyproject.toml": "[tool.ruff.lint]\nselect = ['ARG', 'RUF100']\n"
              "[tool.ruff.lint.per-file-ignores]\n'pkg/*' = ['ARG001']\n"}
    written, before, after, stderr = migrate_file(tree, spread(), config)
    assert "noqa" not in written and "no longer read" not in stderr
    assert before == after == (0, [])


@pytest.mark.parametrize("config", [{}, {"pyproject.toml": "[tool.ruff]\nline-length = 100\n"},
                                    {"ruff.toml": "line-length = 120\n[lint]\nselect = ['E', 'F', 'RUF100']\n"}],
                         ids=["none", "default-selection", "no-ARG"])
def test_no_noqa_where_no_rule_asks_for_it(tree, config):
    written, before, after, stderr = migrate_file(tree, spread(), config)
    assert "noqa" not in written and "no longer read" not in stderr
    assert before == after == (0, [])


# --- which parameters the rewrite left unread -------------------------------------------------------------------


def test_only_parameters_read_before_and_not_after():
    before = "def f(a, b, _c, d):\n    return a + b + _c\n\nclass K:\n    def m(self, a):\n        return a\n"
    after = "def f(a, b, _c, d):\n    return a\n\nclass K:\n    def m(self, a):\n        return 1\n"
    assert [(u.function, u.name, u.line, u.column) for u in unread_parameters(before, after)] == [("f", "b", 1, 10)]
