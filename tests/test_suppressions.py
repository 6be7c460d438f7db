"""`# noqa: TTD…` / `# migrate: ignore[…]`, unused-suppression warnings and --add-noqa, through the real CLI."""

import pytest
from test_cli import KERNEL, REFUSED, codes, invoke, put, snapshot, tree  # noqa: F401 (tree is a fixture)

from triton_migrate import engine

REFUSED_LINES = sorted({d.line for d in engine.migrate_source(REFUSED).refused})


def with_comment(source, line, comment):
    lines = source.splitlines(keepends=True)
    lines[line - 1] = lines[line - 1].rstrip("\n") + comment + "\n"
    return "".join(lines)


def suppress_all(source, make_comment):
    for d in engine.migrate_source(source).refused:
        source = with_comment(source, d.line, make_comment(d.code))
    return source


@pytest.mark.parametrize("make_comment", [
    lambda code: f"  # noqa: {code}",
    lambda code: f"  # migrate: ignore[{code}]",
    lambda code: "  # migrate: ignore",
    lambda code: f"  # see issue 12  # NOQA:{code},E501",
])
def test_suppressed_refusals_are_hidden_and_do_not_count(tree, make_comment):
    put(tree, "r.py", suppress_all(REFUSED, make_comment))
    result = invoke("--output-format", "concise")
    assert result.exit_code == 0, result.stdout
    assert codes(result.stdout) == []
    assert "warning" not in result.stderr
    assert result.stderr == "Nothing to migrate in 1 file (2 sites suppressed).\n"


def test_blanket_noqa_and_noqa_in_a_string_do_not_suppress(tree):
    source = with_comment(REFUSED, REFUSED_LINES[0], "  # noqa")
    source = source.replace("def helper(p):", 'def helper(p, doc="# noqa: TTD201"):')
    put(tree, "r.py", source)
    result = invoke("--output-format", "concise")
    assert result.exit_code == 1
    assert codes(result.stdout) == [d.code for d in engine.migrate_source(source).refused]


def test_a_multi_line_call_is_suppressed_on_its_first_line(tree):
    source = REFUSED.replace("x = tl.make_block_ptr(x_ptr, (N,),",
                             "x = tl.make_block_ptr(  # noqa: TTD201\n        x_ptr, (N,),")
    put(tree, "r.py", source)
    listed = codes(invoke("--output-format", "concise").stdout)
    assert len(listed) == len(engine.migrate_source(source).refused) - 1


def test_unused_and_unknown_suppressions_warn(tree):
    source = with_comment(KERNEL, 2, "  # noqa: TTD101")  # an import line: no site there
    source = with_comment(source, 1, "  # migrate: ignore[TTD999]")
    put(tree, "k.py", source)
    result = invoke()
    assert "k.py:2:31: warning: unused suppression of TTD101: no such site on this line" in result.stderr
    assert "k.py:1:16: warning: unknown rule code TTD999" in result.stderr
    assert result.exit_code == 1  # a warning, not a diagnostic: the exit status is the sites'
    assert "warning" not in invoke("-q").stderr


def test_stale_suppression_in_a_migrated_file_warns(tree):
    put(tree, "done.py", "import triton\n\nx = 1  # noqa: TTD103\n")
    result = invoke()
    assert result.exit_code == 0
    assert "done.py:3:8: warning: unused suppression of TTD103" in result.stderr


def test_suppressing_a_migratable_site_keeps_the_whole_file(tree):
    first = engine.migrate_source(KERNEL).diagnostics[0]
    kernel = put(tree, "k.py", with_comment(KERNEL, first.line, f"  # noqa: {first.code}"))
    before = kernel.read_text()
    result = invoke("--write", "--output-format", "concise")
    assert kernel.read_text() == before
    assert f"{first.code} is suppressed or disabled here: the whole file is left untouched" in result.stderr
    assert result.exit_code == 1  # its other sites are not migrated either, and say so
    assert "not migrated: the file is left untouched because of line" in result.stdout


def test_add_noqa_baselines_and_keeps_comments_and_line_endings(tree):
    lines = REFUSED_LINES
    source = with_comment(REFUSED, lines[0], "  # noqa: E501")
    source = with_comment(source, lines[1], "  # keep me")
    path = put(tree, "r.py", source.replace("\n", "\r\n").encode())
    result = invoke("--add-noqa")
    assert result.exit_code == 0
    assert "Added 2 noqa directives." in result.stderr
    text = path.read_bytes().decode()
    assert text.count("\r\n") == source.count("\n") and "\n" not in text.replace("\r\n", "")
    new_lines = text.split("\r\n")
    assert new_lines[lines[0] - 1].endswith("  # noqa: E501, TTD201")
    assert new_lines[lines[1] - 1].endswith("  # keep me  # noqa: TTD201")
    assert invoke().exit_code == 0
    again = snapshot(tree)
    assert "Added 0 noqa directives." in invoke("--add-noqa").stderr
    assert snapshot(tree) == again


def test_add_noqa_leaves_lines_that_cannot_take_a_comment(tree):
    source = REFUSED.replace("(BN,), (0,))\n", '(BN,), (0,)); s = """\n"""\n', 1)
    put(tree, "r.py", source)
    result = invoke("--add-noqa")
    assert result.stdout == ""
    assert "r.py:10:1: warning: cannot add a noqa comment" in result.stderr
    assert "Added 1 noqa directive." in result.stderr
    assert invoke("--output-format", "concise").exit_code == 1


def test_add_noqa_usage(tree):
    assert invoke("--add-noqa", "--write").exit_code == 2


def test_a_file_that_never_mentions_triton_is_not_searched_for_suppressions(tree):
    # It can hold no site, so no suppression there can be used; reading it for them cost a sixth of a check
    # of a site-packages tree.
    put(tree, "plain.py", "x = 1  # noqa: TTD103\n")
    put(tree, "done.py", "import triton\n\nx = 1  # noqa: TTD103\n")
    result = invoke()
    assert "done.py:3:8: warning: unused suppression of TTD103" in result.stderr
    assert "plain.py" not in result.stderr
