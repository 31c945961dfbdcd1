"""Preferences (not the document): window geometry and state, recent files. QSettings under
organization/application "tcoapp"; tests point QSettings at a temporary directory."""
from __future__ import annotations

import os

from PySide6.QtCore import QByteArray, QSettings

MAX_RECENT = 8


class AppSettings:
    def __init__(self):
        self._s = QSettings("tcoapp", "tcoapp")

    def recent_files(self) -> list[str]:
        value = self._s.value("recent_files", [])
        if isinstance(value, str):
            value = [value]
        return [str(v) for v in (value or []) if v]

    def add_recent(self, path: str) -> list[str]:
        path = os.path.abspath(path)
        files = [path] + [p for p in self.recent_files() if p != path]
        self._s.setValue("recent_files", files[:MAX_RECENT])
        return files[:MAX_RECENT]

    def remove_recent(self, path: str) -> None:
        self._s.setValue("recent_files", [p for p in self.recent_files() if p != path])

    def clear_recent(self) -> None:
        self._s.setValue("recent_files", [])

    def geometry(self) -> QByteArray | None:
        value = self._s.value("window/geometry")
        return value if isinstance(value, QByteArray) else None

    def window_state(self) -> QByteArray | None:
        value = self._s.value("window/state")
        return value if isinstance(value, QByteArray) else None

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        self._s.setValue("window/geometry", geometry)
        self._s.setValue("window/state", state)
        self._s.sync()

    def last_directory(self) -> str:
        return str(self._s.value("last_directory", "") or "")

    def set_last_directory(self, path: str) -> None:
        self._s.setValue("last_directory", os.path.dirname(os.path.abspath(path)))
