"""NPV against the discount rate (Economics tab, in place of the cumulative cash flow): a line per plan,
its NPV at its own rate and its IRR where it crosses 0, exportable like every chart."""
import numpy as np
import pytest


def _economics(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))
    return window.economics


def test_the_npv_profile_passes_through_each_plans_npv_and_irr(window):
    econ = _economics(window)
    econ.cash_view.setCurrentIndex(1)
    econ.cash_view.activated.emit(1)
    chart = econ.npv_profile
    assert chart.plot.isVisible() and not econ.p_cash.isVisible()
    results = window.document.results
    for line, r in zip(chart.lines.items, results):
        x, y = line.xData, line.yData
        flows = np.asarray(r.finance.cash_flows_usd, float)
        k = len(x) // 3
        rate = x[k] / 100.0
        want = sum(f / (1 + rate) ** t for t, f in enumerate(flows))      # year-end discounting (the default)
        assert y[k] == pytest.approx(want, rel=1e-9)
        assert x[0] == 0 and y[0] == pytest.approx(flows.sum(), rel=1e-9)
    xs, ys = chart.irr_points.getData()
    shown = [r.metrics.irr * 100 for r in results if np.isfinite(r.metrics.irr) and r.metrics.irr * 100 <= max(
        chart.lines.items[0].xData)]
    assert sorted(xs) == pytest.approx(sorted(shown)) and np.all(ys == 0)
    own_x, own_y = chart.rate_points.getData()
    assert list(own_y) == pytest.approx([r.metrics.npv_usd for r in results], rel=1e-12)
    assert list(own_x) == pytest.approx([100 * p.discount_rate for p in window.document.scenario.plans])
    econ.cash_view.setCurrentIndex(0)
    econ.cash_view.activated.emit(0)
    assert econ.p_cash.isVisible() and not chart.plot.isVisible()


def test_the_npv_profile_exports(window, tmp_path):
    econ = _economics(window)
    econ.cash_view.setCurrentIndex(1)
    econ.cash_view.activated.emit(1)
    path = tmp_path / "npv.png"
    assert window.export_chart("NPV against the discount rate", str(path))
    assert path.stat().st_size > 1000


def _own_npvs(chart):
    return list(chart.rate_points.getData()[1])


def test_the_hidden_npv_profile_waits_for_its_show_and_then_shows_the_latest_edit(window):
    econ = _economics(window)
    doc = window.document
    assert doc.set_plan_value(0, "utilization", 0.41) is None   # the cash flow is shown: the profile is left
    assert "npv_profile" not in econ.refresh()
    npvs = [r.metrics.npv_usd for r in doc.results]
    econ.cash_view.setCurrentIndex(1)
    econ.cash_view.activated.emit(1)
    assert _own_npvs(econ.npv_profile) == pytest.approx(npvs, rel=1e-12)
    assert doc.set_plan_value(0, "utilization", 0.52) is None   # shown: it follows every edit
    assert _own_npvs(econ.npv_profile) == pytest.approx([r.metrics.npv_usd for r in doc.results], rel=1e-12)
    econ.cash_view.setCurrentIndex(0)
    econ.cash_view.activated.emit(0)
    assert doc.set_plan_value(0, "utilization", 0.63) is None   # hidden again: stale until it is exported
    latest = [r.metrics.npv_usd for r in doc.results]
    assert _own_npvs(econ.npv_profile) != pytest.approx(latest, rel=1e-12)
    econ.charts()
    assert _own_npvs(econ.npv_profile) == pytest.approx(latest, rel=1e-12)
