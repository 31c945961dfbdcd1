"""The window's inline error line, right above the views: what a background task (opening a
workbook, importing or generating a curve, fitting, sweeping, simulating) or a file action could
not do, in red (the InlineError look of the editors), with a Dismiss button. It replaces pop-ups
for errors; a long message scrolls inside a few lines instead of pushing the views away.

A problem may name its kind ("open", "save", "sweep", "simulation", ...): `resolve(kind)` takes it
away when the same kind of action next succeeds (a save after a failed save, the next sweep). Any
problem goes at Dismiss, the next problem or `clear` (another document opened); a view's message
(kind "view") also when the document next changes (the main window clears it)."""
from __future__ import annotations

from PySide6.QtWidgets import QFrame, QHBoxLayout, QPushButton, QScrollArea, QWidget

from .inline_error import InlineError

MAX_HEIGHT_PX = 120


class ProblemBar(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("problem_bar")
        self.error = InlineError()
        self.error.setObjectName("problem_text")
        self.title = ""
        self.kind = ""
        scroll = QScrollArea()
        scroll.setWidget(self.error)
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.NoFrame)
        scroll.setMaximumHeight(MAX_HEIGHT_PX)
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.clicked.connect(self.clear)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 2, 6, 2)
        layout.addWidget(scroll, 1)
        layout.addWidget(self.dismiss_button)
        self.setStyleSheet("#problem_bar { background: #fdecea; }")
        self.hide()

    def show_problem(self, text: str, title: str = "", kind: str = "") -> None:
        """Show `text` (headed by `title` when there is one), replacing the problem shown before;
        `kind`: what action failed, so that its next success can resolve it."""
        self.title, self.kind = title, kind
        self.error.show_error(f"{title}: {text}" if title else text)
        self.show()

    def resolve(self, kind: str) -> None:
        """An action of `kind` succeeded: a problem of that kind is over."""
        if kind and kind == self.kind:
            self.clear()

    def clear(self) -> None:
        self.title, self.kind = "", ""
        self.error.show_error(None)
        self.hide()

    def text(self) -> str:
        """The problem shown now ("" once dismissed); shown means on screen whenever the window is."""
        return "" if self.isHidden() else self.error.text()
