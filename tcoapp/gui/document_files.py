"""The window's document and its file: never two windows on one file, never a change lost unasked.

- A file open in another running tcoapp (its lock is held) opens here as an unsaved copy, with a
  warning; saving onto such a file is refused.
- Saving over the document's file after someone else changed it on disk asks first.
- When the window comes back to the front and the file changed on disk, the user may reload it.
- A recovery file left by a crash is offered back: for the file being opened, or at start-up.
"""
from __future__ import annotations

import datetime
import os

from PySide6.QtWidgets import QMessageBox

from . import autosave
from .soon import call_soon


def _held_text(name: str, pid: int) -> str:
    who = f" (process {pid})" if pid > 0 else ""
    return f"{name} is open in another tcoapp window{who}."


def take_path(window, path: str, scenario, deferred: bool = False) -> None:
    """Show `scenario`, read from `path`: as that file, or as an unsaved copy when another tcoapp
    has the file open. With `deferred`, messages wait for the event loop (start-up)."""
    later = (lambda f: call_soon(window, f)) if deferred else (lambda f: f())
    holder = window.autosave.held_elsewhere(path)
    name = os.path.basename(path)
    if holder is None:
        window.document.reset(scenario, os.path.abspath(path))
        if not deferred:
            offer_recovery(window, QMessageBox, only_current=True)
        return
    window.document.reset(scenario, None, copy_of=os.path.abspath(path))
    text = (_held_text(name, holder) + "\nIt is opened here as an unsaved copy: use Save As to keep these changes "
            "apart from that window's.")
    later(lambda: window.show_problem(text, "Opened as a copy"))


def may_save_to(window, path: str) -> bool:
    """Ask or refuse before writing `path`; True when the save may go ahead."""
    document = window.document
    name = os.path.basename(path)
    if document.path and os.path.abspath(path) == os.path.abspath(document.path):
        if not document.changed_on_disk():
            return True
        answer = QMessageBox.question(
            window, "File changed on disk",
            f"{name} was changed on disk since it was opened or saved here (by another program or another "
            "tcoapp window). Overwrite it with this scenario?",
            QMessageBox.Save | QMessageBox.Cancel, QMessageBox.Cancel)
        return answer == QMessageBox.Save
    holder = window.autosave.held_elsewhere(path)
    if holder is not None:
        window.show_problem(_held_text(name, holder) + " Close it there first, or save under another name.",
                            "Save failed", kind="save")
        return False
    return True


def check_disk(window) -> bool:
    """On activation: offer to reload a file changed on disk (once per change); True when reloaded."""
    document = window.document
    if not document.changed_on_disk():
        return False
    path = document.path
    document.accept_disk_version()   # ask once per change
    if not os.path.exists(path):
        window.show_problem(f"{os.path.basename(path)} was removed or renamed on disk. Save to write it again.",
                            "File removed on disk")
        return False
    lose = " Your unsaved changes here would be lost." if document.is_dirty else ""
    answer = QMessageBox.question(
        window, "File changed on disk",
        f"{os.path.basename(path)} was changed on disk by another program or tcoapp window. Reload it?{lose}",
        QMessageBox.Yes | QMessageBox.No, QMessageBox.No)
    if answer != QMessageBox.Yes:
        return False
    return window.open_path(path, confirmed=True)


def offer_recovery(window, message_box, only_current: bool = False) -> bool:
    """Offer work a session left unsaved when it ended; True when one was restored.

    `only_current`: just the recovery of the window's own file. Otherwise, the window's file first,
    then (while the window holds no unsaved work) the others, newest first.
    """
    recoveries, problems = autosave.pending_recoveries(window.autosave)
    for text in problems:
        window.show_problem(f"Unsaved work could not be recovered: {text}", "Recovery")
    key = window.autosave.key
    recoveries.sort(key=lambda r: r.key != key)
    for recovery in recoveries:
        if window.document.is_dirty or (only_current and recovery.key != key):
            break
        name = os.path.basename(recovery.path) if recovery.path else "an unsaved scenario"
        when = datetime.datetime.fromtimestamp(recovery.saved_at).strftime("%Y-%m-%d %H:%M")
        answer = message_box.question(
            window, "Recover unsaved work",
            f"tcoapp did not exit cleanly while you were editing {name}. Recover the changes autosaved at {when}?",
            message_box.Yes | message_box.No, message_box.Yes)
        if answer != message_box.Yes:
            autosave.discard(recovery)
            continue
        _restore(window, recovery)
        return True
    return False


def _restore(window, recovery) -> None:
    document = window.document
    path = recovery.path if recovery.path and window.autosave.held_elsewhere(recovery.path) is None else None
    if recovery.key != window.autosave.key_of(path):
        autosave.discard(recovery)   # another instance's file: the work is this window's now
    document.reset(document.scenario, path)
    document.push(recovery.scenario, "Recovered unsaved work")
