"""Emitted code keeps to the line length of the project being migrated (issue 19, item 5).

The limit comes from the nearest file above the migrated one that configures ruff, black or flake8 (88,
ruff's default, where none does); statements the rewrite creates or changes are laid out as black lays
them out, untouched code keeps its text, and ruff under that limit finds nothing new in the output.
"""

import difflib
import os
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import libcst as cst
import pytest
from test_cli import invoke, put, tree  # noqa: F401 (tree is a fixture)

from triton_migrate.engine import migrate_source
from triton_migrate.frontend.config import Resolver
from triton_migrate.policy import Layout
from triton_migrate.rewrite.linebreaks import layout
from triton_migrate.rewrite.wrap import _LaidOut
from triton_migrate.rules import _launch_support as launch_support

# Two blocks deep in a kernel, FLA's style: a masked-pointer address, a guarded load and a store each come
# out far longer than 88 columns on one line (in a loop that re-creates them they would be shorter: their
# addresses come from coordinates there); a hand-written long line that the rewrite does not touch.
KERNEL = """\
import triton
import triton.language as tl


@triton.jit
def chunk_fwd_kernel(q, o, cu_seqlens, T, H: tl.constexpr, K: tl.constexpr, BT: tl.constexpr, BK: tl.constexpr):
    i_t, i_h = tl.program_id(0), tl.program_id(1)
    untouched_but_long = (i_t * BT + i_h * K) * (i_t * BT + i_h * K) * (i_t * BT + i_h * K) * (i_t + i_h)
    if T > 0:
        if i_h > 0:
            bos_of_sequence = tl.load(cu_seqlens + i_h).to(tl.int32)
            p_q = tl.make_block_ptr(q + (bos_of_sequence * H + i_h) * K, (T, K), (H * K, 1), (i_t * BT, 0), (BT, BK), (1, 0))
            p_o = tl.make_block_ptr(o + (bos_of_sequence * H + i_h) * K, (T, K), (H * K, 1), (i_t * BT, 0), (BT, BK), (1, 0))
            b_q = tl.load(p_q, boundary_check=(0, 1))
            tl.store(p_o, (b_q * 2 + untouched_but_long * (i_h + i_t + BT)).to(p_o.dtype.element_ty), boundary_check=(0, 1))
"""  # noqa: E501 (the kernel's long lines are what the test is about)


def added_lines(before: str, after: str) -> list[str]:
    return [line[1:] for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
            if line.startswith("+") and not line.startswith("+++")]


def too_long(lines: list[str], limit: int) -> list[str]:
    return [line for line in lines if len(line) > limit]


@pytest.mark.parametrize("limit", [127, 88, 79])
def test_no_added_line_is_over_the_limit(limit):
    after = migrate_source(KERNEL, layout=Layout(line_length=limit)).new_source
    unbounded = migrate_source(KERNEL, layout=Layout(line_length=10_000)).new_source
    assert too_long(added_lines(KERNEL, unbounded), limit)  # the kernel does need wrapping
    assert too_long(added_lines(KERNEL, after), limit) == []
    compile(after, "after.py", "exec")


def test_default_is_ruffs_88():
    after = migrate_source(KERNEL).new_source
    assert Layout().line_length == 88
    assert too_long(added_lines(KERNEL, after), 88) == []


def test_untouched_code_keeps_its_text():
    after = migrate_source(KERNEL, layout=Layout(line_length=79)).new_source
    hand_written = next(line for line in KERNEL.splitlines() if "untouched_but_long =" in line)
    assert hand_written in after.splitlines()


def test_second_run_changes_nothing_and_output_is_deterministic():
    after = migrate_source(KERNEL, layout=Layout(line_length=88)).new_source
    assert migrate_source(after, layout=Layout(line_length=88)).new_source is None
    assert migrate_source(KERNEL, layout=Layout(line_length=88)).new_source == after


# --- black's layout --------------------------------------------------------------------------------------------

# Each statement laid out at 8 columns of indentation for 88-column lines, as black 26 lays it out
# (`black -l 88 --skip-string-normalization`, checked by hand).
BLACK = [
    (  # a chain of operators: parentheses around the value, one operand a line
        "p_o_ptrs = o + (bos * H + i_h) * N + tl.cast(i_t * BT, tl.int64) * H * N + i_n * BN"
        " + (tl.arange(0, BT).to(tl.int64)[:, None] * H * N + tl.arange(0, BN)[None, :])",
        """\
p_o_ptrs = (
    o
    + (bos * H + i_h) * N
    + tl.cast(i_t * BT, tl.int64) * H * N
    + i_n * BN
    + (
        tl.arange(0, BT).to(tl.int64)[:, None] * H * N
        + tl.arange(0, BN)[None, :]
    )
)"""),
    (  # a call whose arguments fit one continuation line
        "tl.store(p_o_ptrs, b_o.to((o + (bos * H + i_h) * N).dtype.element_ty), mask=p_o_mask)",
        """\
tl.store(
    p_o_ptrs, b_o.to((o + (bos * H + i_h) * N).dtype.element_ty), mask=p_o_mask
)"""),
    (  # ... and one that does not: one argument a line, a trailing comma
        "p_q_desc = tl.make_tensor_descriptor(q + (bos * H + i_h) * K, shape=[T, K], strides=[H * K, 1],"
        " block_shape=[BT, BK])",
        """\
p_q_desc = tl.make_tensor_descriptor(
    q + (bos * H + i_h) * K,
    shape=[T, K],
    strides=[H * K, 1],
    block_shape=[BT, BK],
)"""),
    (  # a guarded load: split at the conditional
        "b_q = p_q_desc.load([i_t * BT, i_k * BK]) if USE_DESCRIPTORS else tl.load(p_q_ptrs, mask=p_q_mask)",
        """\
b_q = (
    p_q_desc.load([i_t * BT, i_k * BK])
    if USE_DESCRIPTORS
    else tl.load(p_q_ptrs, mask=p_q_mask)
)"""),
    (  # a trailer (`.to(...)`) stays after the brackets that split
        "b_q = ((p_q_desc.load([p_q_off0, i_k * BK]) if USE_DESCRIPTORS else tl.load(p_q_ptrs, mask=p_q_mask))"
        " * scale).to(b_k.dtype)",
        """\
b_q = (
    (
        p_q_desc.load([p_q_off0, i_k * BK])
        if USE_DESCRIPTORS
        else tl.load(p_q_ptrs, mask=p_q_mask)
    )
    * scale
).to(b_k.dtype)"""),
    (  # one operator, brackets at the end: split in them, earlier ones if the first line is too long
        "x = tl.load(p_x_ptrs, mask=p_x_mask, other=0.0) + tl.load(p_y_ptrs, mask=p_y_mask, other=0.0).to(tl.float32)",
        """\
x = tl.load(p_x_ptrs, mask=p_x_mask, other=0.0) + tl.load(
    p_y_ptrs, mask=p_y_mask, other=0.0
).to(tl.float32)"""),
    (  # a signature: one parameter a line, a trailing comma
        "def _load(p_base, p_shape0, p_shape1, p_stride0, p_start0, p_start1, p_block0: tl.constexpr):",
        """\
def _load(
    p_base,
    p_shape0,
    p_shape1,
    p_stride0,
    p_start0,
    p_start1,
    p_block0: tl.constexpr,
):"""),
]


@pytest.mark.parametrize("code, expected", BLACK, ids=[f"black{i}" for i in range(len(BLACK))])
def test_layout_is_blacks(code, expected):
    assert layout(code, 8, 88) == expected


@pytest.mark.parametrize("newline", ["\n", "\r\n"], ids=["lf", "crlf"])
@pytest.mark.parametrize("indent", ["    ", "\t"], ids=["spaces", "tab"])
@pytest.mark.parametrize("code", [c for c, _ in BLACK if not c.startswith(("def", "@"))],
                         ids=lambda c: c.split("(")[0][:24])
def test_a_laid_out_statement_prints_as_its_parse_would(code, indent, newline):
    """wrap.fit puts the laid-out text (or the one line it measured) in the tree as it is (_LaidOut) rather than
    parsing it: it must print what the parsed statement prints, two blocks deep, in a file of either newline."""
    module = cst.parse_module(f"def f():{newline}{indent}if x:{newline}{indent}{indent}y = 1{newline}")
    line = module.body[0].body.body[0].body.body[0]
    laid = layout(code, 8, 40)
    assert "\n" in laid and "\n" not in code
    for text in (laid, code):
        parsed = cst.parse_statement(text + module.default_newline, module.config_for_parsing).body
        assert module.deep_replace(line, line.with_changes(body=(_LaidOut(text),))).code == \
            module.deep_replace(line, line.with_changes(body=parsed)).code


def test_layout_keeps_the_sources_own_spacing_and_leaves_comments_alone():
    laid = layout("p = q + tl.cast(i_t*BT, tl.int64) * HQ*K + (tl.arange(0, BT)[:, None] * HQ*K + tl.arange(0, BK))",
                  8, 60)
    assert "tl.cast(i_t*BT, tl.int64) * HQ*K" in laid
    assert layout("x = f(a,  # why\n      b)", 8, 10) is None


@pytest.mark.parametrize("code, expected", BLACK, ids=[f"black{i}" for i in range(len(BLACK))])
def test_black_leaves_the_layout_as_it_is(code, expected):  # black itself (the `test` extra) confirms BLACK
    body = textwrap.indent(expected, " " * 8) + ("\n        pass\n" if expected.endswith(":") else "\n")
    source = "def f():\n    if x:\n" + body
    result = subprocess.run([tool("black"), "-q", "-l", "88", "--skip-string-normalization", "-"], input=source,
                            capture_output=True, text=True)
    assert result.stdout == source


def test_the_launch_support_fits_79_columns():
    assert max(map(len, launch_support.module_source().splitlines())) <= 79


# --- where the limit comes from --------------------------------------------------------------------------------

CONFIGS = [
    ("pyproject.toml", "[tool.ruff]\nline-length = 100\n", 100),
    ("pyproject.toml", "[tool.ruff]\nextend = '../base.toml'\n", 101),  # base.toml: line-length = 101
    ("pyproject.toml", "[tool.ruff.lint]\nselect = ['E']\n", 88),  # ruff configured, its default
    ("pyproject.toml", "[tool.black]\nline-length = 110\n", 110),
    ("ruff.toml", "line-length = 120\n", 120),
    (".ruff.toml", "line-length = 121\n", 121),
    ("setup.cfg", "[flake8]\nmax-line-length = 99\n", 99),
    (".flake8", "[flake8]\nmax_line_length = 98\n", 98),
    ("tox.ini", "[flake8]\nmax-line-length = 97\n", 97),
    ("pyproject.toml", "[project]\nname = 'x'\n", 88),  # configures none of them: ruff's default
]


@pytest.mark.parametrize("name, text, expected", CONFIGS, ids=[f"{c[0]}-{c[2]}" for c in CONFIGS])
def test_limit_is_read_from_each_kind_of_config(tree, name, text, expected):
    put(tree, "base.toml", "line-length = 101\n")
    put(tree, f"proj/{name}", text)
    put(tree, "proj/pkg/kernel.py", KERNEL)
    assert Resolver({}).for_path("proj/pkg/kernel.py").line_length == expected


def test_nearest_config_wins_and_own_key_and_cli_override(tree):
    put(tree, "ruff.toml", "line-length = 120\n")
    put(tree, "sub/setup.cfg", "[flake8]\nmax-line-length = 100\n")
    put(tree, "sub/deeper/pyproject.toml", "[project]\nname = 'x'\n")  # no ruff/black/flake8: passed over
    assert Resolver({}).for_path("a.py").line_length == 120
    assert Resolver({}).for_path("sub/deeper/b.py").line_length == 100
    put(tree, "sub/deeper/pyproject.toml", "[tool.triton-migrate]\nline-length = 90\n")
    assert Resolver({}).for_path("sub/deeper/b.py").line_length == 90
    assert Resolver({"line-length": 70}).for_path("sub/deeper/b.py").line_length == 70
    assert Resolver({}, isolated=True).for_path("a.py").line_length == 88


@pytest.mark.parametrize("limit", [127, 100])
def test_write_keeps_to_the_projects_limit_through_the_cli(tree, limit):
    put(tree, "pyproject.toml", f"[tool.ruff]\nline-length = {limit}\n")
    path = put(tree, "pkg/kernel.py", KERNEL)
    invoke("--write", "-q", "-j1", "--no-cache", ".")
    after = path.read_text()
    assert after != KERNEL and too_long(added_lines(KERNEL, after), limit) == []
    narrower = migrate_source(KERNEL, layout=Layout(line_length=limit - 40)).new_source
    assert after != narrower  # laid out for this limit, not a narrower one
    invoke("--write", "-q", "-j1", "--no-cache", "--line-length", "60", ".")
    assert path.read_text() == after  # migrated code is left as it is


@pytest.mark.parametrize("limit", [127, 88])
def test_ruff_finds_nothing_new(tree, limit):
    """`ruff check` under the project's limit (E501) and pyflakes (F841 and the rest) finds no more in the
    migrated file than in the original (the kernel's hand-written long line stays one finding)."""
    put(tree, "pyproject.toml", f"[tool.ruff]\nline-length = {limit}\n[tool.ruff.lint]\nselect = ['E', 'F']\n")
    path = put(tree, "kernel.py", KERNEL)

    def findings():
        result = subprocess.run([tool("ruff"), "check", "--no-cache", "--output-format", "concise", "--exit-zero",
                                 "kernel.py"], capture_output=True, text=True, cwd=tree)
        return Counter(line.split(": ", 1)[1].split(" ")[0] for line in result.stdout.splitlines() if ": " in line)

    before = findings()
    invoke("--write", "-q", "-j1", "--no-cache", ".")
    assert path.read_text() != KERNEL
    assert findings() - before == Counter()


def tool(name: str) -> str:
    """A console script of the test environment (the `test` extra installs black and ruff)."""
    beside = os.path.join(os.path.dirname(sys.executable), name)
    return beside if os.path.exists(beside) else name


@pytest.mark.parametrize("tree_in_repo", ["fixtures/gemm_loop_advance", "tests/realistic/kernels",
                                          "benchmarks/kernels"])
def test_the_kernels_in_this_repository_keep_their_own_line_length(tree_in_repo):
    """The repository's own code is 120 columns wide ([tool.ruff] in its pyproject.toml), which `migrate` would
    take for the kernels the documentation and benchmarks/compare_output.py migrate in the tree: they state
    ruff's 88 in a ruff.toml of their own."""
    root = Path(__file__).resolve().parent.parent
    assert Resolver({}).for_path(str(root / tree_in_repo / "any.py")).line_length == 88
    assert Resolver({}).for_path(str(root / "migrate" / "engine.py")).line_length == 120
