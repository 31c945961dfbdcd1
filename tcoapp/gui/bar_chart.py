"""Horizontal bar charts that stay readable: one bar per plan (stacked segments optional), a value
label at the end of every bar, "n/a: reason" where a plan has no value, and a logarithmic value
axis where the totals span more than 10x (a segment then ends at its cumulative value, which is
where it belongs on a log axis). Items are created once and updated with setOpts / setText."""
from __future__ import annotations

import numpy as np
from PySide6.QtGui import QFont

from .redraw import Signatures
from .plotting import GRID_ALPHA, LABEL_STYLE, NumberAxis, cache_axes, category_ticks, pg, set_title, to_axis, wants_log

LABEL_COLOR = "#222"
MISSING_COLOR = "#777"
REASON_CHARS = 60


def short_reason(text: str, limit: int = REASON_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def nice_ceiling(value: float) -> float:
    """The smallest 1, 2, 2.5 or 5 x 10^k at or above `value` (> 0)."""
    exponent = np.floor(np.log10(value))
    for step in (1.0, 2.0, 2.5, 5.0, 10.0):
        if step * 10 ** exponent >= value:
            return float(step * 10 ** exponent)
    return float(10 ** (exponent + 1))


class HBarChart:
    def __init__(self, item: pg.PlotItem, axis: NumberAxis, segments: dict[str, str], value_text):
        """`segments`: name -> colour, bottom segment first; `value_text(v)` formats a total."""
        self.item, self.axis, self.value_text = item, axis, value_text
        self.bars = {name: pg.BarGraphItem(x0=[], y=[], width=[], height=0.6, brush=color,
                                           pen=pg.mkPen("w", width=0.5)) for name, color in segments.items()}
        for bar in self.bars.values():
            self.item.addItem(bar)
        self.labels: list[pg.TextItem] = []
        self.log = False
        self.totals = np.empty(0)
        self.texts: list[str] = []
        self.signatures = Signatures()   # what the labels, ticks and range were last drawn from (gui/redraw.py)
        font = QFont()
        font.setPointSize(9)
        self._font = font

    def _label(self, i: int) -> pg.TextItem:
        while len(self.labels) <= i:
            label = pg.TextItem(anchor=(0, 0.5), color=LABEL_COLOR)
            label.setFont(self._font)
            self.item.addItem(label)
            self.labels.append(label)
        return self.labels[i]

    def set_data(self, names: list[str], parts: dict[str, np.ndarray], reasons: list[str],
                 brushes: dict[str, list] | None = None) -> None:
        """`parts`: segment -> value per plan (NaN: the plan has no value; `reasons[i]` says why)."""
        n = len(names)
        values = {k: np.asarray(v, float) for k, v in parts.items()}
        if values:   # every segment at once (one row each): numpy's calls cost more than their few values
            stack = np.array(list(values.values())).reshape(len(values), n)
            clean = dict(zip(values, np.nan_to_num(stack)))
            totals = np.sum(list(clean.values()), axis=0)
            missing = ~np.all(np.isfinite(stack), axis=0)
        else:
            clean, totals, missing = {}, np.zeros(n), np.ones(n, bool)
        totals = np.where(missing, np.nan, totals)
        self.totals = totals
        log = wants_log(totals)
        if log != self.log or self.axis.logMode != log:
            self.axis.setLogMode(log)
        self.log = log
        floor = self._floor(totals)
        self._draw_segments(clean, missing, floor, n, brushes)
        self._draw_labels(names, totals, missing, reasons, floor)
        if self.signatures.changed("names", list(names)):   # new ticks repaint the axis: only when the plans change
            category_ticks(self.item.getAxis("left"), names)
            self.item.setYRange(-0.6, max(n - 0.4, 0.6), padding=0)
            self.item.getViewBox().invertY(True)
        self._fit_x(totals, floor)

    def _draw_segments(self, clean: dict[str, np.ndarray], missing, floor: float, n: int, brushes) -> None:
        """Each segment from where the ones below it end (`clean`: its values, NaN as 0) to its own end."""
        lefts, rights, left = [], [], np.zeros(n)
        for name in self.bars:
            lefts.append(left)
            left = left + clean.get(name, np.zeros(n))
            rights.append(left)
        lefts, rights = np.array(lefts).reshape(len(self.bars), n), np.array(rights).reshape(len(self.bars), n)
        start, end = to_axis(lefts, self.log), to_axis(rights, self.log)
        if self.log:
            start = np.where(lefts > 0, start, floor)
            end = np.where(rights > 0, end, floor)
        widths = np.where(missing, 0.0, np.nan_to_num(end - start))
        starts = np.nan_to_num(start, nan=floor)
        y = np.arange(n, dtype=float)
        for (name, bar), x0, width in zip(self.bars.items(), starts, widths):
            opts = dict(x0=x0, y=y, width=width, height=0.6)
            if brushes and name in brushes:
                opts["brushes"] = brushes[name]
            # a segment the edit left as it was is not set again (each setOpts redraws its picture and
            # re-fits its view's bounds): an edit of one plan's energy price leaves the capex segments
            shown = (x0, width, list(opts.get("brushes", ())))
            if self.signatures.changed(("segment", name), shown):
                bar.setOpts(**opts)

    def _floor(self, totals) -> float:
        finite = totals[np.isfinite(totals) & (totals > 0)]
        if not self.log:
            return 0.0
        return float(np.floor(np.log10(finite.min())) - 0.0) if finite.size else 0.0

    def _draw_labels(self, names, totals, missing, reasons, floor) -> None:
        self.texts = []
        ends = to_axis(totals, self.log)
        for i in range(len(names)):
            label = self._label(i)
            if missing[i]:
                text = "n/a: " + short_reason(reasons[i] or "no value")
                x = floor
            else:
                text = self.value_text(float(totals[i]))
                x = float(ends[i]) if totals[i] > 0 else floor
            shown = (text, bool(missing[i]), x, i)
            if self.signatures.changed(("label", i), shown):   # a new text lays the label out again: only on change
                label.setColor(MISSING_COLOR if missing[i] else LABEL_COLOR)
                label.setText(text)
                label.setPos(x, i)
            if not label.isVisible():   # (pyqtgraph's setVisible(True) re-computes the label's transform)
                label.setVisible(True)
            self.texts.append(text)
        for label in self.labels[len(names):]:
            if label.isVisible():
                label.setVisible(False)

    def _fit_x(self, totals, floor) -> None:
        """Room for the bars and their labels; the range moves in steps (a 1-2-5 value or a
        quarter decade), so a small edit does not repaint the axis."""
        finite = totals[np.isfinite(totals)]
        top = float(finite.max()) if finite.size else 1.0
        if self.log:
            hi = float(np.log10(top)) if top > 0 else floor + 1
            wanted = (floor, np.ceil((hi + 0.25 * (hi - floor) + 0.3) * 4) / 4)
        else:
            low = min(0.0, float(finite.min()) if finite.size else 0.0)
            wanted = (low, nice_ceiling(max(top * 1.3, 1e-6)))
        if self.signatures.changed("x_range", wanted):
            self.item.setXRange(*wanted, padding=0)


def paired_bar_plots(left: tuple[str, str, NumberAxis], right: tuple[str, str, NumberAxis]):
    """Two horizontal bar plots side by side with one category axis (the plan names are written once,
    so both plots keep their width; both show the same rows, each setting the same y range): (widget, left PlotItem, right PlotItem).
    `left` / `right`: (title, value-axis label, value axis)."""
    widget = pg.GraphicsLayoutWidget()
    widget.setMinimumSize(420, 200)
    items = []
    for col, (title, label, axis) in enumerate((left, right)):
        names = pg.AxisItem("left")
        names.enableAutoSIPrefix(False)
        item = widget.addPlot(row=0, col=col, axisItems={"bottom": axis, "left": names})
        set_title(item, title)
        item.setLabel("bottom", label, **LABEL_STYLE)
        item.setMenuEnabled(False)
        cache_axes(item)
        axis.setStyle(maxTickLevel=1)
        axis.setGrid(GRID_ALPHA)
        items.append(item)
    items[1].hideAxis("left")
    return widget, items[0], items[1]
