"""Redraw a view when it can be seen: at once if it is on screen, else when it is next shown.

An edit then costs only the views the user is looking at; a hidden tab catches up when it is shown.
A window that is not shown at all (before the first show, or with no display, as in exports and
tests) has no later show to wait for, so its views redraw at once.
"""
from __future__ import annotations

from PySide6.QtWidgets import QWidget


class WhenShown:
    """For a view with a refresh() method (it redraws the view from the document)."""

    def __init__(self, view: QWidget):
        self._view = view
        self.stale = False   # the view shows older data than the document; refresh() sets it False

    def changed(self, *_) -> None:
        """The document changed: redraw now if the view can be seen, else mark it stale."""
        if self._view.isVisible() or not self._view.window().isVisible():
            self._view.refresh()
        else:
            self.stale = True

    def shown(self) -> None:
        """Call from the view's showEvent: a stale view redraws."""
        if self.stale:
            self._view.refresh()
