"""Desktop app benchmarks (README.md, "Benchmarks": each prints beside a baseline of the same run).

gui_startup_s: `python -m tcoapp` (the default scenario) from process start to the main window's first
paint delivered (the window and every widget in it painted; the app prints its process age at the last
paint event of that pass when TCOAPP_SMOKE_EXIT_MS is set: gui/app.py), median of 5
runs; baseline: a bare PySide6 QMainWindow shown the same way, its runs alternating with the app's
(the floor drifts by tens of ms over minutes on these machines; alternating cancels the drift). What
shows first is the window's frame (gui/main_window.py): the menus, every tab's title, the plan editor's
dock and the status bar, the Decision tab and the editor reading "Loading the engine…" (Qt only: numpy
and the engine load after that paint). The next figure is not hidden:
gui_window_filled_s: the same start until the frame, filled with the document (the plan editor and the
Decision tab built), has painted again (TCOAPP_FILLED); the other tabs build their views the first time
they are shown (gui/lazy_tab.py). The plans' results are computed off the GUI thread from the next
turn of the event loop (gui/first_compute.py; the engine's compute modules load there), so at this
moment every view reads "computing…". That computation is measured by the next figure, not hidden:
gui_first_results_s: the same start until the computed results of every plan are in the document
and the visible tab has drawn them (TCOAPP_SMOKE_RESULTS=1); same baseline.
Both run with the bytecode cache (the environment may set PYTHONDONTWRITEBYTECODE; the runs use a
cache in a temporary directory, filled by one untimed warm-up run, as an installed app has its
.pyc files); the baseline runs the same way.
gui_edit_redraw_median_ms / _p95_ms: 8 plans; one input edit through the document (recompute of
every plan via the engine, cached where unchanged) until the visible tab (Economics: four charts and
the years table) has its new data and Qt has painted what changed: turns of the event loop until one
paints nothing more (as the app's own event loop paints; every edit must repaint the Economics tab, or
the benchmark fails; `widgets_painted_per_edit` says how many widgets did). Widgets the edit did not
change (labels, lists, frames) are not forced to repaint. The built but hidden Performance tab (and the
Decision tab) is only marked stale, and redraws when it is next shown (gui/redraw.py). Edits cycle
through finance, workload and serving inputs. Timing starts once the window has finished its first
show (its first paint is not an edit's cost). Baseline: the same edits through a second document with
no window, each edit timed right after the window's (alternating: a machine getting slower or faster
during the run moves both alike); `ratio` is the value over the baseline.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUNS = 5
EDITS = 60

_FLOOR = r"""
import os, time
from PySide6.QtWidgets import QApplication, QMainWindow
from PySide6.QtCore import QEvent, QObject, QTimer
app = QApplication([])
w = QMainWindow(); w.resize(1500, 940)
def age():
    with open("/proc/self/stat") as f: start = float(f.read().rsplit(")", 1)[1].split()[19])
    with open("/proc/uptime") as f: up = float(f.read().split()[0])
    return up - start / os.sysconf("SC_CLK_TCK")
class FirstPaint(QObject):   # as the app (gui/app.py): the age at the last paint event of the first pass
    age_s = None
    def eventFilter(self, obj, event):
        if event.type() == QEvent.Paint and obj.isWidgetType() and obj.window() is w:
            if self.age_s is None:
                QTimer.singleShot(0, self.done)
            self.age_s = age()
        return False
    def done(self):
        print("TCOAPP_SHOWN %.3f" % self.age_s, flush=True)
        app.quit()
watcher = FirstPaint()
app.installEventFilter(watcher)
w.show()
app.exec()
"""


_PYCACHE = tempfile.mkdtemp(prefix="tcoapp-bench-pyc-")


def _env(**extra) -> dict:
    tmp = tempfile.mkdtemp(prefix="tcoapp-bench-")
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"),
               TCOAPP_SMOKE_EXIT_MS="0", XDG_CONFIG_HOME=tmp, XDG_DATA_HOME=tmp, PYTHONPYCACHEPREFIX=_PYCACHE, **extra)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _age_s(args: list[str], marker: str = "TCOAPP_SHOWN", **extra) -> float:
    out = subprocess.run([sys.executable, *args], cwd=ROOT, env=_env(**extra), capture_output=True, text=True,
                         timeout=300).stdout
    for line in out.splitlines():
        if line.startswith(marker):
            return float(line.split()[1])
    raise RuntimeError(f"the app did not report {marker}: {out[-300:]!r}")


FLOOR_WINDOW = "bare PySide6 QMainWindow shown (interpreter + Qt floor)"


def _interleaved(app_args: list[str], marker: str = "TCOAPP_SHOWN", **extra) -> tuple[float, float]:
    """(median app age, median floor age) of RUNS starts each, the app and the floor alternating, so
    that a machine getting slower or faster during the run moves both alike (the ratio is the figure)."""
    _age_s(["-c", _FLOOR])          # warm-up: the bytecode caches
    _age_s(app_args, marker, **extra)
    app, floor = [], []
    for _ in range(RUNS):
        app.append(_age_s(app_args, marker, **extra))
        floor.append(_age_s(["-c", _FLOOR]))
    return statistics.median(app), statistics.median(floor)


def gui_startup_s() -> dict:
    value, floor = _interleaved(["-m", "tcoapp"])
    return {"value": round(value, 3), "unit": "s", "baseline": round(floor, 3), "baseline_name": FLOOR_WINDOW,
            "target": 0.6}


def gui_window_filled_s() -> dict:
    value, floor = _interleaved(["-m", "tcoapp"], "TCOAPP_FILLED")
    return {"value": round(value, 3), "unit": "s", "baseline": round(floor, 3), "baseline_name": FLOOR_WINDOW,
            "target": None}


def gui_first_results_s() -> dict:
    value, floor = _interleaved(["-m", "tcoapp"], "TCOAPP_RESULTS", TCOAPP_SMOKE_RESULTS="1")
    return {"value": round(value, 3), "unit": "s", "baseline": round(floor, 3), "baseline_name": FLOOR_WINDOW,
            "target": None}


_TIMES: list[float] = []
_FLOOR_TIMES: list[float] = []
_PAINTS: list[int] = []
EDIT_KEYS = [("utilization", (0.6, 0.7)), ("electricity_usd_per_kwh", (0.08, 0.12)),
             ("output_tokens", (900, 1024)), ("tensor_parallel", (2, 1))]


def _edit(doc, i: int) -> str | None:
    key, values = EDIT_KEYS[i % len(EDIT_KEYS)]
    plan = (i // len(EDIT_KEYS)) % 8
    new = values[1] if getattr(doc.scenario.plans[plan], key) == values[0] else values[0]
    return doc.set_plan_value(plan, key, new)


def _eight_plans(doc) -> None:
    while len(doc.scenario.plans) < 8:
        doc.add_plan(len(doc.scenario.plans) % 5)


def _p95(times: list[float]) -> float:
    times = sorted(times)
    return times[min(len(times) - 1, int(round(0.95 * (len(times) - 1))))]


def _settle(app, rounds: int = 10) -> None:
    """Let the window finish showing: the events its first show posts (resizes, layouts, the first
    paint of each chart) take several turns of the event loop."""
    for _ in range(rounds):
        app.processEvents()
        time.sleep(0.01)


def _paint_counter(app, widgets):
    """An event filter counting the paint events of `widgets` (and their children), installed on the app."""
    from PySide6.QtCore import QEvent, QObject

    class PaintCounter(QObject):
        count = 0

        def eventFilter(self, obj, event):
            if event.type() == QEvent.Paint and any(w is obj or w.isAncestorOf(obj) for w in widgets):
                self.count += 1
            return False
    counter = PaintCounter()
    app.installEventFilter(counter)
    return counter


def _paint_what_changed(app, painted, rounds: int = 5) -> None:
    """Turns of the event loop until one paints nothing more: Qt paints what the edit changed (as the app's
    event loop does), including what a view drew in a later turn (a zero-timer), and nothing else."""
    for _ in range(rounds):
        before = painted.count
        app.processEvents()
        if painted.count == before:
            return


def _edit_times() -> tuple[list[float], list[float]]:
    """(the edits with the window, the same edits through a document with no window), each edit of one
    timed right after the same edit of the other (a machine getting slower or faster during the run moves
    both alike)."""
    if _TIMES:
        return _TIMES, _FLOOR_TIMES
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.path.insert(0, ROOT)
    from PySide6.QtWidgets import QApplication

    from tcoapp.gui.app import create_window
    from tcoapp.gui.document import Document
    from tcoapp.io.default_scenario import default_scenario

    app = QApplication.instance() or QApplication([])
    window = create_window(None)
    window.resize(1500, 940)
    doc, bare = window.document, Document(default_scenario(), None)
    _eight_plans(doc)
    _eight_plans(bare)
    window.show()
    window.performance, window.economics   # build both chart views (they then follow every edit)
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))   # the economics tab is the one painted after each edit
    _settle(app)   # the tab's first layout and paint finished: it is not an edit's cost
    painted = _paint_counter(app, [window.economics])
    for i in range(EDITS):
        before = painted.count
        start = time.perf_counter()
        error = _edit(doc, i)
        _paint_what_changed(app, painted)
        _TIMES.append((time.perf_counter() - start) * 1000.0)
        if error:
            raise RuntimeError(f"benchmark edit rejected: {error}")
        if painted.count == before:
            raise RuntimeError(f"benchmark edit {i} did not repaint the Economics tab")
        _PAINTS.append(painted.count - before)
        start = time.perf_counter()
        _edit(bare, i)
        _FLOOR_TIMES.append((time.perf_counter() - start) * 1000.0)
    doc.undo_stack.setClean()
    window.close()
    return _TIMES, _FLOOR_TIMES


FLOOR_NAME = "the same edits through the document alone (recompute + undo step, no views)"


def gui_edit_redraw_median_ms() -> dict:
    times, floor = _edit_times()
    return {"value": round(statistics.median(times), 2), "unit": "ms", "baseline": round(statistics.median(floor), 2),
            "baseline_name": FLOOR_NAME, "target": 30, "ratio": round(statistics.median(times) / statistics.median(floor), 3),
            "widgets_painted_per_edit": round(statistics.mean(_PAINTS), 2)}


def gui_edit_redraw_p95_ms() -> dict:
    times, floor = _edit_times()
    return {"value": round(_p95(times), 2), "unit": "ms", "baseline": round(_p95(floor), 2),
            "baseline_name": FLOOR_NAME, "target": 30, "ratio": round(_p95(times) / _p95(floor), 3),
            "widgets_painted_per_edit": round(statistics.mean(_PAINTS), 2)}


BENCHMARKS = {
    "gui_startup_s": gui_startup_s,
    "gui_window_filled_s": gui_window_filled_s,
    "gui_first_results_s": gui_first_results_s,
    "gui_edit_redraw_median_ms": gui_edit_redraw_median_ms,
    "gui_edit_redraw_p95_ms": gui_edit_redraw_p95_ms,
}


if __name__ == "__main__":   # per-edit times, for profiling
    print(sorted(round(t, 1) for t in _edit_times()[0]))
