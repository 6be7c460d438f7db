"""The migrated code keeps its author's layout (issue 45 item 2), one test a rule, each on the same fla-style
kernel laid out by hand (fixtures/author_layout/before.py, 125 columns wide, nothing configuring a line
length) and by black (tests/data/author_layout/black.py); the fixture's harness runs both, bit for bit.
Every rule failed on the output before it: a comment on a load above the pointers sunk to it, two blank
lines where a creation left its own, `m_t2[:, None] & m_k[None, :]` four times, `o_t2`/`m_t2` beside the
author's `o_t`/`m_t`, `tl.maximum(T, 0)` without a word, the hand-written file wrapped at 88 columns."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest
from differential import FIXTURES, compare_outputs, run_fixture
from test_cli import invoke, put, tree  # noqa: F401 (tree is a fixture)

from triton_migrate.engine import migrate_source
from triton_migrate.rewrite.bound_comment import is_written_here
from triton_migrate.rewrite.code_width import code_width

CASE = FIXTURES / "author_layout"
KERNELS = {"hand": CASE / "before.py", "black": Path(__file__).parent / "data" / "author_layout" / "black.py"}
RUFF = Path(sys.executable).parent / "ruff"


def migrated(layout: str) -> str:
    return migrate_source(KERNELS[layout].read_text()).new_source


def statements(source: str) -> list[str]:
    return [line.strip() for line in source.splitlines()]


@pytest.fixture(params=list(KERNELS))
def layout(request) -> str:
    return request.param


def test_comments_stay_on_the_statements_they_describe(layout):
    found = statements(migrated(layout))
    for comment, statement in [("# [BT]", "b_g = tl.load("), ("# the next column block of q, read again in every step",
                                                               "p_q = ")]:
        assert found[found.index(comment) + 1].startswith(statement), found
    shapes = [i for i, line in enumerate(found) if line == "# [BT, BK]"]
    assert [found[i + 1][:12] for i in shapes] == ["b_q = tl.loa", "b_k = tl.loa", "b_q = tl.loa"]
    assert found[found.index("# the tiles this program reads, and the one it writes") + 1].startswith("p_q = ")


def ruff_findings(source: str, tmp_path: Path, name: str) -> list[str]:
    path = tmp_path / name
    path.write_text(source)
    result = subprocess.run([str(RUFF), "check", "--isolated", "--select", "E3", "--preview", "--output-format",
                             "json", "--no-cache", "--exit-zero", str(path)], capture_output=True, text=True)
    return [finding["code"] for finding in json.loads(result.stdout)]


def test_no_new_blank_line_findings(layout, tmp_path):
    new = migrated(layout)
    assert "\n\n\n    " not in new.split("@triton.jit")[1]  # no two blank lines inside the kernel
    assert ruff_findings(new, tmp_path, "after.py") == ruff_findings(KERNELS[layout].read_text(), tmp_path, "b.py")


def test_one_mask_per_tile_and_one_bound_per_extent(layout):
    new = migrated(layout)
    masks = re.findall(r"mask=([^,)]+)", new)
    assert masks == ["m_tk", "m_tk", "mask_t", "m_tk", "m_tk2", "m_tk2"], masks
    assert "m_tk = mask_t[:, None] & m_k[None, :]" in statements(new)
    code = "\n".join(line for line in new.splitlines() if not line.strip().startswith("#"))
    assert code.count("tl.maximum(T, 0)") == 1
    # one range a block: the rewrite's rows (`offs_t`) once, its columns the author's `o_k`; a range named for
    # two reads of which repeated.py left one is written back where it is read (lone_ranges.py)
    added = set(new.splitlines()) - set(KERNELS[layout].read_text().splitlines())
    assert sum(line.count("tl.arange(") for line in added) == 1 and "r_t" not in new


def test_new_names_do_not_rhyme_with_the_authors(layout):
    new = migrated(layout)
    assigned = set(re.findall(r"^\s*(\w+) = ", new, re.MULTILINE))
    authors = set(re.findall(r"^\s*(\w+) = ", KERNELS[layout].read_text(), re.MULTILINE))
    assert not {name for name in assigned if re.sub(r"\d+$", "", name) in authors - assigned}, assigned
    assert not {name for name in assigned - authors if re.sub(r"\d+$", "", name) in authors}, assigned
    assert {"offs_t", "offs_k", "mask_t"} <= assigned  # the author's o_t, o_k, m_t are other values
    assert statements(new).count("o_t = i_t * BT + tl.arange(0, BT)") == 1


def test_one_comment_says_why_a_bound_is_clamped_and_unsigned(layout):
    lines = migrated(layout).splitlines()
    ours = [i for i, line in enumerate(lines) if is_written_here(line.strip())]
    first = next(i for i, line in enumerate(lines) if "tl.maximum(" in line and not line.strip().startswith("#"))
    assert ours == list(range(first - len(ours), first)) and 1 <= len(ours) <= 3
    assert "unsigned" in " ".join(lines[i] for i in ours) and "mask_t = (" in lines[first]


def test_the_line_length_is_the_codes_own_where_nothing_configures_one(layout, tree):  # noqa: F811
    source = KERNELS[layout].read_text()
    width = code_width(source)
    assert width == (123 if layout == "hand" else 86)
    path = put(tree, "kernel.py", source)
    assert invoke("--write", "--exit-zero", str(path)).exit_code == 0
    new = path.read_text()
    longest = max(len(line) for line in new.splitlines())
    assert longest <= max(width, 88)
    if layout == "hand":  # at 88 they would have been wrapped, black's way
        added = set(new.splitlines()) - set(source.splitlines())
        assert "p_q = (" not in new and max(len(line) for line in added) > 88
    put(tree, "pyproject.toml", "[tool.ruff]\nline-length = 88\n")  # a configured length wins over the code's
    path = put(tree, "again.py", source)
    invoke("--write", "--exit-zero", str(path))
    assert max(len(line) for line in path.read_text().splitlines() if not line.startswith("def ")) <= 88


def test_code_width_counts_code_not_prose():
    source = "x = 1  # a comment past the code\n" + "# " + "c" * 200 + "\n" + '"""' + "d" * 150 + '"""\n'
    assert code_width(source) == len("x = 1  # a comment past the code")
    assert code_width("x = (\n") == 0  # does not tokenize
    assert code_width("y = 2\nBLOB = '" + "x" * 10_000 + "'\n") == 5  # data, no layout (tests/test_reliability.py)


def test_the_black_layout_computes_the_same_bits(tmp_path):
    after = tmp_path / "black_after.py"
    after.write_text(migrated("black"))
    expected, actual = run_fixture(CASE, str(KERNELS["black"])), run_fixture(CASE, str(after))
    assert [m for name in expected for m in compare_outputs(expected[name], actual[name], name)] == []


def comments(source: str) -> list[str]:
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [token.string for token in tokens if token.type == tokenize.COMMENT and not is_written_here(token.string)]


def test_every_comment_is_kept_in_order(layout):
    assert comments(migrated(layout)) == comments(KERNELS[layout].read_text())
