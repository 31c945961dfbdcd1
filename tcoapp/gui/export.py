"""Export one chart to PNG or SVG with pyqtgraph.exporters (by the file's extension)."""
from __future__ import annotations

import os

from .plotting import pg  # noqa: F401  (pyqtgraph configured after PySide6)
import pyqtgraph.exporters as exporters

PNG_WIDTH = 1600


def export_plot(plot_item, path: str) -> str | None:
    """Write the chart; returns an error message or None."""
    ext = os.path.splitext(path)[1].lower()
    try:
        if ext == ".svg":
            exporters.SVGExporter(plot_item).export(path)
        elif ext == ".png":
            exporter = exporters.ImageExporter(plot_item)
            exporter.parameters()["width"] = PNG_WIDTH
            exporter.export(path)
        else:
            return f"{os.path.basename(path)}: choose a .png or .svg file name"
    except Exception as exc:  # shown to the user, never a traceback
        return f"Cannot export to {path}: {exc}"
    if not os.path.exists(path):
        return f"Cannot export to {path}"
    return None
