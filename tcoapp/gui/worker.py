"""Long work off the GUI thread (Orange3 `concurrent.py` pattern).

The engine takes plain `progress(fraction)` and `should_cancel() -> bool` callables; `Task` runs
such a function in a QThread and turns them into queued signals (progress throttled to ~20 per
second). `TaskRunner` keeps one task at a time: starting a new one cancels the old, and results
of a cancelled or superseded task are dropped. `ProgressPanel` is the bar + Cancel button.
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from PySide6.QtCore import QObject, QThread, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from ..engine.core.errors import Cancelled, TcoError

THROTTLE_S = 0.05


class Task(QThread):
    progressed = Signal(float)
    succeeded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()

    def __init__(self, func: Callable[..., Any], parent=None):
        super().__init__(parent)
        self._func = func
        self._cancel = threading.Event()
        self._last = 0.0

    def cancel(self) -> None:
        self._cancel.set()

    def is_cancelled(self) -> bool:
        return self._cancel.is_set()

    def _progress(self, fraction: float) -> None:
        now = time.monotonic()
        if now - self._last >= THROTTLE_S or fraction >= 1.0:
            self._last = now
            self.progressed.emit(float(fraction))

    def run(self) -> None:
        try:
            result = self._func(progress=self._progress, should_cancel=self._cancel.is_set)
        except Cancelled:
            self.cancelled.emit()
        except TcoError as exc:
            self.failed.emit(str(exc))
        except Exception as exc:  # shown as a message, never a traceback
            self.failed.emit(f"{type(exc).__name__}: {exc}")
        else:
            if self._cancel.is_set():
                self.cancelled.emit()
            else:
                self.succeeded.emit(result)


_RUNNING: set[Task] = set()   # every started thread until it has finished, whoever started it


def _forget(task: Task) -> None:
    _RUNNING.discard(task)
    task.deleteLater()


class TaskRunner(QObject):
    """One task at a time; signals only for the live task.

    The task's signals are connected to bound methods of the runner, so they are disconnected when
    the runner (and its window) is destroyed; the thread itself is kept alive by `_RUNNING` until
    it has finished, whatever happens to the runner.
    """

    started = Signal(str)
    progressed = Signal(float)
    succeeded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    finished = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._task: Task | None = None
        self._kind = ""
        self.last_kind = ""   # the kind of the task that ended last (read while its signals are emitted)
        self._on_success: Callable[[Any], None] | None = None
        self._mine: set[Task] = set()

    @property
    def running(self) -> bool:
        return self._task is not None

    def start(self, title: str, func: Callable[..., Any], on_success: Callable[[Any], None] | None = None,
              kind: str = "") -> Task:
        """Run `func` (cancelling the task before); `kind` names the kind of work ("sweep", "open", ...)."""
        self.cancel()
        task = Task(func)
        self._task, self._on_success, self._kind = task, on_success, kind
        _RUNNING.add(task)
        self._mine.add(task)
        task.finished.connect(lambda t=task: _forget(t))
        task.progressed.connect(self._task_progressed)
        task.succeeded.connect(self._task_succeeded)
        task.failed.connect(self._task_failed)
        task.cancelled.connect(self._task_cancelled)
        self.started.emit(title)
        task.start()
        return task

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._end()
            self.cancelled.emit()
            self.finished.emit()

    def wait(self, ms: int = 5000) -> None:
        """Wait for the threads this runner started (cancelled ones included)."""
        for task in list(self._mine):
            if task in _RUNNING:
                task.wait(ms)
        self._mine = {t for t in self._mine if t in _RUNNING}

    def _live(self) -> bool:
        return self.sender() is self._task and self._task is not None

    def _task_progressed(self, fraction: float) -> None:
        if self._live():
            self.progressed.emit(fraction)

    def _task_succeeded(self, result) -> None:
        if self._live():
            callback = self._on_success
            self._end()
            if callback is not None:
                callback(result)
            self.succeeded.emit(result)
            self.finished.emit()

    def _task_failed(self, message: str) -> None:
        if self._live():
            self._end()
            self.failed.emit(message)
            self.finished.emit()

    def _task_cancelled(self) -> None:
        if self._live():
            self._end()
            self.cancelled.emit()
            self.finished.emit()

    def _end(self) -> None:
        self._task, self._on_success, self.last_kind = None, None, self._kind


class ProgressPanel(QWidget):
    """Label + progress bar + Cancel for the status bar; hidden when nothing runs."""

    def __init__(self, runner: TaskRunner, parent=None):
        super().__init__(parent)
        self.label = QLabel()
        self.bar = QProgressBar()
        self.bar.setRange(0, 1000)
        self.bar.setMaximumWidth(220)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(runner.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for w in (self.label, self.bar, self.cancel_button):
            layout.addWidget(w)
        runner.started.connect(self._start)
        runner.progressed.connect(lambda f: self.bar.setValue(int(f * 1000)))
        runner.finished.connect(self.hide)
        self.hide()

    def _start(self, title: str) -> None:
        self.label.setText(title)
        self.bar.setValue(0)
        self.show()
