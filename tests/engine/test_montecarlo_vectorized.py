"""The vectorized pieces of the simulation equal the deterministic engine, draw by draw: the
operating point over a draw axis, the sizing rules, IRR and payback (numpy-financial's)."""
from dataclasses import replace

import numpy as np
import numpy_financial as npf
import pytest

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.finance import cashflow, sizing
from tcoapp.engine.uncertainty.serve_draws import ServeCase, serve_draws
from tcoapp.engine.uncertainty.simulate import simulate
from tcoapp.io.default_scenario import default_scenario

from tcoapp.engine.uncertainty.statistics import rank_correlations

from .montecarlo_cases import row, scenario_with


def _variants():
    s = default_scenario()
    h100, h200, b200 = s.plans[0], s.plans[1], s.plans[2]
    return s, list(s.plans) + [
        h100.with_(min_tokens_per_s_per_user=None, batch=5000),        # queued at the memory limit
        b200.with_(min_tokens_per_s_per_user=None, batch=32),          # fixed batch
        b200.with_(min_tokens_per_s_per_user=5.0),                     # large batch on the log grid
        h200.with_(min_tokens_per_s_per_user=None, max_ttft_s=0.5),    # TTFT target
        h100.with_(spec_decode_draft_tokens=3, spec_decode_acceptance=0.6),
        b200.with_(model="DeepSeek-R1", weight_precision="nvfp4", attention_weight_precision="fp8",  # mixed checkpoint
                   tensor_parallel=1, expert_parallel=8, attention_dp=True, serving_search="off"),
    ]


@pytest.mark.parametrize("index", range(11))
def test_operating_point_over_draws_equals_the_deterministic_one(index):
    s, plans = _variants()
    plan = plans[index]
    result = compute_plan(s, plan)
    pool, point = result.pools[0], result.fleet.pool_points[0]
    device, factors = s.device(pool.device), s.factors_for(pool.device)
    draws = 4
    case = ServeCase(device, device.with_(mem_bw_gb_s=np.full(draws, device.mem_bw_gb_s)), s.model(plan.model),
                     pool.serving, plan.workload, factors.with_(eta_mem=np.full(draws, factors.eta_mem)),
                     pool.serving.spec_decode_acceptance, plan.prefix_cache_hit_rate,
                     plan.min_tokens_per_s_per_user, plan.max_ttft_s)
    d = serve_draws(case, draws)
    # equal, NaN included (a plan whose target no batch meets has no point in either path)
    for got, want in ((d.batch, point.batch), (d.tokens_per_s_per_device, point.tokens_per_s_per_device),
                      (d.power_w, point.power_w), (d.tokens_per_s_per_user, point.tokens_per_s_per_user)):
        np.testing.assert_array_equal(got, np.full(draws, want))


def test_operating_point_draws_follow_the_deterministic_engine_at_other_values():
    s, plans = _variants()
    # the typed configuration: a searched plan's draws keep the configuration chosen at the plan's values,
    # while a deterministic run at another value searches again (docs/model.md, "Uncertainty: Monte Carlo")
    plan = plans[2].with_(serving_search="off")
    values = np.array([0.55, 0.7, 0.95])
    case_result = compute_plan(s, plan)
    pool = case_result.pools[0]
    device, factors = s.device(pool.device), s.factors_for(pool.device)
    case = ServeCase(device, device, s.model(plan.model), pool.serving, plan.workload, factors.with_(eta_mem=values),
                     pool.serving.spec_decode_acceptance, plan.prefix_cache_hit_rate, plan.min_tokens_per_s_per_user, None)
    d = serve_draws(case, 3)
    for i, v in enumerate(values):
        one = compute_plan(replace(s, factors=s.factors.with_(eta_mem=float(v))), plan).point
        assert d.batch[i] == one.batch and d.tokens_per_s_per_device[i] == pytest.approx(one.tokens_per_s_per_device, rel=1e-12)


@pytest.mark.parametrize("pools", [1, 2, 3])
def test_sizing_over_draws_equals_one_draw_at_a_time(pools):
    """The deterministic compute sizes one draw; Monte Carlo all at once, padded and masked: the same counts."""
    rng = np.random.default_rng(pools)
    limit, cost = rng.uniform(100, 1e6, 1000), rng.uniform(1, 5000, (1000, pools))
    dps, weights = rng.choice([1, 4, 8, 72], pools).astype(float), rng.uniform(0.5, 3, pools)
    expected = [sizing.servers_within(a, c[None, :], dps, weights)[0] for a, c in zip(limit, cost)]
    assert np.array_equal(sizing.servers_within(limit, cost, dps, weights), expected)


def test_simulated_facility_sizing_at_the_plan_values_is_the_deterministic_count():
    s = scenario_with(row("*", "pue", "uniform", low=1.3, high=1.3 + 1e-12))
    sim = simulate(s, 3, seed=0, model_error=False)
    for plan, p in zip(s.plans, sim.plans):
        assert np.all(p.metric("device_count") == compute_plan(s, plan).metrics.device_count), plan.name


def test_drawn_itemized_capex_resizes_a_budget_plan_as_the_deterministic_sizing_does():
    """Budget sizing reads the itemized capex (finance/sizing.py SIZING_READS): a drawn network cost
    re-sizes each draw to the count the deterministic compute gives at that cost."""
    base = default_scenario()
    plan = base.plans[0].with_(sizing_mode="capex_budget", capex_budget_usd=5e6, name="budget")
    s = scenario_with(row("budget", "network_usd_per_device", "uniform", low=0.0, high=40000.0), plans=[plan])
    sim = simulate(s, 6, seed=0, model_error=False)
    counts, costs = sim.plans[0].metric("device_count"), sim.plans[0].inputs[0].values
    expected = [compute_plan(s, plan.with_(network_usd_per_device=float(c))).metrics.device_count for c in costs]
    assert np.array_equal(counts, expected)
    assert len(set(expected)) > 1  # the cost moved the count: without re-sizing every draw would keep one

def _reference_irr(row):
    """The IRR row by row from the NPV profile: g(x) = sum_t f_t x^t over x = 1 / (1 + rate) > 0, its sign read
    at x -> 0 (the first non-zero flow), on a log grid of x from 1e-8 to 1e8 and at x -> infinity (the last
    non-zero flow); exactly one sign change, or else exactly one at a rate above 0 % (x < 1): that root, by
    bisection; otherwise NaN."""
    if not np.all(np.isfinite(row)) or not (np.any(row > 0) and np.any(row < 0)):
        return np.nan
    nonzero = row[row != 0]
    x = np.logspace(-8, 8, 20001)
    g = np.polynomial.polynomial.polyval(x, row)
    if np.any(g == 0):                   # the grid hit a root itself
        return np.nan
    points = np.concatenate([[1e-300], x, [1e300]])
    values = np.concatenate([[nonzero[0]], g, [nonzero[-1]]])
    crossings = np.nonzero(np.sign(values[1:]) != np.sign(values[:-1]))[0]
    gaining = [k for k in crossings if points[k + 1] <= 1.0]      # rates above 0 %
    picked = crossings if len(crossings) == 1 else gaining if len(gaining) == 1 else []
    if len(picked) != 1:
        return np.nan
    k = int(picked[0])
    lo, hi = points[k], points[k + 1]
    f_lo = np.sign(values[k])
    for _ in range(200):
        mid = 0.5 * (lo + hi) if hi / max(lo, 1e-300) < 4 else np.sqrt(max(lo, 1e-300) * hi)
        if np.sign(np.polynomial.polynomial.polyval(mid, row)) == f_lo:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 4e-16 * hi:
            break
    return float(1.0 / (0.5 * (lo + hi)) - 1.0)


def _reference_payback(flows):
    """The earliest time after which the cumulative flow stays >= 0 (docs/model.md, "Finance")."""
    c = np.cumsum(flows)
    if not np.all(np.isfinite(c)) or c[-1] < 0:
        return np.nan
    below = np.nonzero(c < 0)[0]
    if below.size == 0:
        return 0.0
    k = int(below[-1])
    return 12.0 * (k + (-c[k]) / (c[k + 1] - c[k]))


def test_vectorized_irr_and_payback_equal_the_row_by_row_definitions():
    rng = np.random.default_rng(1)
    flows = rng.normal(size=(5000, 7))
    flows[:, 0] = -3 * np.abs(flows[:, 0])
    flows[::7, -2:] = 0.0      # shorter horizons (trailing zeros)
    flows[::11, 0] = 0.0       # a leading zero
    flows[::13] = np.abs(flows[::13])  # one sign: no IRR
    flows[::17, 3] = np.nan
    irr = cashflow.irr(flows)
    expected = np.array([_reference_irr(r) for r in flows])
    assert np.array_equal(np.isnan(irr), np.isnan(expected))
    assert np.allclose(irr, expected, rtol=1e-9, atol=1e-12, equal_nan=True)
    conventional = np.abs(rng.normal(size=(3000, 31))) * rng.uniform(0.001, 5, (3000, 1))  # 30 years
    conventional[:, 0] = -rng.uniform(1, 100, 3000)
    expected = np.array([_reference_irr(r) for r in conventional])
    assert np.allclose(cashflow.irr(conventional), expected, rtol=1e-9, atol=1e-12, equal_nan=True)
    assert np.array_equal(cashflow.payback_months(flows), [_reference_payback(r) for r in flows], equal_nan=True)
    assert cashflow.irr(np.array([-100, 39, 59, 55, 20.0])) == pytest.approx(0.28095, abs=1e-5)


def test_tier_prices_per_draw_equal_price_at():
    """One tier rule: `prices_at` over draws, `price_at` its one-draw case (0 below the slowest tier)."""
    from tcoapp.engine.plan.scenario import PriceTiers
    tiers = PriceTiers("t", (50.0, 10.0, 100.0), (1.0, 0.5, 2.0))
    per_user = np.array([5.0, 10.0, 49.9, 50.0, 150.0, np.nan])
    expected = [0.0, 0.5, 0.5, 1.0, 2.0, np.nan]
    assert np.array_equal(tiers.prices_at(per_user), expected, equal_nan=True)
    assert [tiers.price_at(u) for u in per_user[:5]] == expected[:5]
    assert [tiers.below_slowest(u) for u in per_user[:2]] == [True, False]


def test_grid_floor_is_the_largest_search_batch_below():
    from tcoapp.engine.serving.operating import search_batches
    from tcoapp.engine.uncertainty.serve_draws import grid_floor
    rng = np.random.default_rng(0)
    for upper in list(rng.uniform(65, 65536, 60)) + [65.0, 100.0, 1000.0, 65536.0]:
        grid = search_batches(upper)
        best = np.unique(np.concatenate([np.arange(1, 300), rng.integers(1, int(upper) + 1, 200), [int(upper)]]))
        best = best[best <= int(upper)].astype(float)
        expected = [grid[grid <= b].max() for b in best]
        assert np.array_equal(grid_floor(best, np.full(best.shape, upper)), expected), upper


def _threshold_case(rng, draws=400):
    """Per draw a largest batch B* meeting a target (0: none does) under a memory limit, and a margin that is
    zero about there: linear, curved, or misleading (its zero far from B*)."""
    b_max = rng.uniform(1.0, 20000.0, draws)
    b_max[:5] = [1.0, 1.5, 64.0, 65.0, 70000.0]
    star = np.floor(rng.uniform(0.0, 1.3, draws) * np.minimum(b_max, 65536.0))
    possible = rng.random(draws) > 0.05
    return b_max, star, possible


@pytest.mark.parametrize("shape", ["linear", "curved", "misleading", "unknown"])
def test_the_guided_batch_search_finds_what_bisection_finds(shape):
    """The Monte Carlo's batch search steered by the pool's margin (serve_draws.largest_grid_batch with
    `tested`) returns, draw by draw, the bisection's answer, whatever the margin says."""
    from tcoapp.engine.uncertainty.serve_draws import largest_grid_batch
    rng = np.random.default_rng(7)
    b_max, star, possible = _threshold_case(rng)
    calls = {"bisection": 0, "guided": 0}

    def meets(batch):
        calls["bisection"] += 1
        return batch <= star

    def tested(batch):
        calls["guided"] += 1
        margin = {"linear": 1.0 - batch / (star + 0.5), "curved": 1.0 - (batch / (star + 0.5)) ** 3,
                  "misleading": 1.0 - batch / (3.0 * star + 10.0), "unknown": np.full(batch.shape, np.nan)}[shape]
        return batch <= star, margin

    expected = largest_grid_batch(meets, b_max, possible)
    assert np.array_equal(largest_grid_batch(None, b_max, possible, tested), expected, equal_nan=True)
    assert np.isnan(expected[~possible]).all() and np.isnan(expected[star < 1]).all()
    if shape == "linear":   # a margin that tells where B* is finds it in a few tests
        assert calls["guided"] <= 6 < calls["bisection"]


PAIR_SAMPLES = ("heterogeneous_disaggregated.xlsx", "frontier_optimizations.xlsx", "moe_rack_scale.xlsx")


@pytest.mark.parametrize("sample", PAIR_SAMPLES)
def test_prefill_decode_pairs_over_draws_equal_the_fleet_point(sample):
    from pathlib import Path

    from tcoapp.engine.uncertainty.pair_draws import pair_draws
    from tcoapp.engine.uncertainty.plan_draws import _serve_case
    from tcoapp.io.workbook_read import read_scenario

    s = read_scenario(Path(__file__).resolve().parents[2] / "samples" / sample)
    checked = 0
    for plan in s.plans:
        result = compute_plan(s, plan)
        pair = {i: p for i, p in enumerate(result.pools) if p.role != "serve"}
        if not pair or result.fleet is None:
            continue
        eta = s.factors_for(plan.device).eta_mem
        perf = {"factor.eta_mem": np.full(3, eta)}  # the draws hold the plan's own value
        cases = {i: _serve_case(s, plan, i, pool, perf) for i, pool in pair.items()}
        d = pair_draws(cases, {i: p.role for i, p in pair.items()}, np.asarray(result.inputs.device_count, float), 3)
        for i in pair:
            point = result.fleet.pool_points[i]
            assert np.all(d.tokens_per_s_per_device[i] == point.tokens_per_s_per_device), (plan.name, i)
            assert np.all(d.power_w[i] == point.power_w), (plan.name, i)
        checked += 1
    assert checked >= 1


def test_multi_pool_sizing_moves_with_its_inputs():
    from tcoapp.engine.quantities.records import make_pool

    plan = default_scenario().plans[2]
    pools = tuple(make_pool({"plan": plan.name, "pool": name, "device": device, "device_count": share})
                  for name, device, share in (("b200", "B200", 3), ("h200", "H200-SXM", 1)))
    s = scenario_with(row("*", "pue", "uniform", low=1.2, high=1.6), plans=(plan.with_(pools=pools),))
    p = simulate(s, 200, seed=1, model_error=False).plans[0]
    counts = p.metric("device_count")
    assert not p.notes and np.ptp(counts) > 0
    assert np.corrcoef(p.inputs[0].values, counts)[0, 1] < -0.9  # more PUE, fewer devices in 1 MW


@pytest.mark.parametrize("mode, extra, key", [
    ("demand", {"demand_tokens_per_day": 2e9}, "demand_tokens_per_day"),
    ("facility_power", {"facility_power_kw": 500.0}, "pue"),
    ("capex_budget", {"capex_budget_usd": 2e7}, "capex_budget_usd"),
])
def test_sized_prefill_decode_plans_over_draws_equal_the_deterministic_plan(mode, extra, key):
    from pathlib import Path

    from tcoapp.io.workbook_read import read_scenario

    s = read_scenario(Path(__file__).resolve().parents[2] / "samples" / "heterogeneous_disaggregated.xlsx")
    s = s.with_plans(tuple(p.with_(sizing_mode=mode, **extra) for p in s.plans))
    value = float(getattr(s.plans[0], key))
    sim = simulate(replace(s, uncertainty=(row("*", key, "uniform", low=value, high=value * (1 + 1e-13)),)), 3, seed=0,
                   model_error=False)
    pairs = 0
    for plan, p in zip(s.plans, sim.plans):
        result = compute_plan(s, plan)
        pairs += any(pool.role != "serve" for pool in result.pools)
        assert np.all(p.metric("device_count") == result.metrics.device_count), plan.name
        assert np.allclose(p.metric("npv_usd"), result.metrics.npv_usd, rtol=1e-9), plan.name
        assert not p.notes
    assert pairs >= 2


def test_a_measured_curve_is_held_except_the_tdp_of_its_unmeasured_power(tmp_path):
    from tests.io.uncertainty_factory import write_uncertain_workbook

    from tcoapp.io.workbook_read import read_scenario

    rows = [{"plan": "*", "key": "factor.eta_mem", "distribution": "uniform", "low": 0.6, "high": 0.9},
            {"plan": "*", "key": "device.tdp_w", "distribution": "uniform", "low": 550, "high": 650}]
    s = read_scenario(write_uncertain_workbook(tmp_path / "m.xlsx", rows))
    for p in simulate(s, 200, seed=0, model_error=False).plans:  # the hand-made curve has measured power: TDP moves racks, not it
        assert p.notes == ("pool 'serve': factor.eta_mem, device.tdp_w do not move its throughput or power "
                           "(a measured curve)",)
        assert np.isfinite(p.metric("npv_usd")).all()
    curve = s.curves["xpu-tiny"]
    unpowered = replace(s, curves={"xpu-tiny": replace(curve, power_w=np.full_like(curve.power_w, np.nan))})
    p = simulate(unpowered, 200, seed=0, model_error=False).plans[1]  # no colocation: opex moves with the TDP only through energy
    assert p.notes == ("pool 'serve': factor.eta_mem do not move its throughput or power (a measured curve)",)
    tdp = next(d.values for d in p.inputs if d.row.key == "device.tdp_w")
    energy_rank = rank_correlations({"tdp": tdp}, p.metric("opex_usd_per_year"))["tdp"]
    assert energy_rank > 0.9  # its power is the drawn TDP


def test_drawn_compute_factors_move_every_architecture_and_never_crash():
    """factor.eta_compute and an architecture's ratio drawn per draw (arrays through the roofline): the
    H200 plan's throughput follows both, the B200 plan's only eta_compute."""
    rows = (row("*", "factor.eta_compute", "uniform", low=0.4, high=0.6),
            row("*", "factor.arch_compute_hopper", "uniform", low=1.0, high=1.6))
    result = simulate(scenario_with(*rows), 200, seed=1, model_error=False)
    by_name = {p.name: p for p in result.plans}
    for p in result.plans:
        assert np.isfinite(p.metric("npv_usd")).all(), p.name
    h200 = next(p for name, p in by_name.items() if "H200" in name)
    ratio = next(d.values for d in h200.inputs if d.row.key == "factor.arch_compute_hopper")
    # a faster Hopper makes each token cheaper
    assert rank_correlations({"ratio": ratio}, h200.metric("cost_per_million_output_tokens_usd"))["ratio"] < -0.3
