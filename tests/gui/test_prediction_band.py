"""The 80 % prediction interval on the Performance and Decision charts: error bars through a
generated plan's star with the engine's bounds, none for a plan on a measured curve (and the
tooltip and the note under the chart say so)."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.gui.files import import_curve_job
from tcoapp.gui.prediction_band import BAND_TEXT

MEASURED_CSV = """curve,device,model,batch,tokens_per_s_per_device,tokens_per_s_per_user,power_w,source
my-h100,H100-SXM,Llama-3.3-70B,1,40,40,400,bench A
my-h100,H100-SXM,Llama-3.3-70B,8,280,35,500,bench A
my-h100,H100-SXM,Llama-3.3-70B,32,900,28,620,bench A
my-h100,H100-SXM,Llama-3.3-70B,128,2000,16,690,bench A
"""


def _bar_bounds(bar, axes):
    """(x low, x high, y low, y high) an error bar spans, in data values (10** on a log axis)."""
    o = bar.opts
    x, y = float(o["x"][0]), float(o["y"][0])
    xs = np.array([x - float(o["left"][0]), x + float(o["right"][0])])
    ys = np.array([y - float(o["bottom"][0]), y + float(o["top"][0])])
    xs, ys = (10 ** xs if axes[0] else xs), (10 ** ys if axes[1] else ys)
    return (*xs, *ys)


def test_a_generated_plan_has_its_interval_drawn_on_the_frontier_chart(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    view, doc = window.performance, window.document
    result = doc.results[doc.current_index]
    interval = result.prediction_interval
    assert interval is not None                                   # the default plans are generated
    assert doc.current_index in view.bands.shown
    bar = view.bands.bars[0]
    assert bar.isVisible() and BAND_TEXT in bar.toolTip()
    low_x, high_x, low_y, high_y = _bar_bounds(bar, view.front_axes.log)
    assert (low_y, high_y) == pytest.approx(tuple(interval["tokens_per_s_per_device"]), rel=1e-9)
    assert (low_x, high_x) == pytest.approx(tuple(interval["tokens_per_s_per_user"]), rel=1e-9)
    assert low_y < result.metrics.tokens_per_s_per_device < high_y
    assert BAND_TEXT in view.band_note.text()


def test_a_plan_on_a_measured_curve_has_no_interval_and_the_chart_says_so(window, tmp_path):
    path = tmp_path / "my.csv"
    path.write_text(MEASURED_CSV)
    doc = window.document
    for curve in import_curve_job(str(path), doc.scenario)(lambda f: None, lambda: False).curves:
        doc.add_curve(curve)
    assert doc.set_plan_values(0, {"curve": "my-h100", "min_tokens_per_s_per_user": None, "batch": 32,
                                   "serving_search": "off"}) is None
    assert doc.results[0].prediction_interval is None
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    doc.set_current_index(0)
    view = window.performance
    assert 0 not in view.bands.shown
    assert not any(bar.isVisible() for bar in view.bands.bars)
    assert "None for H100 (a measured curve" in view.band_note.text()
    window.tabs.setCurrentIndex(window.tabs.indexOf(window.decision))
    chart = window.decision.chart
    chart.refresh()
    assert 0 not in chart.bands.shown and 1 in chart.bands.shown    # H200 is still generated
    tips = [bar.toolTip() for bar in chart.bands.bars if bar.isVisible()]
    assert tips and all("measured curve" in t and "nothing is drawn" in t for t in tips)
    assert "None for H100" in chart.note.text()
