"""Read, decode, re-encode and atomically rewrite source files without disturbing a byte we do not change."""

from __future__ import annotations

import ast
import contextlib
import errno
import io
import os
import signal
import stat
import tempfile
import time
import tokenize
import warnings
from collections.abc import Iterator
from dataclasses import dataclass

LOCK_WAIT_S = 10.0
# Test-only: `TRITON_MIGRATE_PAUSE_AT=STEP:N` makes this process stop itself (SIGSTOP) the N-th time a write
# reaches STEP (one of PAUSE_STEPS), so that tests/test_kill.py can kill it exactly there instead of at a
# moment that depends on the machine's speed. Read once at import; unset, a write pays one falsy test per step.
PAUSE_AT = os.environ.get("TRITON_MIGRATE_PAUSE_AT", "")
PAUSE_STEPS = ("temporary-created", "temporary-written", "replaced")
_reached = dict.fromkeys(PAUSE_STEPS, 0)


class FileError(Exception):
    """A file could not be read, decoded, encoded or written; str() is the message for the user."""


@dataclass(frozen=True)
class Decoded:
    text: str  # line endings exactly as in the file
    encoding: str  # as tokenize names it; "utf-8-sig" means the file starts with a BOM


def read_bytes(path: str) -> bytes:
    """The file's bytes; anything that is not a regular file (FIFO, device, socket, directory) is an error.

    O_NONBLOCK lets a FIFO open without waiting for a writer (a plain open would hang the run), and the
    fstat check keeps `x.py -> /dev/zero` from being read forever.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if exc.errno == errno.ENOENT and os.path.islink(path):
            raise FileError("cannot read: broken symbolic link") from exc
        raise FileError(f"cannot read: {exc.strerror or exc}") from exc
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise FileError("cannot read: Is a directory")
        if not stat.S_ISREG(mode):
            raise FileError("cannot read: not a regular file (a FIFO, socket or device)")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read()
    except OSError as exc:
        raise FileError(f"cannot read: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)


def decode(data: bytes) -> Decoded:
    """Decode as Python would (PEP 263 cookie, BOM), leaving `\\r\\n` and `\\r` alone."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # unknown codec in the cookie, or a cookie that contradicts the BOM
        if "invalid or missing encoding declaration" not in str(exc):
            raise FileError(f"cannot decode: {exc}") from exc
        encoding = "utf-8"  # no cookie and not UTF-8 in the first two lines: the decode below names the byte
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
        _parse(new, path)
    except (SyntaxError, ValueError) as exc:
        try:
            _parse(old, path)
        except (SyntaxError, ValueError):
            return
        raise FileError(f"internal error: the migrated code does not parse, file left unchanged: {exc}") from exc


def _parse(source: bytes, path: str) -> None:
    # The user's `x is 1` or `1if x else 2` is theirs to hear about from Python, not ours to print.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        ast.parse(source, filename=path)


def atomic_write(path: str, data: bytes, *, expected: bytes | None = None) -> None:
    """Replace the file's content in one step, keeping its mode and owner; a symlink keeps pointing at it.

    Crash safety: the bytes go to a temporary file in the same directory (named `.NAME.triton-migrate-*.tmp`,
    so that no run ever takes it for a source), are fsynced, then renamed over the file; a process killed at
    any point leaves the old file or the new one, never a mix. A temporary file left by a killed run is
    removed by the next write of the same file. A hard-linked file gets a copy of its own: its other
    names keep the old text (as with a conda or pnpm store, where that is what one wants).

    `expected`: the bytes the caller read. The file is re-read just before the rename and left alone with
    an error if it changed since (an editor, `git checkout`, another run); if it already holds `data`
    (another run got there first) there is nothing to do. `expected=b""` for a file that did not exist
    creates it (mode 0644), unless it appeared since with other bytes. Runs of this tool lock the directory around the
    check and the rename, so two of them never interleave there.

    A file the user may not write (per the OS, as with an editor's save) is refused, not replaced behind
    its permissions; so is a file whose mode grants nobody a write (`chmod 444`), also to root, to whom the
    OS grants every write: such a mode is the user's statement that the file stays as it is.
    """
    target = os.path.realpath(path)
    directory = os.path.dirname(target)
    try:
        with _locked_directory(directory) as locked:
            created = expected == b"" and not os.path.exists(target)
            original = None if created else _writable_stat(target)
            if locked:
                _remove_stale_temporaries(directory, os.path.basename(target))
            if expected is not None and not created and _unchanged_or_done(target, expected, data):
                return
            _replace(target, data, original)
    except OSError as exc:
        raise FileError(f"cannot write: {exc.strerror or exc}") from exc


def _temp_prefix(name: str) -> str:
    return f".{name}.triton-migrate-"


_ANY_WRITE = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH


def _writable_stat(target: str) -> os.stat_result:
    try:
        original = os.stat(target)
    except FileNotFoundError as exc:
        raise FileError("cannot write: the file was deleted during the run; not recreated") from exc
    if not original.st_mode & _ANY_WRITE or \
            not os.access(target, os.W_OK, effective_ids=os.access in os.supports_effective_ids):
        raise FileError("cannot write: Permission denied (the file is read-only); left unchanged")
    return original


def _unchanged_or_done(target: str, expected: bytes, data: bytes) -> bool:
    """True if the file already holds `data`; an error if it holds anything but `expected`."""
    current = read_bytes(target)
    if current == data:
        return True
    if current != expected:
        raise FileError("cannot write: the file changed on disk during the run; left as it is (run again)")
    return False


def _replace(target: str, data: bytes, original: os.stat_result | None) -> None:
    fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(os.path.basename(target)), suffix=".tmp",
                               dir=os.path.dirname(target))
    try:
        _pause("temporary-created")
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if original is not None:
            _copy_ownership(tmp, original)
        os.chmod(tmp, stat.S_IMODE(original.st_mode) if original is not None else 0o644)
        _pause("temporary-written")
        os.replace(tmp, target)
        _pause("replaced")
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _pause(step: str) -> None:
    if PAUSE_AT:
        _reached[step] += 1
        if PAUSE_AT == f"{step}:{_reached[step]}":
            os.kill(os.getpid(), signal.SIGSTOP)


def _remove_stale_temporaries(directory: str, name: str) -> None:
    # Only called under the directory lock: every run creates and renames its temporaries while holding
    # it, so one seen now belongs to a run that was killed.
    prefix = _temp_prefix(name)
    with contextlib.suppress(OSError), os.scandir(directory) as entries:
        for entry in entries:
            if entry.name.startswith(prefix) and entry.name.endswith(".tmp"):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _copy_ownership(tmp: str, original: os.stat_result) -> None:
    # Only root (or the owner, to a group of its own) may chown; otherwise the file becomes ours, as with an editor.
    with contextlib.suppress(OSError, AttributeError):
        os.chown(tmp, original.st_uid, original.st_gid)


@contextlib.contextmanager
def _locked_directory(directory: str) -> Iterator[bool]:
    """Hold an exclusive advisory lock on the directory (yields whether it was had), then fsync it, which
    makes the rename itself durable. Platforms or file systems that cannot open, lock or sync a directory
    get neither, and the write goes on."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        yield False
        return
    try:
        yield _lock(fd)
        with contextlib.suppress(OSError):
            os.fsync(fd)
    finally:
        os.close(fd)  # releases the lock


def _lock(fd: int) -> bool:
    """An exclusive flock, waited for at most LOCK_WAIT_S: every run holds it for milliseconds, so a longer
    wait means a stopped process or a foreign lock, and the write goes on without it."""
    try:
        import fcntl
    except ImportError:
        return False
    deadline = time.monotonic() + LOCK_WAIT_S
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)
        except OSError:  # e.g. a file system without flock
            return False
