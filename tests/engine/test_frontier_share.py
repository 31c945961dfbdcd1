"""frontier_share: a plan's tokens/s per device at its target over the best its device reaches there
in the widest search; a warning below 0.8 names the frontier; none for fleets of several pools."""
import math

import pytest

from tcoapp.engine.pipeline.compute import compute_plan, compute_scenario
from tcoapp.engine.serving.frontier_share import LOW_SHARE
from tcoapp.engine.serving.defaults import WIDEST_DRAFT_TOKENS, WIDEST_PRECISIONS, widest_search
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.load import load_scenario


def test_widest_search_lists_every_precision_and_drafts_where_there_is_acceptance():
    assert widest_search({"spec_decode_acceptance": 0.7}) == {
        "serving_search": "auto", "search_precisions": WIDEST_PRECISIONS, "search_max_draft_tokens": WIDEST_DRAFT_TOKENS}
    assert widest_search({"spec_decode_acceptance": 0.0})["search_max_draft_tokens"] == 0
    assert widest_search({"spec_decode_acceptance": 0.7, "search_max_draft_tokens": 6})["search_max_draft_tokens"] == 6
    assert set(WIDEST_PRECISIONS.split(";")) == {"bf16", "fp8", "mxfp4", "nvfp4"}


def test_default_scenario_plans_search_and_sit_on_their_frontier():
    scenario = default_scenario()
    for plan, r in zip(scenario.plans, compute_scenario(scenario)):
        assert plan.serving_search == "auto" and plan.search_max_draft_tokens == WIDEST_DRAFT_TOKENS
        assert r.frontier is not None and 0.9 <= r.frontier_share <= 1.0 + 1e-9, plan.name
        assert not any(w.startswith("far below its frontier") for w in r.warnings)
        assert r.as_json()["frontier_share"] == pytest.approx(r.frontier_share)
        # the result keeps what the search chose, not every point it swept (100-300 MB each)
        assert r.searches and all(s is not None and s.sweep is None for s in r.searches), plan.name


def test_a_hand_typed_plan_far_below_its_frontier_is_warned():
    scenario = default_scenario()
    # H100 FP8 TP4 batch at the target (TP2, as typed, meets the target at no batch with the 2026-12-07 factors)
    typed = scenario.plans[0].with_(serving_search="off", tensor_parallel=4)
    searched = compute_plan(scenario, scenario.plans[0])
    r = compute_plan(scenario, typed)
    assert r.frontier_share == pytest.approx(r.metrics.tokens_per_s_per_device / r.frontier.tokens_per_s_per_device)
    assert r.frontier_share < LOW_SHARE
    # the frontier is at least as fast as the cheapest searched configuration, at the same target
    assert r.frontier.tokens_per_s_per_device >= searched.metrics.tokens_per_s_per_device * (1 - 1e-9)
    note = next(w for w in r.warnings if w.startswith("far below its frontier"))
    assert f"{r.frontier_share:.0%}" in note and "H100-SXM" in note and "Serving search to Auto" in note
    assert f"{r.frontier.tokens_per_s_per_device:,.0f} tokens/s per device" in note


def test_no_frontier_for_a_fleet_of_pools():
    scenario = load_scenario("samples/heterogeneous_disaggregated.xlsx")
    for r in compute_scenario(scenario):
        if len(r.pools) > 1:
            assert r.frontier is None and math.isnan(r.frontier_share) and r.as_json()["frontier_share"] is None
        else:
            assert r.as_json()["frontier_share"] is not None


def test_results_sheet_has_a_frontier_share_row(tmp_path):
    import dataclasses

    import openpyxl

    from tcoapp.io.workbook_write import write_scenario
    scenario = default_scenario()
    plans = list(scenario.plans)
    plans[0] = plans[0].with_(serving_search="off", tensor_parallel=4)
    scenario = dataclasses.replace(scenario, plans=tuple(plans))
    results = compute_scenario(scenario)
    write_scenario(scenario, tmp_path / "book.xlsx", results)
    ws = openpyxl.load_workbook(tmp_path / "book.xlsx")["Results"]
    row = next(r for r in ws.iter_rows(values_only=True) if r[0] == "frontier_share")
    assert row[2] == pytest.approx(results[0].frontier_share) and row[2] < LOW_SHARE
    assert row[3] == pytest.approx(results[1].frontier_share)
