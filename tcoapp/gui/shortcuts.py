"""Undo and redo of the document from anywhere: Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y.

A line edit claims Ctrl+Z for its own (empty, since the editor sets its text) undo history, so the
Edit menu's shortcut never fires while a field has focus. This event filter takes those keys from
any widget of the window: a plan-editor field with typed but uncommitted text commits it first (so
Ctrl+Z right after typing undoes that edit, and redo brings it back), then the document's undo
stack moves. It watches the focus widget only (key events go to it first) and follows the focus:
a filter on the whole application would run Python for every event of every widget (each paint,
each layout), which is most of what showing the window and redrawing a chart cost.
"""
from __future__ import annotations

import shiboken6
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
    """Installed on the focus widget while it is inside `window`; acts for its key events."""

    def __init__(self, window, undo_stack):
        super().__init__(window)
        self._window, self._stack = window, undo_stack
        self._watched: QWidget | None = None
        self._following = True
        QApplication.instance().focusChanged.connect(self._focus_changed)
        self._focus_changed(None, QApplication.focusWidget())

    def _focus_changed(self, _old, new) -> None:
        self._unwatch()
        if new is not None and self._inside(new):
            self._watched = new
            new.installEventFilter(self)

    def _unwatch(self) -> None:
        if self._watched is not None and shiboken6.isValid(self._watched):
            self._watched.removeEventFilter(self)
        self._watched = None

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
        """The window closes: stop following the focus (once; a second close does nothing)."""
        if self._following:
            self._following = False
            QApplication.instance().focusChanged.disconnect(self._focus_changed)
        self._unwatch()
