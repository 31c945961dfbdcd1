"""Start the desktop app: `tcoapp` (default scenario) or `tcoapp FILE.xlsx`.

TCOAPP_SMOKE_EXIT_MS=N makes the app quit by itself N ms after the main window is shown (start-up
smoke test and benchmark); it then prints "TCOAPP_SHOWN <seconds since the process started>" to
stdout when the window is first shown.
"""
from __future__ import annotations

import os
import sys
import time

_T0 = time.perf_counter()


def _process_age_s() -> float:
    """Seconds since this process started (Linux: /proc; elsewhere since this module was imported)."""
    try:
        with open("/proc/self/stat") as handle:
            start_ticks = float(handle.read().rsplit(")", 1)[1].split()[19])
        with open("/proc/uptime") as handle:
            uptime = float(handle.read().split()[0])
        return uptime - start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return time.perf_counter() - _T0


def run_app(path: str | None = None, argv: list[str] | None = None) -> int:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName("tcoapp")
    app.setApplicationName("tcoapp")
    window = create_window(path)
    smoke = os.environ.get("TCOAPP_SMOKE_EXIT_MS")
    window.show()
    if smoke is not None:
        def shown():
            print(f"TCOAPP_SHOWN {_process_age_s():.3f}", flush=True)
            QTimer.singleShot(int(smoke), _quit_without_questions(window, app))
        QTimer.singleShot(0, shown)
    else:
        QTimer.singleShot(0, lambda: offer_recovery(window, QMessageBox))
    return app.exec()


def _quit_without_questions(window, app):
    def quit_now():
        window.document.undo_stack.setClean()
        window.close()
        app.quit()
    return quit_now


def create_window(path: str | None = None):
    """The main window on `path` (or the default scenario); a file that cannot be opened is
    reported and the default scenario is shown instead."""
    from ..engine.errors import TcoError
    from ..io.default_scenario import default_scenario
    from .document import Document
    from .main_window import MainWindow

    problem = None
    scenario = None
    if path:
        from .files import read_workbook
        try:
            scenario = read_workbook(path)
        except TcoError as exc:
            problem = f"Cannot open {os.path.basename(path)}:\n{exc}"
    document = Document(scenario or default_scenario(), os.path.abspath(path) if scenario is not None else None)
    window = MainWindow(document)
    if scenario is not None:
        window.settings.add_recent(path)
    if problem:
        from PySide6.QtCore import QTimer
        QTimer.singleShot(0, lambda: window.show_problem(problem, "Open failed"))
    return window


def offer_recovery(window, message_box) -> bool:
    """Offer the scenario of a session that ended without saving; True when it was restored."""
    from . import autosave

    pending = autosave.pending_recovery()
    if pending is None:
        return False
    scenario, path = pending
    answer = message_box.question(
        window, "Recover unsaved work",
        "tcoapp did not exit cleanly last time. Recover the unsaved scenario"
        + (f" ({os.path.basename(path)})" if path else "") + "?",
        message_box.Yes | message_box.No, message_box.Yes)
    if answer != message_box.Yes:
        autosave.discard()
        return False
    window.document.reset(window.document.scenario, path)
    window.document.push(scenario, "Recovered unsaved work")
    return True
