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
    reported and the default scenario is shown instead; a file open in another tcoapp is shown as
    an unsaved copy."""
    from ..engine.errors import TcoError
    from ..io.default_scenario import default_scenario
    from .document import Document
    from .document_files import take_path
    from .main_window import MainWindow

    problem = None
    scenario = None
    if path:
        from .files import read_workbook
        try:
            scenario = read_workbook(path)
        except TcoError as exc:
            problem = f"Cannot open {os.path.basename(path)}:\n{exc}"
    window = MainWindow(Document(scenario or default_scenario(), None))
    if scenario is not None:
        take_path(window, path, scenario, deferred=True)
        window.settings.add_recent(path)
    if problem:
        from PySide6.QtCore import QTimer
        QTimer.singleShot(0, lambda: window.show_problem(problem, "Open failed"))
    return window


def offer_recovery(window, message_box) -> bool:
    """Offer the work of sessions that ended without saving; True when one was restored."""
    from .document_files import offer_recovery as offer

    return offer(window, message_box)
