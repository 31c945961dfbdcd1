"""Work for the next turn of the event loop, on behalf of a widget that may be gone by then.

`call_soon(owner, fn)` runs `fn()` once the event loop next turns, unless `owner` (a QObject) has
been deleted meanwhile (a window closed in the same turn as it was opened). Qt's own form,
`QTimer.singleShot(0, owner, fn)`, would cancel it too, but PySide then never releases `fn`, and
with it whatever `fn` holds (a closed window's document and results).
"""
from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QObject, QTimer
from shiboken6 import isValid


def call_soon(owner: QObject, fn: Callable[[], object]) -> None:
    """Run `fn()` at the next turn of the event loop if `owner` still exists."""
    QTimer.singleShot(0, lambda: fn() if isValid(owner) else None)
