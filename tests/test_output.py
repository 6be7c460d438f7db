"""Output formats through the real CLI: json and sarif against their schemas (and their fixes against what
--write writes), github annotations, full/concise, statistics, --output-file, --show-fixes, the report,
colour and the progress bar on a terminal."""

import collections
import io
import json
import os
import pathlib
import pty
import re
import subprocess
import sys

import jsonschema
import pytest
from test_cli import KERNEL, REFUSED, codes, invoke, put, tree  # noqa: F401 (tree is a fixture)
from test_config import GEMM

from triton_migrate import engine
from triton_migrate.policy import Policy, Statement
from triton_migrate.rules import RULES

SCHEMAS = pathlib.Path(__file__).parent / "data" / "output"
ANSI = "\x1b["


def schema(name):
    return json.loads((SCHEMAS / name).read_text())


def apply_edits(text, edits):
    """Apply (start, end, content) edits, positions 1-based (row, column), as an editor would."""
    starts = [0]
    for line in io.StringIO(text, newline="").readlines():
        starts.append(starts[-1] + len(line))

    def offset(row, column):
        return starts[row - 1] + column - 1 if row <= len(starts) else len(text)

    for start, end, content in sorted(edits, reverse=True):
        text = text[: offset(*start)] + content + text[offset(*end):]
    return text


@pytest.fixture
def kernels(tree):
    put(tree, "k.py", KERNEL)
    put(tree, "r.py", REFUSED)
    return tree


# The default output checks at launch what it cannot prove (TTD009); with facts stated, descriptors rely on
# them and list them (TTD010).
STATED = ("--target", "descriptor", "--assume", "aligned,aligned-rows")
DESCRIPTORS = Policy(target="descriptor", assume=tuple(Statement(fact, "command line: assume")
                                                       for fact in ("aligned", "aligned-rows")))


def test_json_matches_the_schema_and_its_fix_is_what_write_writes(kernels):
    result = invoke("--output-format", "json", "-j1", *STATED)
    assert result.exit_code == 1
    sites = json.loads(result.stdout)
    jsonschema.validate(sites, schema("json-output.schema.json"))
    expected = engine.migrate_source(KERNEL, policy=DESCRIPTORS).diagnostics + \
        engine.migrate_source(REFUSED, policy=DESCRIPTORS).diagnostics
    assert [(s["code"], s["location"]["row"], s["decision"], tuple(s["requirements"])) for s in sites] == [
        (d.code, d.line, d.decision, d.requirements) for d in expected]
    assert any(s["requirements"] for s in sites)  # the kernel's run-time stride condition is carried
    edits = [(tuple(e["location"].values()), tuple(e["end_location"].values()), e["content"])
             for s in sites if s["fix"] for e in s["fix"]["edits"]]
    assert {s["fix"]["applicability"] for s in sites if s["fix"]} == {"unsafe"}  # it relies on requirements
    assert all(s["fix"] is None for s in sites if s["filename"].endswith("r.py"))
    invoke("--write", *STATED)
    assert apply_edits(KERNEL, edits) == (kernels / "k.py").read_text()


def test_sarif_matches_the_schema_and_carries_fixes(kernels):
    result = invoke("--output-format", "sarif", "-j1", *STATED)
    document = json.loads(result.stdout)
    jsonschema.Draft4Validator(schema("sarif-schema-2.1.0.json")).validate(document)
    run = document["runs"][0]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == list(RULES)
    results = run["results"]
    assert {r["level"] for r in results} == {"warning", "error"}
    assert all(run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    assert any(r["properties"]["requirements"] for r in results)
    fixes = [f for r in results for f in r.get("fixes", [])]
    assert len(fixes) == 1 and fixes[0]["artifactChanges"][0]["artifactLocation"]["uri"] == "k.py"
    edits = [((c["deletedRegion"]["startLine"], c["deletedRegion"]["startColumn"]),
              (c["deletedRegion"]["endLine"], c["deletedRegion"]["endColumn"]), c["insertedContent"]["text"])
             for c in fixes[0]["artifactChanges"][0]["replacements"]]
    invoke("--write", *STATED)
    assert apply_edits(KERNEL, edits) == (kernels / "k.py").read_text()


def test_github_annotations_escape_properties(tree):
    put(tree, "a,b:c.py", REFUSED)
    result = invoke("--output-format", "github")
    lines = result.stdout.splitlines()
    assert len(lines) == len(engine.migrate_source(REFUSED).refused)
    pattern = (r"::error title=triton-migrate \(TTD\d{3}\),file=a%2Cb%3Ac\.py,line=\d+,col=\d+::"
               r"a,b:c\.py:\d+:\d+: TTD\d{3} \S.*")
    assert all(re.fullmatch(pattern, line) for line in lines), lines


def test_full_shows_the_line_decision_and_requirements_concise_one_line(kernels):
    full = invoke("-j1", *STATED).stdout
    d = engine.migrate_source(KERNEL, policy=DESCRIPTORS).diagnostics[0]
    source_line = KERNEL.splitlines()[d.line - 1]
    assert f"{d.line} | {source_line}\n" in full
    gutter = " " * len(str(d.line))
    assert f"{gutter} = decision: {d.decision}\n" in full
    assert d.requirements and all(f"{gutter} = requires: {r}\n" in full for r in d.requirements)
    concise = invoke("--output-format", "concise", "-j1", *STATED).stdout
    assert len(concise.splitlines()) == len(codes(concise)) == len(codes(full))


def test_diff_with_a_document_format_prints_only_the_document(kernels):
    result = invoke("--diff", "--output-format", "json")
    assert result.exit_code == 1
    assert any(s["fix"] for s in json.loads(result.stdout))  # migratable sites are listed with their fix


def test_write_lists_what_is_left_and_show_fixes_what_was_done(kernels):
    result = invoke("--write", "--output-format", "json", "--show-fixes")
    assert {s["code"] for s in json.loads(result.stdout)} == {"TTD201"}
    fixed = collections.Counter(d.code for d in engine.migrate_source(KERNEL).diagnostics)
    listed = "".join(f"    {fixed[code]} × {code}\n" for code in sorted(fixed))
    assert f"Migrated:\nk.py:\n{listed}" in result.stderr


def test_statistics(kernels):
    text = invoke("--statistics").stdout
    assert re.search(r"^2\tTTD201\t\[ \] crosses-function$", text, re.M)
    rows = json.loads(invoke("--statistics", "--output-format", "json").stdout)
    assert {"code": "TTD201", "name": "crosses-function", "count": 2, "fixable": False} in rows


def test_output_file(kernels):
    expected = invoke("--output-format", "sarif").stdout
    result = invoke("--output-format", "sarif", "-o", "out.sarif")
    assert result.stdout == ""
    assert result.exit_code == 1
    assert (kernels / "out.sarif").read_text() == expected


def test_report_command_and_report_file(kernels):
    put(kernels, "g.py", GEMM)  # its K loop's loads feed `tl.dot`: the default guards them at launch
    result = invoke("report", "-j1")
    assert result.exit_code == 0  # a report, not a gate
    assert re.search(r"^  r\.py:\d+:\d+ +TTD201  untouched ", result.stdout, re.M)
    assert re.search(r"^\s+2  TTD201  crosses-function\s+\(untouched 2\)$", result.stdout, re.M)
    assert re.search(r"^  g\.py:\d+:\d+ +TTD009  guarded .*checked at launch: `a_ptr` is 16-byte aligned",
                     result.stdout, re.M)
    assert re.search(r"^  k\.py:\d+:\d+ +TTD006  pointer .*every access: a descriptor pays off for loads in a loop",
                     result.stdout, re.M)
    described = invoke("report", "-j1", *STATED)
    assert re.search(r"^      requires: `x_ptr` stated `aligned` \(command line: assume\): its data, and `stride_m`",
                     described.stdout, re.M)
    main = invoke("--report", "report.json", "-j1")
    assert main.exit_code == 1
    document = json.loads((kernels / "report.json").read_text())
    jsonschema.validate(document, schema("json-output.schema.json"))
    assert len(document) == len(codes(invoke("report", "--output-format", "concise").stdout))
    put(kernels, "broken.py", "import triton.language as tl\ndef f(:\n    tl.make_block_ptr(x)\n")
    assert invoke("report").exit_code == 2


def test_colour_follows_the_option_and_no_color(kernels, monkeypatch):
    assert ANSI not in invoke().stdout  # CliRunner's stdout is no terminal
    assert ANSI in invoke("--color", "always").stdout
    assert ANSI in invoke("--diff", "--color", "always").stdout
    monkeypatch.setenv("NO_COLOR", "1")
    assert ANSI in invoke("--color", "always").stdout  # the command line beats the environment
    assert ANSI not in invoke("--color", "auto").stdout


def on_terminal(args, cwd, stream, env=None):
    """Run the CLI with `stream` ("stdout" or "stderr") on a pseudo-terminal; returns (terminal, other)."""
    main, secondary = pty.openpty()
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, stream: secondary}
    process = subprocess.Popen([sys.executable, "-m", "triton_migrate.cli", *args], cwd=cwd, stdin=subprocess.DEVNULL,
                               env={**os.environ, **(env or {})}, **pipes)
    os.close(secondary)
    seen = b""
    while True:
        try:
            chunk = os.read(main, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(main)
    other = process.communicate()[0 if stream == "stderr" else 1]
    return seen.decode(), other.decode()


def test_colour_on_a_terminal_unless_no_color(kernels):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured, _ = on_terminal(["-j1"], kernels, "stdout", env={"NO_COLOR": ""} | env)
    assert ANSI in coloured
    plain, _ = on_terminal(["-j1"], kernels, "stdout", env={"NO_COLOR": "1"})
    assert ANSI not in plain and "TTD201" in plain


def test_progress_bar_on_a_terminal_for_long_runs_only(tree):
    for i in range(10):
        put(tree, f"k{i}.py", KERNEL)
    bar, stdout = on_terminal(["-j2", "--output-format", "json"], tree, "stderr")
    assert "Analysing" in bar and "10/10" in bar
    assert len(json.loads(stdout)) == 10 * len(engine.migrate_source(KERNEL).diagnostics)
    quiet, _ = on_terminal(["-j2", "-q"], tree, "stderr")
    assert "Analysing" not in quiet
    assert "Analysing" not in invoke("-j2").stderr  # no terminal, no bar


def test_verbose_says_what_it_did(kernels):
    put(kernels, "pyproject.toml", '[tool.triton-migrate]\nper-file-ignores = { "r.py" = ["ALL"] }\n')
    result = invoke("-v")
    assert "[migrate] configuration: " in result.stderr and "pyproject.toml" in result.stderr
    assert "[migrate] r.py: skipped: every rule is ignored" in result.stderr
    assert re.search(r"\[migrate\] analysed 1 file of 1 in \d+\.\d\d s", result.stderr)


def test_unwritable_output_file_exits_2(kernels):
    result = invoke("-o", "no/such/dir/out.txt")
    assert result.exit_code == 2
    assert "no/such/dir/out.txt" in result.stderr
