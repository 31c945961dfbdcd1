"""Monte Carlo statistics against analytics (issue 16): exact percentiles of an affine NPV, the
deterministic plan without uncertain inputs, seeds, groups (rank correlation 1), "never" payback."""
import numpy as np
import pytest

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.finance.sensitivity import breakeven_output_price
from tcoapp.engine.uncertainty.report import SUMMARY_METRICS, simulation_json
from tcoapp.engine.uncertainty.simulate import simulate
from tcoapp.engine.uncertainty.statistics import payback_probability, percentile, rank_correlations, summary

from .montecarlo_cases import fixed_batch_plan, row, scenario_with

PRICE = "price_usd_per_million_output_tokens"
DRAWS = 40_000


def _npv_at(scenario, plan, price):
    return compute_plan(scenario, plan.with_(**{PRICE: price})).metrics.npv_usd


def test_affine_npv_in_a_uniform_price_has_exact_percentiles_and_probability():
    plan = fixed_batch_plan()
    s0 = scenario_with(plans=(plan,))
    breakeven = breakeven_output_price(compute_plan(s0, plan).inputs)
    low, high = 0.5 * breakeven, 1.5 * breakeven
    s = scenario_with(row("*", PRICE, "uniform", low=low, high=high), plans=(plan,))
    npv_low, npv_high = _npv_at(s, plan, low), _npv_at(s, plan, high)
    npv = simulate(s, DRAWS, seed=7, model_error=False).plans[0].metric("npv_usd")
    stats = summary(npv, "npv_usd")
    span = npv_high - npv_low
    for p in (5, 10, 50, 90, 95):
        q = p / 100
        tolerance = 4 * np.sqrt(q * (1 - q) / DRAWS) * span  # 4 standard errors of a uniform's quantile
        assert stats[f"p{p}"] == pytest.approx(npv_low + q * span, abs=tolerance)
    assert stats["mean"] == pytest.approx((npv_low + npv_high) / 2, abs=4 * span / np.sqrt(12 * DRAWS))
    p_true = (high - breakeven) / (high - low)  # NPV > 0 exactly where the price is above breakeven
    prob = simulation_json(simulate(s, DRAWS, seed=7, model_error=False))["plans"][0]["prob_npv_positive"]
    assert prob == pytest.approx(p_true, abs=4 * np.sqrt(p_true * (1 - p_true) / DRAWS))


def test_a_plan_without_uncertain_inputs_is_its_deterministic_value():
    s = scenario_with(row("H100", "utilization", "triangular", low=0.5, mode=0.7, high=0.9))
    sim = simulate(s, 500, seed=1, model_error=False)
    data = simulation_json(sim)
    for plan, entry in zip(s.plans[1:], data["plans"][1:]):
        expected = compute_plan(s, plan).metrics
        for key in SUMMARY_METRICS:
            if np.isfinite(getattr(expected, key)):
                assert entry[key]["p10"] == entry[key]["p90"] == pytest.approx(getattr(expected, key), rel=1e-12), key
    assert data["plans"][0]["npv_usd"]["p10"] < data["plans"][0]["npv_usd"]["p90"]


def test_same_seed_same_numbers_other_seed_other_numbers():
    s = scenario_with(row("*", "utilization", "pert", low=0.4, mode=0.7, high=0.9),
                      row("*", "factor.eta_mem", "triangular", low=0.6, mode=0.8, high=0.9))
    first, again, other = (simulation_json(simulate(s, 2000, seed=k, model_error=False)) for k in (11, 11, 12))
    assert first == again
    assert first["plans"][2]["npv_usd"]["p50"] != other["plans"][2]["npv_usd"]["p50"]


def test_grouped_inputs_move_together_and_plans_share_draws():
    s = scenario_with(row("*", "utilization", "uniform", low=0.5, high=0.9, group="demand"),
                      row("*", "price_usd_per_million_input_tokens", "normal", mean=0.88, sd=0.1, group="demand"),
                      row("*", "electricity_usd_per_kwh", "uniform", low=0.05, high=0.15))
    sim = simulate(s, 3000, seed=3, model_error=False)
    plan = sim.plans[0]
    draws = {d.row.key: d.values for d in plan.inputs}
    corr = rank_correlations({"price": draws["price_usd_per_million_input_tokens"]}, draws["utilization"])
    assert corr["price"] == pytest.approx(1.0)
    independent = rank_correlations({"e": draws["electricity_usd_per_kwh"]}, draws["utilization"])["e"]
    assert abs(independent) < 0.1
    # common random numbers: the same key in another plan has the very same draws
    other = {d.row.key: d.values for d in sim.plans[3].inputs}
    assert np.array_equal(other["utilization"], draws["utilization"])


def test_never_payback_is_missing_and_ranks_last():
    plan = fixed_batch_plan()
    s0 = scenario_with(plans=(plan,))
    breakeven = breakeven_output_price(compute_plan(s0, plan).inputs)
    s = scenario_with(row("*", PRICE, "uniform", low=0.2 * breakeven, high=1.4 * breakeven), plans=(plan,))
    p = simulate(s, 5000, seed=5, model_error=False).plans[0]
    payback = p.metric("payback_months")
    cumulative_last = p.cumulative_cash_flow_usd[:, -1]
    assert np.array_equal(np.isnan(payback), cumulative_last < 0)  # never = the last cumulative flow < 0
    stats = summary(payback, "payback_months")
    assert stats["share_defined"] == pytest.approx(np.mean(cumulative_last >= 0))
    assert 0 < stats["share_defined"] < 0.5
    assert stats["p50"] is None and stats["p95"] is None  # over half the draws never pay back
    assert stats["p5"] is not None and stats["mean"] == pytest.approx(np.nanmean(payback))


def test_percentile_with_never_values():
    never = float("nan")
    values = np.array([10.0, 20.0, 30.0, never])
    assert percentile(values, 0, True) == 10.0
    assert percentile(values, 100 / 3, True) == pytest.approx(20.0)
    assert percentile(values, 50, True) == pytest.approx(25.0)
    assert percentile(values, 70, True) is None  # interpolates towards "never"
    assert percentile(values, 70, False) == pytest.approx(24.0)  # other metrics: over defined draws
    assert payback_probability(values, np.array([0, 20, 1000])).tolist() == [0.0, 0.5, 0.75]


def test_factor_uncertainty_moves_the_operating_point_and_drives_npv():
    s = scenario_with(row("*", "factor.eta_mem", "uniform", low=0.5, high=0.9),
                      row("*", "electricity_usd_per_kwh", "uniform", low=0.08, high=0.09))
    sim = simulate(s, 2000, seed=2, model_error=False)
    for p in sim.plans:
        corr = rank_correlations({d.row.key: d.values for d in p.inputs}, p.metric("npv_usd"))
        assert next(iter(corr)) == "factor.eta_mem" and corr["factor.eta_mem"] > 0.5, (p.name, corr)


def test_a_star_device_row_needs_one_device_for_every_plan():
    from tcoapp.engine.core.errors import ValidationError

    s = scenario_with(row("*", "device.price_usd", "uniform", low=20000.0, high=30000.0))
    with pytest.raises(ValidationError, match="the plans run different devices"):
        simulate(s, 10, seed=0, model_error=False)
