"""Autosave failures are shown, never silent (tcoapp/gui/autosave.py): a problem-bar message naming the folder and
the reason, retried every RETRY_MS, gone at the first success; a full or read-only data folder, and a data folder
that cannot be created."""
from __future__ import annotations

import errno
import os

import pytest

import tcoapp.gui.autosave as autosave
import tcoapp.io.atomic as atomic
from tcoapp.gui import recovery_files


def _full(monkeypatch, on):
    real = atomic.os.fsync

    def fault(*args):
        if on():
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(*args)
    monkeypatch.setattr(atomic.os, "fsync", fault)   # a write past the end of a full file system (no tmpfs here)


def _read_only(monkeypatch, on):
    real = atomic.tempfile.mkstemp

    def fault(*args, **kw):
        if on():
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(*args, **kw)
    monkeypatch.setattr(atomic.tempfile, "mkstemp", fault)   # (the tests run as root: chmod would not stop a write)


FAULTS = {"full": (_full, "No space left on device"), "read-only": (_read_only, "Permission denied")}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_failing_autosave_is_shown_retried_and_cleared(qtbot, monkeypatch, window, fault):
    make, reason = FAULTS[fault]
    failing = [True]
    window.autosave._retry_ms = 50
    make(monkeypatch, lambda: failing[0])
    window.document.set_plan_value(0, "utilization", 0.42)
    message = window.autosave.save_now()
    assert message and reason in message and autosave.autosave_dir() in message
    shown = window.problems.text()
    assert "Autosave failed" in shown and reason in shown and "File > Save" in shown, shown
    assert window.autosave.timer.isActive() and window.autosave.timer.interval() == 50   # retried
    failing[0] = False   # the folder has room again
    qtbot.waitUntil(lambda: window.autosave.failure is None, timeout=3000)   # the retry wrote it
    assert window.problems.text() == ""
    assert os.path.exists(recovery_files.recovery_file(autosave.autosave_dir(), window.autosave.key))
    assert window.autosave.timer.interval() == autosave.INTERVAL_MS


def test_a_data_folder_that_cannot_be_created_is_shown(qtbot, monkeypatch, tmp_path, open_window):
    blocker = tmp_path / "not a folder"
    blocker.write_text("a file where the data folder should be")
    monkeypatch.setattr(autosave, "autosave_dir", lambda: str(blocker / "autosave"))
    window = open_window()
    window.document.set_plan_value(0, "utilization", 0.33)
    message = window.autosave.save_now()
    assert message and str(blocker) in message
    assert "Autosave failed" in window.problems.text()


def test_the_timer_reports_a_failure_without_a_caller(qtbot, monkeypatch, window):
    """The timer's own save (no caller to read the returned message) reaches the problem bar."""
    _full(monkeypatch, lambda: True)
    window.autosave.timer.setInterval(20)
    window.document.set_plan_value(0, "utilization", 0.5)
    qtbot.waitUntil(lambda: "Autosave failed" in window.problems.text(), timeout=3000)
