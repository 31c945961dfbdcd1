"""Text that changes with every edit (a value, a plan's notes) and repaints only itself.

A QLabel given a new text asks its layout for a new size, and that request climbs every layout up
to the window: each edit would lay out the whole tab (or the plan editor's dock and the window) again
and re-measure every word-wrapped label in it. LiveText, one line, has a fixed height and takes the
width its layout gives it, so a new text is only painted; a text longer than the width is cut with an
ellipsis and shown whole in the tooltip. LiveNotes, lines wrapped at its width in a box, asks for a new
layout only when a new text needs another height at that width; else the new text is only painted.
"""
from __future__ import annotations

from PySide6.QtCore import QRect, QSize, Qt
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


class LiveNotes(QWidget):
    """Plain text wrapped at the widget's width, in a box (`background`, a 1 px `border`, `padding` px inside
    it): as a word-wrapped QLabel with that style sheet shows it (its text indented by half an "x" on the left,
    as a QLabel with a frame indents it), but a new text of the same height is only painted (module docstring)."""

    def __init__(self, background: str, border: str, padding: int = 4, parent=None):
        super().__init__(parent)
        self._text = ""
        self._background, self._border = QColor(background), QColor(border)
        self._inset = padding + 1   # the border and the padding
        self.setAttribute(Qt.WA_OpaquePaintEvent)   # it fills its box: nothing beneath it is painted again
        policy = QSizePolicy(QSizePolicy.Preferred, QSizePolicy.Preferred)
        policy.setHeightForWidth(True)
        self.setSizePolicy(policy)

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 (the QLabel name)
        if text == self._text:
            return
        height = self.heightForWidth(self.width())
        self._text = text
        if self.heightForWidth(self.width()) != height:
            self.updateGeometry()   # another number of lines: the layout makes room
        self.update()

    def _indent(self) -> int:
        return self.fontMetrics().horizontalAdvance("x") // 2

    def _text_rect(self, width: int) -> QRect:
        """The wrapped text's bounding rectangle inside a box `width` wide."""
        inner = max(1, width - 2 * self._inset - self._indent())
        return self.fontMetrics().boundingRect(QRect(0, 0, inner, 1 << 20), int(Qt.TextWordWrap), self._text)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return (self._text_rect(width).height() if self._text else 0) + 2 * self._inset

    def sizeHint(self) -> QSize:  # noqa: N802
        width = (min(self._text_rect(1 << 20).width(), 80 * self.fontMetrics().averageCharWidth()) + 2 * self._inset
                 + self._indent())
        return QSize(width, self.heightForWidth(width))

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        return QSize(2 * self._inset, self.fontMetrics().height() + 2 * self._inset)

    def paintEvent(self, event):  # noqa: N802
        painter = QPainter(self)
        painter.fillRect(self.rect(), self._background)
        painter.setPen(self._border)
        painter.drawRect(self.rect().adjusted(0, 0, -1, -1))
        painter.setPen(self.palette().color(self.foregroundRole()))
        inset = self._inset
        painter.drawText(self.rect().adjusted(inset + self._indent(), inset, -inset, -inset),
                         int(Qt.AlignLeft | Qt.AlignTop | Qt.TextWordWrap), self._text)
