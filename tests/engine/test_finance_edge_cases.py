"""The finance edge cases a CFO checks (docs/model.md, "Finance" and "Years"): payback of plans whose
year 0 buys nothing, payback after a later tranche's dip, the horizon sale as a disposal when the
depreciation life is longer than the horizon, the Monte Carlo payback on the same rule."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tcoapp.engine.finance import cashflow
from tcoapp.engine.finance.metrics import finance_metrics
from tcoapp.engine.quantities.finance import finance_inputs

from .. import reference_finance as ref

POOL = dict(price_usd=30000, devices_per_server=8, server_price_usd=70000, tdp_w=700, idle_w=70,
            server_overhead_w=4600, device_count=64, rack_power_cap_kw=40, servers_per_rack_max=4,
            tokens_per_s_per_device=900, power_w=600, price_usd_per_million_output_tokens=0.9, owned=1,
            rent_usd_per_device_hour=0, purchase_year=0, prefill_share=0.2)
PLAN = dict(other_capex_fraction=0.1, pue=1.25, electricity_usd_per_kwh=0.08, colocation_usd_per_kw_month=0.0,
            maintenance_fraction_per_year=0.0, software_usd_per_device_year=0.0, staff_usd_per_year=0.0,
            utilization=0.8, years=4, discount_rate=0.1, residual_value_fraction=0.0,
            price_usd_per_million_input_tokens=0.0, input_tokens=1000.0, output_tokens=1000.0)


def engine(pools, **plan):
    return finance_metrics(finance_inputs({k: [p[k] for p in pools] for k in pools[0]}, {**PLAN, **plan}))


def payback(out):
    value = float(out.payback_months)
    return None if math.isnan(value) else value


def test_a_fully_rented_plan_that_loses_money_never_pays_back():
    rented = dict(POOL, owned=0, rent_usd_per_device_hour=5.0)  # rent above what the tokens earn
    out = engine([rented])
    assert out.cash_flows_usd[0] == 0 and out.npv_usd < 0 and out.years.cumulative_cash_flow_usd[-1] < 0
    assert payback(out) is None  # it read 0 months: year 0 buys nothing


def test_a_fully_rented_plan_that_earns_from_year_1_pays_back_at_0():
    out = engine([dict(POOL, owned=0, rent_usd_per_device_hour=0.5)])
    assert np.all(out.years.cumulative_cash_flow_usd >= 0) and payback(out) == 0.0


def test_a_pool_bought_in_year_1_that_loses_money_never_pays_back():
    out = engine([dict(POOL, purchase_year=1, price_usd_per_million_output_tokens=0.05)])
    flows = out.cash_flows_usd
    assert flows[0] == 0 and flows[1] < 0 and out.years.cumulative_cash_flow_usd[-1] < 0
    assert payback(out) is None


def test_a_pool_bought_in_year_1_that_pays_back_counts_from_the_start():
    out = engine([dict(POOL, purchase_year=1)])
    assert payback(out) == pytest.approx(ref.payback_months(list(out.cash_flows_usd)), rel=1e-12)
    assert payback(out) > 12  # below 0 from the year-1 purchase: payback is after it


def test_a_later_tranche_that_pushes_the_cumulative_flow_below_0_moves_payback():
    first = dict(POOL, device_count=16, price_usd_per_million_output_tokens=3.0)
    second = dict(POOL, device_count=256, purchase_year=2, price_usd_per_million_output_tokens=3.0)  # a big tranche
    out = engine([first, second], years=6)
    cumulative = out.years.cumulative_cash_flow_usd
    assert cumulative[1] > 0 > cumulative[0] and cumulative[2] < 0  # paid back in year 1, then below 0 again
    expected = ref.payback_months(list(out.cash_flows_usd))
    assert expected > 24 and payback(out) == pytest.approx(expected, rel=1e-12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=12))
def test_payback_matches_the_plain_walk(flows):
    got = float(cashflow.payback_months(np.array(flows)))
    want = ref.payback_months(flows)
    assert (math.isnan(got) and want is None) or got == pytest.approx(want, rel=1e-9, abs=1e-9)


def test_payback_is_vectorized_over_rows_of_different_shapes():
    rows = np.array([[0.0, -1, -1, 0], [-10.0, 6, 6, 0], [0.0, 1, 1, 1], [-1.0, 2, -3, 3]])
    got = cashflow.payback_months(rows)
    for row, value in zip(rows, got):
        want = ref.payback_months(list(row))
        assert (want is None and math.isnan(value)) or value == pytest.approx(want, rel=1e-12)
    assert math.isnan(float(cashflow.payback_months(np.array([np.nan, 1.0, 1.0]))))


def test_monte_carlo_payback_draws_follow_the_same_rule():
    """A fully rented plan at discount rate 0 (NPV = the cumulative flow at the horizon) with an uncertain
    price around breakeven: every draw that loses money reads "never" (it read 0), every other one the
    plain walk's payback; the percentiles take "never" as late."""
    from tcoapp.engine.quantities.records import make_pool
    from tcoapp.engine.uncertainty.report import simulation_json
    from tcoapp.engine.uncertainty.simulate import simulate

    from .montecarlo_cases import fixed_batch_plan, row, scenario_with

    plan = fixed_batch_plan(discount_rate=0.0)
    pool = make_pool({"plan": plan.name, "pool": "rented", "device": plan.device, "device_count": 64,
                      "ownership": "rent", "rent_usd_per_device_hour": 3.0})
    plan = plan.with_(pools=(pool,))
    s = scenario_with(row("*", "price_usd_per_million_output_tokens", "uniform", low=0.05, high=1.5), plans=(plan,))
    sim = simulate(s, 400, seed=3)
    npv, months = sim.plans[0].metric("npv_usd"), sim.plans[0].metric("payback_months")
    assert np.any(npv < 0) and np.any(npv > 0)
    assert np.array_equal(np.isnan(months), npv < 0)  # never exactly where the horizon's cumulative flow is < 0
    assert np.all(months[npv >= 0] == 0.0)  # rented, earning from year 1: never below 0
    summary = simulation_json(sim)["plans"][0]["payback_months"]
    assert summary["share_defined"] == pytest.approx(np.mean(npv >= 0))


def test_a_depreciation_life_past_the_horizon_deducts_the_whole_basis_at_the_sale():
    """Default-like H200 case: 21% tax, 6-year depreciation over 4 years. Depreciation taken plus the loss
    on the horizon sale is the whole economic loss, capex - value at the horizon: no basis is lost."""
    out = engine([dict(POOL, price_usd_per_million_output_tokens=3.0)], tax_rate=0.21, depreciation_years=6,
                 residual_value_fraction=0.1)
    rows = out.years
    capex = float(out.capex_usd)
    assert rows.disposal_gain_usd[4] == pytest.approx(-capex * 0.9 * (2 / 6), rel=1e-12)  # 2 of 6 years left
    deducted = np.sum(rows.depreciation_usd) - np.sum(rows.disposal_gain_usd)
    assert deducted == pytest.approx(capex - 0.1 * capex, rel=1e-12)
    full = engine([dict(POOL, price_usd_per_million_output_tokens=3.0)], tax_rate=0.21, depreciation_years=4,
                  residual_value_fraction=0.1)
    assert np.sum(rows.tax_usd) == pytest.approx(np.sum(full.years.tax_usd), rel=1e-12)  # same total, later


def test_depreciation_over_the_horizon_changes_nothing_exactly():
    taxed = dict(tax_rate=0.25, residual_value_fraction=0.2)
    life = engine([POOL, dict(POOL, purchase_year=2)], depreciation_years=4, **taxed)
    default = engine([POOL, dict(POOL, purchase_year=2)], **taxed)
    assert np.all(life.years.disposal_gain_usd == 0) and np.array_equal(life.cash_flows_usd, default.cash_flows_usd)


def test_a_shorter_life_recaptures_a_later_tranches_depreciation_at_the_sale():
    out = engine([POOL, dict(POOL, purchase_year=2)], years=5, depreciation_years=2, tax_rate=0.25)
    capex = float(out.pools.capex_usd[1])
    # tranche 2, age 3 at the horizon: fully depreciated (book 0), worth capex x (1 - 3/5) then
    assert out.years.disposal_gain_usd[5] == pytest.approx(capex * (1 - 3 / 5), rel=1e-12)


def test_itemized_capex_by_hand():
    """capex = hardware x (1 + other) + devices x (network + storage) + servers x installation, bought pools only."""
    keys = dict(network_usd_per_device=2500.0, storage_usd_per_device=800.0, installation_usd_per_server=6000.0)
    bought, rented = dict(POOL, device_count=20), dict(POOL, device_count=8, owned=0, rent_usd_per_device_hour=2.0)
    out = engine([bought, rented], **keys)
    servers = math.ceil(20 / 8)
    hardware = 20 * 30000 + servers * 70000
    assert out.pools.capex_usd[0] == pytest.approx(hardware * 1.1 + 20 * 3300 + servers * 6000, rel=1e-15)
    assert out.pools.capex_usd[1] == 0  # a rented pool has no capex, itemized or not
    assert out.pools.maintenance_usd_per_year[0] == engine([bought, rented]).pools.maintenance_usd_per_year[0]


def test_a_capex_budget_sizes_with_the_itemized_capex():
    from tcoapp.engine.pipeline.compute import compute_plan
    from tcoapp.io.default_scenario import default_scenario

    scenario = default_scenario()
    plan = scenario.plans[2].with_(sizing_mode="capex_budget", capex_budget_usd=20e6, network_usd_per_device=4000.0,
                                   storage_usd_per_device=1000.0, installation_usd_per_server=15000.0)
    plain = compute_plan(scenario, plan.with_(network_usd_per_device=0.0, storage_usd_per_device=0.0,
                                              installation_usd_per_server=0.0))
    result = compute_plan(scenario, plan)
    capex = result.metrics.capex_usd
    assert capex <= 20e6 and result.metrics.device_count < plain.metrics.device_count
    device = scenario.device(plan.device)
    one_more = capex + device.devices_per_server * (device.price_usd * 1.15 + 5000.0) + device.server_price_usd * 1.15 + 15000.0
    assert one_more > 20e6  # the largest whole number of servers that fits
