"""Autosave and recovery after a crash, per document (recovery_files holds the file format).

While the document has unsaved changes, its scenario is written every `interval_ms` to its own
recovery file in `<app data>/autosave/`, keyed by the document's path (an unsaved document: by this
instance). The instance holds the document's lock file while it has the document open, so another
instance can tell "open elsewhere" (it opens the file as a copy) from "left by a crash" (it offers
the recovery). A save, a clean undo or a clean exit removes the instance's recovery file; a crash
cannot, and the file is offered at the next start or when the same file is opened again.
"""
from __future__ import annotations

import itertools
import os
import pickle
import tempfile

from PySide6.QtCore import QObject, QStandardPaths, QTimer, Signal

from ..engine.core.errors import TcoError
from . import recovery_files
from .document import Document

INTERVAL_MS = 30_000
RETRY_MS = 5_000   # after a failed autosave, the next try (then every RETRY_MS while it keeps failing)
_INSTANCES = itertools.count(1)


def autosave_dir() -> str:
    base = QStandardPaths.writableLocation(QStandardPaths.AppLocalDataLocation) or tempfile.gettempdir()
    return os.path.join(base, "autosave")


def pending_recoveries(own: "Autosave | None" = None) -> tuple[list[recovery_files.Recovery], list[str]]:
    """Recovery files left by sessions that ended without saving (newest first), and a message
    for each one that could not be read (kept aside, not deleted). With `own`, that autosave's
    document counts as left over too when its file holds work this autosave did not write."""
    own_key = own.key if own is not None and not own.wrote_recovery else None
    return recovery_files.orphans(autosave_dir(), own_key)


def discard(recovery: recovery_files.Recovery) -> None:
    recovery_files.discard(autosave_dir(), recovery.key)


class Autosave(QObject):
    """`failed(message)` when a recovery file cannot be written (the window shows it on its problem bar; the save is
    retried every RETRY_MS until it succeeds), `recovered()` at the first success after a failure."""

    failed = Signal(str)
    recovered = Signal()

    def __init__(self, document: Document, interval_ms: int = INTERVAL_MS, parent=None, retry_ms: int = RETRY_MS):
        super().__init__(parent)
        self._doc = document
        self._instance = f"{os.getpid()}-{next(_INSTANCES)}"
        self._key: str | None = None
        self._lock = None
        self.wrote_recovery = False   # this autosave wrote its key's recovery file (not a crash's)
        self.failure: str | None = None   # the last autosave's error while it keeps failing, else None
        self._interval_ms, self._retry_ms = interval_ms, retry_ms
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)
        document.dirty_changed.connect(self._on_dirty)
        document.path_changed.connect(lambda path: self._claim(path or None))
        self._claim(document.path)

    @property
    def key(self) -> str | None:
        return self._key

    def key_of(self, path: str | None) -> str:
        return recovery_files.document_key(path, self._instance)

    def held_elsewhere(self, path: str) -> int | None:
        """The process id of another running tcoapp that has `path` open (-1 if unknown), else None."""
        key = self.key_of(path)
        if key == self._key:
            return None
        lock = recovery_files.lock_for(autosave_dir(), key)
        if lock.is_free():
            return None
        return lock.holder() or -1

    def _claim(self, path: str | None) -> None:
        key = self.key_of(path)
        if key == self._key:
            return
        self._release()
        lock = recovery_files.lock_for(autosave_dir(), key)
        try:
            taken = lock.acquire()
        except OSError:
            taken = False   # an unwritable data folder: autosave reports it when it runs
        if not taken and path:   # open elsewhere after all (the window checks first): keep apart
            key, lock = self.key_of(None), recovery_files.lock_for(autosave_dir(), self.key_of(None))
            try:
                lock.acquire()
            except OSError:
                pass
        self._key, self._lock = key, lock
        self.wrote_recovery = False
        if self._doc.is_dirty:
            self.save_now()

    def _release(self) -> None:
        if self._key is None:
            return
        recovery_files.discard(autosave_dir(), self._key)
        self._lock.release()
        self._key = self._lock = None

    def _on_dirty(self, dirty: bool) -> None:
        if dirty:
            self.timer.start()
        else:
            self.timer.stop()
            if self._key:
                recovery_files.discard(autosave_dir(), self._key)
            if self.failure is not None:   # saved (or undone to the saved state): nothing left to protect
                self.failure = None
                self.timer.setInterval(self._interval_ms)
                self.recovered.emit()

    def _tick(self) -> None:
        self.save_now()

    def save_now(self) -> str | None:
        """Write the recovery file now; returns an error message or None. A failure is never silent: `failed` carries
        it (and the timer retries every RETRY_MS); the first success after it emits `recovered`."""
        if not self._doc.is_dirty or self._key is None:
            return None
        try:
            recovery_files.write(autosave_dir(), self._key, self._doc.scenario, self._doc.path)
            self.wrote_recovery = True
        except (TcoError, OSError, pickle.PicklingError) as exc:
            return self._failed(exc)
        if self.failure is not None:
            self.failure = None
            self.timer.setInterval(self._interval_ms)
            self.recovered.emit()
        return None

    def _failed(self, exc: BaseException) -> str:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        message = (f"Autosave failed: the recovery copy of your edits cannot be written in {autosave_dir()} "
                   f"({reason}). Until it can, a crash loses the edits since the last save: save the document "
                   f"(File > Save). Retrying every {self._retry_ms // 1000 or 1} s.")
        shown, self.failure = self.failure, message
        self.timer.setInterval(self._retry_ms)
        if not self.timer.isActive():
            self.timer.start()
        if message != shown:   # once per failure (a retry failing alike does not cover another problem shown since)
            self.failed.emit(message)
        return message

    def stop(self) -> None:
        """A clean exit: nothing to recover; the document's lock is freed."""
        self.timer.stop()
        self._release()
