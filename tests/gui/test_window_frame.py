"""The app shows its window's frame before numpy and the engine load, then fills it (gui/main_window.py,
gui/app.py); the scipy modules the first results need load in the worker, not on the GUI thread."""
from __future__ import annotations

import os
import subprocess
import sys

from tcoapp.gui.decision_view import DecisionView
from tcoapp.gui.document import Document
from tcoapp.gui.main_window import LOADING, MainWindow
from tcoapp.io.default_scenario import default_scenario

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# the app's entry point, recording which modules are loaded at the first paint and on which thread scipy loads
_PROBE = r"""
import sys, threading
class Finder:
    def find_spec(self, name, path=None, target=None):
        if name == "scipy":
            print("SCIPY_THREAD", threading.current_thread() is threading.main_thread(), flush=True)
        return None
sys.meta_path.insert(0, Finder())
import tcoapp.gui.app as app_module
first = app_module._after_first_paint
seen = []
def probe(app, window, report, *args):
    def reported(age_s):
        if not seen:
            seen.append(1)
            print("AT_FIRST_PAINT", "numpy" in sys.modules, "tcoapp.engine.pipeline" in sys.modules, flush=True)
        report(age_s)
    first(app, window, reported, *args)
app_module._after_first_paint = probe
from tcoapp.cli import main
raise SystemExit(main([]))
"""


def _run_probe(tmp_path) -> str:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TCOAPP_SMOKE_EXIT_MS="0", TCOAPP_SMOKE_RESULTS="1",
               XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path), PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-c", _PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_the_frame_paints_before_numpy_and_the_engine_load_and_scipy_loads_off_the_gui_thread(tmp_path):
    out = _run_probe(tmp_path)
    assert "AT_FIRST_PAINT False False" in out, out
    for marker in ("TCOAPP_SHOWN", "TCOAPP_FILLED", "TCOAPP_RESULTS"):
        assert marker in out, out
    assert out.index("TCOAPP_SHOWN") < out.index("TCOAPP_FILLED") < out.index("TCOAPP_RESULTS")
    assert "SCIPY_THREAD True" not in out, out   # the Decision tab's draws find scipy.special loaded


def test_the_frame_is_disabled_until_filled_and_filling_puts_the_views_in_place(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    assert window.document is None
    assert not window.menuBar().isEnabled() and not window.tabs.tabBar().isEnabled()
    titles = [window.tabs.tabText(i) for i in range(window.tabs.count())]
    assert titles[0] == "Decision" and window.tabs.currentIndex() == 0
    assert window.statusBar().currentMessage() == LOADING
    window.fill(Document(default_scenario(), None))
    assert window.menuBar().isEnabled() and window.tabs.tabBar().isEnabled()
    assert [window.tabs.tabText(i) for i in range(window.tabs.count())] == titles
    assert isinstance(window.tabs.widget(0), DecisionView) and window.tabs.currentWidget() is window.decision
    assert window.findChild(type(window.editor)) is window.editor
    edit = next(a for a in window.menuBar().actions() if a.text() == "&Edit").menu()
    assert [a.text().split()[0] for a in edit.actions()[:2]] == ["&Undo", "&Redo"]
    assert not any(t._view is not None for t in (window._compare_tab, window._performance_tab))   # still lazy


def test_a_frame_closed_before_it_is_filled_closes(qtbot):
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    assert window.close()


def test_a_frame_that_never_paints_is_reported_all_the_same_after_the_fallback(qtbot):
    from PySide6.QtWidgets import QApplication

    from tcoapp.gui.app import _after_first_paint
    window = MainWindow()   # never shown: no paint (as a window shown minimized)
    qtbot.addWidget(window)
    seen = []
    _after_first_paint(QApplication.instance(), window, seen.append, 50)
    qtbot.waitUntil(lambda: len(seen) == 1, timeout=5000)
    qtbot.wait(100)
    assert len(seen) == 1 and seen[0] > 0   # once


_FAILING_FILL = r"""
import tcoapp.gui.app as app_module
def broken(*args, **kwargs):
    raise RuntimeError("the engine would not load (probe)")
app_module.fill_window = broken
from tcoapp.cli import main
raise SystemExit(main([]))
"""


def test_a_frame_that_cannot_be_filled_ends_the_app_with_the_error_not_a_disabled_window(tmp_path):
    """Filling runs from the event loop after the first paint; an error there (the engine would not load)
    is printed with its traceback and ends the app with exit code 1 (before: Qt printed it and the frame
    stayed, its menus disabled, forever)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", TCOAPP_SMOKE_EXIT_MS="0",
               XDG_CONFIG_HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path), PYTHONPATH=ROOT)
    proc = subprocess.run([sys.executable, "-c", _FAILING_FILL], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert "RuntimeError: the engine would not load (probe)" in proc.stderr
    assert "Traceback" in proc.stderr
