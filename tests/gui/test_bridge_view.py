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


def test_freezing_a_plan_whose_search_chose_prefill_decode_types_the_pair_in(qtbot):
    """Freeze on a plan whose search chose disaggregation (search_disaggregation = auto) writes the
    prefill and decode pools on Pools rows, the decode pool with the searched configuration."""
    scenario = default_scenario()
    name = scenario.plans[2].name
    scenario = scenario.with_plan(name, search_disaggregation="auto", model="DeepSeek-R1", input_tokens=8192,
                                  min_tokens_per_s_per_user=37.0, search_precisions="fp8", weight_precision="fp8",
                                  kv_precision="fp8")
    document = Document(scenario)
    result = document.results[2]
    assert result.disaggregation["chosen"]
    document.freeze_serving(2)
    plan = document.scenario.plans[2]
    assert plan.serving_search == "off" and [p.role for p in plan.pools] == ["prefill", "decode"]
    decode = result.pools[1].serving
    assert plan.pools[1].tensor_parallel == decode.tensor_parallel
    assert document.results[2].metrics.tokens_per_s_per_device == pytest.approx(
        result.metrics.tokens_per_s_per_device, rel=1e-6)
