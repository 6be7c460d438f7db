"""Reading, decoding, re-encoding and atomic writing keep every byte we do not mean to change."""

import os
import stat

import pytest

from triton_migrate.fileio import FileError, atomic_write, check_parses, decode, encode, read_bytes


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
