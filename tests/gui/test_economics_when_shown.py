"""The Economics tab, edited while hidden, shows the document's numbers once shown (it is only marked stale
while hidden: gui/redraw.py); its cash flow chart's ranges hold every point and stay put for small edits back
and forth (an edit then repaints the lines, not the axes)."""
from __future__ import annotations

import numpy as np

from tcoapp.engine.core.number_format import money
from tcoapp.gui.economics_view import COMPONENTS, cost_components


def _show(window, tab) -> None:
    window.tabs.setCurrentIndex(window.tabs.indexOf(tab))


def _show_decision(window) -> None:
    window.tabs.setCurrentIndex(0)
    assert window.tabs.tabText(0) == "Decision"


def _cumulative(result) -> np.ndarray:
    return np.cumsum(np.asarray(result.finance.cash_flows_usd, float))


def test_a_hidden_economics_tab_shows_every_edit_once_shown(window):
    doc = window.document
    econ = window.economics   # built, then hidden behind the Decision tab
    _show(window, window._economics_tab)
    _show_decision(window)
    shown_lines = [np.array(line.yData, float) for line in econ.cash_lines.items[:len(doc.results)]]
    for plan, (key, value) in enumerate((("utilization", 0.45), ("electricity_usd_per_kwh", 0.2))):
        assert doc.set_plan_value(plan, key, value) is None
    assert econ.redraw.stale   # hidden: not drawn
    assert np.array_equal(econ.cash_lines.items[0].yData, shown_lines[0])   # (the check below can fail)
    _show(window, window._economics_tab)
    assert not econ.redraw.stale
    for i, result in enumerate(doc.results):
        if result.finance is not None:
            assert np.array_equal(econ.cash_lines.items[i].yData, _cumulative(result)), i
    totals = [sum(cost_components(r.finance).values()) for r in doc.results]
    for i, total in enumerate(totals):
        if np.isfinite(total):
            assert econ.cost_chart.labels[i].textItem.toPlainText() == money(total), i
    revenue = [r.metrics.revenue_usd_per_rack_per_year for r in doc.results]
    assert np.allclose(econ.rack_chart.totals, revenue, equal_nan=True)
    plan = doc.current_plan()
    assert econ.tornado_value.text().startswith(f"{plan.name}: ")


def test_the_cash_flow_ranges_hold_every_point_and_stay_for_edits_back_and_forth(window):
    doc, econ = window.document, window.economics
    _show(window, window._economics_tab)
    item = econ.p_cash.getPlotItem()
    ranges = []
    for k in range(8):
        for plan in range(len(doc.scenario.plans)):
            assert doc.set_plan_value(plan, "utilization", (0.6, 0.7)[k % 2]) is None
        (x0, x1), (y0, y1) = item.viewRange()
        for r in doc.results:
            if r.finance is None:
                continue
            y = _cumulative(r)
            y = y[np.isfinite(y)]
            assert y0 < min(y.min(), 0.0) and max(y.max(), 0.0) < y1   # every year's point, and 0, inside
            assert x0 < 0 and len(r.finance.cash_flows_usd) - 1 < x1
        ranges.append(item.viewRange())
    assert all(r == ranges[-1] for r in ranges[2:])   # settled on one range that holds both values
    assert doc.set_plan_value(0, "utilization", 0.05) is None   # far outside it: a new range that holds it
    y = _cumulative(doc.results[0])
    (_, _), (y0, y1) = item.viewRange()
    assert y0 < np.nanmin(y) and np.nanmax(y) < y1


def test_the_tornado_is_computed_only_while_shown_and_shows_the_current_plans_once_shown(window, monkeypatch):
    """Edits of the current plan behind another tab compute no tornado; shown, its bars are the engine's tornado of
    the document's result (each bar against its input moved alone: tests/engine/test_finance_one_metric.py)."""
    import tcoapp.gui.economics_view as economics_view
    from tcoapp.engine.uncertainty.error_swing import tornado_with_model_error

    calls = []
    monkeypatch.setattr(economics_view, "tornado_with_model_error",
                        lambda *a, **kw: calls.append(a) or tornado_with_model_error(*a, **kw))
    doc, econ = window.document, window.economics
    _show(window, window._economics_tab)
    _show_decision(window)
    calls.clear()
    for key, value in (("utilization", 0.45), ("electricity_usd_per_kwh", 0.2)):
        assert doc.set_plan_value(doc.current_index, key, value) is None
    assert calls == [] and econ.redraw.stale
    _show(window, window._economics_tab)
    assert len(calls) == 1 and not econ.redraw.stale
    result = doc.results[doc.current_index]
    metric, fraction = econ.metric_box.currentData(), econ.fraction_box.currentData()
    swings = tornado_with_model_error(result, metric, fraction)[:10]
    base = float(getattr(result.metrics, metric))
    assert np.array_equal(econ.tornado_low.opts["width"], np.nan_to_num(np.array([s.metric_low for s in swings]) - base))
    assert np.array_equal(econ.tornado_high.opts["width"], np.nan_to_num(np.array([s.metric_high for s in swings]) - base))
    assert econ.tornado_base.value() == base
