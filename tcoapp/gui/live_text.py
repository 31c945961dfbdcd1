"""One line of text that changes with every edit (a value) and repaints only itself.

A QLabel given a new text asks its layout for a new size, and that request climbs every layout up
to the window: each edit would lay out the whole tab again and re-measure every word-wrapped label
in it. LiveText has a fixed height and takes the width its layout gives it, so a new text is only
painted; a text longer than the width is cut with an ellipsis and shown whole in the tooltip.
"""
from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QSizePolicy, QWidget


class LiveText(QWidget):
    def __init__(self, color: str = "#222", parent=None):
        super().__init__(parent)
        self._text = ""
        self._color = QColor(color)
        self.setFixedHeight(self.fontMetrics().height() + 4)
        self.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Fixed)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 (the QLabel name, so it reads like one)
        if text == self._text:
            return
        self._text = text
        self.setToolTip(text)
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.fontMetrics().horizontalAdvance(self._text) + 4, self.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(0, self.height())

    def paintEvent(self, event):  # noqa: N802
        painter = QPainter(self)
        painter.setPen(self._color)
        rect = self.rect().adjusted(2, 0, -2, 0)
        text = self.fontMetrics().elidedText(self._text, Qt.ElideRight, rect.width())
        painter.drawText(rect, int(Qt.AlignLeft | Qt.AlignVCenter), text)
