"""What a new user meets in the first hour (issue 45 item 4): the help says what the pages say, a configuration
mistake is reported as one, and the summary never contradicts the errors above it."""

import importlib.util
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from triton_migrate.cli import main
from triton_migrate.rules import RULES, explain

ROOT = Path(__file__).resolve().parent.parent

KERNEL = """\
import triton
import triton.language as tl

@triton.jit
def copy(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_m, 1), (0, 0), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1)), boundary_check=(0, 1))
"""


def invoke(*args):
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, list(args), catch_exceptions=False)


def usage(*args) -> str:
    return next(line for line in invoke(*args).stdout.splitlines() if line.startswith("Usage:"))


def test_default_usage_is_spelt_as_every_page_spells_it():
    """The pages write `migrate --check`: `migrate check` is only the default command's explicit name."""
    assert usage("--help") == "Usage: migrate [OPTIONS] [PATHS]..."
    assert "Try 'migrate --help' for help." in invoke("--no-such-option").stderr


def test_tune_help_names_migrate_tune():
    assert usage("tune", "--help") == "Usage: migrate tune [OPTIONS] [PATHS]..."


def test_verify_help_shows_its_options_and_no_run_command():
    """`migrate verify [PATHS] -- COMMAND` takes the configuration and comparison options; no page names `run`."""
    shown = invoke("verify", "--help").stdout
    assert usage("verify", "--help") == "Usage: migrate verify [OPTIONS] [PATHS]... -- COMMAND"
    for option in ("--max-slowdown", "--target", "--migrated", "--chart"):
        assert option in shown
    assert not re.search(r"^  run ", shown, re.M)


def test_every_command_is_in_the_command_list():
    listed = invoke("--help").stdout.split("Commands (")[1]
    for name in main.list_commands(None):
        if name != "check":  # the default: the page itself
            assert re.search(rf"^ +{re.escape(name)} ", listed, re.M), name


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "k.py").write_text(KERNEL)
    return tmp_path


def test_a_configuration_error_has_no_usage_block_and_suggests_the_key(tree):
    (tree / "pyproject.toml").write_text('[tool.triton-migrate]\ntargte = "pointer"\n')
    result = invoke("--no-cache", "k.py")
    assert result.exit_code == 2
    assert "Usage:" not in result.stderr + result.stdout
    assert "unknown key 'targte' (did you mean 'target'?)" in result.stderr


def test_the_table_spelt_with_an_underscore_is_an_error_not_ignored(tree):
    (tree / "pyproject.toml").write_text('[tool.triton_migrate]\ntarget = "pointer"\n')
    result = invoke("--no-cache", "k.py")
    assert result.exit_code == 2
    assert "[tool.triton_migrate] is not read: the table is [tool.triton-migrate]" in result.stderr
    assert "Usage:" not in result.stderr


def test_a_failed_write_is_not_summarised_as_no_block_pointers(tree):
    locked = tree / "k.py"
    locked.chmod(0o444)
    try:
        result = invoke("--no-cache", "--write", "-j1", "k.py")
    finally:
        locked.chmod(0o644)
    assert result.exit_code == 2
    assert "No block pointers found" not in result.stderr
    assert "Nothing written: 1 file failed (see errors above)." in result.stderr


@pytest.mark.parametrize("code", sorted(RULES))
def test_explain_leads_with_one_paragraph_that_says_what_the_rule_does(code):
    """`--explain` texts run to hundreds of words: the first paragraph is the one a user reads, and it says what
    the rule does (its docstring's `What it does:`), in at most ~80 words."""
    lead = invoke("--explain", code).stdout.split("\n\n")[0]
    what = next(p for p in explain(code).split("\n\n") if p.startswith("What it does:"))
    assert " ".join(what.removeprefix("What it does:").split())[1:] in " ".join(lead.split())
    assert len(lead.split()) <= 80, (code, len(lead.split()))


def _hooks():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("code", sorted(RULES))
def test_a_rule_page_has_one_example_and_links_the_fixtures_it_names(code):
    hooks = _hooks()
    page = hooks.rule_page(code)
    assert "## Example" not in page  # the docstring's "Example:" is the example; the fixture has its own heading
    prose = re.sub(r"```.*?```|`[^`\n]*`", "", page, flags=re.S)
    for name in hooks.named_fixtures(explain(code)):
        if re.search(rf"\b{name}\b", prose):
            assert f"[{name}](../fixtures.md#{name})" in page, name
    assert all(f"## {name}\n" in hooks.fixtures_page() for name in hooks.named_fixtures(explain(code)))


def test_long_code_lines_wrap_rather_than_clip():
    css = (ROOT / "docs" / "stylesheets" / "extra.css").read_text()
    assert re.search(r"pre > code \{[^}]*white-space: pre-wrap", css)
