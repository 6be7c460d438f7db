"""Read, decode, re-encode and atomically rewrite source files without disturbing a byte we do not change."""

from __future__ import annotations

import ast
import contextlib
import io
import os
import stat
import tempfile
import tokenize
from dataclasses import dataclass


class FileError(Exception):
    """A file could not be read, decoded, encoded or written; str() is the message for the user."""


@dataclass(frozen=True)
class Decoded:
    text: str  # line endings exactly as in the file
    encoding: str  # as tokenize names it; "utf-8-sig" means the file starts with a BOM


def read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        if os.path.islink(path) and not os.path.exists(path):
            raise FileError("cannot read: broken symbolic link") from exc
        raise FileError(f"cannot read: {exc.strerror or exc}") from exc


def decode(data: bytes) -> Decoded:
    """Decode as Python would (PEP 263 cookie, BOM), leaving `\\r\\n` and `\\r` alone."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown codec in the cookie, or a cookie that contradicts the BOM
        raise FileError(f"cannot decode: {exc}") from exc
    try:
        return Decoded(data.decode(encoding), encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        bad = data[exc.start : exc.start + 1].hex()
        raise FileError(f"cannot decode as {encoding}: invalid byte 0x{bad} on line {line}") from exc


def encode(text: str, encoding: str) -> bytes:
    try:
        return text.encode(encoding)  # "utf-8-sig" writes the BOM back
    except UnicodeEncodeError as exc:
        raise FileError(f"internal error: the migrated code cannot be encoded as {encoding}: {exc.reason}") from exc


def check_parses(path: str, old: bytes, new: bytes) -> None:
    """Refuse new bytes that Python cannot parse (through the file's own encoding cookie and BOM).

    Code this interpreter cannot parse even before the migration (newer syntax) is not held against
    the migration: the engine has already re-parsed its output with libcst.
    """
    try:
        ast.parse(new, filename=path)
    except (SyntaxError, ValueError) as exc:
        try:
            ast.parse(old, filename=path)
        except (SyntaxError, ValueError):
            return
        raise FileError(f"internal error: the migrated code does not parse, file left unchanged: {exc}") from exc


def atomic_write(path: str, data: bytes) -> None:
    """Replace the file's content in one step, keeping its mode and owner; a symlink keeps pointing at it."""
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    try:
        original = os.stat(target)
        fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise FileError(f"cannot write: {exc.strerror or exc}") from exc
    replaced = False
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _copy_ownership(tmp, original)
        os.chmod(tmp, stat.S_IMODE(original.st_mode))
        os.replace(tmp, target)
        replaced = True
    except OSError as exc:
        raise FileError(f"cannot write: {exc.strerror or exc}") from exc
    finally:
        if not replaced:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    _fsync_directory(directory)


def _copy_ownership(tmp: str, original: os.stat_result) -> None:
    # Only root (or the owner, to a group of its own) may chown; otherwise the file becomes ours, as with an editor.
    with contextlib.suppress(OSError, AttributeError):
        os.chown(tmp, original.st_uid, original.st_gid)


def _fsync_directory(directory: str) -> None:
    # Makes the rename itself durable; some platforms and file systems cannot open or sync directories.
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
