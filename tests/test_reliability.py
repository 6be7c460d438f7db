"""Issue 9, through the real command line: hostile inputs, determinism, idempotence, concurrent runs.

Every hostile file contains `triton` and a block-pointer call, so that it passes the byte prefilter and
reaches the decoder and the engine. Each run also holds a good kernel: it must still be migrated. For a
problem file the contract is a `PATH: error: ...` line, exit status 2 and not one byte changed.
"""

from __future__ import annotations

import os
import random
import re
import stat
import subprocess
import sys
import tempfile

import pytest
from click.testing import CliRunner

from triton_migrate import engine
from triton_migrate.cli import main
from triton_migrate.frontend.fileio import decode, encode

CLI = [sys.executable, "-m", "triton_migrate.cli"]
DIAGNOSTIC = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<code>[A-Z]+\d{3}) ", re.M)
OLD_MTIME_NS = 1_000_000_000 * 10**9  # back-dated, so that an unwanted rewrite shows in st_mtime_ns


def kernel(i: int = 0) -> str:
    """A small kernel that migrates completely; `i` makes each variant's text (and migration) distinct."""
    return f'''import triton
import triton.language as tl


@triton.jit
def scale_{i}(x_ptr, y_ptr, M, N, stride_m, BM: tl.constexpr, BN: tl.constexpr):
    pid = tl.program_id(0)
    x = tl.make_block_ptr(x_ptr, (M, N), (stride_m, 1), (pid * BM, 0), (BM, BN), (1, 0))
    y = tl.make_block_ptr(y_ptr, (M, N), (stride_m, 1), (pid * BM, 0), (BM, BN), (1, 0))
    for k in range(0, N, BN):
        tl.store(y, tl.load(x, boundary_check=(0, 1)) * {i + 2}, boundary_check=(0, 1))
        x = tl.advance(x, (0, BN))
        y = tl.advance(y, (0, BN))
'''


# A block pointer handed to a helper that is also used as a value: refused, whatever the policy.
REFUSED = '''import triton
import triton.language as tl


@triton.jit
def helper(p):
    return tl.load(p, boundary_check=(0,))


@triton.jit
def caller(x_ptr, N, BN: tl.constexpr):
    x = tl.make_block_ptr(x_ptr, (N,), (1,), (0,), (BN,), (0,))
    y = helper(x)


LOADERS = {"plain": helper}
'''

KERNEL = kernel()


def migrated(data: bytes) -> bytes:
    """What a correct --write leaves in a file that held `data`."""
    decoded = decode(data)
    new = engine.migrate_source(decoded.text).new_source
    return data if new is None else encode(new, decoded.encoding)


def invoke(*args: str):
    try:  # click < 8.2 mixes stderr into stdout unless told not to
        runner = CliRunner(mix_stderr=False)
    except TypeError:
        runner = CliRunner()
    return runner.invoke(main, list(args), catch_exceptions=False)


def put(path, data: bytes | str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    os.utime(path, ns=(OLD_MTIME_NS, OLD_MTIME_NS))
    return path


def snapshot(root) -> dict:
    """Bytes and mtime of every regular file under root (symlinks not followed)."""
    found = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            info = os.lstat(path)
            if stat.S_ISREG(info.st_mode):
                with open(path, "rb") as handle:
                    found[os.path.relpath(path, root)] = (handle.read(), info.st_mtime_ns)
    return found


def errors_in(stderr: str) -> dict[str, str]:
    return {m[1]: m[2] for m in re.finditer(r"^(.+?): error: (.*)$", stderr, re.M)}


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- hostile file contents -------------------------------------------------------------------------------------------

K = KERNEL.encode()
# Random bytes are seeded: the case is the same on every run.
BINARY = bytes(random.Random(9).randrange(256) for _ in range(4096)) + b"\ntriton tl.make_block_ptr(\n"

# name -> (bytes, what must happen): "error" (reported, untouched), "migrated" (exactly as the engine
# migrates the decoded text, re-encoded), "untouched" (nothing to do, not rewritten).
HOSTILE = {
    "syntax_error.py": (b"import triton.language as tl\ndef broken(:\n    tl.make_block_ptr(x)\n", "error"),
    "python2.py": (b"import triton\nprint 'hello'\nexec 'x = 1'\n" + K, "error"),
    "latin1_undeclared.py": (b"# caf\xe9\n" + K, "error"),
    "latin1_declared.py": (b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + K, "migrated"),
    "cp1252_vim_cookie.py": (b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\n# \x80\x93\n" + K, "migrated"),
    "unknown_codec.py": (b"# coding: no-such-codec\n" + K, "error"),
    "bom.py": (b"\xef\xbb\xbf# \xc3\xa9t\xc3\xa9\n" + K, "migrated"),
    "bom_with_latin1_cookie.py": (b"\xef\xbb\xbf# coding: latin-1\n" + K, "error"),
    # Python cannot run UTF-16 source, and its bytes hold no ASCII "triton": the prefilter passes over it.
    "utf16.py": (b"\xff\xfe" + KERNEL.encode("utf-16-le"), "untouched"),
    "crlf.py": (KERNEL.replace("\n", "\r\n").encode(), "migrated"),
    "cr_only.py": (KERNEL.replace("\n", "\r").encode(), "migrated"),
    "mixed_endings.py": (KERNEL.replace("\n", "\r\n", 3).replace("pid = tl.program_id(0)\n",
                                                                 "pid = tl.program_id(0)\r").encode(), "migrated"),
    "tabs.py": (KERNEL.replace("    ", "\t").encode(), "migrated"),
    "tabs_and_spaces_inconsistent.py": (KERNEL.replace("    pid =", "\tpid =").encode(), "error"),
    "form_feed.py": (b"\x0c\n" + K.replace(b"\n\n@triton", b"\n\x0c\n@triton"), "migrated"),
    "no_final_newline.py": (K.rstrip(b"\n"), "migrated"),
    "very_long_line.py": (K + b"BLOB = '" + b"x" * 2_000_000 + b"'\n", "migrated"),
    # 50k lines in one string: 50k statements take the engine ~20 s (timed by tests/fuzz_campaign.py).
    "fifty_thousand_lines.py": (K + b'DOC = """\n' + b"a line of text\n" * 50_000 + b'"""\n', "migrated"),
    "deeply_nested_expression.py": (K + b"x = " + b" + ".join([b"1"] * 20_000) + b"\n", "error"),
    "nul_byte.py": (b"import triton\x00\n" + K, "error"),
    "binary.py": (BINARY, "error"),
    "empty.py": (b"", "untouched"),
    "markers_but_no_sites.py": (b"import triton\n# tl.advance( is mentioned, boundary_check= too\n", "untouched"),
    "bidi_and_emoji.py": (K + "s = '\u202e\U0001f600'  # \u202e trojan source\n".encode(), "migrated"),
}

# What the user is told about each file that cannot be processed.
MESSAGES = {
    "syntax_error.py": "cannot parse", "python2.py": "cannot parse", "tabs_and_spaces_inconsistent.py": "cannot parse",
    "nul_byte.py": "cannot parse", "latin1_undeclared.py": "cannot decode as utf-8: invalid byte 0xe9 on line 1",
    "unknown_codec.py": "cannot decode: unknown encoding",
    "bom_with_latin1_cookie.py": "cannot decode: encoding problem",
    "binary.py": "cannot decode as utf-8: invalid byte", "deeply_nested_expression.py": "(?i)recursion|nest",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file(tree, name):
    data, expected = HOSTILE[name]
    put(tree / name, data)
    good = put(tree / "good.py", KERNEL)
    result = invoke("--write", "-j1", ".")
    errors = errors_in(result.stderr)
    assert good.read_bytes() == migrated(KERNEL.encode())
    if expected == "error":
        assert result.exit_code == 2, result.stderr
        assert list(errors) == [name], result.stderr
        assert re.search(MESSAGES[name], errors[name]), errors[name]
        assert snapshot(tree)[name] == (data, OLD_MTIME_NS)
    else:
        assert result.exit_code == 0, result.stderr
        assert errors == {}
        assert (tree / name).read_bytes() == (migrated(data) if expected == "migrated" else data)
        if expected == "untouched":
            assert snapshot(tree)[name] == (data, OLD_MTIME_NS)


def test_migrated_hostile_files_keep_their_peculiarities(tree):
    """The encoding, BOM, line endings and the bytes far from any site survive the rewrite exactly."""
    names = ["latin1_declared.py", "bom.py", "crlf.py", "cr_only.py", "tabs.py", "very_long_line.py"]
    for name in names:
        put(tree / name, HOSTILE[name][0])
    assert invoke("--write", "-j2", ".").exit_code == 0
    after = {name: (tree / name).read_bytes() for name in names}
    assert after["latin1_declared.py"].startswith(b"# -*- coding: latin-1 -*-\n# caf\xe9\n")
    assert after["bom.py"].startswith(b"\xef\xbb\xbf# \xc3\xa9t\xc3\xa9\n")
    assert after["bom.py"].count(b"\xef\xbb\xbf") == 1
    assert after["crlf.py"].count(b"\n") == after["crlf.py"].count(b"\r\n")
    assert b"\n" not in after["cr_only.py"]
    assert b"\n    " not in after["tabs.py"] and b"make_block_ptr" not in after["tabs.py"]
    assert after["very_long_line.py"].endswith(b"BLOB = '" + b"x" * 2_000_000 + b"'\n")


def test_all_hostile_files_at_once_in_parallel(tree):
    for name, (data, _) in HOSTILE.items():
        put(tree / "hostile" / name, data)
    goods = [put(tree / f"good{i}.py", kernel(i)) for i in range(4)]
    result = invoke("--write", "-j2", ".")
    assert result.exit_code == 2
    wanted = {f"hostile/{name}" for name, (_, expected) in HOSTILE.items() if expected == "error"}
    assert set(errors_in(result.stderr)) == wanted
    assert f"Could not process {len(wanted)} paths" in result.stderr
    after = snapshot(tree)
    for name, (data, expected) in HOSTILE.items():
        assert after[f"hostile/{name}"][0] == (migrated(data) if expected == "migrated" else data), name
    assert [g.read_bytes() for g in goods] == [migrated(kernel(i).encode()) for i in range(4)]


# --- hostile paths ---------------------------------------------------------------------------------------------------


def test_symlinks(tree):
    real = put(tree / "real" / "kernel.py", KERNEL)
    (tree / "link.py").symlink_to(real)
    (tree / "broken.py").symlink_to(tree / "gone.py")
    (tree / "loop_a.py").symlink_to(tree / "loop_b.py")
    (tree / "loop_b.py").symlink_to(tree / "loop_a.py")
    (tree / "real" / "up").symlink_to(tree)  # a directory cycle: must not be followed
    result = invoke("--write", "-j1", ".")
    assert result.exit_code == 2
    errors = errors_in(result.stderr)
    assert errors == {"broken.py": "cannot read: broken symbolic link",
                      "loop_a.py": "cannot read: Too many levels of symbolic links",
                      "loop_b.py": "cannot read: Too many levels of symbolic links"}
    assert (tree / "link.py").is_symlink() and os.readlink(tree / "link.py") == str(real)
    assert real.read_bytes() == migrated(KERNEL.encode())


def run_cli(args, cwd, timeout=300):
    """The CLI in a subprocess: nothing in it can hang the test run."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([*CLI, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)


def test_special_files_are_reported_without_hanging(tree):
    os.mkfifo(tree / "pipe.py")
    (tree / "zero.py").symlink_to("/dev/zero")
    put(tree / "dir.py" / "inner.py", KERNEL)  # a directory named like a module is walked
    good = put(tree / "good.py", KERNEL)
    result = run_cli(["--write", "-j1", "."], tree)
    assert result.returncode == 2
    assert errors_in(result.stderr) == {"pipe.py": "cannot read: not a regular file (a FIFO, socket or device)",
                                        "zero.py": "cannot read: not a regular file (a FIFO, socket or device)"}
    assert good.read_bytes() == (tree / "dir.py" / "inner.py").read_bytes() == migrated(KERNEL.encode())
    # Named explicitly, a FIFO is reported just the same.
    assert "pipe.py: error: cannot read: not a regular file" in run_cli(["pipe.py"], tree).stderr


def test_spaces_non_ascii_and_undecodable_file_names(tree):
    names = [b"with space/k ernel.py", "\u00e9t\u00e9/\u6838.py".encode(), b"bytes_\xff\xfe.py"]
    for name in names:
        put(tree / os.fsdecode(name), KERNEL)
    result = run_cli(["--write", "-j2", "."], tree)
    assert result.returncode == 0, result.stderr
    assert [(tree / os.fsdecode(n)).read_bytes() for n in names] == [migrated(KERNEL.encode())] * 3
    check = run_cli(["--check", "--output-format", "concise", "."], tree)
    assert check.returncode == 0 and check.stdout == ""


@pytest.fixture
def shared_tree():
    """A directory an unprivileged user can enter and write (pytest's own tmp_path is private to root)."""
    directory = tempfile.mkdtemp(prefix="triton-migrate-")
    os.chmod(directory, 0o777)
    yield directory
    subprocess.run(["rm", "-rf", directory], check=True)


def _as_user(user, args, cwd, results):
    if user is not None:
        os.setgid(user)
        os.setuid(user)
    os.chdir(cwd)
    result = invoke(*args)
    results.put((result.exit_code, result.stderr))


def invoke_as(user, args, cwd):
    """The CLI in a forked child that first drops root for `user`. Forked, not exec'd: `nobody` may not be
    allowed to run the interpreter where it is installed, but can keep running the one already loaded
    (the parent has run the same command once, so that nothing is left to import)."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    results = context.Queue()
    child = context.Process(target=_as_user, args=(user, args, cwd, results))
    child.start()
    outcome = results.get(timeout=300)
    child.join()
    return outcome


def test_unreadable_and_read_only_files_for_an_unprivileged_user(shared_tree, tmp_path):
    """As root the OS grants every read and write, so the run is made as `nobody`, as a real user's would."""
    user = 65534 if os.geteuid() == 0 else None
    paths = {name: os.path.join(shared_tree, name) for name in ("unreadable.py", "read_only.py", "good.py")}
    for name, path in paths.items():
        put(tmp_path / name, KERNEL)
        with open(path, "w") as handle:
            handle.write(KERNEL)
        if user is not None:
            os.chown(path, user, user)
    invoke("--write", "-j1", str(tmp_path))  # warm-up in this process: imports everything the run needs
    os.chmod(paths["unreadable.py"], 0)
    os.chmod(paths["read_only.py"], 0o444)  # its directory is writable: a rename would succeed, it must not happen
    exit_code, stderr = invoke_as(user, ["--write", "-j1", "."], shared_tree)
    assert exit_code == 2, stderr
    assert errors_in(stderr) == {"read_only.py": "cannot write: Permission denied (the file is read-only); "
                                                 "left unchanged",
                                 "unreadable.py": "cannot read: Permission denied"}
    os.chmod(paths["unreadable.py"], 0o644)
    assert [open(paths[n]).read() for n in ("unreadable.py", "read_only.py")] == [KERNEL, KERNEL]
    assert stat.S_IMODE(os.stat(paths["read_only.py"]).st_mode) == 0o444
    assert open(paths["good.py"], "rb").read() == migrated(KERNEL.encode())
    assert sorted(os.listdir(shared_tree)) == ["good.py", "read_only.py", "unreadable.py"]


def test_a_directory_with_thousands_of_files(tree):
    for i in range(3000):
        put(tree / f"pkg{i % 10}" / f"mod{i:04d}.py", f"import triton\n\n\ndef f{i}(x):\n    return x + {i}\n")
    kernels = [put(tree / f"pkg{i}" / "kernel.py", kernel(i)) for i in range(10)]
    broken = put(tree / "pkg3" / "broken.py", HOSTILE["syntax_error.py"][0])
    before = snapshot(tree)
    result = invoke("--write", "-j2", ".")
    assert result.exit_code == 2
    assert list(errors_in(result.stderr)) == ["pkg3/broken.py"]
    assert [k.read_bytes() for k in kernels] == [migrated(kernel(i).encode()) for i in range(10)]
    after = snapshot(tree)
    changed = {name for name in before if after[name] != before[name]}
    assert changed == {f"pkg{i}/kernel.py" for i in range(10)}
    assert set(after) == set(before) and broken.read_bytes() == HOSTILE["syntax_error.py"][0]


# --- files that change under the run ----------------------------------------------------------------------------------


def during_analysis(monkeypatch, action):
    """Run `action` once, from inside the engine, while the first file is being analysed (-j1)."""
    real = engine.migrate_source
    pending = [action]

    def hooked(source, *args, **kwargs):
        while pending:
            pending.pop()()
        return real(source, *args, **kwargs)

    monkeypatch.setattr(engine, "migrate_source", hooked)


def test_file_deleted_during_the_run_is_reported_and_not_recreated(tree, monkeypatch):
    first, victim = put(tree / "a.py", kernel(1)), put(tree / "b.py", kernel(2))
    during_analysis(monkeypatch, victim.unlink)
    result = invoke("--write", "-j1", ".")
    assert result.exit_code == 2
    assert errors_in(result.stderr) == {"b.py": "cannot write: the file was deleted during the run; not recreated"}
    assert not victim.exists()
    assert first.read_bytes() == migrated(kernel(1).encode())
    assert sorted(os.listdir(tree)) == ["a.py"]


def test_directory_removed_during_the_run(tree, monkeypatch):
    first = put(tree / "a.py", kernel(1))
    put(tree / "sub" / "b.py", kernel(2))
    during_analysis(monkeypatch, lambda: subprocess.run(["rm", "-rf", str(tree / "sub")], check=True))
    result = invoke("--write", "-j1", ".")
    assert result.exit_code == 2
    assert list(errors_in(result.stderr)) == ["sub/b.py"]
    assert not (tree / "sub").exists()
    assert first.read_bytes() == migrated(kernel(1).encode())


# --- determinism and idempotence --------------------------------------------------------------------------------------


def mixed_tree(root, order):
    files = {f"k{i}.py": kernel(i) for i in range(5)}
    files.update({"refused.py": REFUSED, "sub/both.py": kernel(7) + REFUSED.split("\n", 2)[2],
                  "broken.py": HOSTILE["python2.py"][0], "clean.py": "import triton\n"})
    for name in sorted(files, reverse=order == "reversed"):
        put(root / name, files[name])
    return files


def test_same_output_for_any_job_count_file_order_and_repetition(tmp_path, monkeypatch):
    names = sorted(mixed_tree(tmp_path / "sorted", "sorted"))
    mixed_tree(tmp_path / "reversed", "reversed")  # the directories list their entries in another order
    runs = [("sorted", ["-j1", "."]), ("sorted", ["-j2", "."]), ("sorted", ["-j3", *reversed(names)]),
            ("sorted", ["-j1", *names[3:], *names[:3]]), ("reversed", ["-j2", "."]), ("reversed", ["-j1", "."])]
    outputs = set()
    for root, args in runs:
        monkeypatch.chdir(tmp_path / root)
        result = invoke("--diff", *args)
        outputs.add((result.exit_code, result.stdout, result.stderr))
    assert len(outputs) == 1
    (exit_code, stdout, stderr), = outputs
    assert exit_code == 2 and "+++ b/k4.py" in stdout and "broken.py: error:" in stderr


def test_write_twice_is_a_no_op_and_check_then_reports_only_refusals(tree):
    mixed_tree(tree, "sorted")
    first = invoke("--write", "-j2", ".")
    assert first.exit_code == 2  # broken.py
    written = snapshot(tree)
    second = invoke("--write", "-j2", ".")
    assert second.exit_code == first.exit_code
    assert snapshot(tree) == written  # not one byte, not one mtime
    check = invoke("--check", "-j2", ".")
    assert check.exit_code == 2
    listed = [(m["path"], m["code"]) for m in DIAGNOSTIC.finditer(check.stdout)]
    refused = [(name, d.code) for name in ("refused.py", "sub/both.py")
               for d in engine.migrate_source((tree / name).read_text()).diagnostics]
    assert listed and sorted(listed) == sorted(refused)
    assert all(not d.fixed for name, _ in listed for d in engine.migrate_source((tree / name).read_text()).diagnostics)


# --- concurrent runs --------------------------------------------------------------------------------------------------


def test_two_write_runs_at_once_on_the_same_tree(tmp_path):
    originals = {f"k{i:02d}.py": kernel(i) for i in range(12)}
    expected = {name: migrated(text.encode()) for name, text in originals.items()}
    for _ in range(2):
        for name, text in originals.items():
            put(tmp_path / name, text)
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        runs = [subprocess.Popen([*CLI, "--write", "-j1", "."], cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for _ in range(2)]
        outcomes = [(run.wait(timeout=300), run.stderr.read()) for run in runs]
        for run in runs:
            run.stdout.close()
            run.stderr.close()
        assert [code for code, _ in outcomes] == [0, 0], outcomes
        assert {name: (tmp_path / name).read_bytes() for name in originals} == expected
        assert sorted(os.listdir(tmp_path)) == sorted(originals)  # no temporary file left
