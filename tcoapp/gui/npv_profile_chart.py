"""NPV against the discount rate: one line per plan (engine/finance/cashflow.npv_profile over its cash
flows), its IRR where the line crosses 0 and its own discount rate marked. Where a line crosses 0 more
than once, several rates make NPV = 0 and no IRR is given (docs/model.md, "Finance")."""
from __future__ import annotations

import numpy as np
from PySide6.QtCore import Qt

from ..engine.finance.cashflow import npv_profile
from .plotting import ItemPool, MoneyAxis, brush, make_plot, pen, pg

RATE_POINTS = 241
MIN_TOP_RATE = 0.5        # the axis reaches at least 50 %
MAX_TOP_RATE = 20.0       # and at most 2,000 % (an IRR above it is marked at its value in the tip only)


def rate_axis(results) -> np.ndarray:
    """Rates from 0 to 1.5x the highest finite IRR (at least 50 %, at most 2,000 %)."""
    irrs = [r.metrics.irr for r in results if np.isfinite(r.metrics.irr)]
    top = min(max([MIN_TOP_RATE] + [1.5 * i for i in irrs]), MAX_TOP_RATE)
    return np.linspace(0.0, top, RATE_POINTS)


class NpvProfileChart:
    """The chart (`plot`, a pyqtgraph PlotWidget) and its drawing."""

    def __init__(self):
        self.plot = make_plot("NPV against the discount rate", "Discount rate [%]", "NPV [USD]",
                              y_axis=MoneyAxis("left"))
        self.plot.getPlotItem().setTitle(None)
        item = self.plot.getPlotItem()
        item.addLine(y=0, pen=pen("#555", 1, Qt.DashLine))
        self.lines = ItemPool(item, lambda i: pg.PlotDataItem(), lambda line, color: line.setPen(pen(color)))
        self.irr_points = pg.ScatterPlotItem(size=11, pen=pg.mkPen("k", width=1.5), hoverable=True, tip=self._irr_tip)
        self.rate_points = pg.ScatterPlotItem(size=11, symbol="s", pen=pg.mkPen("k", width=1), hoverable=True,
                                              tip=self._rate_tip)
        for marker in (self.irr_points, self.rate_points):
            marker.setZValue(2)
            item.addItem(marker)
        self._names: list[str] = []

    def draw(self, results, colors) -> None:
        rates = rate_axis(results)
        self._names = [r.name for r in results]
        irr_x, irr_y, irr_b, irr_d, own_x, own_y, own_b, own_d = [], [], [], [], [], [], [], []
        for i, (line, r) in enumerate(zip(self.lines.ensure(len(results), colors), results)):
            if r.finance is None or r.inputs is None or not np.all(np.isfinite(r.finance.cash_flows_usd)):
                line.setData([], [])
                continue
            flows, discounting = np.asarray(r.finance.cash_flows_usd, float), r.inputs.discounting
            line.setData(rates * 100.0, npv_profile(rates, flows, discounting))
            if np.isfinite(r.metrics.irr) and r.metrics.irr <= rates[-1]:
                irr_x.append(r.metrics.irr * 100.0)
                irr_y.append(0.0)
                irr_b.append(brush(colors[i]))
                irr_d.append(i)
            own = float(np.asarray(r.inputs.discount_rate, float))
            own_x.append(own * 100.0)
            own_y.append(float(r.metrics.npv_usd))
            own_b.append(brush(colors[i]))
            own_d.append(i)
        self.irr_points.setData(irr_x, irr_y, brush=irr_b, data=irr_d)
        self.rate_points.setData(own_x, own_y, brush=own_b, data=own_d)

    def _irr_tip(self, x, y, data):
        return f"{self._names[int(data)]}: IRR {x:.3g} % (NPV = 0)" if data is not None else ""

    def _rate_tip(self, x, y, data):
        return f"{self._names[int(data)]}: NPV ${y:,.0f} at its discount rate {x:.3g} %" if data is not None else ""
