"""The one way the app shows a refused value: a red line next to the field or under the table,
hidden while there is nothing to say."""
from __future__ import annotations

from PySide6.QtWidgets import QLabel


class InlineError(QLabel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet("color: #c62828; font-weight: bold;")
        self.hide()

    def show_error(self, text: str | None) -> bool:
        """Show `text` (None or "": hide); True when there was an error."""
        self.setText(text or "")
        self.setVisible(bool(text))
        return bool(text)
