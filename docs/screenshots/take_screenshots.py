"""Take the user-doc screenshots: run under Xvfb,
    xvfb-run -s "-screen 0 1600x1000x24" python docs/screenshots/take_screenshots.py [WORKBOOK.xlsx ...]
Writes docs/screenshots/<prefix>_<tab>.png (window 1600x1000) and <prefix>_<tab>_1300x800.png (the
smallest supported window) of every tab for the default scenario and every workbook given (default:
every samples/*.xlsx); the Catalog tab (the same shipped catalog everywhere) for the default only."""
from __future__ import annotations

import glob
import io
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(HERE)))
os.environ.setdefault("XDG_CONFIG_HOME", tempfile.mkdtemp())
os.environ.setdefault("XDG_DATA_HOME", tempfile.mkdtemp())

from PySide6.QtCore import QBuffer, QByteArray, QEventLoop, QIODevice, QPointF, Qt, QTimer  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QMessageBox  # noqa: E402

from tcoapp.gui.app import create_window  # noqa: E402


def pump(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def save(window, path: str) -> None:
    """The window as a 256-colour PNG (a quarter of the size of a true-colour one, and sharp: no dithering).
    The palette is the picture's own (Pillow's median cut): Qt's fixed colour cube turned the charts'
    translucent plan colours into other colours (a blue band filled cyan, a red one yellow)."""
    image = window.grab().toImage()
    try:
        from PIL import Image
    except ImportError:
        image.convertToFormat(QImage.Format_Indexed8, Qt.AvoidDither | Qt.ThresholdDither).save(path)
        return
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.WriteOnly)
    image.save(buffer, "PNG")
    picture = Image.open(io.BytesIO(bytes(data))).convert("RGB")
    picture.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(path, optimize=True)


TABS = ("decision", "compare", "performance", "economics", "bridge", "catalog")


def tab_widget(window, name: str):
    """The window's tab `name` (by its widget, not its position)."""
    return {"decision": window.decision, "compare": window.compare, "performance": window._performance_tab,
            "economics": window._economics_tab, "bridge": window._bridge_tab, "catalog": window.catalog,
            "uncertainty": window._uncertainty_tab}[name]
SIZES = ((1600, 1000, ""), (1300, 800, "_1300x800"))


def shoot(window, prefix: str, suffix: str = "") -> None:
    names = TABS + (("uncertainty",) if window.document.scenario.uncertainty else ())
    for name in names:
        if name == "catalog" and prefix != "default":
            continue
        window.tabs.setCurrentIndex(window.tabs.indexOf(tab_widget(window, name)))
        pump(400)
        if name in ("performance", "uncertainty"):
            window.runner.wait(20000)
            pump(600)
        path = os.path.join(HERE, f"{prefix}_{name}{suffix}.png")
        save(window, path)
        print(path)


def shoot_frontier_click(window) -> None:
    """Hover a frontier point (its configuration shows below the charts), click it (it becomes the
    current plan's operating point), and take the picture."""
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    pump(300)
    window.runner.wait(20000)
    pump(300)
    view = window.performance
    if view.sweep is None:
        return
    i = int(view.sweep.pareto_indices[len(view.sweep.pareto_indices) // 3])
    box = view.p_front.getPlotItem().getViewBox()
    x, y = view.front_axes.x([view.sweep.tokens_per_s_per_user[i]]), view.front_axes.y([view.sweep.tokens_per_s_per_device[i]])
    scene = box.mapViewToScene(QPointF(float(x[0]), float(y[0])))   # axis coordinates: log10 on a log axis
    point = view.p_front.mapFromScene(scene)
    QTest.mouseMove(view.p_front.viewport(), point)
    pump(500)
    QMessageBox.question = staticmethod(lambda *a, **k: QMessageBox.Yes)   # "Replace the target?": yes
    QTest.mouseClick(view.p_front.viewport(), Qt.LeftButton, Qt.NoModifier, point)
    pump(500)
    path = os.path.join(HERE, "frontier_hover_click.png")
    save(window, path)
    print(path)


def main() -> int:
    app = QApplication.instance() or QApplication(sys.argv[:1])
    targets = [(None, "default")] + [(p, os.path.splitext(os.path.basename(p))[0]) for p in
                                      (sys.argv[1:] or sorted(glob.glob(os.path.join(HERE, "..", "..", "samples", "*.xlsx"))))]
    for path, prefix in targets:
        for width, height, suffix in SIZES:
            window = create_window(path)
            window.resize(width, height)
            window.show()
            pump(500)
            shoot(window, prefix, suffix)
            if path is None and not suffix:
                shoot_frontier_click(window)
            window.document.undo_stack.setClean()
            window.close()
    app.quit()
    sys.stdout.flush()
    os._exit(0)  # skip interpreter teardown of Qt objects


if __name__ == "__main__":
    raise SystemExit(main())
