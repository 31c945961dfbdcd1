"""Start the desktop app: `tcoapp` (default scenario) or `tcoapp FILE.xlsx`.

TCOAPP_SMOKE_EXIT_MS=N makes the app quit by itself N ms after the main window is shown (start-up
smoke test and benchmark); it then prints "TCOAPP_SHOWN <seconds since the process started>" to
stdout once the window has first painted (the window and the widgets in it: what a user waits for). With TCOAPP_SMOKE_RESULTS=1 as well it waits instead for the
plans' results (computed off the GUI thread after the window shows, gui/first_compute.py) to be in
the views, prints "TCOAPP_RESULTS <seconds since the process started>", then quits N ms later.
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


NO_DISPLAY = ("tcoapp: no display to open the desktop app on (DISPLAY and WAYLAND_DISPLAY are not set).\n"
              "Run it in a desktop session or over `ssh -X`, or use the command line without a display:\n"
              "  tcoapp compute [FILE.xlsx] --json      every metric of every plan\n"
              "  tcoapp compute FILE.xlsx --out RESULT.xlsx\n"
              "(QT_QPA_PLATFORM=offscreen runs the app without showing it.)")
MISSING_XCB = ("tcoapp: the desktop app needs the system library {lib} for Qt's X11 platform, and it is not "
               "installed.\nInstall it (Debian / Ubuntu: sudo apt-get install {package}; the README lists every Qt "
               "library), or use the command line, which needs no display:\n  tcoapp compute [FILE.xlsx] --json")
XCB_LIBRARIES = (("libxcb-cursor.so.0", "libxcb-cursor0"), ("libxkbcommon-x11.so.0", "libxkbcommon-x11-0"))


def display_problem(environ=os.environ, platform: str = sys.platform, loadable=None) -> str | None:
    """Why the desktop app cannot open a window here (before Qt aborts with its own message), or None.

    Linux only: no DISPLAY / WAYLAND_DISPLAY and no QT_QPA_PLATFORM chosen, or (for Qt's X11 platform)
    a system library that Qt's xcb plugin needs and that cannot be loaded."""
    if not platform.startswith("linux"):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "")
    if chosen and not chosen.startswith("xcb"):
        return None
    wayland = bool(environ.get("WAYLAND_DISPLAY")) and not chosen
    if not environ.get("DISPLAY") and not wayland:
        return NO_DISPLAY
    if wayland:
        return None
    loadable = loadable or _loadable
    for lib, package in XCB_LIBRARIES:
        if not loadable(lib):
            return MISSING_XCB.format(lib=lib, package=package)
    return None


def _loadable(name: str) -> bool:
    import ctypes
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def run_app(path: str | None = None, argv: list[str] | None = None) -> int:
    _quit_on_interrupt()
    problem = display_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from .main_window import MainWindow

    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv[:1])
    app.setOrganizationName("tcoapp")
    app.setApplicationName("tcoapp")
    window = MainWindow()   # the frame: shown before numpy and the engine load (main_window.py)
    smoke = os.environ.get("TCOAPP_SMOKE_EXIT_MS")
    window.show()
    quit_later = lambda: QTimer.singleShot(int(smoke), _quit_without_questions(window, app))  # noqa: E731

    def results_in():
        print(f"TCOAPP_RESULTS {_process_age_s():.3f}", flush=True)
        quit_later()

    def filled(age_s: float):
        print(f"TCOAPP_FILLED {age_s:.3f}", flush=True)
        computing = window.first_compute
        if not os.environ.get("TCOAPP_SMOKE_RESULTS"):
            quit_later()
        elif computing is None or not window.document.computing:   # (nothing to compute, or already in)
            results_in()
        else:
            computing.finished.connect(results_in)

    def fill():
        try:
            fill_window(window, path, compute=False)
            window.compute_later()
        except Exception as exc:  # noqa: BLE001 - called from the event loop, which would print it and go on
            _could_not_start(app, window, exc, ask=smoke is None)
            return
        if smoke is not None:
            _after_first_paint(app, window, filled)
        else:
            from PySide6.QtWidgets import QMessageBox
            QTimer.singleShot(0, lambda: offer_recovery(window, QMessageBox))

    def shown(age_s: float):
        if smoke is not None:
            print(f"TCOAPP_SHOWN {age_s:.3f}", flush=True)
        fill()
    # (the smoke run's figure is a paint's, never the fallback's)
    _after_first_paint(app, window, shown, None if smoke is not None else FILL_ANYWAY_MS)
    return app.exec()


def _could_not_start(app, window, exc: BaseException, ask: bool) -> None:
    """Filling the frame failed (the engine would not load, the document could not be built): the error on
    stderr with its traceback, in a message box unless `ask` is False (a smoke run), and the app ends with
    exit code 1, not a frame whose menus stay disabled."""
    import traceback
    traceback.print_exception(exc, file=sys.stderr)
    if ask:
        from PySide6.QtWidgets import QMessageBox
        QMessageBox.critical(window, "tcoapp could not start",
                             f"tcoapp could not load its engine or the document:\n\n{type(exc).__name__}: {exc}")
    app.exit(1)


FILL_ANYWAY_MS = 1000   # a frame not painted by then (shown minimized, on another desktop) is filled all the same


def _after_first_paint(app, window, report, anyway_ms: int | None = None) -> None:
    """`report(age_s)` once the window's next paint has been delivered: the process's age at the last paint event
    of that pass (the window and every widget in it painted, what a user waits for; the turn of the event
    loop that shows a window runs before it paints). The same measure as the benchmark's bare window.
    `anyway_ms`: report (the age then) after that long without a paint, once."""
    from PySide6.QtCore import QEvent, QObject, QTimer

    class FirstPaint(QObject):
        age_s = None
        reported = False

        def eventFilter(self, obj, event):
            if event.type() == QEvent.Paint and obj.isWidgetType() and obj.window() is window:
                if self.age_s is None:
                    QTimer.singleShot(0, self.done)   # the first pass ends before the event loop's next turn
                self.age_s = _process_age_s()
            return False

        def done(self):
            if not self.reported:
                self.reported = True
                app.removeEventFilter(self)
                report(self.age_s if self.age_s is not None else _process_age_s())
    watcher = FirstPaint(window)
    app.installEventFilter(watcher)
    if anyway_ms is not None:
        QTimer.singleShot(anyway_ms, watcher, watcher.done)


def _load_engine_first() -> None:
    """Import numpy, the engine and the default scenario's modules that the filled window needs (the app: after
    its frame has painted; main_window.py)."""
    from ..engine.pipeline import normalize, plan_result  # noqa: F401
    from ..engine.decision import summary  # noqa: F401
    from ..engine.serving import freeze  # noqa: F401
    from ..engine.uncertainty import plan_rows  # noqa: F401
    from ..engine.performance import measured  # noqa: F401
    from ..io import default_scenario  # noqa: F401
    from ..present import decision_text, agentic_text  # noqa: F401


def _quit_on_interrupt() -> None:
    """Ctrl+C in the terminal, from the start of the desktop app on, ends the process at once (as the
    signal does by default), without a Python traceback: a KeyboardInterrupt while PySide6 loads makes
    shiboken abort with "Fatal Python error" and a traceback, and in Qt's event loop it would be
    raised inside whatever Python slot runs next. Unsaved edits are in the autosave, offered back at
    the next start. (The headless commands turn Ctrl+C into one line and exit 130: `tcoapp.cli`.)"""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _quit_without_questions(window, app):
    def quit_now():
        window.document.undo_stack.setClean()
        window.close()
        app.quit()
    return quit_now


def create_window(path: str | None = None, compute: bool = True):
    """The main window on `path` (or the default scenario); a file that cannot be opened is
    reported and the default scenario is shown instead; a file open in another tcoapp is shown as
    an unsaved copy. `compute` False: the plans are left to compute (first_compute.py)."""
    from .main_window import MainWindow

    window = MainWindow()
    fill_window(window, path, compute)
    return window


def fill_window(window, path: str | None = None, compute: bool = True) -> None:
    """Fill the frame `window` (main_window.py) with the document on `path`, as `create_window` says."""
    _load_engine_first()
    from ..engine.core.errors import TcoError
    from ..io.default_scenario import default_scenario
    from .document import Document
    from .document_files import take_path

    problem = None
    scenario = None
    if path:
        from .files import read_workbook
        try:
            scenario = read_workbook(path)
        except TcoError as exc:
            problem = f"Cannot open {os.path.basename(path)}:\n{exc}"
    window.fill(Document(scenario or default_scenario(), None, compute=compute))
    if scenario is not None:
        take_path(window, path, scenario, deferred=True)
        window.settings.add_recent(path)
    if problem:
        from .soon import call_soon
        call_soon(window, lambda: window.show_problem(problem, "Open failed"))
    elif scenario is not None:
        window.show_read_notes(path, scenario)


def offer_recovery(window, message_box) -> bool:
    """Offer the work of sessions that ended without saving; True when one was restored."""
    from .document_files import offer_recovery as offer

    return offer(window, message_box)
