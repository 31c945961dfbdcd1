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

from ..engine.errors import Cancelled, TcoError

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


class TaskRunner(QObject):
    """One task at a time; signals only for the live task."""

    started = Signal(str)
    progressed = Signal(float)
    succeeded = Signal(object)
    failed = Signal(str)
    cancelled = Signal()
    finished = Signal()

    def __init__(self, parent=None):
        super().__init__(parent)
        self._task: Task | None = None
        self._alive: set[Task] = set()   # every started thread, until it has finished

    @property
    def running(self) -> bool:
        return self._task is not None

    def start(self, title: str, func: Callable[..., Any], on_success: Callable[[Any], None] | None = None) -> Task:
        self.cancel()
        task = Task(func)
        self._task = task
        self._alive.add(task)
        task.progressed.connect(lambda f: self._relay(task, self.progressed, f))
        task.succeeded.connect(lambda r: self._done(task, self.succeeded, r, on_success))
        task.failed.connect(lambda m: self._done(task, self.failed, m))
        task.cancelled.connect(lambda: self._done(task, self.cancelled))
        task.finished.connect(lambda: self._reap(task))
        self.started.emit(title)
        task.start()
        return task

    def cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self._task = None
            self.cancelled.emit()
            self.finished.emit()

    def wait(self, ms: int = 5000) -> None:
        for task in list(self._alive):
            task.wait(ms)

    def _relay(self, task, signal, *args):
        if task is self._task:
            signal.emit(*args)

    def _done(self, task, signal, *args):
        if task is not self._task:
            return
        self._task = None
        callback = args[1] if len(args) > 1 else None
        if callback is not None:
            callback(args[0])
        signal.emit(*args[:1])
        self.finished.emit()

    def _reap(self, task):
        self._alive.discard(task)
        task.deleteLater()


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
