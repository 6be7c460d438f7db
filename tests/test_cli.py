"""The command line end to end, on the real engine: modes, exit codes, output, encodings, errors, stdin."""

import gc
import os
import re
import stat
import subprocess
import sys

import pytest
from click.testing import CliRunner

from triton_migrate import engine
from triton_migrate.cli import main
from triton_migrate.outcome import Diagnostic, FileOutcome
from triton_migrate.policy import Layout

# What the command line gives a file that no configuration gives a line length: the file's own width.
CLI_LAYOUT = Layout(from_code=True)
KERNEL = """\
import triton
import triton.language as tl

@triton.jit
def copy(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_m, 1), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0))
    tl.store(y, tl.load(x, boundary_check=(0, 1)), boundary_check=(0, 1))
"""

# A block pointer handed to another function: refused under every policy, so it must be reported and kept.
REFUSED = """\
import triton
import triton.language as tl

@triton.jit
def helper(p):
    return tl.load(p, boundary_check=(0,))

@triton.jit
def caller(x_ptr, N, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    y = helper(x)

LOADERS = {"plain": helper}  # called through this table too: its callers cannot all be rewritten
"""

CLEAN = "import triton\n\n\ndef f(x):\n    return x + 1\n"
DIAGNOSTIC = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d{3}) \S", re.M)
OLD_MTIME = 1_000_000_000  # files are back-dated so that an unwanted rewrite shows in st_mtime_ns


def invoke(*args, stdin=None):
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, list(args), input=stdin, catch_exceptions=False)


def codes(output, path=None):
    return [m["code"] for m in DIAGNOSTIC.finditer(output) if path is None or m["path"] == path]


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def put(root, name, content):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    os.utime(path, (OLD_MTIME, OLD_MTIME))
    return path


def snapshot(root):
    return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(root.rglob("*.py")) if p.is_file()}


# --- check (the default) ---------------------------------------------------------------------------------------


def test_check_reports_and_exits_1_without_writing(tree):
    put(tree, "pkg/kernel.py", KERNEL)
    put(tree, "clean.py", CLEAN)
    before = snapshot(tree)
    result = invoke("-j1")
    assert result.exit_code == 1
    assert "TTD006" in codes(result.stdout, "pkg/kernel.py")
    assert not re.search(r"^clean\.py", result.stdout, re.M)
    assert re.search(r"Found \d+ sites? in 1 file: \d+ can be migrated\.", result.stderr)
    assert snapshot(tree) == before


def test_check_clean_tree_exits_0(tree):
    put(tree, "a.py", CLEAN)
    put(tree, "b/c.py", "tl.advance = None  # mentions advance but not the package\n")
    result = invoke()
    assert result.exit_code == 0
    assert result.stdout == ""
    assert result.stderr == "No block pointers found in 2 files.\n"


def test_check_lists_sites_sorted_by_path_line_column(tree):
    put(tree, "b.py", KERNEL)
    put(tree, "a.py", REFUSED)
    found = [(m["path"], int(m["line"]), int(m["col"])) for m in DIAGNOSTIC.finditer(invoke("-j1").stdout)]
    assert found == sorted(found)
    assert {path for path, _, _ in found} == {"a.py", "b.py"}


def test_exit_zero_and_quiet(tree):
    put(tree, "kernel.py", KERNEL)
    result = invoke("--exit-zero", "-q")
    assert result.exit_code == 0
    assert "TTD006" in codes(result.stdout)
    assert result.stderr == ""


def test_parallel_output_matches_serial(tree):
    for i in range(4):
        put(tree, f"k{i}.py", KERNEL + "\n" * i)
    put(tree, "r.py", REFUSED)
    serial, parallel = invoke("-j1", "--diff"), invoke("-j3", "--diff")
    assert serial.exit_code == parallel.exit_code == 1
    assert (serial.stdout, serial.stderr) == (parallel.stdout, parallel.stderr)


@pytest.mark.parametrize("enabled", [True, False])
def test_the_cycle_collector_waits_for_the_end_of_each_file(tree, monkeypatch, enabled):
    """Paused while a file is analysed (its trees made the collector's passes a tenth of a check) and
    back as it was afterwards: a collector that someone embedding us turned off stays off."""
    put(tree, "kernel.py", KERNEL)
    during = []
    migrate = engine.migrate_source

    def spying(*args, **kwargs):
        during.append(gc.isenabled())
        return migrate(*args, **kwargs)

    monkeypatch.setattr(engine, "migrate_source", spying)
    (gc.enable if enabled else gc.disable)()
    try:
        result = invoke("-j1")
        after = gc.isenabled()
    finally:
        gc.enable()
    assert "TTD006" in codes(result.stdout)
    assert during == [False]
    assert after is enabled


# --- diff ------------------------------------------------------------------------------------------------------


def test_diff_shows_patch_and_unmigratable_sites(tree):
    put(tree, "kernel.py", KERNEL)
    refused = put(tree, "refused.py", REFUSED)
    before = snapshot(tree)
    result = invoke("--diff", "-j1")
    assert result.exit_code == 1
    assert "--- a/kernel.py\n+++ b/kernel.py\n@@ " in result.stdout
    assert "-    x = tl.make_block_ptr(x_ptr" in result.stdout
    assert re.search(r"^\+\s+x = x_ptr \+ tl\.cast\(", result.stdout, re.M)  # at the file's own width
    refused_codes = {d.code for d in engine.migrate_source(REFUSED).refused}
    assert refused_codes and set(codes(result.stdout, "refused.py")) == refused_codes
    assert "TTD006" not in codes(result.stdout)  # migrated sites are in the diff, not listed again
    assert snapshot(tree) == before
    assert refused.read_text() == REFUSED


def test_diff_exits_1_when_only_unmigratable_sites_remain(tree):
    put(tree, "refused.py", REFUSED)
    result = invoke("--diff")
    assert result.exit_code == 1
    assert codes(result.stdout, "refused.py")
    assert "cannot be migrated (see above)" in result.stderr


def test_check_and_diff_together_act_as_diff(tree):
    put(tree, "kernel.py", KERNEL)
    assert invoke("--check", "--diff").stdout == invoke("--diff").stdout


# --- write -----------------------------------------------------------------------------------------------------


def test_write_migrates_and_second_write_changes_nothing(tree):
    kernel = put(tree, "kernel.py", KERNEL)
    kernel.chmod(0o750)
    clean = put(tree, "clean.py", CLEAN)
    # Passes the byte prefilter ("advance") but has nothing to migrate: must not be rewritten either.
    noop = put(tree, "noop.py", "import triton\n\n# advance the loop\nx = 1\n")
    untouched = {p: snapshot(tree)[p] for p in (clean, noop)}
    first = invoke("--write")
    assert first.exit_code == 0
    assert first.stdout == ""
    assert re.search(r"Migrated \d+ sites? in 1 file\.", first.stderr)
    assert "make_block_ptr" not in kernel.read_text()
    assert re.search(r"x = x_ptr \+ tl\.cast\(", kernel.read_text())
    assert kernel.stat().st_mode & 0o777 == 0o750
    assert {p: snapshot(tree)[p] for p in (clean, noop)} == untouched  # nothing to change: not even touched
    migrated = snapshot(tree)
    second = invoke("--write")
    assert second.exit_code == 0
    assert snapshot(tree) == migrated
    assert invoke("--check").exit_code == 0


def test_fix_is_an_alias_of_write(tree):
    kernel = put(tree, "kernel.py", KERNEL)
    assert invoke("--fix", "kernel.py").exit_code == 0
    assert "make_block_ptr" not in kernel.read_text()


def test_write_exits_1_and_lists_what_is_left(tree):
    kernel = put(tree, "kernel.py", KERNEL)
    refused = put(tree, "refused.py", REFUSED)
    result = invoke("--write")
    assert result.exit_code == 1
    assert "make_block_ptr" not in kernel.read_text()
    assert codes(result.stdout, "refused.py")
    assert codes(result.stdout, "kernel.py") == []
    assert re.search(r"Migrated \d+ sites? in \d files?; \d+ sites? left \(cannot be migrated\)\.", result.stderr)
    assert "make_block_ptr" in refused.read_text()
    assert invoke("--write", "--exit-zero").exit_code == 0


def test_write_with_diff_shows_what_was_written(tree):
    kernel = put(tree, "kernel.py", KERNEL)
    result = invoke("--write", "--diff")
    assert result.exit_code == 0
    assert "+++ b/kernel.py" in result.stdout
    assert re.search(r"x = x_ptr \+ tl\.cast\(", kernel.read_text())


# --- encodings and line endings ----------------------------------------------------------------------------------


def expected_bytes(data, encoding):
    return engine.migrate_source(data.decode(encoding), layout=CLI_LAYOUT).new_source.encode(encoding)


def test_latin1_cookie_bom_and_crlf_files_keep_their_bytes(tree):
    latin1 = put(tree, "latin1.py", ("# -*- coding: latin-1 -*-\n# caf\u00e9\n" + KERNEL).encode("latin-1"))
    bom = put(tree, "bom.py", b"\xef\xbb\xbf" + ("# \u00e9t\u00e9\n" + KERNEL).encode())
    crlf = put(tree, "crlf.py", KERNEL.replace("\n", "\r\n").encode())
    originals = {p: p.read_bytes() for p in (latin1, bom, crlf)}
    assert invoke("--write").exit_code == 0
    assert latin1.read_bytes() == expected_bytes(originals[latin1], "latin-1")
    assert latin1.read_bytes().startswith(b"# -*- coding: latin-1 -*-\n# caf\xe9\n")
    assert bom.read_bytes() == b"\xef\xbb\xbf" + expected_bytes(originals[bom][3:], "utf-8")
    assert not bom.read_bytes().startswith(b"\xef\xbb\xbf\xef\xbb\xbf")
    new_crlf = crlf.read_bytes()
    assert re.search(rb"x = x_ptr \+ tl\.cast\(", new_crlf)
    assert new_crlf.count(b"\n") == new_crlf.count(b"\r\n")  # no line ending was normalised
    assert new_crlf.startswith(originals[crlf].split(b"\r\n\r\n@triton.jit")[0])  # the imports, untouched
    assert b"    pid_m = tl.program_id(0)\r\n    pid_n = tl.program_id(1)\r\n" in new_crlf  # so is the body's start


def test_mixed_line_endings_survive_where_untouched(tree):
    source = KERNEL.replace("import triton\n", "import triton\r\n", 1).replace(
        "pid_m = tl.program_id(0)\n", "pid_m = tl.program_id(0)\r")
    path = put(tree, "mixed.py", source)
    assert invoke("--write").exit_code == 0
    new = path.read_bytes()
    assert new.startswith(b"import triton\r\nimport triton.language as tl\n")
    assert b"pid_m = tl.program_id(0)\r    pid_n" in new


# --- errors: the file stays byte-identical, the run goes on, exit 2 ---------------------------------------------------


BROKEN = {
    "non_utf8.py": b"# \xff\xfe not utf-8\n" + KERNEL.encode(),
    "syntax.py": b"import triton.language as tl\ndef broken(:\n    tl.make_block_ptr(x)\n",
    "bad_cookie.py": b"# coding: no-such-codec\n" + KERNEL.encode(),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
@pytest.mark.parametrize("mode", ["--check", "--diff", "--write"])
def test_broken_file_is_reported_and_left_alone(tree, name, mode):
    bad = put(tree, name, BROKEN[name])
    good = put(tree, "good.py", KERNEL)
    before = snapshot(tree)[bad]
    result = invoke(mode, "-j1")
    assert result.exit_code == 2
    assert re.search(rf"^{re.escape(name)}: error: \S", result.stderr, re.M)
    assert "Could not process 1 path (see errors above)." in result.stderr
    assert snapshot(tree)[bad] == before
    assert ("make_block_ptr" in good.read_text()) == (mode != "--write")
    assert invoke(mode, "--exit-zero", "-j1").exit_code == 2


def test_a_read_only_file_is_left_alone_and_reported_also_as_root(tree):
    """A user's `chmod 444` is a statement: --write leaves the file as it is, says so and exits 2, whoever runs it
    (root included, whom the OS would let write it: issue 43)."""
    locked = put(tree, "locked.py", KERNEL)
    good = put(tree, "good.py", KERNEL)
    locked.chmod(0o444)
    try:
        result = invoke("--write", "-j1")
        assert locked.read_text() == KERNEL and stat.S_IMODE(locked.stat().st_mode) == 0o444
    finally:
        locked.chmod(0o644)
    assert result.exit_code == 2
    assert "locked.py: error: cannot write: Permission denied (the file is read-only); left unchanged" in result.stderr
    assert "make_block_ptr" not in good.read_text()


def test_unreadable_file(tree):
    locked = put(tree, "locked.py", KERNEL)
    good = put(tree, "good.py", KERNEL)
    locked.chmod(0)
    try:
        readable = os.access(locked, os.R_OK)  # root reads anything, but mode 0 is read-only: it is not written
        result = invoke("--write")
    finally:
        locked.chmod(0o644)
    assert "make_block_ptr" not in good.read_text()
    assert result.exit_code == 2
    assert locked.read_text() == KERNEL
    why = "cannot write: Permission denied (the file is read-only)" if readable else "cannot read: Permission denied"
    assert f"locked.py: error: {why}" in result.stderr


def test_broken_symlink_and_missing_path(tree):
    os.symlink(tree / "gone.py", tree / "dangling.py")
    good = put(tree, "good.py", KERNEL)
    result = invoke("--write", ".", "missing.py")
    assert result.exit_code == 2
    assert "dangling.py: error: cannot read: broken symbolic link" in result.stderr
    assert "missing.py: error: No such file or directory" in result.stderr
    assert "make_block_ptr" not in good.read_text()


def test_engine_crash_is_an_internal_error(tree, monkeypatch):
    real = engine.migrate_source

    def crash_on_marker(source, verify=True, policy=None, rewrite=True, **options):
        if "CRASH" in source:
            raise RecursionError("maximum recursion depth exceeded")
        return real(source)

    monkeypatch.setattr(engine, "migrate_source", crash_on_marker)
    crash = put(tree, "crash.py", "# CRASH\n" + KERNEL)
    good = put(tree, "good.py", KERNEL)
    result = invoke("--write", "-j1")
    assert result.exit_code == 2
    assert "crash.py: error: internal error: RecursionError: maximum recursion depth exceeded" in result.stderr
    assert crash.read_text() == "# CRASH\n" + KERNEL
    assert "make_block_ptr" not in good.read_text()


def test_unparsable_engine_output_is_never_written(tree, monkeypatch):
    def bad_rewrite(source, verify=True, policy=None, rewrite=True, **options):
        return FileOutcome((Diagnostic(8, 9, "TTD001", "rewrite", True),), "def broken(:\n")

    monkeypatch.setattr(engine, "migrate_source", bad_rewrite)
    kernel = put(tree, "kernel.py", KERNEL)
    before = snapshot(tree)
    result = invoke("--write", "-j1")
    assert result.exit_code == 2
    assert "kernel.py: error: internal error: the migrated code does not parse" in result.stderr
    assert snapshot(tree) == before
    assert kernel.read_text() == KERNEL


def test_prefilter_skips_decoding_and_engine(tree, monkeypatch):
    seen = []
    real = engine.migrate_source
    monkeypatch.setattr(engine, "migrate_source", lambda source, verify=True, policy=None, rewrite=True, **options:
                        seen.append(source) or real(source, verify, policy, rewrite, **options))
    put(tree, "binary_junk.py", b"\xff\xfe\x00 no markers here\n")  # would fail to decode if it were decoded
    put(tree, "kernel.py", KERNEL)
    result = invoke("-j1")
    assert result.exit_code == 1
    assert seen == [KERNEL]


# --- discovery through the CLI ---------------------------------------------------------------------------------------


def test_gitignore_exclude_and_default_excludes(tree):
    for name in ["ignored/k.py", "sub/nested_ignored.py", "gen_k.py", ".venv/k.py", "build/k.py", "kept.py"]:
        put(tree, name, KERNEL)
    (tree / ".gitignore").write_text("ignored/\n")
    (tree / "sub" / ".gitignore").write_text("nested_ignored.py\n")
    result = invoke("--exclude", "gen_*.py")
    assert {m["path"] for m in DIAGNOSTIC.finditer(result.stdout)} == {"kept.py"}
    result = invoke("--exclude", "gen_*.py", "--no-respect-gitignore")
    assert {m["path"] for m in DIAGNOSTIC.finditer(result.stdout)} == {"kept.py", "ignored/k.py",
                                                                       "sub/nested_ignored.py"}
    assert "gen_k.py" in {m["path"] for m in DIAGNOSTIC.finditer(invoke("--exclude", "gen_*.py", "gen_k.py").stdout)}


def test_no_python_files(tree):
    result = invoke()
    assert result.exit_code == 0  # as ruff: a warning, not an error
    assert result.stderr == "warning: No Python files found under . (`-v` says which files were skipped and why).\n"


@pytest.mark.parametrize("named", ["vendored", "vendored/", "third_party/vendored"])
def test_a_gitignored_directory_named_on_the_command_line_is_checked(tree, named):
    (tree / ".git").mkdir()
    (tree / ".gitignore").write_text("vendored/\nthird_party/\n*_gen.py\n")
    for directory in ("vendored", "third_party/vendored"):
        put(tree, f"{directory}/k.py", KERNEL)
        put(tree, f"{directory}/k_gen.py", KERNEL)  # ignored for its own name: still skipped
    result = invoke("--check", named)
    assert result.exit_code == 1, result.stderr
    assert {m["path"] for m in DIAGNOSTIC.finditer(result.stdout)} == {f"{named.rstrip('/')}/k.py"}
    assert codes(invoke("--check", ".").stdout) == []  # walked from above, it stays ignored


def test_a_directory_named_on_the_command_line_is_checked_even_if_the_configuration_excludes_it(tree):
    put(tree, "pyproject.toml", '[tool.triton-migrate]\nexclude = ["third_party/", "gen_*.py"]\n')
    put(tree, "third_party/k.py", KERNEL)
    put(tree, "third_party/gen_k.py", KERNEL)
    named = invoke("--output-format", "concise", "third_party")
    assert {m["path"] for m in DIAGNOSTIC.finditer(named.stdout)} == {"third_party/k.py"}
    forced = invoke("--force-exclude", "third_party")
    assert forced.exit_code == 0 and forced.stdout == ""
    assert forced.stderr.startswith("warning: No Python files found under third_party ")


# --- stdin -----------------------------------------------------------------------------------------------------------


def test_stdin_write_prints_migrated_code(tree):
    result = invoke("--write", "-", stdin=KERNEL)
    assert result.exit_code == 0
    assert result.stdout == engine.migrate_source(KERNEL, layout=CLI_LAYOUT).new_source
    assert list(tree.iterdir()) == []


def test_stdin_check_uses_stdin_filename(tree):
    result = invoke("--stdin-filename", "kernels/copy.py", "-", stdin=KERNEL)
    assert result.exit_code == 1
    assert "TTD006" in codes(result.stdout, "kernels/copy.py")


def test_stdin_filename_alone_reads_stdin(tree):
    result = invoke("--stdin-filename", "k.py", stdin=REFUSED)
    assert result.exit_code == 1
    assert codes(result.stdout, "k.py")


def test_stdin_write_keeps_the_input_on_error(tree):
    source = "import triton.language as tl\ndef broken(:\n    tl.make_block_ptr(x)\n"
    result = invoke("--write", "--stdin-filename", "b.py", "-", stdin=source)
    assert result.exit_code == 2
    assert result.stdout == source
    assert "b.py: error: " in result.stderr


def test_stdin_write_sends_leftover_sites_to_stderr(tree):
    result = invoke("--write", "-", stdin=REFUSED)
    assert result.exit_code == 1
    assert result.stdout == REFUSED
    assert codes(result.stderr, "-")


def test_stdin_diff(tree):
    result = invoke("--diff", "--stdin-filename", "k.py", "-", stdin=KERNEL)
    assert result.exit_code == 1
    assert "--- a/k.py\n+++ b/k.py\n" in result.stdout


# --- usage -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("args", [["--check", "--write"], ["-", "a.py"], ["--write", "--diff", "-"], ["--jobs", "0"],
                                  ["--bogus"]])
def test_usage_errors_exit_2(tree, args):
    assert invoke(*args).exit_code == 2


@pytest.mark.parametrize("module", ["triton_migrate", "triton_migrate.cli"])
def test_module_entry_point_and_version(tree, module):
    put(tree, "kernel.py", KERNEL)
    run = [sys.executable, "-m", module]
    version = subprocess.run([*run, "--version"], capture_output=True, text=True, check=True)
    assert "0.1.0" in version.stdout
    check = subprocess.run([*run, "-j2", "."], capture_output=True, text=True)
    assert check.returncode == 1
    assert "TTD006" in codes(check.stdout, "kernel.py")
    probe = ("import sys, triton_migrate.cli; "
             "print(sorted(m for m in sys.modules if m.split('.')[0] in ('triton', 'torch')))")
    imported = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert imported.stdout == "[]\n"


def test_a_tree_without_block_pointers_never_imports_libcst(tree):
    # libcst's import alone costs as much as reading 600 files: an ordinary tree must be checked without it.
    put(tree, "plain.py", "import json\n\nprint(json.dumps({}))\n")
    put(tree, "host.py", "import triton\n\nGRID = (1,)\n")  # mentions triton, has no block pointer
    probe = ("import sys\nfrom triton_migrate.cli import main\ntry:\n    main(['--no-cache', '.'])\n"
             "except SystemExit as end:\n    print(end.code, 'libcst' in sys.modules)")
    clean = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert clean.stdout.split()[-2:] == ["0", "False"]
    put(tree, "kernel.py", KERNEL)
    sites = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert sites.stdout.split()[-2:] == ["1", "True"]


def test_rule_codes_are_known_without_importing_the_rules():
    from triton_migrate.rules import CODES, RULES

    assert list(CODES) == list(RULES) == [rule.CODE for rule in RULES.values()]
    # `explain` loads the rules itself, in a process where nothing has asked for RULES yet
    probe = "from triton_migrate.rules import explain; print(explain('ttd101').split()[0])"
    fresh = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert fresh.stdout == "TTD101\n", fresh.stderr


def test_list_rules_names_every_registered_rule():
    from triton_migrate.rules import RULES

    result = CliRunner().invoke(main, ["--list-rules"])
    assert result.exit_code == 0
    listed = [line.split()[0] for line in result.output.splitlines()]
    assert listed == list(RULES)


def test_explain_prints_the_rule_documentation_and_rejects_unknown_codes():
    result = CliRunner().invoke(main, ["--explain", "ttd101"])
    assert result.exit_code == 0
    assert result.output.startswith("TTD101 unchecked-dimension")
    unknown = CliRunner().invoke(main, ["--explain", "TTD999"])
    assert unknown.exit_code == 2 and "unknown rule" in unknown.output


# --- the command group: `migrate ARGS` is `migrate check ARGS`; `report` and `verify` are subcommands -----------------


def test_default_command_is_check(tree):
    put(tree, "kernel.py", KERNEL)
    implicit, explicit = invoke("--diff", "kernel.py"), invoke("check", "--diff", "kernel.py")
    assert implicit.exit_code == explicit.exit_code == 1
    assert (implicit.stdout, implicit.stderr) == (explicit.stdout, explicit.stderr)
    assert "+++ b/kernel.py" in implicit.stdout


def test_help_lists_the_options_and_the_subcommands():
    result = invoke("--help")
    assert result.exit_code == 0
    assert "--write, --fix" in result.stdout and "--output-format" in result.stdout
    assert re.search(r"^\s+report\s+\S", result.stdout, re.M) and re.search(r"^\s+verify\s+\S", result.stdout, re.M)
    assert "--output-file" in invoke("report", "--help").stdout


def test_verify_says_clearly_when_it_is_not_installed(monkeypatch):
    monkeypatch.setitem(sys.modules, "triton_migrate.verify", None)  # makes `import` raise ImportError
    result = invoke("verify", "anything", "--flag")
    assert result.exit_code == 2
    assert "migrate verify is not available in this installation (ModuleNotFoundError" in result.stderr


def test_verify_is_the_verify_package_command():
    verify = pytest.importorskip("triton_migrate.verify")
    assert main.get_command(None, "verify") is verify.command
