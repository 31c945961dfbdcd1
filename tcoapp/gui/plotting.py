"""Shared chart pieces: pyqtgraph configuration, plan colours, axes for money and categories.

PySide6 is imported before pyqtgraph so pyqtgraph binds to it.
"""
from __future__ import annotations

import functools
import math

import numpy as np

import PySide6.QtCore  # noqa: F401  (binding choice for pyqtgraph)
from PySide6.QtWidgets import QGraphicsItem
import pyqtgraph as pg

pg.setConfigOptions(antialias=True, background="w", foreground="k")

from .colors import COMPONENT_COLORS, PLAN_COLORS, legend_entry, money_text  # noqa: E402,F401
from . import long_lived  # noqa: E402

long_lived.keep()   # the app's modules, pyqtgraph the last and largest, out of later full collections (long_lived.py)

TITLE_STYLE = {"color": "#222", "size": "11pt"}
LABEL_STYLE = {"color": "#222", "font-size": "10pt"}


class MoneyAxis(pg.AxisItem):
    """An axis in USD: ticks as $1.2M, no automatic SI prefix on the label (else USD becomes kUSD)."""

    def __init__(self, orientation="left", **kw):
        super().__init__(orientation, **kw)
        self.enableAutoSIPrefix(False)

    def tickStrings(self, values, scale, spacing):
        return [money_text(v * scale) for v in values]


class NumberAxis(pg.AxisItem):
    """Plain numbers with thousands separators and no SI prefix (tokens/s of 20,000 stay 20,000)."""

    def __init__(self, orientation="left", money: bool = False, **kw):
        super().__init__(orientation, **kw)
        self.enableAutoSIPrefix(False)
        self.money = money

    def tickStrings(self, values, scale, spacing):
        if self.logMode:   # decades and their 2x and 5x ticks labelled; other minor ticks left bare
            return [log_tick_text(v, self.money) if _labelled_mantissa(v) else "" for v in values]
        if self.money:
            return [money_text(v * scale) for v in values]
        out = []
        for v in values:
            v *= scale
            out.append(f"{v:,.0f}" if abs(v) >= 100 or spacing >= 1 else f"{v:.3g}")
        return out


def log_tick_text(exponent: float, money: bool = False) -> str:
    """Text of a log-axis tick at 10**exponent: $0.2 / $41 on money axes, 0.2 / 1,000 otherwise."""
    v = 10.0 ** exponent
    if money:
        return money_text(v)
    return f"{v:,.0f}" if v >= 1 else f"{v:.2g}"


def _labelled_mantissa(exponent: float) -> bool:
    mantissa = 10.0 ** (exponent - math.floor(exponent + 1e-9))
    return any(abs(mantissa - m) < 1e-6 * m for m in (1.0, 2.0, 5.0, 10.0))


def wants_log(values, ratio: float = 10.0) -> bool:
    """True where the finite positive values span more than `ratio` (a linear axis would turn the
    small ones into slivers)."""
    v = np.asarray(values, float)
    v = v[np.isfinite(v) & (v > 0)]
    return bool(v.size >= 2 and v.max() > ratio * v.min())


def to_axis(values, log: bool) -> np.ndarray:
    """Values in the coordinates of an axis: log10 on a log axis (non-positive values become NaN)."""
    v = np.asarray(values, float)
    if not log:
        return v
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(v > 0, np.log10(np.where(v > 0, v, 1.0)), np.nan)


def category_ticks(axis: pg.AxisItem, names: list[str]) -> None:
    """Names as the axis ticks (0, 1, ...); the same names again leave the axis alone (new ticks re-render it)."""
    if getattr(axis, "_category_names", None) == list(names):
        return
    axis._category_names = list(names)
    axis.setTicks([[(i, n) for i, n in enumerate(names)], []])


GRID_ALPHA = 60  # of 255: light lines at the major ticks of the value axis only (grids are costly to paint)


TITLE_LINE_CHARS = 28  # at 11pt about 230 px: what a chart at 1300x800 (~420 px) leaves beside a wide axis of names


def set_title(item, text: str | None) -> None:
    """A chart title, broken into lines that fit: pyqtgraph sizes a plot at least as wide as its title, so a long
    one (a plan or device name in it) would push the plot past its widget and cut the chart off."""
    if text is None:
        item.setTitle(None)
        return
    import html
    import textwrap

    lines = textwrap.wrap(text, TITLE_LINE_CHARS, break_long_words=True) or [""]
    item.setTitle("<br>".join(html.escape(line) for line in lines), **TITLE_STYLE)


def cache_axes(item: pg.PlotItem) -> None:
    """Paint each axis of a plot from a pixmap kept by Qt until the axis changes (its range, ticks, size).
    Rendering an axis (its tick texts and grid lines) is most of what a repaint of an unchanged chart
    costs; pyqtgraph calls update() on an axis whenever it changes, which renders it again."""
    for entry in item.axes.values():
        entry["item"].setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)


Y_LABEL_CHARS = 20   # about what the y axis of a chart at its minimum height (220 px) holds in 10 pt text


def two_line_label(label: str) -> str:
    """A y-axis label "name [unit]" longer than Y_LABEL_CHARS on two lines (the name, then the unit): along a
    short chart's axis the one-line label would be cut at both ends."""
    name, sep, unit = label.rpartition(" [")
    return f"{name}<br>[{unit}" if sep and len(label) > Y_LABEL_CHARS else label


def make_plot(title: str, x_label: str, y_label: str, *, x_axis=None, y_axis=None, log_x=False,
              grid: str = "y") -> pg.PlotWidget:
    axes = {"left": y_axis or NumberAxis("left"), "bottom": x_axis or NumberAxis("bottom")}
    widget = pg.PlotWidget(axisItems=axes)
    item = widget.getPlotItem()
    set_title(item, title)
    item.setLabel("bottom", x_label, **LABEL_STYLE)
    item.setLabel("left", two_line_label(y_label), **LABEL_STYLE)
    for name, axis in axes.items():
        axis.setStyle(maxTickLevel=1)
        wanted = grid == "both" or (grid == "y") == (name == "left")
        axis.setGrid(GRID_ALPHA if wanted and grid else False)
    item.setMenuEnabled(False)
    cache_axes(item)
    if log_x:
        item.setLogMode(x=True, y=False)
    widget.setMinimumSize(320, 220)
    return widget


@functools.lru_cache(maxsize=256)
def brush(color: str):
    """The one brush of a colour. Scatter plots render each symbol once per brush object (pyqtgraph's
    symbol atlas keys on the object), so a new brush per redraw would render every symbol again and
    grow the atlas with every edit."""
    return pg.mkBrush(color)


def pen(color: str, width: float = 2.0, style=None):
    kw = {"color": color, "width": width}
    if style is not None:
        kw["style"] = style
    return pg.mkPen(**kw)


class ItemPool:
    """Per-plan plot items created once and reused: grow when plans are added, hide the extras.
    With `paint(item, color)`, `ensure(n, colors)` gives item i the colour of plan i (the plan's own
    colour, document.plan_colors), repainting only the items whose plan colour changed."""

    def __init__(self, plot: pg.PlotItem, factory, paint=None):
        self._plot, self._factory, self._paint = plot, factory, paint
        self.items, self._colors = [], []

    def ensure(self, n: int, colors=()) -> list:
        while len(self.items) < n:
            item = self._factory(len(self.items))
            self._plot.addItem(item)
            self.items.append(item)
            self._colors.append(None)
        for i, item in enumerate(self.items):
            if item.isVisible() != (i < n):
                item.setVisible(i < n)
        if self._paint is not None:
            for i, color in enumerate(colors[:n]):
                if self._colors[i] != color:
                    self._colors[i] = color
                    self._paint(self.items[i], color)
        return self.items[:n]
