"""The decision report as a PDF (File > Export report, `tcoapp report FILE --out report.pdf`): the
HTML of `report_html` laid out by a QTextDocument, with its two charts drawn by QPainter, printed by
QPdfWriter (A4). The write is atomic: a temporary file next to the target, then a rename.

Needs a QGuiApplication (the CLI makes an offscreen one).
"""
from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QMarginsF, QPointF, QRectF, Qt, QUrl
from PySide6.QtGui import (
    QColor, QFont, QImage, QPageLayout, QPageSize, QPainter, QPdfWriter, QPen, QTextDocument,
)

from ..engine.decision.choice import decide
from ..present.decision_text import objective_label
from ..engine.core.number_format import money, money_short
from ..present.report_html import CHARTS, report_html
from .colors import PLAN_COLORS

CHART_W, CHART_H = 1280, 560
DEFAULT_DRAWS, DEFAULT_SEED = 2000, 0


def _color(i: int) -> QColor:
    return QColor(PLAN_COLORS[i % len(PLAN_COLORS)])


def _frame(painter: QPainter, title: str) -> QRectF:
    painter.fillRect(0, 0, CHART_W, CHART_H, QColor("white"))
    painter.setPen(QColor("#222"))
    font = QFont()
    font.setPixelSize(30)
    painter.setFont(font)
    painter.drawText(QRectF(0, 6, CHART_W, 40), Qt.AlignCenter, title)
    font.setPixelSize(24)
    painter.setFont(font)
    return QRectF(330, 60, CHART_W - 370, CHART_H - 130)


def objective_chart(names, values, title: str, fmt, slots=None) -> QImage:
    """Horizontal bars, best first: the ranking's objective per plan ('n/a' where none); the value
    axis labelled with the objective and its unit, ticks formatted as money."""
    image = QImage(CHART_W, CHART_H, QImage.Format_RGB32)
    painter = QPainter(image)
    area = _frame(painter, title)
    area = QRectF(area.left(), area.top(), area.width() - 120, area.height() - 20)
    finite = [v for v in values if v is not None and math.isfinite(v)]
    low, high = min(finite + [0.0]), max(finite + [0.0])
    high = high if high > low else low + 1.0
    x = lambda v: area.left() + area.width() * (v - low) / (high - low)  # noqa: E731
    step = area.height() / max(1, len(names))
    painter.setPen(QPen(QColor("#888"), 1))
    painter.drawLine(QPointF(x(0.0), area.top()), QPointF(x(0.0), area.bottom()))
    painter.drawLine(QPointF(area.left(), area.bottom()), QPointF(area.right(), area.bottom()))
    painter.setPen(QColor("#222"))
    for v in np.linspace(low, high, 5):
        painter.drawText(QRectF(x(v) - 90, area.bottom() + 4, 180, 30), Qt.AlignCenter, fmt(float(v)))
    for i, (name, value) in enumerate(zip(names, values)):
        y = area.top() + i * step
        painter.setPen(QColor("#222"))
        painter.drawText(QRectF(0, y, area.left() - 10, step), Qt.AlignRight | Qt.AlignVCenter, name[:21])
        if value is None or not math.isfinite(value):
            painter.drawText(QRectF(x(0.0) + 6, y, 400, step), Qt.AlignVCenter, "n/a")
            continue
        left, right = sorted((x(0.0), x(value)))
        painter.fillRect(QRectF(left, y + step * 0.15, right - left, step * 0.7), _color(slots[i] if slots else i))
        painter.drawText(QRectF(right + 6, y, 220, step), Qt.AlignVCenter, fmt(value))
    painter.end()
    return image


def cashflow_chart(names, series) -> QImage:
    """One line per plan: cumulative cash flow [USD] by year (years 0..n), axes labelled."""
    image = QImage(CHART_W, CHART_H, QImage.Format_RGB32)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.Antialiasing)
    area = _frame(painter, "Cumulative cash flow (USD) by year")
    area = QRectF(area.left() - 170, area.top(), area.width() - 170, area.height() - 30)
    values = [v for s in series for v in s if v is not None and math.isfinite(v)]
    low, high = (min(values + [0.0]), max(values + [0.0])) if values else (-1.0, 1.0)
    high = high if high > low else low + 1.0
    years = max((len(s) for s in series), default=1) - 1
    x = lambda t: area.left() + area.width() * t / max(1, years)  # noqa: E731
    y = lambda v: area.bottom() - area.height() * (v - low) / (high - low)  # noqa: E731
    painter.setPen(QPen(QColor("#888"), 1, Qt.DashLine))
    painter.drawLine(QPointF(area.left(), y(0.0)), QPointF(area.right(), y(0.0)))
    painter.setPen(QColor("#222"))
    for t in range(years + 1):
        painter.drawText(QRectF(x(t) - 30, area.bottom() + 4, 60, 30), Qt.AlignCenter, str(t))
    painter.drawText(QRectF(area.left(), area.bottom() + 32, area.width(), 30), Qt.AlignCenter, "Year")
    for v in np.linspace(low, high, 5):
        painter.drawText(QRectF(0, y(v) - 15, area.left() - 8, 30), Qt.AlignRight | Qt.AlignVCenter,
                         money_short(float(v)))
    for i, s in enumerate(series):
        painter.setPen(QPen(_color(i), 3))
        points = [QPointF(x(t), y(v)) for t, v in enumerate(s) if v is not None and math.isfinite(v)]
        for a, b in zip(points, points[1:]):
            painter.drawLine(a, b)
    for i, name in enumerate(names):   # the legend, right of the plot
        painter.fillRect(QRectF(area.right() + 16, area.top() + i * 32 + 8, 16, 16), _color(i))
        painter.setPen(QColor("#222"))
        painter.drawText(QRectF(area.right() + 38, area.top() + i * 32, 300, 32), Qt.AlignVCenter, name[:22])
    painter.end()
    return image


def simulation_for_report(scenario, results, draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED) -> dict | None:
    """The Monte Carlo summary the report shows: None without Uncertainty rows."""
    if not scenario.uncertainty:
        return None
    from ..engine.uncertainty.report import simulation_json
    from ..engine.uncertainty.simulate import simulate
    return simulation_json(simulate(scenario, draws, seed, results=results))


def report_document(scenario, results, title: str, simulation: dict | None = None,
                    objective: str | None = None) -> QTextDocument:
    """The report laid out (its text: `toPlainText()`), charts added as image resources."""
    doc = QTextDocument()
    decided = decide(scenario, results, objective)
    order = decided.summaries
    label = objective_label(decided.objective)
    unit = "USD per Mtok" if decided.objective.startswith("cost_per_million") else "USD"
    fmt = (lambda v: money(v)) if unit != "USD" else money_short
    names = [p.name for p in scenario.plans]
    series = [[row["cumulative_cash_flow_usd"] for row in r.year_rows()] for r in results]
    images = {"objective_chart": objective_chart([s.name for s in order], [s.value for s in order],
                                                 f"{label} ({unit}), best first", fmt, [s.index for s in order]),
              "cashflow_chart": cashflow_chart(names, series)}
    for name, _ in CHARTS:
        doc.addResource(QTextDocument.ImageResource, QUrl(name), images[name])
    doc.setDefaultStyleSheet("body { font-family: sans-serif; font-size: 9pt; } h1 { font-size: 16pt; } "
                             "h2 { font-size: 12pt; margin-top: 12px; } th { background: #eef5ff; }")
    doc.setHtml(report_html(scenario, results, title, simulation, decided=decided))
    return doc


def write_report_pdf(scenario, results, path: str, title: str, simulation: dict | None = None,
                     objective: str | None = None) -> None:
    """Lay out and print the report to `path` (A4 portrait), ranked by `objective` (None: the plans'
    default, as `tcoapp compute`): rendered in memory, then saved through the atomic save
    (io/atomic.py), so a full disk or a read-only folder keeps the old file (SaveError)."""
    from ..io.atomic import atomic_write
    data = _pdf_bytes(report_document(scenario, results, title, simulation, objective), title)
    atomic_write(path, lambda handle: handle.write(data))


def _pdf_bytes(doc, title: str) -> bytes:
    """The document printed to PDF in memory."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    array = QByteArray()
    buffer = QBuffer(array)
    buffer.open(QIODevice.WriteOnly)
    writer = QPdfWriter(buffer)
    writer.setPageLayout(QPageLayout(QPageSize(QPageSize.A4), QPageLayout.Portrait, QMarginsF(15, 15, 15, 15),
                                     QPageLayout.Millimeter))
    writer.setResolution(150)
    writer.setTitle(f"tcoapp decision report: {title}")
    writer.setCreator("tcoapp")
    doc.setPageSize(writer.pageLayout().paintRectPixels(writer.resolution()).size().toSizeF())
    doc.print_(writer)
    del writer   # flushes the PDF into the buffer
    buffer.close()
    return bytes(array.data())


__all__ = ["report_document", "simulation_for_report", "write_report_pdf", "np"]
