"""Issue 48: nothing passed over in silence. Every `make_block_ptr` call a file spells is a site of the report,
whatever binds its callee (analysis/census.py, TTD203): a property over every kernel this repository holds (the
fixtures before and after, the benchmark and realistic kernels, the helper package, generated fuzz programs),
and the rule itself through the command line, in every output format."""

from __future__ import annotations

import io
import json
import tokenize
from pathlib import Path

import pytest
from fuzz import grammar
from test_cli import codes, invoke, put

from triton_migrate.engine import migrate_source

ROOT = Path(__file__).resolve().parent.parent
TREES = sorted([*ROOT.glob("fixtures/*/*.py"), *ROOT.glob("benchmarks/kernels/*.py"),
                *ROOT.glob("tests/realistic/kernels/*.py"), *ROOT.glob("tests/data/**/*.py")])
FUZZ_SEEDS = range(0, 400, 8)  # factories among them (grammar.Gen.in_factory)


def creation_lines(source: str) -> list[int]:
    """The lines of the `make_block_ptr(` calls, by the tokens alone (an account apart from the census's):
    the name followed by `(`, not after `def`."""
    tokens = [t for t in tokenize.generate_tokens(io.StringIO(source).readline)
              if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)]
    return [token.start[0] for before, token, after in zip([None, *tokens], tokens, [*tokens[1:], None])
            if token.type == tokenize.NAME and token.string == "make_block_ptr" and after is not None
            and after.string == "(" and (before is None or before.string != "def")]


def assert_every_creation_reported(source: str, where: str) -> None:
    outcome = migrate_source(source, verify=False, rewrite=False)
    lines = creation_lines(source)
    assert len(outcome.diagnostics) >= len(lines), where
    reported = {d.line for d in outcome.diagnostics}
    assert not [line for line in lines if line not in reported], where


@pytest.mark.parametrize("path", TREES, ids=[str(p.relative_to(ROOT)) for p in TREES])
def test_every_creation_of_the_repository_kernels_is_a_site(path):
    assert_every_creation_reported(path.read_text(), str(path))


def test_every_creation_of_generated_programs_is_a_site():
    programs = [grammar.generate(seed) for seed in FUZZ_SEEDS]
    assert any("import:function" in p.features for p in programs)
    for seed, program in zip(FUZZ_SEEDS, programs):
        assert_every_creation_reported(program.source, f"seed {seed}")


def test_the_token_count_sees_through_comments_strings_and_definitions():
    source = 'def make_block_ptr(a):\n    pass\n# tl.make_block_ptr(x)\ns = "make_block_ptr(x)"\n' \
        "p = ops.make_block_ptr(\n    x)\nq = make_block_ptr (x)\n"
    assert creation_lines(source) == [5, 7]


# --- which calls the census counts -------------------------------------------------------------------------------

TEMPLATE = """import triton


@triton.jit
def k(X, N, B: tl.constexpr):
    {binding}
    p = tl.make_block_ptr(X, (N,), (1,), (0,), (B,), (0,))
    tl.store(p, tl.load(p, boundary_check=(0,)) + 1, boundary_check=(0,))
"""
NOT_FOLLOWED = {
    "importlib": 'tl = importlib.import_module("triton.language")',
    "attribute": "tl = triton.language",
    "getattr": 'tl = getattr(triton, "language")',
    "pytest": 'tl = pytest.importorskip("triton.language")',
}


@pytest.mark.parametrize("binding", NOT_FOLLOWED.values(), ids=NOT_FOLLOWED)
def test_a_creation_on_a_name_bound_otherwise_is_reported(binding):
    outcome = migrate_source(TEMPLATE.format(binding=binding), verify=False, rewrite=False)
    assert [(d.line, d.code, d.fixed) for d in outcome.diagnostics] == [(7, "TTD203", False)]
    assert "`tl.make_block_ptr(...)`" in outcome.diagnostics[0].message
    assert "`import triton.language as tl`" in outcome.diagnostics[0].message


def test_a_creation_on_a_name_imported_from_elsewhere_says_how_to_state_it():
    """A name imported in a function from a module the run does not show (TTD202 covers the module's top level)."""
    source = TEMPLATE.format(binding="from ops.triton_utils import tl")
    [diagnostic] = migrate_source(source, verify=False, rewrite=False).diagnostics
    assert diagnostic.code in ("TTD202", "TTD203") and \
        "--triton-module ops.triton_utils.tl=triton.language" in diagnostic.message


def test_advances_count_in_the_shape_of_triton_s():
    counted = """
def move(p, it, tok, ops):
    it.advance()
    tok.advance(3)
    ops.advance(p, (0, 16))
    ops.advance(p, offsets=[0, 16])
    ops.advance(p, d)
"""
    outcome = migrate_source("import triton\n" + counted, verify=False, rewrite=False)
    assert [(d.line, d.code) for d in outcome.diagnostics] == [(6, "TTD203"), (7, "TTD203")]
    with_creation = counted + "    q = tl.make_block_ptr(p, (1,), (1,), (0,), (16,), (0,))\n"
    outcome = migrate_source("import triton.language as tl\n" + with_creation, verify=False, rewrite=False)
    # beside a creation, `ops.advance(p, d)` too (the method calls are the analysis's own: TTD201)
    assert [(d.line, d.code) for d in outcome.diagnostics if d.line in (6, 7, 8)] == \
        [(6, "TTD203"), (7, "TTD203"), (8, "TTD203")]


def test_a_file_without_kernels_that_says_advance_is_quiet():
    source = "import triton\n\n\ndef walk(reader):\n    reader.advance()\n    return reader.advance(2)\n"
    assert migrate_source(source, verify=False, rewrite=False).diagnostics == ()


# --- through the command line ------------------------------------------------------------------------------------

UNFOLLOWED = TEMPLATE.format(binding=NOT_FOLLOWED["importlib"])


@pytest.fixture
def unfollowed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    put(tmp_path, "k.py", UNFOLLOWED)
    return tmp_path


def test_check_never_says_no_block_pointers_of_a_file_that_calls_make_block_ptr(unfollowed):
    put(unfollowed, "bare.py", "def build(make_block_ptr, x):\n    return make_block_ptr(x)\n")  # says no triton
    result = invoke("--no-cache", "-j1", ".")
    assert result.exit_code == 1 and "No block pointers found" not in result.stdout + result.stderr
    assert codes(result.stdout) == ["TTD203", "TTD203"], result.stdout
    assert "from triton.language import make_block_ptr" in result.stdout


def test_every_output_format_carries_it(unfollowed):
    sites = json.loads(invoke("--no-cache", "--output-format", "json", "k.py").stdout)
    assert [(s["code"], s["location"]["row"], s["decision"], s["fix"]) for s in sites] == \
        [("TTD203", 7, "untouched", None)]
    sarif = json.loads(invoke("--no-cache", "--output-format", "sarif", "k.py").stdout)
    assert [(r["ruleId"], r["level"]) for r in sarif["runs"][0]["results"]] == [("TTD203", "error")]
    github = invoke("--no-cache", "--output-format", "github", "k.py").stdout
    assert github.startswith("::error title=triton-migrate (TTD203),file=k.py,line=7,")


def test_it_is_ignored_per_line(unfollowed):
    put(unfollowed, "k.py", UNFOLLOWED.replace("(0,))\n", "(0,))  # noqa: TTD203\n", 1))
    result = invoke("--no-cache", "k.py")
    assert result.exit_code == 0 and codes(result.stdout) == [], result.stdout


def test_write_leaves_the_file_as_it_is(unfollowed):
    result = invoke("--no-cache", "--write", "k.py")
    assert result.exit_code == 1 and (unfollowed / "k.py").read_text() == UNFOLLOWED
    assert codes(result.stdout) == ["TTD203"]
