"""The Performance tab draws a plan with Pools rows as its first serve or decode pool: a decode pool's
own curve (decode steps only, its requests arrive prefilled), with the plan's marker at what the pool
delivers, on the curve, or below it when the pool waits for prefill."""
from __future__ import annotations

import os

import numpy as np
import pytest

from tcoapp.gui.perf_data import curve_for, shown_point

SAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "samples", "heterogeneous_disaggregated.xlsx")
KEYS = ("tokens_per_s_per_device", "tokens_per_s_per_user", "tokens_per_joule")


def _on_curve(batch, values, at):
    return float(np.interp(np.log(at), np.log(batch), values))


def test_a_decode_pool_is_drawn_with_its_own_curve_and_the_marker_on_it(open_window):
    window = open_window(SAMPLE)
    doc = window.document
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    view = window.performance
    pools_plans = [i for i, p in enumerate(doc.scenario.plans) if p.pools]
    assert len(pools_plans) == 2
    waits = [i for i in pools_plans if any("decode pool waits" in w for w in doc.results[i].warnings)]
    assert waits, "the sample has a decode pool that waits for prefill"
    for i in pools_plans:
        plan, result = doc.scenario.plans[i], doc.results[i]
        point = shown_point(plan, result)
        decode = next(r for r in result.pool_rows() if r["role"] == "decode")
        assert point["batch"] == decode["batch"] and point["tokens_per_s_per_user"] == decode["tokens_per_s_per_user"]
        from tcoapp.engine.serving.freeze import frozen_plan   # a searched pool: the configuration it runs
        from tcoapp.gui.perf_data import _decode_values, shown_plan
        drawn = frozen_plan(plan, result.searches)
        batch, values = curve_for(doc.scenario, drawn)
        # the drawn curve at the point's own batch (a searched batch may fall between the grid's batches,
        # next to the first one memory refuses)
        at = _decode_values(doc.scenario, shown_plan(drawn), np.array([float(point["batch"])]))
        assert float(at["tokens_per_s_per_user"][0]) == pytest.approx(point["tokens_per_s_per_user"], rel=0.01)
        assert np.nanmax(values["tokens_per_s_per_user"]) >= point["tokens_per_s_per_user"]
        capacity = float(at["tokens_per_s_per_device"][0])
        if i in waits:     # below its capacity by the share it waits
            assert point["tokens_per_s_per_device"] < 0.99 * capacity
        else:
            assert point["tokens_per_s_per_device"] == pytest.approx(capacity, rel=0.01)
        # the view's markers are these points
        for (lines, marks), key in zip(view._line_pools, KEYS):
            x, y = marks.items[i].xData, marks.items[i].yData   # the data (getData() is in log coordinates)
            assert x[0] == pytest.approx(point["batch"]) and y[0] == pytest.approx(point[key])


def test_a_plan_without_pools_rows_keeps_its_own_point():
    from tcoapp.engine.pipeline.compute import compute_plan
    from tcoapp.io.default_scenario import default_scenario

    scenario = default_scenario()
    plan = scenario.plans[0]
    result = compute_plan(scenario, plan)
    point = shown_point(plan, result)
    assert point == {k: float(getattr(result.metrics, k)) for k in ("batch",) + KEYS}


def test_a_plan_with_pools_rows_has_no_frontier_and_says_why(open_window):
    window = open_window(SAMPLE)
    doc, view = window.document, window.performance
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    pools_plan = next(i for i, p in enumerate(doc.scenario.plans) if p.pools)
    doc.set_current_index(pools_plan)
    assert "n/a" in view.front_title and view.sweep is None
    assert "Pools rows" in view.info.text()
    assert not view.sweep_button.isEnabled()
    view.run_sweep()                                   # refused inline, no sweep started
    assert view.sweep is None and not window.runner.running
    assert "Pools rows" in window.problems.text()
    assert len(view.points.data) == 0                  # no plan's star on a frontier that is not drawn
    doc.set_current_index(0)
    assert "n/a" not in view.front_title and "Hover" in view.info.text() and view.sweep_button.isEnabled()


def test_no_sweep_starts_or_lands_for_a_plan_with_pools_rows(open_window, qtbot):
    window = open_window(SAMPLE)
    doc, view = window.document, window.performance
    window.tabs.setCurrentIndex(window.tabs.indexOf(window._performance_tab))
    pools_plan = next(i for i, p in enumerate(doc.scenario.plans) if p.pools)
    other = next(i for i, p in enumerate(doc.scenario.plans) if not p.pools and p.device != doc.scenario.plans[0].device)
    with qtbot.waitSignal(window.runner.succeeded, timeout=60000):
        view.run_sweep()                         # plan 0's frontier
    result, key = view.sweep, view._sweep_key
    doc.set_current_index(other)                 # another device: an automatic sweep is due
    assert view._auto.isActive()
    doc.set_current_index(pools_plan)            # ... and called off
    assert not view._auto.isActive()
    view.show_sweep(result, key)                 # a sweep that lands late is not shown
    assert view.sweep is None and "Pools rows" in view.info.text()
    assert window.problems.text() == ""          # nothing the user asked for failed


def test_a_prefill_decode_split_is_drawn_as_its_decode_pool_with_the_marker_on_it():
    """A plan with prefill_devices:decode_devices and no Pools rows runs a derived pair: drawn as its decode
    pool (its own curve, decode steps only) with the marker at what that pool delivers, on the curve; before,
    the aggregated curve of the device was drawn and the marker sat at the pair's per-device average off it."""
    from tcoapp.engine.pipeline.compute import compute_plan
    from tcoapp.gui.perf_data import _decode_values, has_frontier, shown_plan
    from tcoapp.io.default_scenario import default_scenario

    scenario = default_scenario()
    name = scenario.plans[1].name
    scenario = scenario.with_plan(name, prefill_devices=1, decode_devices=3)
    plan = scenario.plan(name)
    result = compute_plan(scenario, plan)
    decode = next(r for r in result.pool_rows() if r["role"] == "decode")
    from tcoapp.engine.serving.freeze import frozen_plan   # as the view draws it: the configuration searched
    drawn = frozen_plan(result.searched_plan or plan, result.searches)
    point = shown_point(drawn, result)
    assert point["batch"] == decode["batch"] and point["tokens_per_s_per_device"] == decode["tokens_per_s_per_device"]
    assert point["tokens_per_s_per_device"] > 1.2 * result.metrics.tokens_per_s_per_device   # not the pair's average
    assert shown_point(plan, result) == point
    plan = drawn
    batch, values = curve_for(scenario, plan)
    at = _decode_values(scenario.for_plan(shown_plan(plan)), shown_plan(plan), np.array([point["batch"]]))
    assert float(at["tokens_per_s_per_user"][0]) == pytest.approx(point["tokens_per_s_per_user"], rel=0.01)
    capacity = float(at["tokens_per_s_per_device"][0])
    if any("decode pool waits" in w for w in result.warnings):   # below its capacity by the share it waits
        assert point["tokens_per_s_per_device"] < 0.99 * capacity
    else:
        assert point["tokens_per_s_per_device"] == pytest.approx(capacity, rel=0.01)
    assert _on_curve(batch, values["tokens_per_s_per_user"], point["batch"]) == pytest.approx(
        point["tokens_per_s_per_user"], rel=0.05)
    assert not has_frontier(plan) and has_frontier(scenario.plans[0])
