"""A lock file that says "this document is open in a running tcoapp", free when that process ends.

The lock is an OS file lock (flock on POSIX, msvcrt.locking on Windows), which the system drops
when the process dies, even by SIGKILL or a power cut: a lock left by a crashed instance is simply
free, with no process-id guessing. The file also holds the owner's process id, for the message a
second instance shows.
"""
from __future__ import annotations

import contextlib
import os

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None
    import msvcrt

_WINDOWS_LOCK_OFFSET = 1 << 20   # lock a byte past the pid, which other processes must still read


def _try_lock(fd: int) -> bool:
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:
            os.lseek(fd, _WINDOWS_LOCK_OFFSET, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError:
        return False
    return True


class DocumentLock:
    def __init__(self, path: str):
        self.path = path
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> bool:
        """Take the lock; False when another running process holds it."""
        if self._fd is not None:
            return True
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        for _ in range(3):   # the file may be replaced between open and lock: retry on the new one
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
            if not _try_lock(fd):
                os.close(fd)
                return False
            if _same_file(fd, self.path):
                os.ftruncate(fd, 0)
                os.lseek(fd, 0, os.SEEK_SET)
                os.write(fd, str(os.getpid()).encode())
                self._fd = fd
                return True
            os.close(fd)
        return False

    def release(self) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.path)
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._fd = None

    def is_free(self) -> bool:
        """Nobody holds it (tested without keeping it)."""
        if self._fd is not None:
            return False
        try:
            fd = os.open(self.path, os.O_RDWR)
        except FileNotFoundError:
            return True
        except OSError:
            return False
        try:
            return _try_lock(fd)
        finally:
            os.close(fd)   # closing drops the probe's lock

    def holder(self) -> int | None:
        """Process id written by the holder, if any."""
        try:
            with open(self.path, "rb") as handle:
                return int(handle.read(32).decode().strip() or "x")
        except (OSError, ValueError):
            return None


def _same_file(fd: int, path: str) -> bool:
    try:
        return os.fstat(fd).st_ino == os.stat(path).st_ino
    except OSError:
        return False
