"""Atomic file replacement: a crash or a full disk mid-save never corrupts the existing file.

The new content goes to a temporary file `.~NAME.XXXX.tmp` in the destination's directory (same
file system), is flushed and fsync'ed, and only then renamed over the destination with os.replace
(atomic on POSIX and Windows). On any failure the temporary file is removed and the old file is
untouched. A process killed mid-save (SIGKILL, power cut) cannot remove its temporary file: the
next save of the same file does. The writer holds an exclusive lock on its temporary file while it
writes, so a temporary file that can be locked belongs to nobody (where locks do not exist, one
older than STALE_AFTER_S is taken as left over).
"""
from __future__ import annotations

import contextlib
import glob
import os
import tempfile
import time
from typing import Callable, BinaryIO

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None

STALE_AFTER_S = 3600

from ..engine.core.errors import TcoError


class SaveError(TcoError):
    """The file could not be saved; the existing file (if any) is unchanged."""


def atomic_write(path, write: Callable[[BinaryIO], None]) -> None:
    """Call write(handle) on a temporary file next to `path`, then atomically rename it to `path`."""
    path = os.fspath(path)
    if os.path.isdir(path) or not os.path.basename(path) or os.path.basename(path) in (".", ".."):
        raise SaveError(f"cannot save {path}: that is a folder, not a file name")
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise SaveError(f"cannot save {path}: the folder {directory} does not exist")
    mode = _target_mode(path)
    remove_stale_temporaries(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=_temp_prefix(path), suffix=".tmp", dir=directory)
    except OSError as exc:
        raise SaveError(f"cannot save {path}: {exc.strerror or exc}") from None
    try:
        _lock(fd)
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise SaveError(f"cannot save {path}: {exc.strerror or exc}; the existing file is unchanged") from None
        raise
    _fsync_directory(directory)


def _temp_prefix(path: str) -> str:
    return ".~" + os.path.basename(path) + "."


def temporaries_of(path) -> list[str]:
    """The temporary files of saves of `path` (running, or interrupted and left over)."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    return glob.glob(os.path.join(glob.escape(directory), glob.escape(_temp_prefix(path)) + "*.tmp"))


def remove_stale_temporaries(path) -> list[str]:
    """Remove the temporary files that interrupted saves of `path` left behind; returns them."""
    removed = []
    for tmp in temporaries_of(path):
        if _left_over(tmp):
            with contextlib.suppress(OSError):
                os.unlink(tmp)
                removed.append(tmp)
    return removed


def _lock(fd: int) -> None:
    if fcntl is not None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _left_over(tmp: str) -> bool:
    """No running save holds it (its lock can be taken), or, without locks, it is old."""
    if fcntl is None:
        try:
            return time.time() - os.stat(tmp).st_mtime > STALE_AFTER_S
        except OSError:
            return False
    try:
        fd = os.open(tmp, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False   # a save in progress (this or another process)
    finally:
        os.close(fd)
    return True


def _target_mode(path: str) -> int:
    """Keep the existing file's permissions; a new file gets the usual 0o666 minus the umask."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_directory(directory: str) -> None:
    """Make the rename durable (POSIX); a no-op where directories cannot be opened."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
