"""Take the user-doc screenshots: run under Xvfb,
    xvfb-run -s "-screen 0 1600x1000x24" python docs/screenshots/take_screenshots.py [WORKBOOK.xlsx ...]
Writes docs/screenshots/<prefix>_<tab>.png for the default scenario and every workbook given
(default: every samples/*.xlsx)."""
from __future__ import annotations

import glob
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp())
os.environ.setdefault("XDG_DATA_HOME", tempfile.mkdtemp())

from PySide6.QtCore import QEventLoop, QPointF, Qt, QTimer  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from tcoapp.gui.app import create_window  # noqa: E402


def pump(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def shoot(window, prefix: str) -> None:
    names = ("compare", "performance", "economics", "catalog")
    if window.document.scenario.uncertainty:
        names += ("uncertainty",)
    for index, name in enumerate(names):
        window.tabs.setCurrentIndex(index)
        pump(400)
        if name in ("performance", "uncertainty"):
            window.runner.wait(20000)
            pump(600)
        path = os.path.join(HERE, f"{prefix}_{name}.png")
        window.grab().save(path)
        print(path)


def shoot_frontier_click(window) -> None:
    """Hover a frontier point (its configuration shows below the charts), click it (it becomes the
    current plan's operating point), and take the picture."""
    window.tabs.setCurrentIndex(1)
    pump(300)
    window.runner.wait(20000)
    pump(300)
    view = window.performance
    if view.sweep is None:
        return
    i = int(view.sweep.pareto_indices[len(view.sweep.pareto_indices) // 3])
    box = view.p_front.getPlotItem().getViewBox()
    scene = box.mapViewToScene(QPointF(view.sweep.tokens_per_s_per_user[i], view.sweep.tokens_per_s_per_device[i]))
    point = view.p_front.mapFromScene(scene)
    QTest.mouseMove(view.p_front.viewport(), point)
    pump(500)
    QTest.mouseClick(view.p_front.viewport(), Qt.LeftButton, Qt.NoModifier, point)
    pump(500)
    path = os.path.join(HERE, "frontier_hover_click.png")
    window.grab().save(path)
    print(path)


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    targets = [(None, "default")] + [(p, os.path.splitext(os.path.basename(p))[0]) for p in
                                      (sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "..", "..", "samples", "*.xlsx"))))]
    for path, prefix in targets:
        window = create_window(path)
        window.resize(1560, 960)
        window.show()
        pump(500)
        shoot(window, prefix)
        if path is None:
            shoot_frontier_click(window)
        window.document.undo_stack.setClean()
        window.close()
    app.quit()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown of Qt objects


if __name__ == "__main__":
    raise SystemExit(main())
