"""Reading, decoding, re-encoding and atomic writing keep every byte we do not mean to change."""

import os
import stat
import tempfile

import pytest

from triton_migrate.frontend import fileio
from triton_migrate.frontend.fileio import FileError, atomic_write, check_parses, decode, encode, read_bytes


@pytest.mark.parametrize(
    "data",
    [
        b"x = 1\r\ny = 2\r\n",
        b"x = 1\ry = 2\r",
        b"x = 1\r\ny = 2\nz = 3\r",
        b"x = 1",  # no final newline
        b"\xef\xbb\xbfx = '\xc3\xa9'\n",  # BOM
        b"# -*- coding: latin-1 -*-\nx = '\xe9'\n",
        b"#!/usr/bin/env python\n# vim: set fileencoding=cp1252 :\nx = '\x80'\n",
    ],
)
def test_decode_encode_round_trips_every_byte(data):
    decoded = decode(data)
    assert encode(decoded.text, decoded.encoding) == data


def test_line_endings_are_not_translated():
    assert decode(b"a\r\nb\rc\n").text == "a\r\nb\rc\n"


def test_bom_is_reported_and_not_part_of_the_text():
    decoded = decode(b"\xef\xbb\xbfx = 1\n")
    assert decoded.encoding == "utf-8-sig"
    assert decoded.text == "x = 1\n"
    assert encode("y = 2\n", decoded.encoding) == b"\xef\xbb\xbfy = 2\n"


def test_cookie_is_honoured():
    decoded = decode(b"# coding: latin-1\ns = '\xe9'\n")
    assert decoded.text == "# coding: latin-1\ns = '\u00e9'\n"
    assert encode(decoded.text + "t = '\u00e8'\n", decoded.encoding).endswith(b"t = '\xe8'\n")


def test_invalid_utf8_names_the_line():
    with pytest.raises(FileError, match=r"cannot decode as utf-8: invalid byte 0xff on line 2"):
        decode(b"x = 1\n# \xff\n")


def test_unknown_cookie_is_an_error():
    with pytest.raises(FileError, match="cannot decode"):
        decode(b"# coding: no-such-codec\nx = 1\n")


def test_encode_failure_is_an_error():
    with pytest.raises(FileError, match="cannot be encoded as iso-8859-1"):
        encode("x = '\u4e2d'\n", "iso-8859-1")


def test_read_bytes_errors(tmp_path):
    (tmp_path / "pkg.py").mkdir()
    with pytest.raises(FileError, match="cannot read: Is a directory"):
        read_bytes(str(tmp_path / "pkg.py"))
    os.symlink(tmp_path / "missing.py", tmp_path / "dangling.py")
    with pytest.raises(FileError, match="broken symbolic link"):
        read_bytes(str(tmp_path / "dangling.py"))
    with pytest.raises(FileError, match="No such file"):
        read_bytes(str(tmp_path / "missing.py"))


def test_read_bytes_unreadable(tmp_path):
    path = tmp_path / "secret.py"
    path.write_bytes(b"x = 1\n")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):  # root reads anything: then the read must simply succeed
            assert read_bytes(str(path)) == b"x = 1\n"
        else:
            with pytest.raises(FileError, match="Permission denied"):
                read_bytes(str(path))
    finally:
        path.chmod(0o644)


def test_atomic_write_keeps_mode_and_leaves_no_temp_file(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"old\n")
    path.chmod(0o751)
    atomic_write(str(path), b"new\r\n")
    assert path.read_bytes() == b"new\r\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o751
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"]


def test_atomic_write_through_a_symlink_keeps_the_link(tmp_path):
    real = tmp_path / "real.py"
    real.write_bytes(b"old\n")
    link = tmp_path / "link.py"
    link.symlink_to(real)
    atomic_write(str(link), b"new\n")
    assert link.is_symlink()
    assert real.read_bytes() == b"new\n"


def test_atomic_write_failure_leaves_the_file_alone(tmp_path, monkeypatch):
    path = tmp_path / "k.py"
    path.write_bytes(b"old\n")

    def refuse(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(FileError, match="cannot write: No space left on device"):
        atomic_write(str(path), b"new\n")
    assert path.read_bytes() == b"old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.py"]


def test_check_parses():
    check_parses("k.py", b"x = 1\n", b"x = 2\n")
    with pytest.raises(FileError, match="does not parse"):
        check_parses("k.py", b"x = 1\n", b"x = (\n")
    # Already unparsable for this interpreter (e.g. newer syntax): not the migration's fault.
    check_parses("k.py", b"x = (\n", b"x = ((\n")


def test_check_parses_uses_the_files_encoding():
    old = b"# coding: latin-1\nx = '\xe9'\n"
    check_parses("k.py", old, old + b"y = '\xe8'\n")


# --- reading what is not a regular file ------------------------------------------------------------------------


def test_read_bytes_refuses_a_fifo_without_waiting_for_a_writer(tmp_path):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    with pytest.raises(FileError, match="not a regular file"):
        read_bytes(str(fifo))  # a plain open() would block here forever


def test_read_bytes_refuses_a_device_behind_a_symlink(tmp_path):
    (tmp_path / "zero.py").symlink_to("/dev/zero")  # read() would never end
    with pytest.raises(FileError, match="not a regular file"):
        read_bytes(str(tmp_path / "zero.py"))


def test_read_bytes_names_a_symlink_loop(tmp_path):
    (tmp_path / "a.py").symlink_to(tmp_path / "b.py")
    (tmp_path / "b.py").symlink_to(tmp_path / "a.py")
    with pytest.raises(FileError, match="Too many levels of symbolic links"):
        read_bytes(str(tmp_path / "a.py"))


# --- compare-and-replace ------------------------------------------------------------------------------------------


def temporaries(directory):
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_expected_bytes_still_there_the_file_is_replaced(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"old\n")
    atomic_write(str(path), b"new\n", expected=b"old\n")
    assert path.read_bytes() == b"new\n"


def test_file_changed_since_it_was_read_is_left_alone(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"edited by the user\n")
    with pytest.raises(FileError, match="changed on disk during the run; left as it is"):
        atomic_write(str(path), b"new\n", expected=b"old\n")
    assert path.read_bytes() == b"edited by the user\n"
    assert temporaries(tmp_path) == []


def test_file_that_already_holds_the_new_bytes_is_not_touched(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"new\n")
    os.utime(path, ns=(1, 1))
    atomic_write(str(path), b"new\n", expected=b"old\n")  # another run got there first
    assert path.read_bytes() == b"new\n"
    assert path.stat().st_mtime_ns == 1


def test_deleted_file_is_not_recreated(tmp_path):
    path = tmp_path / "k.py"
    for expected in (None, b"old\n"):
        with pytest.raises(FileError, match="deleted during the run; not recreated"):
            atomic_write(str(path), b"new\n", expected=expected)
        assert not path.exists()
    assert temporaries(tmp_path) == []


def _contend(path, barrier, results, index):
    """One of several processes that read the file, then all try to replace it at once."""
    old = read_bytes(path)
    barrier.wait()
    try:
        atomic_write(path, old + f"writer {index}\n".encode(), expected=old)
        results[index] = 1
    except FileError:
        results[index] = 0


def test_concurrent_writers_never_lose_an_update(tmp_path, monkeypatch):
    import multiprocessing

    # The lock is waited for as long as it takes (the forked writers inherit this): after LOCK_WAIT_S, a
    # writer on a machine too busy to pass the lock round in time would go on without it.
    monkeypatch.setattr(fileio, "LOCK_WAIT_S", float("inf"))
    context = multiprocessing.get_context("fork")
    path = tmp_path / "k.py"
    path.write_bytes(b"base\n")
    writers = 6
    for _ in range(5):
        before = path.read_bytes()
        barrier, results = context.Barrier(writers), context.Array("i", writers)
        processes = [context.Process(target=_contend, args=(str(path), barrier, results, i)) for i in range(writers)]
        for process in processes:
            process.start()
        for process in processes:
            process.join()
        winners = [i for i in range(writers) if results[i]]
        # Everyone read `before`: the first replace wins, every later one sees the change and backs off.
        assert len(winners) == 1, winners
        assert path.read_bytes() == before + f"writer {winners[0]}\n".encode()
    assert temporaries(tmp_path) == []


# --- permissions, temporaries ---------------------------------------------------------------------------------------


def test_a_file_the_user_may_not_write_is_refused(tmp_path, monkeypatch):
    path = tmp_path / "k.py"
    path.write_bytes(b"old\n")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: mode != os.W_OK and real_access(p, mode, **kw))
    with pytest.raises(FileError, match=r"Permission denied \(the file is read-only\); left unchanged"):
        atomic_write(str(path), b"new\n")
    assert path.read_bytes() == b"old\n"
    assert temporaries(tmp_path) == []


def test_a_read_only_file_is_refused_also_to_root(tmp_path):
    """`chmod 444` says the file stays as it is: refused to root too, whom the OS would let write it (issue 43)."""
    path = tmp_path / "k.py"
    path.write_bytes(b"old\n")
    path.chmod(0o444)
    with pytest.raises(FileError, match=r"Permission denied \(the file is read-only\); left unchanged"):
        atomic_write(str(path), b"new\n", expected=b"old\n")
    assert path.read_bytes() == b"old\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o444
    assert temporaries(tmp_path) == []


def test_temporary_left_by_a_killed_run_is_removed_by_the_next_write(tmp_path):
    path = tmp_path / "k.py"
    path.write_bytes(b"old\n")
    stale = tmp_path / ".k.py.triton-migrate-abc123.tmp"
    stale.write_bytes(b"half a fi")
    unrelated = [tmp_path / ".other.py.triton-migrate-abc123.tmp", tmp_path / "k.py.tmp"]
    for other in unrelated:
        other.write_bytes(b"not ours to remove\n")
    atomic_write(str(path), b"new\n")
    assert not stale.exists()
    assert all(other.read_bytes() == b"not ours to remove\n" for other in unrelated)


def test_temporary_names_are_never_python_files(tmp_path, monkeypatch):
    made = []
    real_mkstemp = tempfile.mkstemp

    def spy(**kwargs):
        fd, name = real_mkstemp(**kwargs)
        made.append(name)
        return fd, name

    monkeypatch.setattr(tempfile, "mkstemp", spy)
    path = tmp_path / "k.py"
    path.write_bytes(b"old\n")
    atomic_write(str(path), b"new\n")
    name = os.path.basename(made[0])
    assert name.startswith(".k.py.triton-migrate-") and name.endswith(".tmp")


def test_write_keeps_the_mode_of_a_file_in_a_symlinked_directory(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (real / "k.py").write_bytes(b"old\n")
    (real / "k.py").chmod(0o640)
    (tmp_path / "link").symlink_to(real)
    atomic_write(str(tmp_path / "link" / "k.py"), b"new\n")
    assert (real / "k.py").read_bytes() == b"new\n"
    assert stat.S_IMODE((real / "k.py").stat().st_mode) == 0o640
    assert temporaries(real) == []


def test_undeclared_non_utf8_in_the_first_lines_names_the_byte():
    # tokenize itself only says "invalid or missing encoding declaration" here.
    with pytest.raises(FileError, match=r"cannot decode as utf-8: invalid byte 0xe9 on line 1"):
        decode(b"# caf\xe9\nx = 1\n")


def test_check_parses_prints_no_syntax_warning(recwarn):
    check_parses("k.py", b"x = 1\n", b"y = x is 1\nz = 1if x else 2\n")
    assert [w for w in recwarn if issubclass(w.category, SyntaxWarning)] == []
