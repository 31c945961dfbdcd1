"""The Monte Carlo charts: NPV histogram per plan, fan of cumulative cash flow (P10-P90 band and
P50 per plan), probability of payback over time, and the rank-correlation tornado of the current
plan (which uncertain input drives its NPV most). Items are created once and updated with setData;
every number comes from `engine.uncertainty` (the simulation and its statistics)."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QGridLayout, QWidget

from ..engine.uncertainty.model_error import PREFIX as ERROR_PREFIX
from ..engine.uncertainty.statistics import fan, histograms, payback_probability, rank_correlations
from .plotting import ItemPool, MoneyAxis, NumberAxis, category_ticks, make_plot, pen, pg, set_title
from ..present.labels import input_label as present_input_label

BINS = 40
FAN = (10, 50, 90)


def uncertain_input_label(key: str) -> str:
    """The tornado's name for an Uncertainty row key, from the field tables (present/labels.py):
    'device.price_usd' -> 'device price', 'factor.eta_mem' -> 'Weight-read bandwidth efficiency'; a
    model-error stream by its level: 'Model error: Blackwell / TensorRT-LLM', '... configuration', '... own'."""
    if key.startswith(f"{ERROR_PREFIX}: "):
        rest = key[len(ERROR_PREFIX) + 2:]
        level = "own" if rest.startswith("plan ") else "configuration" if " on " in rest else rest
        return f"Model error: {level}"
    return present_input_label(key)


def plan_drivers(plan) -> dict:
    """What was drawn for a plan, by name: its Uncertainty rows' draws and its model-error streams' z."""
    return {**{d.row.key: d.values for d in plan.inputs}, **dict(plan.model_error)}


def _translucent(color: str, alpha: int) -> QColor:
    c = QColor(color)
    c.setAlpha(alpha)
    return c


def _paint_histogram(item, color: str) -> None:
    item.setPen(pen(color, 2))
    item.setBrush(_translucent(color, 40))


def _line_painter(width: float):
    return lambda item, color: item.setPen(pen(color, width))


class MonteCarloCharts(QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.p_hist = make_plot("NPV distribution per plan", "NPV [USD]", "Share of draws", x_axis=MoneyAxis("bottom"))
        self.p_fan = make_plot("Cumulative cash flow: P10-P90 band, P50 line", "Year", "Cumulative cash flow [USD]",
                               y_axis=MoneyAxis("left"))
        self.p_payback = make_plot("Probability of payback", "Months", "P(paid back)")
        self.p_tornado = make_plot("Rank correlation with NPV (current plan)", "Spearman rank correlation", "",
                                   x_axis=NumberAxis("bottom"), y_axis=pg.AxisItem("left"), grid="x")
        self.p_tornado.getPlotItem().getAxis("left").enableAutoSIPrefix(False)
        hist = self.p_hist.getPlotItem()
        self.hist_lines = ItemPool(hist, lambda i: pg.PlotDataItem(stepMode="center", fillLevel=0), _paint_histogram)
        hist.addLine(x=0, pen=pen("#555", 1, Qt.DashLine))
        fan_plot = self.p_fan.getPlotItem()
        fan_plot.addLine(y=0, pen=pen("#555", 1, Qt.DashLine))
        # no dynamic range limit: a band's fill follows its curves' real values (USD in the 1e8s)
        self.fan_low = ItemPool(fan_plot, lambda i: pg.PlotDataItem(dynamicRangeLimit=None), _line_painter(0.5))
        self.fan_high = ItemPool(fan_plot, lambda i: pg.PlotDataItem(dynamicRangeLimit=None), _line_painter(0.5))
        self.fan_mid = ItemPool(fan_plot, lambda i: pg.PlotDataItem(), _line_painter(2.5))
        self.fan_bands: list = []
        pay = self.p_payback.getPlotItem()
        pay.setYRange(0, 1.02)
        self.payback_lines = ItemPool(pay, lambda i: pg.PlotDataItem(), _line_painter(2))
        torn = self.p_tornado.getPlotItem()
        self.tornado_bars = pg.BarGraphItem(x0=[], y=[], width=[], height=0.6, brushes=[])
        torn.addItem(self.tornado_bars)
        torn.addLine(x=0, pen=pen("#222", 1.5))
        torn.setXRange(-1, 1)
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.p_hist, 0, 0)
        grid.addWidget(self.p_fan, 0, 1)
        grid.addWidget(self.p_payback, 1, 0)
        grid.addWidget(self.p_tornado, 1, 1)

    def charts(self) -> dict:
        return {"NPV distribution": self.p_hist.getPlotItem(), "Cash-flow fan": self.p_fan.getPlotItem(),
                "Probability of payback": self.p_payback.getPlotItem(),
                "Rank-correlation tornado": self.p_tornado.getPlotItem()}

    def show_simulation(self, sim, current: int, colors) -> None:
        """Draw `sim` with plan i of the simulation in colors[i] (its plan's colour)."""
        plans = sim.plans if sim is not None else ()
        self._histogram(plans, colors)
        self._fan(plans, colors)
        self._payback(plans, colors)
        self.show_tornado(plans[current] if 0 <= current < len(plans) else None)

    def _histogram(self, plans, colors) -> None:
        edges, shares = histograms([p.metric("npv_usd") for p in plans], BINS)
        for item, share in zip(self.hist_lines.ensure(len(plans), colors), shares):
            item.setData(edges, share)

    def _fan(self, plans, colors) -> None:
        lows, highs, mids = (pool.ensure(len(plans), colors) for pool in (self.fan_low, self.fan_high, self.fan_mid))
        while len(self.fan_bands) < len(plans):
            i = len(self.fan_bands)
            band = pg.FillBetweenItem(lows[i], highs[i])
            self.p_fan.getPlotItem().addItem(band)
            self.fan_bands.append(band)
        for i, band in enumerate(self.fan_bands):
            band.setVisible(i < len(plans))
            if i < len(plans):
                band.setBrush(_translucent(colors[i], 45))
        for p, low, mid, high in zip(plans, lows, mids, highs):
            percentiles = fan(p.cumulative_cash_flow_usd, FAN)
            years = np.arange(percentiles.shape[-1], dtype=float)
            for item, row in zip((low, mid, high), percentiles):
                keep = np.isfinite(row)
                item.setData(years[keep], row[keep])

    def _payback(self, plans, colors) -> None:
        horizon = max((p.cumulative_cash_flow_usd.shape[-1] - 1 for p in plans), default=1)
        months = np.linspace(0.0, 12.0 * max(horizon, 1), 241)
        for item, p in zip(self.payback_lines.ensure(len(plans), colors), plans):
            item.setData(months, payback_probability(p.metric("payback_months"), months))

    def show_tornado(self, plan) -> None:
        corr = rank_correlations(plan_drivers(plan), plan.metric("npv_usd")) if plan else {}
        keys = [k for k, v in corr.items() if np.isfinite(v)][::-1]  # widest at the top
        values = np.array([corr[k] for k in keys], float)
        brushes = ["#4e79a7" if v >= 0 else "#e15759" for v in values]
        self.tornado_bars.setOpts(x0=np.zeros(len(keys)), y=np.arange(len(keys), dtype=float), width=values,
                                  height=0.6, brushes=brushes)
        category_ticks(self.p_tornado.getPlotItem().getAxis("left"), [uncertain_input_label(k) for k in keys])
        self.p_tornado.getPlotItem().setYRange(-0.6, max(len(keys), 1) - 0.4)
        title = f"Rank correlation with NPV: {plan.name}" if plan else "Rank correlation with NPV (current plan)"
        set_title(self.p_tornado.getPlotItem(), title)
