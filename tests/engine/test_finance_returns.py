"""Returns a CFO checks: IRR wherever exactly one rate makes NPV = 0 (read from the NPV profile, not a
sign-change rule), MIRR, discounted payback, NPV at the WACC, the WACC's tax shield only where tax is
paid, losses unused at the horizon named, and contracted colocation power below nameplate warned.
Each recomputed here apart from the engine (plain loops over the flows)."""
import math

import numpy as np
import numpy_financial as npf
import pytest

from tcoapp.engine.finance import cashflow
from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.quantities.records import make_pool
from tcoapp.io.default_scenario import default_scenario
from tests.reference_finance import payback_months as reference_payback


def _npv(rate, flows, mid=False):
    return sum(f / (1 + rate) ** (t - 0.5 if mid and t >= 1 else t) for t, f in enumerate(flows))


def _rates(flows, lo=-0.999, hi=1e4, steps=200_000):
    """Every rate where the NPV profile crosses 0, scanned on a grid of rates and bisected (apart from the engine)."""
    grid = np.concatenate([np.linspace(lo, 1.0, steps // 2), np.geomspace(1.0, hi, steps // 2)[1:]])
    values = sum(f / (1 + grid) ** t for t, f in enumerate(flows))
    found = []
    for k in np.nonzero(np.sign(values[1:]) != np.sign(values[:-1]))[0]:
        a, b = grid[k], grid[k + 1]
        for _ in range(200):
            m = 0.5 * (a + b)
            if np.sign(_npv(m, flows)) == np.sign(_npv(a, flows)):
                a = m
            else:
                b = m
        found.append(0.5 * (a + b))
    return found


def test_irr_exists_where_one_rate_does_though_the_flows_change_sign_three_times():
    flows = np.array([-0.71, 0.66, 0.66, -2.19, 5.44]) * 1e6
    assert cashflow.sign_changes(flows) == 3 and cashflow.sign_changes(np.cumsum(flows)) == 3
    rates = _rates(flows)
    assert len(rates) == 1 and cashflow.rate_count(flows) == 1 and not cashflow.irr_is_ambiguous(flows)
    assert cashflow.irr(flows) == pytest.approx(rates[0], rel=1e-9) == pytest.approx(0.803, abs=5e-4)
    assert _npv(float(cashflow.irr(flows)), flows) == pytest.approx(0.0, abs=1e-6)


def test_no_irr_where_two_rates_zero_npv():
    flows = np.array([-100.0, 230.0, -132.0])          # NPV = 0 at 10 % and at 20 %
    assert [round(r, 9) for r in _rates(flows)] == [0.1, 0.2]
    assert math.isnan(cashflow.irr(flows)) and cashflow.rate_count(flows) == 2 and cashflow.irr_is_ambiguous(flows)


def test_no_irr_where_no_rate_zeroes_npv():
    flows = np.array([-100.0, 250.0, -200.0])          # NPV < 0 at every rate
    assert _rates(flows) == [] and math.isnan(cashflow.irr(flows)) and cashflow.rate_count(flows) == 0


def test_mirr_is_excels_over_years_zero_to_n():
    flows = np.array([-1000.0, 300.0, -200.0, 700.0, 600.0, 0.0, 0.0])     # a 4-year horizon in a 6-year table
    want = npf.mirr(flows[:5], 0.1, 0.1)
    assert cashflow.mirr(flows, 0.1, 0.1, 4) == pytest.approx(want, rel=1e-12)
    by_hand = (sum(f * 1.1 ** (4 - t) for t, f in enumerate(flows[:5]) if f > 0)
               / -sum(f / 1.1 ** t for t, f in enumerate(flows[:5]) if f < 0)) ** 0.25 - 1
    assert want == pytest.approx(by_hand, rel=1e-12)
    assert math.isnan(cashflow.mirr(np.abs(flows), 0.1, 0.1, 4))       # no outflow: none


def _plan(**keys):
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64,
                                             sizing_mode="devices", device_count=64, years=5, **keys)
    pools = (make_pool({"plan": base.name, "pool": "first", "device": base.device, "device_count": 64}),
             make_pool({"plan": base.name, "pool": "second", "device": base.device, "device_count": 32,
                        "purchase_year": 2}))
    return base.with_(pools=pools)


def _result(plan):
    return compute_scenario(default_scenario().with_plans([plan]))[0]


@pytest.mark.parametrize("mid", [False, True])
def test_discounted_payback_mirr_and_npv_at_wacc_recomputed(mid):
    plan = _plan(tax_rate=0.21, debt_fraction=0.6, debt_rate=0.07, equity_discount_rate=0.14,
                 discounting="mid_year" if mid else "end_of_year", price_usd_per_million_output_tokens=0.35)
    r = _result(plan)
    flows = [float(f) for f in np.asarray(r.finance.cash_flows_usd, float)[:6]]
    discounted = [f / 1.1 ** (t - 0.5 if mid and t >= 1 else t) for t, f in enumerate(flows)]
    want = reference_payback(discounted)
    assert r.metrics.discounted_payback_months == pytest.approx(want, rel=1e-9)
    assert r.metrics.discounted_payback_months > r.metrics.payback_months
    assert r.metrics.mirr == pytest.approx(npf.mirr(flows, 0.1, 0.1), rel=1e-10)
    y = r.finance.years
    saved = float(np.sum(np.asarray(y.tax_usd) - np.asarray(y.levered_tax_usd)))
    interest = float(np.sum(y.interest_usd))
    shield = saved / interest
    assert 0 < shield <= 0.21 + 1e-12
    wacc = 0.4 * 0.14 + 0.6 * 0.07 * (1 - shield)
    assert r.metrics.wacc == pytest.approx(wacc, rel=1e-12)
    assert r.metrics.npv_at_wacc_usd == pytest.approx(_npv(wacc, flows, mid), rel=1e-10)


def test_no_tax_paid_means_no_shield_and_unused_losses_are_named():
    plan = _plan(tax_rate=0.21, debt_fraction=0.5, debt_rate=0.08, price_usd_per_million_output_tokens=0.02,
                 price_usd_per_million_input_tokens=0.0)
    r = _result(plan)
    assert float(np.sum(r.finance.years.levered_tax_usd)) == 0 and float(np.sum(r.finance.years.tax_usd)) == 0
    assert r.metrics.wacc == pytest.approx(0.5 * 0.10 + 0.5 * 0.08, rel=1e-12)      # not x (1 - 21 %)
    carried = float(np.asarray(r.finance.years.loss_carried_usd)[5])
    assert carried > 0 and r.metrics.unused_tax_loss_usd == pytest.approx(carried, rel=1e-12)
    assert any(w.startswith("tax losses of $") and "unused at the horizon (year 5)" in w for w in r.warnings)
    assert math.isnan(r.metrics.discounted_payback_months)      # NPV < 0: never
    credit = _result(plan.with_(tax_losses="credit"))
    assert credit.metrics.unused_tax_loss_usd == 0 and not any("unused at the horizon" in w for w in credit.warnings)


def test_no_wacc_and_no_npv_at_it_without_debt():
    r = _result(_plan())
    assert math.isnan(r.metrics.wacc) and math.isnan(r.metrics.npv_at_wacc_usd)
    assert np.isfinite(r.metrics.mirr) and np.isfinite(r.metrics.discounted_payback_months)


def test_contracted_colocation_below_nameplate_is_warned():
    r = _result(_plan())
    nameplate = r.metrics.it_provisioned_kw
    low = _result(_plan(colocation_contracted_kw=round(nameplate / 2), colocation_usd_per_kw_month=150.0))
    assert any(w.startswith(f"the contracted colocation power ({round(nameplate / 2):,} kW) is below the fleet's nameplate")
               for w in low.warnings)
    enough = _result(_plan(colocation_contracted_kw=math.ceil(nameplate) + 1, colocation_usd_per_kw_month=150.0))
    assert not any("contracted colocation power" in w for w in enough.warnings)


@pytest.mark.parametrize("sample", ["buy_now_or_wait.xlsx", "years_price_decline.xlsx", "gpu_cloud_financed.xlsx"])
def test_the_ambiguous_irr_note_is_given_where_the_root_count_says(sample):
    """compute_plan counts the rates only where the IRR does not exist (its own flows' `irr`, already found):
    the note is given exactly where `irr_is_ambiguous` of the plan's cash flows holds."""
    from pathlib import Path
    from tcoapp.engine.pipeline.compute import compute_plan
    from tcoapp.io.load import load_scenario
    scenario = load_scenario(Path(__file__).resolve().parents[2] / "samples" / sample)
    for plan in scenario.plans:
        result = compute_plan(scenario, plan)
        noted = any(w.startswith("IRR not given: several rates") for w in result.warnings)
        assert noted == cashflow.irr_is_ambiguous(result.finance.cash_flows_usd), plan.name
