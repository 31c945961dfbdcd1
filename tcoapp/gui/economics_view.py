"""Economics charts: cumulative cash flow per plan with payback marked, cost per million output
tokens split into capex / energy / colocation / maintenance / other, revenue per rack, and the
tornado of a chosen metric's sensitivity for the current plan. All numbers come from the engine
results the document holds (and, for the tornado, `engine.finance.sensitivity` with the model error's
bar, `engine.uncertainty.error_swing`)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox, QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QSplitter, QVBoxLayout, QWidget,
)

from ..engine.core.errors import TcoError
from ..engine.uncertainty.error_swing import MODEL_ERROR_INPUT, tornado_with_model_error
from ..engine.quantities.finance import BAR_SEGMENTS, COMPONENT_KEYS, OTHER_PARTS
from ..engine.quantities.metrics import TORNADO_METRICS
from ..engine.quantities.inputs import DEVICE_FIELDS, PLAN_FIELD_BY_NAME, by_name
from .document import Document
from .years_table import years_view
from .labels import format_metric, format_metric_with_unit, label_with_unit, metric_label, metric_unit
from .live_text import LiveText
from .performance_view import legend_html, legend_label
from .redraw import Redraw, same
from .bar_chart import HBarChart, nice_ceiling, paired_bar_plots
from ..engine.core.number_format import money
from .plotting import (
    COMPONENT_COLORS, ItemPool, MoneyAxis, NumberAxis, brush, category_ticks, legend_entry, make_plot, money_text, pen,
    pg,
)

DEVICE_FIELD_BY_NAME = by_name(DEVICE_FIELDS)
COMPONENTS = BAR_SEGMENTS  # the cost bar: capex, each opex part's segment (quantity table)
FRACTIONS = (0.1, 0.2, 0.3, 0.5)
COMPONENT_TEXT = {"other": f"other ({', '.join(p.replace('_', ' ') for p in OTHER_PARTS)})"}


SHORT_REASONS = (("not met at any", "target not met"), ("cannot be racked", "server above the rack power cap"),
                 ("buys no whole server", "sizing buys no server"), ("infeasible", "does not fit"))


def missing_reason(result) -> str:
    """Why a plan has no cost or revenue, in a few words (the engine's first note that is not
    routine; its full text is in the plan's notes and the Decision view)."""
    notes = [w for w in result.warnings if not w.startswith("not entered") and "chosen for" not in w]
    if not notes:
        return "no operating point"
    return next((short for key, short in SHORT_REASONS if key in notes[0]), notes[0])


def _title(text: str) -> QLabel:
    label = QLabel(text)
    label.setStyleSheet("font-weight: bold; font-size: 11pt; color: #222;")
    return label


def _chart_box(plot, above=(), below=()) -> QWidget:
    """A chart with its title and legend above it and its notes below it (outside the plot area,
    so they never cover data and never clip at small sizes)."""
    box = QWidget()
    layout = QVBoxLayout(box)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.setSpacing(2)
    for w in above:
        layout.addLayout(w) if isinstance(w, QHBoxLayout) else layout.addWidget(w)
    layout.addWidget(plot, 1)
    for w in below:
        layout.addWidget(w)
    return box


def cost_components(finance) -> dict[str, float]:
    """USD per million output tokens by component (the engine's split; other = software + rent + staff)."""
    get = lambda part: float(finance[COMPONENT_KEYS[part]]) if finance is not None else np.nan  # noqa: E731
    parts = {c: get(c) for c in COMPONENTS[:-1]}
    parts["other"] = sum(get(p) for p in OTHER_PARTS)
    return parts


MODEL_ERROR_LABEL = "Model error (tokens/s per device)"


def input_label(key: str) -> str:
    if key == MODEL_ERROR_INPUT:
        return MODEL_ERROR_LABEL
    field = PLAN_FIELD_BY_NAME.get(key)
    if field is not None:
        return field.label
    device_field = DEVICE_FIELD_BY_NAME.get(key)
    if device_field is not None:
        label = device_field.label
        return label if label.lower().startswith("server") else f"Device {label.lower()}"
    return metric_label(key) if key in ("tokens_per_s_per_device", "power_w") else key.replace("_", " ")


def sticky_span(shown: tuple[float, float] | None, lo: float, hi: float, fill: float = 0.4,
                steps: int = 6) -> tuple[float, float]:
    """An axis range for data in [lo, hi]: the one shown while it holds the data and the data fill at least
    `fill` of it; else the shown one grown to hold the data, while they still fill it; else a new one. New
    ranges sit on a grid of round steps (about `steps` across them). An edit then moves the bars against a
    still axis (nothing jumps, and the axis is not rendered again) until they leave it or shrink to a sliver;
    small edits back and forth between two values settle on one range that holds both (large ones get a range
    each)."""
    def fills(a: float, b: float) -> bool:
        return hi - lo >= fill * (b - a)

    if shown is not None and shown[0] <= lo and hi <= shown[1] and fills(*shown):
        return shown
    if shown is not None and fills(min(shown[0], lo), max(shown[1], hi)):
        lo, hi = min(shown[0], lo), max(shown[1], hi)
    step = nice_ceiling((hi - lo) / steps)
    return float(np.floor(lo / step) * step), float(np.ceil(hi / step) * step)


def paint_cash_line(line, color: str) -> None:
    line.setPen(pen(color))


class EconomicsView(QWidget):
    message = Signal(str)

    def __init__(self, document: Document, parent=None):
        super().__init__(parent)
        self._doc = document
        self._tornado_span: tuple[float, float] | None = None
        self._cash_span: tuple[float, float] | None = None   # the cash flow chart's y range (sticky_span)
        self._npv_drawn: tuple | None = None   # the (results, colours) the NPV profile was last drawn from
        self.legend = legend_label()
        charts = QWidget()
        grid = QGridLayout(charts)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self._build_cash(), 0, 0)
        grid.addWidget(self._build_tornado(), 0, 1)
        grid.addWidget(self._build_bars(), 1, 0, 1, 2)
        for k in (0, 1):
            grid.setRowStretch(k, 1)
            grid.setColumnStretch(k, 1)
        self.years = years_view(document)
        self.years.setMinimumHeight(90)
        split = QSplitter(Qt.Vertical)
        split.addWidget(charts)
        split.addWidget(self.years)
        split.setStretchFactor(0, 4)
        split.setStretchFactor(1, 1)
        split.setSizes([4000, 1000])
        split.setChildrenCollapsible(False)
        layout = QVBoxLayout(self)
        layout.addWidget(self.legend)
        layout.addWidget(split, 1)
        self.redraw = Redraw(self, document.scenario_changed, document.current_changed, self.metric_box.activated,
                             self.fraction_box.activated)
        self._declare_parts()
        self.refresh()

    def _build_cash(self) -> QWidget:
        """The cumulative cash flow chart: a line per plan, its years as points, payback and tranche markers."""
        self.p_cash = make_plot("Cumulative cash flow", "Year", "Cumulative [USD]", y_axis=MoneyAxis("left"))
        self.p_cash.getPlotItem().setTitle(None)
        cash = self.p_cash.getPlotItem()
        cash.addLine(y=0, pen=pen("#555", 1, Qt.DashLine))
        cash.disableAutoRange()   # the ranges are set from the data (_fit_cash): edits move the lines, not the axes
        self.cash_lines = ItemPool(cash, lambda i: pg.PlotDataItem(), paint_cash_line)
        # the years of every plan's line as one scatter (a symbol set per line costs a paint each)
        self.cash_points = pg.ScatterPlotItem(size=4, pen=None)
        self.cash_points.setZValue(1)
        cash.addItem(self.cash_points)
        self.payback = pg.ScatterPlotItem(size=13, pen=pg.mkPen("k", width=1.5), tip=self._payback_tip, hoverable=True)
        self.tranches = pg.ScatterPlotItem(size=14, symbol="t1", pen=pg.mkPen("k", width=1), tip=self._tranche_tip,
                                           hoverable=True)
        for marker in (self.payback, self.tranches):
            cash.addItem(marker)
            marker.setZValue(2)   # above the lines' year points
        self.cash_note = QLabel("Circles: payback; triangles: later tranches.")
        self.cash_note.setWordWrap(True)   # the NPV profile's note is long: wrapped, it never widens the window
        self.cash_note.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.cash_note.setStyleSheet("color: #444;")
        from .npv_profile_chart import NpvProfileChart
        self.npv_profile = NpvProfileChart()
        self.npv_profile.plot.hide()
        self.cash_view = QComboBox()
        self.cash_view.setObjectName("cash_view")
        self.cash_view.addItems(["Cumulative cash flow", "NPV against the discount rate"])
        self.cash_view.setToolTip("The cumulative cash flow by year, or each plan's NPV at every discount rate "
                                  "(its IRR where the line crosses 0; squares: its own discount rate)")
        self.cash_view.activated.connect(self._show_cash_view)
        box = _chart_box(self.p_cash, [self.cash_view], [self.cash_note])
        box.layout().insertWidget(2, self.npv_profile.plot, 1)
        return box

    def _show_cash_view(self, index: int) -> None:
        """Cumulative cash flow (0) or NPV against the discount rate (1), in the same place."""
        profile = index == 1
        self.p_cash.setVisible(not profile)
        self.npv_profile.plot.setVisible(profile)
        self.cash_note.setText("Circles: IRR (NPV = 0); squares: NPV at the plan's own discount rate. A line that "
                               "crosses 0 twice has no single IRR." if profile else
                               "Circles: payback; triangles: later tranches.")
        self.redraw.update()   # the profile is drawn while it is the chosen view (its inputs now say so)

    def _build_bars(self) -> QWidget:
        """Cost per million output tokens by component and revenue per rack, side by side."""
        self.cost_axis = NumberAxis("bottom", money=True)
        self.rack_axis = NumberAxis("bottom", money=True)
        self.bars, self.p_cost, self.p_rack = paired_bar_plots(
            ("Cost per million output tokens", "USD per million output tokens", self.cost_axis),
            ("Revenue per rack per year", "USD per rack per year", self.rack_axis))
        self.cost_chart = HBarChart(self.p_cost, self.cost_axis, {c: COMPONENT_COLORS[c] for c in COMPONENTS},
                                    lambda v: money(v))
        self.cost_bars = self.cost_chart.bars
        self.cost_legend = QLabel("Cost components: " + " ".join(
            legend_entry(COMPONENT_COLORS[c], COMPONENT_TEXT.get(c, c)) for c in COMPONENTS))
        self.cost_legend.setTextFormat(Qt.RichText)
        self.cost_legend.setWordWrap(True)
        self.cost_legend.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.rack_chart = HBarChart(self.p_rack, self.rack_axis, {"revenue": "#4e79a7"}, money_text)
        self.rack_bars = self.rack_chart.bars["revenue"]
        return _chart_box(self.bars, [self.cost_legend])

    def _build_tornado(self) -> QWidget:
        """The tornado of the chosen metric for the current plan, with its metric and swing boxes."""
        self.tornado_axis = NumberAxis("bottom")
        self.p_tornado = make_plot("Sensitivity", "", "", x_axis=self.tornado_axis, y_axis=pg.AxisItem("left"),
                                   grid="x")
        torn = self.p_tornado.getPlotItem()
        torn.setTitle(None)
        torn.getAxis("left").enableAutoSIPrefix(False)
        torn.getAxis("bottom").showLabel(False)   # the metric box above names it
        self.tornado_low = pg.BarGraphItem(x0=[], y=[], width=[], height=0.6, brush="#e15759")
        self.tornado_high = pg.BarGraphItem(x0=[], y=[], width=[], height=0.6, brush="#4e79a7")
        torn.addItem(self.tornado_low)
        torn.addItem(self.tornado_high)
        self.tornado_base = torn.addLine(x=0, pen=pen("#222", 1.5))
        self.metric_box = QComboBox()
        for key in TORNADO_METRICS:
            self.metric_box.addItem(label_with_unit(key), key)
        self.fraction_box = QComboBox()
        for f in FRACTIONS:
            self.fraction_box.addItem(f"± {f:.0%}", f)
        self.fraction_box.setCurrentIndex(1)
        self.tornado_value = LiveText("#222")
        self.tornado_note = QLabel()
        self.tornado_note.setTextFormat(Qt.RichText)
        self.tornado_note.setWordWrap(True)
        self.tornado_note.setSizePolicy(QSizePolicy.Ignored, QSizePolicy.Preferred)
        self.tornado_note.setStyleSheet("color: #444;")
        bar = QHBoxLayout()
        bar.addWidget(_title("Sensitivity of"))
        bar.addWidget(self.metric_box, 1)
        bar.addWidget(QLabel("swing:"))
        bar.addWidget(self.fraction_box)
        return _chart_box(self.p_tornado, [bar], [self.tornado_value, self.tornado_note])

    def _declare_parts(self) -> None:
        doc, parts = self._doc, self.redraw
        parts.part("legend", lambda: (tuple(r.name for r in doc.results), doc.plan_colors),
                   lambda names, colors: self.legend.setText(legend_html(list(names), colors)))
        parts.part("cash", lambda: (doc.results, doc.plan_colors), self._draw_cash)
        parts.part("npv_profile", self._npv_profile_inputs, self._draw_npv_profile)
        parts.part("costs", lambda: (doc.results,), self._draw_costs)
        parts.part("rack", lambda: (doc.results, doc.plan_colors), self._draw_rack)
        parts.part("tornado", self._tornado_inputs, self._draw_tornado)

    def _npv_profile_inputs(self) -> tuple:
        """(results, colours) while the NPV profile is the chosen view; (None, None) while the cash flow is:
        the hidden profile is not drawn after every edit (241 rates per plan), only when it is shown or exported."""
        if self.cash_view.currentIndex() != 1:
            return None, None
        return self._doc.results, self._doc.plan_colors

    def _draw_npv_profile(self, results, colors) -> None:
        if results is not None:
            self.npv_profile.draw(results, colors)
            self._npv_drawn = (results, colors)

    def _npv_profile_current(self) -> None:
        """Draw the NPV profile if it does not show the document's results (it is hidden and not followed)."""
        now = (self._doc.results, self._doc.plan_colors)
        if not same(self._npv_drawn, now):
            self._draw_npv_profile(*now)

    def charts(self) -> dict[str, pg.PlotItem]:
        self._npv_profile_current()   # exported while hidden: the chart shows the current results
        return {"Cumulative cash flow": self.p_cash.getPlotItem(),
                "NPV against the discount rate": self.npv_profile.plot.getPlotItem(), "Cost per million tokens": self.p_cost,
                "Revenue per rack": self.p_rack, "Sensitivity (tornado)": self.p_tornado.getPlotItem()}

    def refresh(self, *_) -> list[str]:
        """Redraw the parts whose inputs changed (all of them the first time); the names of those drawn."""
        return self.redraw.update()

    refresh_tornado = refresh   # the tornado is one of the parts

    def _draw_cash(self, results, colors):
        px, py, brushes, data = [], [], [], []
        yx, yy, ybrushes = [], [], []
        for i, (line, r) in enumerate(zip(self.cash_lines.ensure(len(results), colors), results)):
            if self.redraw.changed(("cash_line", i), r):
                cumulative = np.cumsum(np.asarray(r.finance.cash_flows_usd if r.finance is not None else [], float))
                if not np.isfinite(cumulative).any():
                    cumulative = np.empty(0)
                line.setData(np.arange(cumulative.size), cumulative)
            x, y = line.xData, line.yData   # the data set (getData() is the display copy, clipped to the view)
            if x is not None and len(x):
                finite = np.isfinite(y)
                yx.extend(x[finite].tolist())
                yy.extend(y[finite].tolist())
                ybrushes.extend([brush(colors[i])] * int(finite.sum()))
            months = r.metrics.payback_months
            if np.isfinite(months):
                px.append(months / 12.0)
                py.append(0.0)
                brushes.append(brush(colors[i]))
                data.append(i)
        self._set_points(self.cash_points, yx, yy, ybrushes, [None] * len(yx))
        self._set_points(self.payback, px, py, brushes, data)
        self._draw_tranches(results, colors)
        self._fit_cash(yx + px, yy)

    def _fit_cash(self, xs: list[float], ys: list[float]) -> None:
        """The x range: the years shown (and the paybacks), with pyqtgraph's own padding, set again only when they
        change. The y range: every year's cumulative cash flow and 0 (the payback line), padded 2%, kept while it
        holds them (`sticky_span`, as the tornado's): a new range renders the axis and repaints every line again.
        (pyqtgraph's automatic range would fit the data again after every edit, and re-render the axis whenever
        the plan at the top or bottom moved.)"""
        years = (min(xs, default=0.0), max(xs, default=0.0))
        if self.redraw.changed("cash_years", years):
            self.p_cash.getPlotItem().setXRange(years[0], max(years[1], years[0] + 1.0))
        lo, hi = min(ys, default=0.0), max(ys, default=0.0)
        lo, hi = min(lo, 0.0), max(hi, 0.0)
        pad = (hi - lo) * 0.02 or 1.0
        span = sticky_span(self._cash_span, lo - pad, hi + pad, steps=24)   # a fine grid: little room left empty
        if span != self._cash_span:
            self._cash_span = span
            self.p_cash.getPlotItem().setYRange(*span, padding=0)

    def _draw_tranches(self, results, colors):
        """Triangles where a plan pays a tranche after the start (a pool with a later purchase year)."""
        tx, ty, brushes, data = [], [], [], []
        for i, r in enumerate(results):
            if r.finance is None:
                continue
            capex = np.asarray(r.finance.years.capex_usd, float)
            cumulative = np.asarray(r.finance.years.cumulative_cash_flow_usd, float)
            for year in np.nonzero(capex[1:] > 0)[0] + 1:
                tx.append(float(year))
                ty.append(float(cumulative[year]))
                brushes.append(brush(colors[i]))
                data.append((i, int(year), float(capex[year])))
        self._set_points(self.tranches, tx, ty, brushes, data)

    def _set_points(self, scatter, xs, ys, brushes, data) -> None:
        """setData only when the points differ from those shown (rebuilding a scatter costs a redraw)."""
        if self.redraw.changed(("points", id(scatter)), (np.asarray(xs, float), np.asarray(ys, float), brushes, data)):
            scatter.setData(xs, ys, brush=brushes, data=data)

    def _tranche_tip(self, x, y, data):
        if data is None or data[0] >= len(self._doc.results):
            return ""
        return f"{self._doc.results[data[0]].name}: tranche of ${data[2]:,.0f} paid in year {data[1]}"

    def _payback_tip(self, x, y, data):
        r = self._doc.results[int(data)] if data is not None and int(data) < len(self._doc.results) else None
        if r is None:
            return ""
        months = r.metrics.payback_months
        shown = format_metric_with_unit("payback_months", months, r.metrics)   # '7 months', '1 month', 'never'
        return f"{r.name}: payback {'after ' if np.isfinite(months) else ''}{shown}"

    def _draw_costs(self, results):
        names = [r.name for r in results]
        parts = [cost_components(r.finance) for r in results]
        values = {c: np.array([p[c] for p in parts], float) for c in COMPONENTS}
        self.cost_chart.set_data(names, values, [missing_reason(r) for r in results])

    def _draw_rack(self, results, colors):
        names = [r.name for r in results]
        values = np.array([r.metrics.revenue_usd_per_rack_per_year for r in results], float)
        self.rack_chart.set_data(names, {"revenue": values}, [missing_reason(r) for r in results],
                                 brushes={"revenue": [brush(c) for c in colors]})

    def _category_axis(self, widget, names):
        item = widget.getPlotItem()
        category_ticks(item.getAxis("left"), names)
        item.setYRange(-0.6, max(len(names) - 0.4, 0.6), padding=0)
        item.getViewBox().invertY(True)

    def _tornado_inputs(self) -> tuple:
        """(the current plan's result, the metric, the swing, the plan's name); no result: (None, ...)."""
        plan, doc = self._doc.current_plan(), self._doc
        result = doc.results[doc.current_index] if plan is not None and doc.current_index < len(doc.results) else None
        return result, self.metric_box.currentData(), self.fraction_box.currentData(), plan.name if plan else ""

    def _draw_tornado(self, result, metric, fraction, plan_name) -> None:
        if result is None:
            return
        swings, note = self._swings(result, metric, fraction)
        swings = swings[:10]
        base = float(getattr(result.metrics, metric, np.nan))
        b = base if np.isfinite(base) else 0.0
        lows, highs = self._draw_tornado_bars(swings, b)
        money = metric_unit(metric).startswith("USD") and "Mtok" not in metric_unit(metric)
        if self.tornado_axis.money != money:   # the tick texts change format: render the axis again
            self.tornado_axis.money = money
            self.tornado_axis.picture = None
            self.tornado_axis.update()
        value = money_text(base) if money else format_metric_with_unit(metric, base)
        # the value changes with every edit: a LiveText (a new label text would re-lay out the tab)
        self.tornado_value.setText("" if note else f"{plan_name}: {metric_label(metric)} = {value.strip()}")
        error = next((s for s in swings if s.input == MODEL_ERROR_INPUT), None)
        note = note or (f"Each bar moves one input by ± {fraction:.0%} with the others "
                        f"held: <span style='color:#e15759'>&#9632;</span> input lower, "
                        f"<span style='color:#4e79a7'>&#9632;</span> input higher."
                        + ("" if error is None else
                           f" Model error: the model's own, every generated pool's tokens/s per device at the 10th "
                           f"and 90th percentiles of its prediction band ({error.low_input:.2f}x, "
                           f"{error.high_input:.2f}x)."))
        if self.redraw.changed("tornado_note", note):
            self.tornado_note.setText(note)
        finite = np.concatenate([lows[np.isfinite(lows)], highs[np.isfinite(highs)], [b]])
        lo, hi = float(finite.min()), float(finite.max())
        pad = (hi - lo) * 0.08 or abs(b) * 0.1 or 1.0
        span = sticky_span(self._tornado_span, lo - pad, hi + pad)   # the axis stays while it holds the bars
        if span != self._tornado_span:
            self._tornado_span = span
            self.p_tornado.getPlotItem().setXRange(*span, padding=0)

    def _draw_tornado_bars(self, swings, b: float):
        """The bars from the base value `b` to each input's low and high; (lows, highs)."""
        n = len(swings)
        lows = np.array([s.metric_low for s in swings], float)
        highs = np.array([s.metric_high for s in swings], float)
        y = np.arange(n, dtype=float)
        self.tornado_low.setOpts(x0=np.full(n, b), y=y, width=np.nan_to_num(lows - b), height=0.6)
        self.tornado_high.setOpts(x0=np.full(n, b), y=y, width=np.nan_to_num(highs - b), height=0.6)
        self.tornado_base.setValue(b)
        labels = [input_label(s.input) for s in swings]
        self._category_axis(self.p_tornado, labels)
        return lows, highs

    def _swings(self, result, metric, fraction):
        inputs = result.inputs
        if inputs is None or not np.isfinite(result.metrics.tokens_per_s_per_device):
            return [], f"{result.name}: no operating point, so no sensitivity ({'; '.join(result.warnings)})"
        try:
            return tornado_with_model_error(result, metric, fraction), ""
        except TcoError as exc:  # shown inline, never a traceback
            return [], f"Sensitivity failed: {exc}"
