"""Export one chart to PNG or SVG with pyqtgraph.exporters (by the file's extension)."""
from __future__ import annotations

import os

from .plotting import pg  # pyqtgraph configured after PySide6
import pyqtgraph.exporters as exporters

PNG_WIDTH = 1600


def export_plot(plot_item, path: str) -> str | None:
    """Write the chart; returns an error message or None."""
    ext = os.path.splitext(path)[1].lower()
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
        else:
            return f"{os.path.basename(path)}: choose a .png or .svg file name"
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
