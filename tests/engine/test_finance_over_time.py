"""Finance over time (docs/model.md, "Finance over time"): hardware prices that move, software that gets
faster, the share of income carried losses may offset, debt service with the horizon balloon, and WACC.
Each rule is checked on a plan that exercises it, against the figure its definition gives."""
import re
import numpy as np
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.quantities.records import make_pool
from tcoapp.io.default_scenario import default_scenario


def _plan(pools=((64, 0),), **keys):
    keys = {"sizing_mode": "devices", "device_count": 64, **keys}
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64, **keys)
    made = tuple(make_pool({"plan": base.name, "pool": f"p{i}", "device": base.device, "device_count": count,
                            "purchase_year": year}) for i, (count, year) in enumerate(pools))
    return base.with_(pools=made)


def _result(plan):
    return compute_scenario(default_scenario().with_plans([plan]))[0]


def _years(result, key):
    return np.asarray(result.finance.years[key], float)


def test_interest_plus_principal_is_debt_service_every_year_with_a_balloon():
    result = _result(_plan(pools=((64, 0), (32, 2)), years=5, debt_fraction=0.6, debt_rate=0.08, debt_years=8,
                           tax_rate=0.21))
    interest, principal, service = (_years(result, k) for k in ("interest_usd", "principal_usd", "debt_service_usd"))
    balloon = _years(result, "balloon_usd")
    np.testing.assert_allclose(interest + principal, service, rtol=1e-12, atol=1e-6)
    assert balloon[5] > 1e5 and np.all(balloon[:5] == 0)  # a loan of 8 years still owed at a horizon of 5
    # the balloon is the balance: everything borrowed is repaid by the horizon
    assert principal.sum() == pytest.approx(_years(result, "debt_drawn_usd").sum(), rel=1e-12)
    # DSCR reads the service paid from operations (the balloon is paid from the sale)
    dscr = _years(result, "dscr")
    available = (_years(result, "revenue_usd") - _years(result, "opex_usd") - _years(result, "replacement_capex_usd")
                 - _years(result, "levered_tax_usd"))
    assert dscr[5] == pytest.approx(available[5] / (service[5] - balloon[5]), rel=1e-12)
    assert result.metrics.min_dscr == pytest.approx(np.nanmin(dscr), rel=1e-15)


@pytest.mark.parametrize("equity_rate", [None, 0.16])
def test_wacc_by_its_formula(equity_rate):
    plan = _plan(debt_fraction=0.6, debt_rate=0.08, tax_rate=0.21, discount_rate=0.11, equity_discount_rate=equity_rate)
    rate = 0.11 if equity_rate is None else equity_rate
    assert _result(plan).metrics.wacc == pytest.approx(0.4 * rate + 0.6 * 0.08 * (1 - 0.21), rel=1e-15)


def test_no_wacc_without_debt():
    assert np.isnan(_result(_plan()).metrics.wacc)


def test_a_year_2_tranche_at_minus_20_percent_a_year_costs_0_64x():
    flat, cheaper = (_result(_plan(pools=((64, 0), (64, 2)), years=5, hardware_price_change_per_year=c))
                     for c in (0.0, -0.2))
    capex_flat, capex_cheaper = _years(flat, "capex_usd"), _years(cheaper, "capex_usd")
    assert capex_cheaper[0] == capex_flat[0]                       # bought today: today's price
    assert capex_cheaper[2] / capex_flat[2] == pytest.approx(0.64, rel=1e-14)
    # the tranche's later value, depreciation, maintenance basis follow its price
    assert _years(cheaper, "residual_value_usd")[5] < _years(flat, "residual_value_usd")[5]


def test_replacements_by_year_at_0_8_to_the_k():
    flat, cheaper = (_result(_plan(pools=((64, 0),), years=5, annual_failure_rate=0.09,
                                   hardware_price_change_per_year=c)) for c in (0.0, -0.2))
    ratio = _years(cheaper, "replacement_capex_usd")[1:] / _years(flat, "replacement_capex_usd")[1:]
    np.testing.assert_allclose(ratio, 0.8 ** np.arange(1, 6), rtol=1e-14)


def test_replacements_are_worth_what_a_tranche_of_their_year_is():
    result = _result(_plan(pools=((64, 0),), years=4, annual_failure_rate=0.09, residual_value_fraction=0.1,
                           tax_rate=0.21))
    bought = _years(result, "replacement_capex_usd")
    value = sum(bought[t] * (1 - 0.9 * (4 - t) / 4) for t in range(1, 5))   # linear resale at age 4 - t
    assert _years(result, "replacement_residual_value_usd")[4] == pytest.approx(value, rel=1e-12)
    tranche = float(np.asarray(result.finance.pools.capex_usd, float)[0]) * 0.1
    assert _years(result, "residual_value_usd")[4] == pytest.approx(tranche + value, rel=1e-12)
    # straight line over the horizon: a replacement's book value at the horizon equals its linear resale value,
    # so the sale is no gain and no loss (the tranche's neither)
    assert _years(result, "disposal_gain_usd")[4] == pytest.approx(0.0, abs=1e-6)


def test_output_at_plus_30_percent_a_year_is_1_3_to_the_k_minus_1():
    flat, faster = (_result(_plan(pools=((64, 0),), years=5, throughput_change_per_year=g)) for g in (0.0, 0.3))
    ratio = _years(faster, "output_tokens")[1:] / _years(flat, "output_tokens")[1:]
    np.testing.assert_allclose(ratio, 1.3 ** np.arange(0, 5), rtol=1e-14)
    assert faster.metrics.cost_per_million_output_tokens_usd < flat.metrics.cost_per_million_output_tokens_usd
    assert _years(faster, "energy_usd")[5] == _years(flat, "energy_usd")[5]  # same devices, same hours


def test_a_demand_sized_plan_serves_its_demand_and_no_more():
    plan = _plan(pools=(), sizing_mode="demand", demand_tokens_per_day=5e10, years=5, throughput_change_per_year=0.3)
    result = _result(plan)
    demand = 5e10 * 365
    out = _years(result, "output_tokens")
    assert demand <= out[1] < demand * 1.05   # sized to serve it in year 1 (whole servers: a little more)
    # faster software: no more than the demand, and never less than year 1's output (the cap never cuts it)
    np.testing.assert_allclose(out[2:], np.maximum(out[1], np.minimum(out[1] * 1.3 ** np.arange(1, 5), demand)),
                               rtol=1e-12)
    np.testing.assert_array_equal(_years(result, "throughput_index")[1:], 1.0)
    unsized = _result(plan.with_(sizing_mode="devices", device_count=result.metrics.device_count))
    np.testing.assert_allclose(_years(unsized, "output_tokens")[1:], out[1] * 1.3 ** np.arange(0, 5), rtol=1e-12)


def test_carried_losses_offset_at_most_the_loss_limit_share_of_income():
    keys = dict(pools=((64, 0),), years=5, tax_rate=0.21, depreciation_years=1, price_usd_per_million_output_tokens=0.25,
                price_usd_per_million_input_tokens=0.0)  # a year-1 loss carried into profitable years
    full, limited = (_result(_plan(tax_loss_limit=limit, **keys)) for limit in (1.0, 0.8))
    income = _years(limited, "taxable_income_usd")
    carried = _years(limited, "loss_carried_usd")
    tax = _years(limited, "tax_usd")
    checked = 0
    for t in range(1, 6):
        offset = min(carried[t - 1], 0.8 * max(income[t], 0.0))
        assert tax[t] == pytest.approx(0.21 * max(0.0, income[t] - offset), rel=1e-12, abs=1e-6)
        checked += carried[t - 1] > 0.8 * income[t] > 0
    assert checked  # a year where the limit binds
    # the limit moves tax earlier (the loss is used up either way here): year 2 pays tax with it, none without
    assert _years(limited, "tax_usd")[2] > 0 == _years(full, "tax_usd")[2]
    assert _years(limited, "tax_usd").sum() == pytest.approx(_years(full, "tax_usd").sum(), rel=1e-12)
    assert limited.metrics.npv_usd < full.metrics.npv_usd


def test_the_decisions_reason_says_what_faster_software_does():
    from tcoapp.engine.decision.summary import reason
    plan = _plan(pools=((64, 0),), years=4, throughput_change_per_year=0.3)
    text = reason(plan, _result(plan))
    assert "Software 30%/yr faster: by year 4 each device serves 2.20x its year-1 tokens per hour" in text
    assert "throughput_change_per_year" not in text       # no raw key
    # the index alone: a ramp and a later tranche do not change what software is credited with
    ramped = _plan(pools=((64, 0), (64, 2)), years=4, throughput_change_per_year=0.3, first_year_utilization=0.2,
                   ramp_years=2)
    assert "2.20x its year-1 tokens per hour" in reason(ramped, _result(ramped))
    flat = _plan(pools=((64, 0),), years=4)
    assert "Software" not in reason(flat, _result(flat))


def test_insurance_and_property_tax_on_book_value():
    keys = dict(pools=((64, 0), (32, 2)), years=5, insurance_fraction_per_year=0.01, property_tax_fraction_per_year=0.02,
                residual_value_fraction=0.1)
    capex_basis, book_basis = (_result(_plan(held_capex_basis=basis, **keys)) for basis in ("capex", "book_value"))
    depreciation = np.asarray(book_basis.finance.years.pool_depreciation_usd, float)
    capex = np.asarray(book_basis.finance.pools.capex_usd, float)
    book = capex[:, None] - (np.cumsum(depreciation, axis=-1) - depreciation)    # at the start of each year
    active = np.asarray(book_basis.finance.years.pool_active, float)
    np.testing.assert_allclose(_years(book_basis, "insurance_usd"), np.sum(0.01 * book * active, axis=0), rtol=1e-12)
    np.testing.assert_allclose(_years(book_basis, "property_tax_usd"), np.sum(0.02 * book * active, axis=0), rtol=1e-12)
    assert _years(book_basis, "insurance_usd")[1] == _years(capex_basis, "insurance_usd")[1]   # nothing taken yet
    assert _years(book_basis, "insurance_usd")[5] < _years(capex_basis, "insurance_usd")[5]


def test_colocation_on_contracted_kw():
    keys = dict(pools=((64, 0), (32, 2)), years=5, colocation_usd_per_kw_month=150.0, cost_change_per_year=0.03)
    nameplate, contracted = (_result(_plan(colocation_contracted_kw=kw, **keys)) for kw in (None, 250.0))
    index = 1.03 ** np.arange(0, 5)
    np.testing.assert_allclose(_years(contracted, "colocation_usd")[1:], 250.0 * 150.0 * 12 * index, rtol=1e-12)
    assert np.all(np.asarray(contracted.finance.years.pool_colocation_usd, float) == 0)
    assert _years(nameplate, "colocation_usd")[1] > 0 and _years(nameplate, "colocation_usd")[3] > \
        _years(nameplate, "colocation_usd")[2] * 1.03 * (1 - 1e-12)   # the year-2 tranche's nameplate joins in year 3


def test_a_site_sized_plan_with_a_later_tranche_says_how_it_splits_the_site():
    """1 MW shared 3:1 by a year-0 and a year-2 tranche: the note names each tranche's devices and kW (they add up
    to at most the site), and the user's device_count ratio sizes each tranche."""
    plan = _plan(pools=((3, 0), (1, 2)), sizing_mode="facility_power", facility_power_kw=1000)
    result = _result(plan)
    note = next(w for w in result.warnings if "holds every tranche together" in w)
    assert "ratio of their device_count on Pools (3 : 1)" in note and "(bought year 2)" in note
    kw = [float(x.replace(",", "")) for x in re.findall(r"devices, ([\d,]+) kW", note)]
    assert len(kw) == 2 and sum(kw) <= 1000 and kw[0] == pytest.approx(3 * kw[1], rel=0.1)
    even = _result(_plan(pools=((1, 0), (1, 2)), sizing_mode="facility_power", facility_power_kw=1000))
    assert even.pools and [r["device_count"] for r in even.pool_rows()][0] == [r["device_count"] for r in even.pool_rows()][1]
    one = _result(_plan(pools=((64, 0),), sizing_mode="facility_power", facility_power_kw=1000))
    assert not any("holds every tranche" in w for w in one.warnings)


def test_per_unit_metrics_count_the_fleet_that_exists():
    """Revenue per rack and cost per device-hour with a year-2 tranche: PV revenue (and PV cost) over the PV of
    the racks (devices) that exist each year, a tranche from the year after its purchase (recomputed here from
    the years table and the pools, not from the engine's levelized rows)."""
    plan = _plan(pools=((64, 0), (64, 2)), years=5)
    r = _result(plan)
    y = r.finance.years
    t = np.arange(6)
    df = np.asarray(y.discount_factor, float).reshape(-1)[:6]
    pools = r.pool_rows()
    racks_t = sum(p["racks"] * (t > q.purchase_year) * (t <= 5) for p, q in zip(pools, r.pools))
    devices_t = sum(p["device_count"] * (t > q.purchase_year) * (t <= 5) for p, q in zip(pools, r.pools))
    revenue = np.asarray(y.revenue_usd, float).reshape(-1)[:6]
    assert r.metrics.revenue_usd_per_rack_per_year == pytest.approx(
        np.sum(revenue[1:] * df[1:]) / np.sum(racks_t[1:] * df[1:]), rel=1e-12)
    cost = (np.sum((np.asarray(y.capex_usd, float).reshape(-1)[:6] - np.asarray(y.residual_value_usd, float).reshape(-1)[:6]
                    + np.asarray(y.replacement_capex_usd, float).reshape(-1)[:6]) * df)
            + np.sum(np.asarray(y.opex_usd, float).reshape(-1)[1:6] * df[1:]))
    assert r.metrics.cost_per_device_hour_usd == pytest.approx(cost / (np.sum(devices_t[1:] * df[1:]) * 8760), rel=1e-9)
    # the final fleet would read it low: 128 devices from year 1
    assert r.metrics.revenue_usd_per_rack_per_year > r.metrics.revenue_usd_per_year / sum(p["racks"] for p in pools) * 1.2
    one = _result(_plan(pools=((64, 0),), years=5))   # one tranche at the start: the plain ratio, exactly
    assert one.metrics.revenue_usd_per_rack_per_year == one.metrics.revenue_usd_per_year / one.pool_rows()[0]["racks"]
