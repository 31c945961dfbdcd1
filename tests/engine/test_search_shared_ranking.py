"""The configuration gains reuse the serving search's ranking (serving/search.py, `best_within_each`): the same
choices as a search ranked afresh, no configuration re-evaluated twice; the tornado's model-error bar in the
tornado's own finance call gives the bar computed alone (finance/sensitivity.py); the year rows' dependencies
found once give the same rows and still name a row nothing computes (finance/year_rows.py)."""
from dataclasses import replace

import numpy as np
import pytest

from tcoapp.engine.pipeline.compute import compute_plan, compute_scenario
from tcoapp.engine.plan.pools import resolve_pools, with_acceptance
from tcoapp.engine.serving import search
from tcoapp.engine.serving.gain_spaces import GAIN_SPACES
from tcoapp.io.default_scenario import default_scenario


def _searched(name_index: int = 2, keeps=(), **changes):
    """(scenario, plan, typed pool, outcome) of a searched plan of the default scenario (B200 by default)."""
    scenario = default_scenario()
    name = scenario.plans[name_index].name
    scenario = scenario.with_plan(name, serving_search="auto", search_max_draft_tokens=2,
                                  search_precisions="fp8;nvfp4", **changes)
    plan = scenario.plan(name)
    scoped = scenario.for_plan(plan)
    pool = with_acceptance(resolve_pools(plan), scoped.acceptance_for(plan.model))[0]
    _, outcome = search.search_serve_pool(scoped, plan, pool, keeps=keeps)
    assert outcome is not None and outcome.ranked is not None
    return scoped, plan, pool, outcome


def _no_fp4(c):
    return ~np.isin(c["kv_precision"], ("nvfp4", "mxfp4"))


def _no_draft(c):
    return _no_fp4(c) & (c["spec_decode_draft_tokens"] == 0)


def test_restricted_choices_from_the_searchs_ranking_equal_a_fresh_ranking():
    scenario, plan, pool, outcome = _searched()
    shared = search.best_within_each(scenario, plan, pool, outcome, (_no_draft, _no_fp4))
    fresh = [search.best_within(scenario, plan, pool, replace(outcome, ranked=None), keep) for keep in (_no_draft, _no_fp4)]
    assert shared == fresh
    assert shared[0] is not None and shared[0].spec_decode_draft_tokens == 0 and shared[0].kv_precision not in ("nvfp4", "mxfp4")


@pytest.mark.parametrize("keeps", [(), GAIN_SPACES])
def test_the_gains_spaces_evaluated_with_the_search_are_not_evaluated_again(monkeypatch, keeps):
    scenario, plan, pool, outcome = _searched(keeps=keeps)
    evaluated = []
    original = search.exact_points
    monkeypatch.setattr(search, "exact_points", lambda s, p, q, servings, *curves: evaluated.extend(servings) or original(s, p, q, servings, *curves))
    chosen = search.best_within_each(scenario, plan, pool, outcome, GAIN_SPACES)
    assert (evaluated == []) == bool(keeps)   # the search re-evaluated the gains' shortlists with its own
    assert chosen == [search.best_within(scenario, plan, pool, replace(outcome, ranked=None), keep) for keep in GAIN_SPACES]


def test_a_configuration_the_search_evaluated_exactly_is_not_evaluated_again(monkeypatch):
    scenario, plan, pool, outcome = _searched()
    evaluated = []
    original = search.exact_points
    monkeypatch.setattr(search, "exact_points", lambda s, p, q, servings, *curves: evaluated.extend(servings) or original(s, p, q, servings, *curves))
    everything = lambda c: np.ones(len(c["tensor_parallel"]), bool)   # noqa: E731  the search's own space
    assert search.best_within(scenario, plan, pool, outcome, everything) == outcome.serving
    assert evaluated == []   # the whole space's shortlist is the search's: every configuration already evaluated
    search.best_within_each(scenario, plan, pool, outcome, (_no_draft, _no_draft))
    assert len(evaluated) == len(set(evaluated))   # a configuration of both shortlists evaluated once
    before = len(evaluated)
    search.best_within(scenario, plan, pool, outcome, _no_draft)
    assert len(evaluated) == before


def test_a_result_keeps_neither_the_sweep_nor_the_ranking():
    scenario = default_scenario()
    for result in compute_scenario(scenario):
        for outcome in result.searches:
            assert outcome is None or (outcome.sweep is None and outcome.ranked is None)


def test_the_model_error_bar_in_the_tornados_call_equals_the_bar_computed_alone():
    from tcoapp.engine.finance.sensitivity import tornado
    from tcoapp.engine.uncertainty.error_swing import MODEL_ERROR_INPUT, model_error_swing, tornado_with_model_error
    for result in compute_scenario(default_scenario()):
        for metric in ("npv_usd", "irr"):
            together = tornado_with_model_error(result, metric, 0.2)
            alone = model_error_swing(result, metric)
            bar = next(s for s in together if s.input == MODEL_ERROR_INPUT)
            assert (bar.low_input, bar.high_input) == (alone.low_input, alone.high_input)
            assert (bar.metric_low, bar.metric_high) == pytest.approx((alone.metric_low, alone.metric_high), rel=1e-12,
                                                                    nan_ok=True)
            others, own = [s for s in together if s.input != MODEL_ERROR_INPUT], tornado(result.inputs, metric, 0.2)
            assert [s.input for s in others] == [s.input for s in own]
            assert [v for s in others for v in (s.metric_low, s.metric_high)] == pytest.approx(
                [v for s in own for v in (s.metric_low, s.metric_high)], rel=1e-12, nan_ok=True)


def test_year_rows_name_a_row_nothing_computes():
    from tcoapp.engine.finance import year_rows
    result = compute_plan(default_scenario(), default_scenario().plans[0])
    with np.errstate(divide="ignore", invalid="ignore"):
        rows = year_rows.YearRows(result.inputs, {k: result.finance.pools[k] for k in result.finance.pools.keys()},
                                  np.arange(4.0))
    with pytest.raises(KeyError, match="year rows that read rows nothing computes"):
        rows.finish()   # the rows written by hand (the throughput index, depreciation...) were never given


@pytest.mark.parametrize("changes", [{}, {"min_tokens_per_s_per_user": None, "max_ttft_s": None}])
def test_each_restricted_best_comes_with_its_operating_points_tokens_per_s(changes):
    from tcoapp.engine.serving.operating import operating_point
    scenario, plan, pool, outcome = _searched(keeps=GAIN_SPACES, **changes)
    found = search.best_points_within_each(scenario, plan, pool, outcome, GAIN_SPACES)
    assert [None if f is None else f[0] for f in found] == search.best_within_each(scenario, plan, pool, outcome, GAIN_SPACES)
    assert any(f is not None for f in found)
    for f in found:
        if f is not None:   # the tokens/s the configuration gives typed in (a serve pool of the plan), exactly
            point = operating_point(scenario, plan, replace(pool, role="serve", serving=f[0]))[0]
            assert f[1] == point.tokens_per_s_per_device
