"""After --write the sites left are reported where the written file has them, in every output format (as
ruff reports what is left after --fix); --check and --diff write nothing and report the file on disk.

The file: a kernel whose migration adds some twenty lines, above a helper and a caller that are refused.
Where the refused code is, and the line the caller's message points at, are read from the written file."""

import json
import re

import jsonschema
import pytest
from test_cli import DIAGNOSTIC, KERNEL, REFUSED, invoke, put, tree  # noqa: F401 (tree is a fixture)
from test_output import schema

from triton_migrate.frontend.written import Relocation

SOURCE = KERNEL + "\n\n" + REFUSED.split("\n", 2)[2]  # the two files as one, the second's imports dropped
HELPER_LOAD = "tl.load(p, boundary_check=(0,))"  # refused: the helper is called through a table
CALLER_BLOCK_POINTER = "tl.make_block_ptr(x_ptr, (N,)"  # refused: passed to that helper
CALL = "y = helper(x)"  # the line the caller's refusal points at


def where(text, code):
    """(line, 1-based column) of `code` in `text`."""
    before = text[: text.index(code)]
    return before.count("\n") + 1, len(before) - before.rfind("\n")


@pytest.fixture
def written(tree):
    """Runs `--write` on SOURCE with an output format (and more options); its result and the written text."""

    def run(fmt, *more):
        put(tree, "k.py", SOURCE)
        result = invoke("--write", "--isolated", "--output-format", fmt, *more, "k.py")
        text = (tree / "k.py").read_text()
        assert text != SOURCE and HELPER_LOAD in text
        return result, text

    return run


def expected(text):
    """The refused sites in `text`: the helper's load, then the caller's block pointer and its call line."""
    return [where(text, HELPER_LOAD), where(text, CALLER_BLOCK_POINTER)], where(text, CALL)[0]


def test_concise_and_full_report_the_written_lines(written):
    for fmt in ("concise", "full"):
        result, text = written(fmt)
        places, call = expected(text)
        found = [(int(m["line"]), int(m["col"])) for m in DIAGNOSTIC.finditer(result.stdout)]
        assert found == places, fmt
        assert f"(line {call})\n" in result.stdout
        assert places[0][0] > expected(SOURCE)[0][0][0]  # the migration above added lines
    # full shows the written line under its number
    line = text.splitlines()[places[0][0] - 1]
    assert f"{places[0][0]} | {line}\n" in result.stdout


def test_json_reports_the_written_lines(written):
    result, text = written("json")
    sites = json.loads(result.stdout)
    jsonschema.validate(sites, schema("json-output.schema.json"))
    places, call = expected(text)
    assert [(s["location"]["row"], s["location"]["column"]) for s in sites] == places
    assert [s["end_location"]["column"] for s in sites] == [len(text.splitlines()[r - 1]) + 1 for r, _ in places]
    assert sites[1]["message"].endswith(f"(line {call})")


def test_sarif_reports_the_written_lines(written):
    result, text = written("sarif")
    document = json.loads(result.stdout)
    jsonschema.Draft4Validator(schema("sarif-schema-2.1.0.json")).validate(document)
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in document["runs"][0]["results"]]
    assert [(r["startLine"], r["startColumn"]) for r in regions] == expected(text)[0]


def test_github_reports_the_written_lines(written):
    result, text = written("github")
    found = [tuple(map(int, m)) for m in re.findall(r"^::error .*?,line=(\d+),col=(\d+)::", result.stdout, re.M)]
    assert found == expected(text)[0]


def test_the_grouped_report_uses_the_written_lines(written, tree):
    _, text = written("concise", "--report", "report.txt")
    places, call = expected(text)
    report = (tree / "report.txt").read_text()
    for line, column in places:
        assert re.search(rf"^  k\.py:{line}:{column} +TTD201  untouched ", report, re.M)
    assert f"(line {call})\n" in report
    # a migrated site is gone; it is reported where the code written in place of its lines starts
    migrated = re.findall(r"^  k\.py:(\d+):(\d+) +TTD006 ", report, re.M)
    first_changed = next(n for n, (a, b) in enumerate(zip(SOURCE.splitlines(), text.splitlines()), 1) if a != b)
    assert migrated and {(int(line), int(column)) for line, column in migrated} == {(first_changed, 1)}


def test_the_json_report_of_a_written_file_has_no_fix_left(written, tree):
    written("concise", "--report", "report.json")
    document = json.loads((tree / "report.json").read_text())
    assert any(s["decision"] == "pointer" for s in document)
    assert all(s["fix"] is None for s in document)  # the fix is applied: its edits are for a text that is gone


def test_stdin_write_reports_the_lines_of_the_code_it_prints(tree):
    result = invoke("--write", "--isolated", "--output-format", "concise", "-", stdin=SOURCE)
    found = [(int(m["line"]), int(m["col"])) for m in DIAGNOSTIC.finditer(result.stderr)]
    assert found == expected(result.stdout)[0]


@pytest.mark.parametrize("mode", [(), ("--diff",)])
def test_check_and_diff_report_the_file_on_disk(tree, mode):
    """Nothing is written, so the positions are those of the file as it is (ruff's --diff writes nothing
    either; its diff's `-` side is the file on disk)."""
    put(tree, "k.py", SOURCE)
    result = invoke(*mode, "--isolated", "--output-format", "concise", "k.py")
    assert (tree / "k.py").read_text() == SOURCE
    places, call = expected(SOURCE)
    assert [(int(m["line"]), int(m["col"])) for m in DIAGNOSTIC.finditer(result.stdout)
            if m["code"] == "TTD201"] == places
    assert f"(line {call})\n" in result.stdout


def test_a_refused_call_on_a_changed_line_keeps_its_place_in_it():
    old = "a = 1\nv = f(x_bp) + tl.load(p, boundary_check=(0,))\nb = 2\n"
    new = "a = 1\nrows = 0\nv = f(x_desc, rows) + tl.load(p, boundary_check=(0,))\nb = 2\n"
    moved = Relocation(old, new)
    assert moved.place(*where(old, "tl.load(p")) == where(new, "tl.load(p")
    assert moved.place(3, 1) == (4, 1)
    assert moved.replacement(2) == 2  # a migrated site on line 2: its new code starts on line 2


def test_warnings_point_into_the_written_file(tree):
    put(tree, "k.py", SOURCE.replace('LOADERS = {"plain": helper}', 'LOADERS = {"plain": helper}  # noqa: TTD105'))
    result = invoke("--write", "--isolated", "--output-format", "concise", "k.py")
    text = (tree / "k.py").read_text()
    line, column = where(text, "# noqa: TTD105")
    assert f"k.py:{line}:{column}: warning: unused suppression of TTD105" in result.stderr
