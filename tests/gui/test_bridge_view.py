"""The Bridge tab (docs/model.md, "Cost bridge"): the waterfall's bars are the engine's bridge (A's cost,
one step per part from the running total, B's cost), picking plans redraws it, an edit of the document
redraws it."""
import math

import pytest

from tcoapp.engine.finance.bridge import BRIDGE_PARTS, cost_bridge
from tcoapp.gui.bridge_view import BridgeView, waterfall
from tcoapp.gui.document import Document
from tcoapp.io.default_scenario import default_scenario


@pytest.fixture
def view(qtbot):
    document = Document(default_scenario())
    widget = BridgeView(document)
    qtbot.addWidget(widget)
    widget.resize(1000, 600)
    return widget


def _bars(view):
    return [float(v) for v in view.bars.opts["y0"]], [float(v) for v in view.bars.opts["height"]]


def test_the_bars_are_the_engines_bridge(view):
    results = view.document.results
    want = cost_bridge(results[0].name, results[0].finance, results[1].name, results[1].finance)
    bottoms, heights = _bars(view)
    assert len(heights) == len(BRIDGE_PARTS) + 2
    assert heights[0] == want["a_usd_per_million"] and heights[-1] == want["b_usd_per_million"]
    level = want["a_usd_per_million"]
    for (bottom, height), part in zip(zip(bottoms[1:-1], heights[1:-1]), want["parts"]):
        step = part["difference"]
        assert bottom == pytest.approx(min(level, level + step)) and height == pytest.approx(abs(step))
        level += step
    assert level == pytest.approx(want["b_usd_per_million"], rel=1e-12)
    assert results[1].name in view.summary.text()


def test_picking_plans_and_editing_redraw(view):
    view.plan_b.setCurrentIndex(2)
    results = view.document.results
    want = cost_bridge(results[0].name, results[0].finance, results[2].name, results[2].finance)
    assert _bars(view)[1][-1] == want["b_usd_per_million"]
    energy_before = _bars(view)[1][2]
    assert view.document.set_plan_value(0, "electricity_usd_per_kwh", 0.3) is None  # no problem
    results = view.document.results
    want = cost_bridge(results[0].name, results[0].finance, results[2].name, results[2].finance)
    bottoms, heights = _bars(view)
    assert heights[0] == want["a_usd_per_million"] and heights[2] != energy_before  # redrawn with the edit
    names, _, _, colors = waterfall(want)
    assert names[0] == results[0].name and math.isfinite(heights[0]) and len(colors) == len(heights)


def test_under_the_bridge_each_plan_shows_its_validated_base_and_configuration_gains(view):
    """The Bridge tab says how much of each chosen plan's tokens/s per device rests on configuration
    gains: the validated base x speculative decoding x FP4 KV x disaggregation, the engine's figures."""
    from tcoapp.present.config_gains import gains_sentence
    results = view.document.results
    text = view.gains.text()
    for result in results[:2]:
        assert result.configuration_gains is not None
        assert f"{result.name}: {gains_sentence(result.configuration_gains)}" in text
    assert "validated base" in text and "speculative decoding" in text and "disaggregation" in text
