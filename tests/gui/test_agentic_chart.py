"""The agentic sessions chart (Performance tab; docs/model.md, "Agentic sessions and KV tiers"): hit rate and
tokens/s per device against the concurrent sessions, the plan's KV offload solid and the other way dashed,
the HBM knee marked; drawn from each plan's agentic block, hidden where no plan has one, exportable."""
import math

import pytest

from tcoapp.engine.quantities.records import make_request_class

CODING = make_request_class({"plan": "B200 agentic", "class": "coding", "share": 1.0, "output_tokens": 300,
                             "session_turns": 30, "system_prompt_tokens": 8000, "turn_input_tokens": 2000,
                             "turn_gap_s": 5.0})


def _agentic_scenario():
    from tcoapp.io.default_scenario import default_scenario
    s = default_scenario()
    plan = s.plans[2].with_(name="B200 agentic", model="GLM-4.6", serving_search="off", tensor_parallel=8,
                            min_tokens_per_s_per_user=None, max_ttft_s=None, batch=64, weight_precision="fp8",
                            kv_precision="fp8", sizing_mode="devices", device_count=64, workloads=(CODING,))
    return s.with_plans(s.plans[:2] + (plan,) + s.plans[3:])


def _performance(window):
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    return window.performance


def test_no_agentic_plan_no_chart(window):
    view = _performance(window)
    assert not view.agentic.isVisible()
    assert view._grid.rowStretch(2) == 0   # the hidden row takes no share of the height


def test_a_long_y_label_goes_on_two_lines_and_every_label_keeps_its_text():
    from tcoapp.gui.plotting import Y_LABEL_CHARS, two_line_label

    assert two_line_label("Tokens/s per device [tokens/s]") == "Tokens/s per device<br>[tokens/s]"
    assert two_line_label("Batch [sequences]") == "Batch [sequences]"    # short enough for one line
    assert two_line_label("x" * (Y_LABEL_CHARS + 5)) == "x" * (Y_LABEL_CHARS + 5)   # no unit: nothing to break at


def test_the_chart_draws_each_agentic_plans_curves_and_knee(open_window, tmp_path, qtbot):
    window = open_window(scenario=_agentic_scenario())
    qtbot.waitUntil(lambda: any(getattr(r, "agentic", None) for r in window.document.results), timeout=60000)
    view = _performance(window)
    view.refresh()
    chart = view.agentic
    assert chart.isVisible() and chart.names == ["B200 agentic"]
    assert view._grid.rowStretch(2) == view._grid.rowStretch(0) == 1   # three rows of charts share the height
    result = next(r for r in window.document.results if r.agentic)
    a = result.agentic
    solid, dashed, knees, marks = chart.pools["hit"]
    x, y = solid.items[0].xData, solid.items[0].yData
    # log x axis: pyqtgraph keeps the data, maps it at paint time
    assert list(x) == pytest.approx([p["sessions_per_replica"] for p in a["session_curve"]])
    assert list(y) == pytest.approx([p["achieved_prefix_hit_rate"] for p in a["session_curve"]])
    assert a["contrast"]["kv_offload"] == "host"
    assert list(dashed.items[0].yData) == pytest.approx([p["achieved_prefix_hit_rate"]
                                                         for p in a["contrast"]["session_curve"]])
    assert knees.items[0].value() == pytest.approx(math.log10(a["hbm_knee_sessions_per_replica"]))
    assert "agents per MW" in chart.answer.text() and "per agent-hour" in chart.answer.text()
    rate_line = chart.pools["rate"][0].items[0]
    assert list(rate_line.yData) == pytest.approx([p["tokens_per_s_per_device"] for p in a["session_curve"]])
    for name in ("Prefix hit rate vs sessions", "Throughput vs sessions"):
        path = tmp_path / (name.replace(" ", "_") + ".png")
        assert window.export_chart(name, str(path)) and path.stat().st_size > 1000


def test_the_chart_shows_the_plan_chosen_in_the_editor(open_window, qtbot):
    """One plan at a time (its curves, the contrast and the knee), the one the plan editor shows; a plan without
    an agentic class shows the first agentic plan, and the text says how to see the others."""
    scenario = _agentic_scenario()
    second = scenario.plans[2].with_(name="B200 agentic 2", batch=32,
                                     workloads=(CODING.with_(plan="B200 agentic 2"),))
    window = open_window(scenario=scenario.with_plans(scenario.plans + (second,)))
    qtbot.waitUntil(lambda: sum(bool(getattr(r, "agentic", None)) for r in window.document.results) == 2,
                    timeout=90000)
    view = _performance(window)
    window.document.set_current_index(len(window.document.scenario.plans) - 1)
    view.refresh()
    assert view.agentic.names == ["B200 agentic 2"] and "one plan at a time" in view.agentic.answer.text()
    window.document.set_current_index(0)
    view.refresh()
    assert view.agentic.names == ["B200 agentic"]


def test_an_edit_keeps_the_plans_request_classes(qtbot):
    """The plan editor's edits go through make_plan, which knows only Plans keys: the plan's request classes
    (its Workloads rows) are kept as they are."""
    from tcoapp.gui.document import Document
    doc = Document(_agentic_scenario())
    assert doc.set_plan_value(2, "utilization", 0.55) is None
    assert doc.scenario.plans[2].utilization == 0.55 and doc.scenario.plans[2].workloads == (CODING,)
    assert doc.set_plan_value(2, "kv_offload", "host") is None
    assert doc.scenario.plans[2].kv_offload == "host" and doc.scenario.plans[2].workloads == (CODING,)
    doc.deleteLater()
