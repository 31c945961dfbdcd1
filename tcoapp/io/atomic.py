"""Atomic file replacement: a crash or a full disk mid-save never corrupts the existing file.

The new content goes to a temporary file in the destination's directory (same file system), is
flushed and fsync'ed, and only then renamed over the destination with os.replace (atomic on POSIX
and Windows). On any failure the temporary file is removed and the old file is untouched.
"""
from __future__ import annotations

import contextlib
import os
import tempfile
from typing import Callable, BinaryIO

from ..engine.errors import TcoError


class SaveError(TcoError):
    """The file could not be saved; the existing file (if any) is unchanged."""


def atomic_write(path, write: Callable[[BinaryIO], None]) -> None:
    """Call write(handle) on a temporary file next to `path`, then atomically rename it to `path`."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        raise SaveError(f"cannot save {path}: the folder {directory} does not exist")
    mode = _target_mode(path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".~" + os.path.basename(path) + ".", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise SaveError(f"cannot save {path}: {exc.strerror or exc}") from None
    try:
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
