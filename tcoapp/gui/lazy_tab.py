"""A tab page that builds its view the first time it is shown (or asked for), so start-up only
pays for the visible tab: the other views, their modules and pyqtgraph are loaded when first needed."""
from __future__ import annotations

from typing import Callable

from PySide6.QtWidgets import QVBoxLayout, QWidget


class LazyTab(QWidget):
    def __init__(self, factory: Callable[[], QWidget], parent=None):
        super().__init__(parent)
        self._factory = factory
        self._view: QWidget | None = None
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 0, 0, 0)

    @property
    def built(self) -> bool:
        return self._view is not None

    def view(self) -> QWidget:
        if self._view is None:
            self._view = self._factory()
            self._layout.addWidget(self._view)
            self._view.show()   # built while the tab is hidden it would stay hidden when the tab is shown
            self._layout.activate()   # the tab's size now, not at the next event: what the view measures first
        return self._view

    def showEvent(self, event):
        self.view()
        super().showEvent(event)
