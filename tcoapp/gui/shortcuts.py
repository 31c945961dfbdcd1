"""Undo and redo of the document from anywhere: Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y.

A line edit claims Ctrl+Z for its own (empty, since the editor sets its text) undo history, so the
Edit menu's shortcut never fires while a field has focus. This application event filter takes those
keys from any widget of the window: a plan-editor field with typed but uncommitted text commits it
first (so Ctrl+Z right after typing undoes that edit, and redo brings it back), then the document's
undo stack moves.
"""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QApplication, QDialog, QWidget

UNDO_KEYS = (QKeySequence(QKeySequence.Undo), QKeySequence("Ctrl+Z"))
REDO_KEYS = (QKeySequence(QKeySequence.Redo), QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y"))


def _sequence(event) -> QKeySequence:
    modifiers = event.modifiers() & (Qt.ControlModifier | Qt.ShiftModifier | Qt.AltModifier | Qt.MetaModifier)
    return QKeySequence(event.keyCombination().key() | modifiers) if hasattr(event, "keyCombination") else \
        QKeySequence(int(event.key()) | int(modifiers))


def which(event) -> str | None:
    """'undo', 'redo' or None for a key event."""
    seq = _sequence(event)
    if any(seq.matches(k) == QKeySequence.ExactMatch for k in REDO_KEYS if not k.isEmpty()):
        return "redo"
    if any(seq.matches(k) == QKeySequence.ExactMatch for k in UNDO_KEYS if not k.isEmpty()):
        return "undo"
    return None


def pending_commit(widget: QWidget | None):
    """The `commit_pending` of the plan-editor field that holds `widget`, if any."""
    while widget is not None:
        commit = getattr(widget, "commit_pending", None)
        if callable(commit):
            return commit
        widget = widget.parentWidget()
    return None


class UndoShortcuts(QObject):
    """Installed on the application; acts for key events inside `window` only."""

    def __init__(self, window, undo_stack):
        super().__init__(window)
        self._window, self._stack = window, undo_stack
        QApplication.instance().installEventFilter(self)

    def eventFilter(self, obj, event) -> bool:
        kind = event.type()
        if kind not in (QEvent.ShortcutOverride, QEvent.KeyPress) or not isinstance(obj, QWidget):
            return False
        action = which(event)
        if action is None or not self._inside(obj):
            return False
        if kind == QEvent.ShortcutOverride:
            event.accept()      # deliver it as a key press to us, not to the line edit's own undo
            return True
        commit = pending_commit(QApplication.focusWidget())
        if commit is not None and commit():
            return True     # the typed text was refused: the key only discarded it
        (self._stack.undo if action == "undo" else self._stack.redo)()
        return True

    def _inside(self, widget: QWidget) -> bool:
        """A widget of the main window or of its floating plan-editor dock; not one of a dialog
        (a dialog's own fields keep their own undo)."""
        if isinstance(widget.window(), QDialog):
            return False
        while widget is not None:
            if widget is self._window:
                return True
            widget = widget.parentWidget()
        return False

    def detach(self) -> None:
        QApplication.instance().removeEventFilter(self)
