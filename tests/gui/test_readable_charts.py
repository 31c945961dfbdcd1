"""The Economics bar charts stay readable: a log axis where the values span more than 10x, a value
label on every bar, "n/a: reason" for a plan without a value, the legend outside the plot."""
import os

import numpy as np
import pytest

from tcoapp.engine.core.number_format import money

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAMPLE = os.path.join(ROOT, "samples", "hopper_to_blackwell_power_limited.xlsx")


@pytest.fixture
def sample_window(open_window):
    return open_window(SAMPLE, size=(1300, 800))


def test_costs_spanning_more_than_10x_get_a_log_axis_and_labels(sample_window):
    sample_window.tabs.setCurrentIndex(sample_window.tabs.indexOf(sample_window._economics_tab))   # a hidden tab is not drawn
    econ = sample_window.economics
    costs = np.array([r.metrics.cost_per_million_output_tokens_usd for r in sample_window.document.results])
    finite = costs[np.isfinite(costs)]
    assert finite.max() > 10 * finite.min()                     # $0.20 .. $41 in this sample
    chart = econ.cost_chart
    assert chart.log and econ.cost_axis.logMode
    for cost, text in zip(costs, chart.texts):
        if np.isfinite(cost):
            assert text == money(cost)   # the one formatter (engine/core/number_format.py)
        else:
            assert text == "n/a: target not met"
    # every bar ends at its total on the log axis
    ends = chart.bars["capex"].opts["x0"] + chart.bars["capex"].opts["width"]
    for name in list(chart.bars)[1:]:
        ends = np.maximum(ends, chart.bars[name].opts["x0"] + chart.bars[name].opts["width"])
    ok = np.isfinite(costs)
    assert np.allclose(10 ** ends[ok], costs[ok], rtol=1e-6)


def test_narrow_span_stays_linear(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._economics_tab))   # a hidden tab is not drawn
    econ = window.economics
    doc = window.document
    for i in range(len(doc.scenario.plans)):
        doc.set_plan_values(i, {"device": "B200", "weight_precision": "nvfp4", "tensor_parallel": 1})
    assert not econ.cost_chart.log and not econ.cost_axis.logMode
    widths = sum(bar.opts["width"] for bar in econ.cost_chart.bars.values())
    costs = [r.metrics.cost_per_million_output_tokens_usd for r in doc.results]
    assert np.allclose(widths, costs)


def test_legends_sit_outside_the_plots_and_never_break_a_name(sample_window):
    sample_window.tabs.setCurrentIndex(sample_window.tabs.indexOf(sample_window._economics_tab))   # a hidden tab is not drawn
    econ = sample_window.economics
    assert econ.cost_legend.parent() is not None and "capex" in econ.cost_legend.text()
    assert econ.p_cost.legend is None
    for name in (p.name for p in sample_window.document.scenario.plans):
        assert name.replace(" ", "&nbsp;").replace("-", "&#8209;").replace("/", "/&#8288;").replace(
            ">", "&gt;") in econ.legend.text()


def test_titles_are_outside_the_plots(sample_window):
    sample_window.tabs.setCurrentIndex(sample_window.tabs.indexOf(sample_window._economics_tab))   # a hidden tab is not drawn
    econ = sample_window.economics
    for plot in (econ.p_cash, econ.p_tornado):
        assert not plot.getPlotItem().titleLabel.isVisible()
