"""The finance edge cases and conventions in the workbook (docs/model.md, "Finance", "Years" and
"Finance conventions"): LibreOffice Calc recalculates the exported CashFlow and Results formulas and
must reproduce the engine to 1e-9 relative, plan by plan, year by year (workbook_recalc.compare).
One soffice launch for the whole file."""
import math

import openpyxl
import numpy as np
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.finance.bridge import cost_bridge
from tcoapp.io import sheets as S
from tcoapp.io.xlsx_bridge import bridge_rows
from tcoapp.engine.quantities.records import make_pool
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_write import write_scenario

from .workbook_recalc import SOFFICE, compare, recalc

pytestmark = [
    pytest.mark.libreoffice,
    pytest.mark.slow,
    pytest.mark.skipif(SOFFICE is None, reason="LibreOffice Calc (soffice) is not installed"),
]


def _pool(plan, name, count, **keys):
    return make_pool({"plan": plan.name, "pool": name, "device": plan.device, "device_count": count, **keys})


def finance_cases():
    """Plans on the default scenario's B200 plan, typed (search off: the cases are priced for its typed
    configuration) at a fixed batch, one per edge case or convention."""
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64, sizing_mode="devices",
                                             device_count=64)
    plans = []

    def add(name, pools=(), **keys):
        plan = base.with_(name=name, **keys)
        plans.append(plan.with_(pools=tuple(p(plan) for p in pools)))

    add("rented, loses money", pools=[lambda p: _pool(p, "rented", 64, ownership="rent", rent_usd_per_device_hour=25.0)])
    add("rented, earns", pools=[lambda p: _pool(p, "rented", 64, ownership="rent", rent_usd_per_device_hour=0.5)])
    add("bought in year 1, loses money", price_usd_per_million_output_tokens=0.01, price_usd_per_million_input_tokens=0.0,
        pools=[lambda p: _pool(p, "late", 64, purchase_year=1)])
    add("a later tranche dips", years=6, price_usd_per_million_output_tokens=3.0,
        pools=[lambda p: _pool(p, "first", 16), lambda p: _pool(p, "second", 256, purchase_year=2)])
    add("life past the horizon", tax_rate=0.21, depreciation_years=6, residual_value_fraction=0.1)
    add("life shorter, later tranche", tax_rate=0.25, depreciation_years=2, years=5,
        pools=[lambda p: _pool(p, "first", 32), lambda p: _pool(p, "second", 32, purchase_year=2)])
    itemized = dict(network_usd_per_device=4000.0, storage_usd_per_device=1000.0, installation_usd_per_server=15000.0)
    add("itemized capex, budget-sized", sizing_mode="capex_budget", capex_budget_usd=20e6, **itemized)
    add("itemized capex, bought and rented", **itemized,
        pools=[lambda p: _pool(p, "bought", 40), lambda p: _pool(p, "rented", 16, ownership="rent",
                                                                 rent_usd_per_device_hour=3.0)])
    # the KV tiers a plan buys (docs/model.md, "Agentic sessions and KV tiers"): priced into every bought server
    tiers = dict(kv_offload="host_nvme", extra_host_memory_gb=1536.0, host_memory_price_usd_per_gb=9.5,
                 extra_nvme_tb=30.0, nvme_price_usd_per_tb=120.0)
    add("extra host memory and NVMe", residual_value_fraction=0.2, maintenance_fraction_per_year=0.03, **tiers)
    add("extra host memory, budget-sized", sizing_mode="capex_budget", capex_budget_usd=20e6, **tiers)
    add("insured and taxed property, a later tranche and a rented pool", years=5, insurance_fraction_per_year=0.008,
        property_tax_fraction_per_year=0.012, cost_change_per_year=0.03,
        pools=[lambda p: _pool(p, "first", 32), lambda p: _pool(p, "second", 32, purchase_year=2),
               lambda p: _pool(p, "rented", 16, ownership="rent", rent_usd_per_device_hour=3.0)])
    return default_scenario().with_plans(plans)


def convention_cases():
    """Each finance convention on a plan with tax, a ramp and a later tranche (losses in the first years)."""
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64, sizing_mode="devices",
                                             device_count=64, tax_rate=0.21, first_year_utilization=0.05,
                                             ramp_years=2, years=5, residual_value_fraction=0.1,
                                             price_change_per_year=-0.2)
    plans = []
    for name, keys in (("mid-year discounting", dict(discounting="mid_year")),
                       ("half-year depreciation", dict(depreciation_method="half_year", depreciation_years=3)),
                       ("MACRS 5", dict(depreciation_method="macrs_5")),
                       ("MACRS 7 past the horizon", dict(depreciation_method="macrs_7")),
                       ("losses as a credit", dict(tax_losses="credit")),
                       ("declining-balance resale", dict(resale_curve="declining_balance", resale_decline_per_year=0.35)),
                       ("all together", dict(discounting="mid_year", depreciation_method="macrs_5", tax_losses="credit"))):
        plan = base.with_(name=name, **keys)
        plans.append(plan.with_(pools=(_pool(plan, "first", 64), _pool(plan, "second", 32, purchase_year=2))))
    return default_scenario().with_plans(plans)


def financing_cases():
    """Debt on plans with tax, a later tranche, a ramp (losses first) and the conventions."""
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64, sizing_mode="devices",
                                             device_count=64, tax_rate=0.21, first_year_utilization=0.2,
                                             ramp_years=1, years=5, residual_value_fraction=0.1)
    plans = []
    for name, keys in (("debt over the horizon", dict(debt_fraction=0.6, debt_rate=0.07)),
                       ("a shorter loan", dict(debt_fraction=0.5, debt_rate=0.06, debt_years=3)),
                       ("a loan past the horizon", dict(debt_fraction=0.7, debt_rate=0.08, debt_years=8,
                                                        equity_discount_rate=0.15)),
                       ("interest-free, mid-year, credit", dict(debt_fraction=0.4, debt_rate=0.0, discounting="mid_year",
                                                                tax_losses="credit", depreciation_method="macrs_5")),
                       ("device hours, financed", dict(debt_fraction=0.5, debt_rate=0.07, revenue_mode="device_hours",
                                                       reserved_fraction=0.6, reserved_price_usd_per_device_hour=6.0,
                                                       price_usd_per_device_hour=7.0)),
                       # losses most years: the interest saves part of its tax, and losses are left at the horizon
                       ("financed, in losses", dict(debt_fraction=0.6, debt_rate=0.07, price_usd_per_device_hour=2.3,
                                                    revenue_mode="device_hours", reserved_fraction=0.0,
                                                    depreciation_method="macrs_5")),
                       # losses throughout: no tax paid, no shield, the losses unused at the horizon
                       ("financed, losses unused", dict(debt_fraction=0.6, debt_rate=0.07, price_usd_per_device_hour=1.9,
                                                        revenue_mode="device_hours", reserved_fraction=0.0))):
        plan = base.with_(name=name, **keys)
        plans.append(plan.with_(pools=(_pool(plan, "first", 64), _pool(plan, "second", 32, purchase_year=2))))
    return default_scenario().with_plans(plans)


def failure_and_ramp_cases():
    """Device failures (replacements, their depreciation and write-off) and the tranche ramp, with tax, a later
    tranche, each depreciation method and debt (docs/model.md, "Device failures" and "Tranche ramp")."""
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64, sizing_mode="devices",
                                             device_count=64, tax_rate=0.21, years=5, residual_value_fraction=0.1)
    plans = []
    for name, keys in (("failures", dict(annual_failure_rate=0.09)),
                       ("failures, half-year, life past the horizon", dict(annual_failure_rate=0.05, depreciation_years=7,
                                                                          depreciation_method="half_year")),
                       ("failures, MACRS 5, credit", dict(annual_failure_rate=0.09, depreciation_method="macrs_5",
                                                          tax_losses="credit")),
                       ("failures, MACRS 7", dict(annual_failure_rate=0.09, depreciation_method="macrs_7")),
                       ("ramp of 9 months", dict(tranche_ramp_months=9)),
                       ("ramp of 30 months, device hours", dict(tranche_ramp_months=30, revenue_mode="device_hours",
                                                                reserved_fraction=0.3, reserved_price_usd_per_device_hour=6.0,
                                                                price_usd_per_device_hour=7.0)),
                       ("ramp and failures, financed, mid-year", dict(tranche_ramp_months=12, annual_failure_rate=0.09,
                                                                      debt_fraction=0.6, debt_rate=0.07,
                                                                      discounting="mid_year"))):
        plan = base.with_(name=name, **keys)
        plans.append(plan.with_(pools=(_pool(plan, "first", 64), _pool(plan, "second", 32, purchase_year=2),
                                       _pool(plan, "rented", 8, ownership="rent", rent_usd_per_device_hour=3.0))))
    return default_scenario().with_plans(plans)


CASES = {"finance_edge_cases": finance_cases, "finance_conventions": convention_cases, "financing": financing_cases,
         "failures_and_ramp": failure_and_ramp_cases}


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lo_finance")
    cases = {}
    for name, build in CASES.items():
        scenario = build()
        results = compute_scenario(scenario)
        path = folder / f"{name}.xlsx"
        write_scenario(scenario, path, results)
        cases[name] = (scenario, results, path)
    # the default scenario with the Bridge's plans typed in as an analyst would: plan 3 -> plan 2
    scenario = default_scenario()
    results = compute_scenario(scenario)
    path = folder / "bridge_typed.xlsx"
    write_scenario(scenario, path, results)
    wb = openpyxl.load_workbook(path)
    wb[S.BRIDGE]["C3"].value, wb[S.BRIDGE]["C4"].value = scenario.plans[2].name, scenario.plans[1].name
    wb.save(path)
    cases["bridge_typed"] = (scenario, results, path)
    outputs = recalc([path for _, _, path in cases.values()], folder / "recalculated")
    return {name: (s, r, out) for (name, (s, r, _)), out in zip(cases.items(), outputs)}


@pytest.mark.parametrize("name", sorted(CASES))
def test_libreoffice_reproduces_the_finance_cases(recalculated, name):
    scenario, results, path = recalculated[name]
    assert compare(path, scenario, results) == []


def test_the_conventions_move_what_they_should(recalculated):
    _, results, _ = recalculated["finance_conventions"]
    by_name = {r.name: r for r in results}
    credit = by_name["losses as a credit"].finance.years
    assert min(credit.tax_usd) < 0  # a loss year: a negative tax (a credit)
    macrs = by_name["MACRS 7 past the horizon"].finance.years
    assert macrs.disposal_gain_usd[5] < 0  # 8 years of MACRS 7 over 5: the rest is deducted at the sale


def test_the_financing_cases_have_debt(recalculated):
    _, results, _ = recalculated["financing"]
    for r in results:
        assert r.metrics.min_dscr > 0 and r.metrics.equity_npv_usd != r.metrics.npv_usd
        assert max(r.finance.years.interest_usd) > 0 or r.name.startswith("interest-free")


def test_the_new_returns_are_exercised(recalculated):
    """Discounted payback, MIRR, NPV at the WACC and unused tax losses take values the workbook must reproduce:
    a partial tax shield (WACC between the statutory and the untaxed), losses left at the horizon."""
    _, results, _ = recalculated["financing"]
    m = {r.name: r.metrics for r in results}
    assert all(np.isfinite(x.mirr) and np.isfinite(x.npv_at_wacc_usd) for x in m.values())
    assert any(x.mirr < 0 for x in m.values())
    full, losses, unused = m["debt over the horizon"], m["financed, in losses"], m["financed, losses unused"]
    assert full.wacc == pytest.approx(0.4 * 0.10 + 0.6 * 0.07 * (1 - 0.21), rel=1e-12)
    assert 0.4 * 0.10 + 0.6 * 0.07 * (1 - 0.21) < losses.wacc < 0.4 * 0.10 + 0.6 * 0.07
    assert unused.wacc == pytest.approx(0.4 * 0.10 + 0.6 * 0.07, rel=1e-12)     # no tax paid: no shield
    assert unused.unused_tax_loss_usd > 0 and full.unused_tax_loss_usd == 0
    assert any("unused at the horizon" in w for w in next(r for r in results if r.name == "financed, losses unused").warnings)
    assert any(np.isfinite(x.discounted_payback_months) and x.discounted_payback_months > x.payback_months
               for x in m.values())


def test_the_failure_and_ramp_cases_replace_and_ramp(recalculated):
    _, results, _ = recalculated["failures_and_ramp"]
    by_name = {r.name: r.finance.years for r in results}
    failing = by_name["failures"]
    assert failing.replacement_capex_usd[1] > 0 and failing.replacement_depreciation_usd[2] > 0
    assert failing.pool_replacement_capex_usd[2][1] == 0  # a rented pool's failures are the lessor's
    ramp = by_name["ramp of 9 months"]
    assert ramp.pool_utilization[0][1] < ramp.utilization[1] and ramp.pool_utilization[0][2] == ramp.utilization[2]
    assert ramp.pool_utilization[1][3] < ramp.utilization[3]  # the later tranche ramps in its own first year


def test_the_edge_cases_are_what_they_say(recalculated):
    scenario, results, _ = recalculated["finance_edge_cases"]
    by_name = {r.name: r.metrics for r in results}
    assert by_name["rented, loses money"].payback_months != by_name["rented, loses money"].payback_months  # never
    assert by_name["rented, earns"].payback_months == 0.0
    assert by_name["bought in year 1, loses money"].payback_months != by_name["bought in year 1, loses money"].payback_months
    assert by_name["a later tranche dips"].payback_months > 24


@pytest.mark.parametrize("name, a, b", [("financing", 0, 1), ("finance_conventions", 0, 1), ("bridge_typed", 2, 1)])
def test_the_bridge_sheet_is_the_engines_bridge(recalculated, name, a, b):
    scenario, results, path = recalculated[name]
    ws = openpyxl.load_workbook(path, data_only=True)[S.BRIDGE]
    want = cost_bridge(results[a].name, results[a].finance, results[b].name, results[b].finance)
    rows = bridge_rows()
    assert (ws["C3"].value, ws["C4"].value) == (want["a"], want["b"])
    scale = abs(want["a_usd_per_million"]) + abs(want["b_usd_per_million"])
    for part in want["parts"]:
        row = rows[part["part"]]
        for col, key in (("C", "a"), ("D", "b"), ("E", "difference")):
            assert math.isclose(ws[f"{col}{row}"].value, part[key], rel_tol=1e-9, abs_tol=1e-12 * scale), (part, col)
    assert math.isclose(ws[f"E{rows['total']}"].value, want["difference_usd_per_million"], rel_tol=1e-9)
    assert abs(ws[f"E{rows['check']}"].value) <= 1e-12 * scale
