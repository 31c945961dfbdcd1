"""Autosave and recovery after a crash.

While the document has unsaved changes, its scenario is written every `interval_ms` to
`<app data>/autosave/recovery.pickle` (with the document's path). A clean exit, a save or a new
document removes the file; a file found at start-up therefore means the last session ended
without saving, and the app offers to recover it. The file is written atomically (temp + rename)
and holds the immutable engine objects exactly as they were, including catalog overrides and
imported curves.
"""
from __future__ import annotations

import os
import pickle
import tempfile

from PySide6.QtCore import QObject, QStandardPaths, QTimer

from .document import Document

INTERVAL_MS = 30_000
FORMAT = 1


def autosave_dir() -> str:
    base = QStandardPaths.writableLocation(QStandardPaths.AppLocalDataLocation) or tempfile.gettempdir()
    return os.path.join(base, "autosave")


def recovery_path() -> str:
    return os.path.join(autosave_dir(), "recovery.pickle")


def pending_recovery() -> tuple | None:
    """(scenario, original path) left by a session that did not exit cleanly, or None."""
    path = recovery_path()
    if not os.path.exists(path):
        return None
    try:
        with open(path, "rb") as handle:
            data = pickle.load(handle)  # noqa: S301 - our own file in the user's data directory
        if data.get("format") != FORMAT or _running_elsewhere(data.get("pid")):
            return None
        return data["scenario"], data.get("path")
    except Exception:
        discard()
        return None


def _running_elsewhere(pid) -> bool:
    """The file belongs to another tcoapp still running (not a crash): leave it alone."""
    if not isinstance(pid, int) or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def discard() -> None:
    try:
        os.remove(recovery_path())
    except FileNotFoundError:
        pass


class Autosave(QObject):
    def __init__(self, document: Document, interval_ms: int = INTERVAL_MS, parent=None):
        super().__init__(parent)
        self._doc = document
        self.timer = QTimer(self)
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self.save_now)
        document.dirty_changed.connect(self._on_dirty)

    def _on_dirty(self, dirty: bool) -> None:
        if dirty:
            self.timer.start()
        else:
            self.timer.stop()
            discard()

    def save_now(self) -> str | None:
        """Write the recovery file now; returns an error message or None."""
        if not self._doc.is_dirty:
            return None
        data = {"format": FORMAT, "scenario": self._doc.scenario, "path": self._doc.path, "pid": os.getpid()}
        try:
            os.makedirs(autosave_dir(), exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=autosave_dir(), suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                pickle.dump(data, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, recovery_path())
        except (OSError, pickle.PicklingError) as exc:
            return f"Autosave failed: {exc}"
        return None

    def stop(self) -> None:
        """A clean exit: nothing to recover."""
        self.timer.stop()
        discard()
