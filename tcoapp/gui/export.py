"""Export one chart to PNG or SVG with pyqtgraph.exporters (by the file's extension), drawn into a
private temporary folder and then saved through the atomic save (io/atomic.py): a full disk or a
read-only folder keeps the old file."""
from __future__ import annotations

import os
import pathlib
import tempfile

from ..io.atomic import atomic_write

from .plotting import pg  # pyqtgraph configured after PySide6
import pyqtgraph.exporters as exporters

PNG_WIDTH = 1600


def export_plot(plot_item, path: str) -> str | None:
    """Write the chart; returns an error message or None."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".svg", ".png"):
        return f"{os.path.basename(path)}: choose a .png or .svg file name"
    with tempfile.TemporaryDirectory(prefix="tcoapp-chart-") as folder:
        drawn = os.path.join(folder, "chart" + ext)
        error = _draw(plot_item, drawn, ext)
        if error:
            return error.replace(drawn, path)
        data = pathlib.Path(drawn).read_bytes()
    try:
        atomic_write(path, lambda handle: handle.write(data))
    except Exception as exc:  # noqa: BLE001 - shown to the user, never a traceback
        return str(exc)
    return None


def _draw(plot_item, path: str, ext: str) -> str | None:
    """Draw the chart into `path` (a private temporary file); an error message or None."""
    hidden = _hide_empty_items(plot_item) if ext == ".svg" else []
    try:
        if ext == ".svg":
            try:
                exporters.SVGExporter(plot_item).export(path)
            except ValueError:   # pyqtgraph 0.14's SVG path rewriting fails on Qt >= 6.8 output
                _render_svg(plot_item, path)
        elif ext == ".png":
            exporter = exporters.ImageExporter(plot_item)
            exporter.parameters()["width"] = PNG_WIDTH
            exporter.export(path)
    except Exception as exc:  # shown to the user, never a traceback
        return f"Cannot export to {path}: {exc}"
    finally:
        for item in hidden:
            item.setVisible(True)
    if not os.path.exists(path):
        return f"Cannot export to {path}"
    return None


def _hide_empty_items(plot_item) -> list:
    """Visible data items without points (pyqtgraph's SVG exporter fails on empty paths)."""
    hidden = []
    for item in plot_item.items:
        if not item.isVisible():
            continue
        empty = False
        if isinstance(item, pg.PlotDataItem):
            x, _ = item.getData()
            empty = x is None or len(x) == 0
        elif isinstance(item, pg.ScatterPlotItem):
            empty = len(item.data) == 0
        elif isinstance(item, pg.BarGraphItem):
            width = item.opts.get("width")
            empty = width is None or len(width) == 0
        if empty:
            item.setVisible(False)
            hidden.append(item)
    return hidden


def _render_svg(plot_item, path: str) -> None:
    """SVG of the chart's scene area through Qt's own SVG generator (vector output)."""
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QPainter
    from PySide6.QtSvg import QSvgGenerator

    source = plot_item.sceneBoundingRect()
    generator = QSvgGenerator()
    generator.setFileName(path)
    generator.setSize(source.size().toSize())
    generator.setViewBox(QRectF(0, 0, source.width(), source.height()))
    generator.setTitle("tcoapp chart")
    painter = QPainter(generator)
    try:
        plot_item.scene().render(painter, QRectF(0, 0, source.width(), source.height()), source)
    finally:
        painter.end()
