"""The horizontal bar charts put each segment where the ones below it end (NaN as 0), give a plan without a
value no bar and an "n/a" label, and write every total at the end of its bar; on a log axis a segment spans
the logs of where it starts and ends. Checked against the plans' own numbers, computed here apart."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.gui.bar_chart import HBarChart
from tcoapp.gui.plotting import NumberAxis, pg


def _chart(qtbot, segments=("a", "b", "c")):
    widget = pg.GraphicsLayoutWidget()
    qtbot.addWidget(widget)
    axis = NumberAxis("bottom")
    item = widget.addPlot(axisItems={"bottom": axis})
    chart = HBarChart(item, axis, {s: "#888888" for s in segments}, lambda v: f"{v:.6g}")
    chart.widget = widget   # (the chart's items live as long as the widget)
    return chart


def _expected(parts: dict[str, np.ndarray], log: bool, floor: float):
    """(x0, width) per segment, one plan at a time, as a reader would add up the bars."""
    n = len(next(iter(parts.values())))
    out = {name: (np.zeros(n), np.zeros(n)) for name in parts}
    for i in range(n):
        values = [float(parts[name][i]) for name in parts]
        missing = not all(np.isfinite(values))
        left = 0.0
        for name, v in zip(parts, values):
            v = v if np.isfinite(v) else 0.0
            right = left + v
            if log:
                start = np.log10(left) if left > 0 else floor
                end = np.log10(right) if right > 0 else floor
            else:
                start, end = left, right
            out[name][0][i], out[name][1][i] = start, 0.0 if missing else end - start
            left = right
    return out


@pytest.mark.parametrize("scale", [(1.0, 2.0, 3.0), (1.0, 40.0, 0.5)])   # a linear axis; totals 10x apart: log
def test_segments_start_where_the_ones_below_end(qtbot, scale):
    chart = _chart(qtbot)
    parts = {"a": np.array([1.0, 2.0, np.nan, 4.0]) * scale[0], "b": np.array([0.5, 0.0, 1.0, 2.0]) * scale[1],
             "c": np.array([0.25, 3.0, 1.0, 0.0]) * scale[2]}
    chart.set_data(["p0", "p1", "p2", "p3"], parts, ["", "", "no operating point", ""])
    totals = np.array([sum(parts[k][i] for k in parts) for i in range(4)])
    log = bool(np.nanmax(totals) > 10 * np.nanmin(totals))
    assert chart.log == log and chart.axis.logMode == log
    floor = float(np.floor(np.log10(np.nanmin(totals)))) if log else 0.0
    for name, (x0, width) in _expected(parts, log, floor).items():
        bar = chart.bars[name]
        assert np.allclose(bar.opts["x0"], x0) and np.allclose(bar.opts["width"], width), name
        assert np.array_equal(bar.opts["y"], np.arange(4.0))
    texts = [label.textItem.toPlainText() for label in chart.labels]
    assert texts[2] == "n/a: no operating point" and texts[0] == f"{totals[0]:.6g}" and texts[3] == f"{totals[3]:.6g}"
    ends = np.log10(totals) if log else totals
    assert chart.labels[0].pos().x() == pytest.approx(ends[0]) and chart.labels[2].pos().x() == floor


def test_fewer_plans_hide_the_extra_labels_and_more_show_them_again(qtbot):
    chart = _chart(qtbot, ("a",))
    chart.set_data(["p0", "p1", "p2"], {"a": np.array([1.0, 2.0, 3.0])}, ["", "", ""])
    chart.set_data(["p0"], {"a": np.array([5.0])}, [""])
    assert [label.isVisible() for label in chart.labels] == [True, False, False]
    assert chart.labels[0].textItem.toPlainText() == "5" and np.allclose(chart.bars["a"].opts["width"], [5.0])
    chart.set_data(["p0", "p1"], {"a": np.array([5.0, 6.0])}, ["", ""])
    assert [label.isVisible() for label in chart.labels] == [True, True, False]
    assert chart.labels[1].textItem.toPlainText() == "6"
