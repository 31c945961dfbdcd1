"""The start-up figure is taken once the window has painted (gui/app.py, `_after_first_paint`): the turn of the
event loop that shows a window runs before it paints, so a marker there would count a window nobody sees yet."""
from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication

from tcoapp.gui.app import _after_first_paint, create_window


class _Paints(QObject):
    def __init__(self, window):
        super().__init__()
        self.window, self.count = window, 0

    def eventFilter(self, obj, event):
        if event.type() == QEvent.Paint and obj.isWidgetType() and obj.window() is self.window:
            self.count += 1
        return False


def test_the_shown_figure_comes_after_the_windows_first_paint(qtbot):
    app = QApplication.instance()
    window = create_window(None, compute=False)
    qtbot.addWidget(window)
    paints = _Paints(window)
    app.installEventFilter(paints)
    seen = {}
    _after_first_paint(app, window, lambda age_s: seen.update(age_s=age_s, paints=paints.count))
    next_turn = {}
    window.show()
    QTimer.singleShot(0, lambda: next_turn.setdefault("paints", paints.count))
    qtbot.waitUntil(lambda: "age_s" in seen, timeout=10_000)
    app.removeEventFilter(paints)
    assert next_turn["paints"] == 0   # the turn after show(): nothing painted yet (the old marker's moment)
    assert seen["paints"] > 10 and seen["age_s"] > 0   # the window and the widgets in it, painted
