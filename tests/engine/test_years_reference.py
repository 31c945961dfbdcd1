"""Years: an independent year-by-year reference (plain Python, not the engine) for a plan with a
price decline, cost and electricity growth, a ramp, tax with a loss carried forward and a second
tranche (its horizon sale a disposal: the gain over book value taxed); properties (NPV falls as prices fall faster; with every new key at its default the
numbers are section 3's exactly)."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tcoapp.engine.finance import cashflow, recovery
from tcoapp.engine.finance.metrics import finance_metrics
from tcoapp.engine.quantities.finance import finance_inputs

SPY = 8760 * 3600
PLAN = dict(other_capex_fraction=0.1, pue=1.25, electricity_usd_per_kwh=0.08, colocation_usd_per_kw_month=120.0,
            maintenance_fraction_per_year=0.03, software_usd_per_device_year=400.0, staff_usd_per_year=250000.0,
            utilization=0.8, years=5, discount_rate=0.09, residual_value_fraction=0.1,
            price_usd_per_million_input_tokens=0.15, input_tokens=2000.0, output_tokens=500.0,
            price_change_per_year=-0.3, electricity_price_change_per_year=0.04, cost_change_per_year=0.03,
            first_year_utilization=0.3, ramp_years=2, tax_rate=0.25, depreciation_years=4)
POOLS = [  # tranche 0 and a second tranche of newer hardware bought in year 2
    dict(price_usd=30000, devices_per_server=8, server_price_usd=70000, tdp_w=700, idle_w=70, server_overhead_w=4600,
         device_count=64, rack_power_cap_kw=40, servers_per_rack_max=4, tokens_per_s_per_device=900, power_w=600,
         price_usd_per_million_output_tokens=0.9, owned=1, rent_usd_per_device_hour=0, purchase_year=0,
         prefill_share=0.2),
    dict(price_usd=40000, devices_per_server=8, server_price_usd=90000, tdp_w=1000, idle_w=100, server_overhead_w=6000,
         device_count=32, rack_power_cap_kw=60, servers_per_rack_max=4, tokens_per_s_per_device=3000, power_w=850,
         price_usd_per_million_output_tokens=0.9, owned=1, rent_usd_per_device_hour=0, purchase_year=2,
         prefill_share=0.1),
]


def reference(plan, pools):
    """Section 'Years' of docs/model.md in plain arithmetic."""
    n, r, R = plan["years"], plan["discount_rate"], plan["residual_value_fraction"]
    D = plan["depreciation_years"]
    tranches = []
    for p in pools:
        servers = math.ceil(p["device_count"] / p["devices_per_server"])
        # every capex item at its year's price (docs/model.md, "Finance over time")
        hw = (p["device_count"] * p["price_usd"] + servers * p["server_price_usd"]) * hw_index(plan, p["purchase_year"])
        nameplate = p["devices_per_server"] * p["tdp_w"] + p["server_overhead_w"]
        tranches.append(dict(p, servers=servers, hw=hw, capex=hw * (1 + plan["other_capex_fraction"]),
                             prov_kw=servers * nameplate / 1000))
    rows = []
    loss = 0.0
    replacements = []  # (year bought, amount, depreciation taken): each a small tranche of its own
    afr = plan.get("annual_failure_rate", 0.0)
    for t in range(n + 1):
        if t == 0:
            cap = sum(x["capex"] for x in tranches if x["purchase_year"] == 0)
            rows.append(dict(cash=-cap, tax=0.0, dep=0.0, revenue=0.0, opex=0.0, tokens=0.0, in_tokens=0.0, capex=cap,
                             taxable=0.0, replaced=0.0))
            continue
        u_year = plan["first_year_utilization"] + (plan["utilization"] - plan["first_year_utilization"]) * min(1, (t - 1) / plan["ramp_years"])
        price_idx = (1 + plan["price_change_per_year"]) ** (t - 1)
        elec = plan["electricity_usd_per_kwh"] * (1 + plan["electricity_price_change_per_year"]) ** (t - 1)
        cost_idx = (1 + plan["cost_change_per_year"]) ** (t - 1)
        revenue = opex = dep = tokens = in_tokens = 0.0
        capex_paid = sum(x["capex"] for x in tranches if x["purchase_year"] == t)
        replaced = 0.0
        for x in tranches:
            if t <= x["purchase_year"]:
                continue
            replaced += afr * x["device_count"] * x["price_usd"] * x["owned"] * hw_index(plan, t)
            u = u_year * ramp_share(plan.get("tranche_ramp_months", 0.0), t - x["purchase_year"])
            out = x["tokens_per_s_per_device"] * x["device_count"] * u * SPY * (1 + plan.get("throughput_change_per_year", 0.0)) ** (t - 1)
            inp = out * plan["input_tokens"] / plan["output_tokens"]
            tokens += out
            in_tokens += inp
            if plan.get("revenue_mode", 0) == 1:  # device-hours: reserved all year, the rest when used
                share = plan["reserved_fraction"]
                revenue += x["device_count"] * 8760 * price_idx * (share * plan["reserved_price_usd_per_device_hour"]
                                                                   + (1 - share) * u * plan["price_usd_per_device_hour"])
            else:
                revenue += out * x["price_usd_per_million_output_tokens"] * price_idx / 1e6 \
                    + inp * plan["price_usd_per_million_input_tokens"] * price_idx / 1e6
            avg_kw = (x["device_count"] * (u * x["power_w"] + (1 - u) * x["idle_w"]) + x["servers"] * x["server_overhead_w"]) / 1000
            opex += avg_kw * plan["pue"] * 8760 * elec
            opex += (x["prov_kw"] * plan["colocation_usd_per_kw_month"] * 12 + plan["maintenance_fraction_per_year"] * x["hw"]
                     + plan["software_usd_per_device_year"] * x["device_count"]) * cost_idx
            part = depreciation_part(plan.get("depreciation_method", 0), x["capex"], R, D, t - x["purchase_year"])
            dep += part
            x["taken"] = x.get("taken", 0.0) + part
        for bought in replacements:  # the devices replaced in earlier years depreciate like a tranche
            part = depreciation_part(plan.get("depreciation_method", 0), bought["amount"], R, D, t - bought["year"])
            dep += part
            bought["taken"] += part
        replacements.append(dict(year=t, amount=replaced, taken=0.0))
        opex += plan["staff_usd_per_year"] * cost_idx
        taxable = revenue - opex - dep
        if t == n:  # the horizon sale is a disposal: value less book value (capex - depreciation taken) is taxed
            for x in tranches:
                value = resale(plan, x, n)
                taxable += value - (x["capex"] - x.get("taken", 0.0))
            for bought in replacements:  # valued like a tranche bought in its year
                taxable += replaced_value(plan, bought, n) - (bought["amount"] - bought["taken"])
        tax, loss = taxed(plan, taxable, loss)
        cash = revenue - opex - tax - capex_paid - replaced
        if t == n:
            for x in tranches:
                cash += resale(plan, x, n)
            cash += sum(replaced_value(plan, bought, n) for bought in replacements)
        rows.append(dict(cash=cash, tax=tax, dep=dep, revenue=revenue, opex=opex, tokens=tokens, in_tokens=in_tokens,
                         capex=capex_paid, taxable=taxable, replaced=replaced))
    flows = [row["cash"] for row in rows]
    mid_year = plan.get("discounting", 0) == 1  # mid-year: years 1..n at t - 0.5
    when = lambda t: t - 0.5 if mid_year and t >= 1 else t  # noqa: E731
    npv = sum(f / (1 + r) ** when(t) for t, f in enumerate(flows))
    lo, hi = -0.99, 10.0
    f = lambda rate: sum(fl / (1 + rate) ** t for t, fl in enumerate(flows))  # noqa: E731
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if f(lo) * f(mid) <= 0 else (mid, hi)
    cumulative, payback = 0.0, 0.0  # the last crossing from below 0, if the horizon's flow is >= 0
    for t, fl in enumerate(flows):
        before, cumulative = cumulative, cumulative + fl
        if t > 0 and cumulative >= 0 > before:
            payback = 12 * ((t - 1) + (-before) / (cumulative - before))
        elif cumulative < 0:
            payback = None
    total_capex = sum(x["capex"] for x in tranches)
    roi = (sum(flows[1:]) + sum(row["capex"] for row in rows[1:])) / total_capex - 1
    pv = lambda key: sum(row[key] / (1 + r) ** when(t) for t, row in enumerate(rows) if t >= 1)  # noqa: E731
    residual_pv = (sum(resale(plan, x, n) for x in tranches)
                   + sum(replaced_value(plan, b, n) for b in replacements)) / (1 + r) ** when(n)
    pv_capex = sum(x["capex"] / (1 + r) ** when(x["purchase_year"]) for x in tranches) + pv("replaced")
    cost = ((pv_capex - residual_pv) + pv("opex")) / pv("tokens") * 1e6
    share = sum(x["device_count"] * x["prefill_share"] for x in tranches) / sum(x["device_count"] for x in tranches)
    cost_in = share * ((pv_capex - residual_pv) + pv("opex")) / pv("in_tokens") * 1e6
    out = dict(rows=rows, npv=npv, irr=(lo + hi) / 2, payback=payback, roi=roi, cost=cost, cost_in=cost_in)
    out.update(financed(plan, tranches, rows, when))
    return out


def financed(plan, tranches, rows, when):
    """docs/model.md "Financing" in plain arithmetic: each tranche borrows debt_fraction of its capex when
    paid, repays a level annuity (a loop over its balance), the rest at the horizon; interest is deducted
    for the equity holder's tax (same loss rule); equity flows, their NPV and IRR, and the worst DSCR."""
    n, f, i = plan["years"], plan.get("debt_fraction", 0.0), plan.get("debt_rate", 0.0)
    m = plan.get("debt_years") or n
    interest, principal, scheduled, drawn = ([0.0] * (n + 1) for _ in range(4))
    for x in tranches:
        debt, y = f * x["capex"], x["purchase_year"]
        drawn[y] += debt
        payment = debt / m if i == 0 else debt * i / (1 - (1 + i) ** -m)
        balance = debt
        for t in range(y + 1, n + 1):
            if t - y <= m:
                owed = i * balance
                interest[t] += owed
                principal[t] += payment - owed
                scheduled[t] += payment - owed
                balance -= payment - owed
            if t == n:
                principal[t] += max(balance, 0.0) if t - y < m else 0.0
    loss, equity, cover = 0.0, [], []
    for t, row in enumerate(rows):
        if t == 0:
            tax = 0.0
        else:
            tax, loss = taxed(plan, row["taxable"] - interest[t], loss)
            service = interest[t] + scheduled[t]
            if service > 0:  # replacements are paid from operations before debt service
                cover.append((row["revenue"] - row["opex"] - row["replaced"] - tax) / service)
        equity.append(row["cash"] + row["tax"] - tax + drawn[t] - interest[t] - principal[t])
    rate = plan.get("equity_discount_rate") or plan["discount_rate"]
    npv = sum(e / (1 + rate) ** when(t) for t, e in enumerate(equity))
    g = lambda x: sum(e / (1 + x) ** t for t, e in enumerate(equity))  # noqa: E731
    # the smallest rate >= 0 where g changes sign (a balloon repayment can make the flows change sign
    # twice; the cumulative flow changes once, so that positive rate is the one IRR), else below 0
    grid = [k / 1000 for k in range(0, 50001)] + [-k / 1000 for k in range(1, 991)]
    lo = next((x for x, x2 in zip(grid, grid[1:]) if g(x) * g(x2) <= 0 and (x >= 0) == (x2 >= 0)), None)
    if lo is None:  # no rate makes the equity NPV 0 (a plan that loses money at every rate)
        return dict(equity=equity, equity_npv=npv, equity_irr=None, min_dscr=min(cover) if cover else None)
    hi = next(x2 for x, x2 in zip(grid, grid[1:]) if x == lo)
    lo, hi = min(lo, hi), max(lo, hi)
    for _ in range(300):
        middle = (lo + hi) / 2
        lo, hi = (lo, middle) if g(lo) * g(middle) <= 0 else (middle, hi)
    return dict(equity=equity, equity_npv=npv, equity_irr=(lo + hi) / 2, min_dscr=min(cover) if cover else None)


def ramp_share(months, k):
    """docs/model.md "Tranche ramp": the average, over the k-th year of a tranche's service (months a..b),
    of its load min(1, m / months), by cases."""
    a, b = 12 * (k - 1), 12 * k
    if months == 0 or a >= months:
        return 1.0
    if b <= months:
        return (a + b) / 2 / months  # the mean of m / months over [a, b]
    return ((months * months - a * a) / (2 * months) + (b - months)) / 12


def hw_index(plan, year):
    """The price of capex paid in `year` relative to today's: (1 + hardware_price_change_per_year)^year."""
    return (1 + plan.get("hardware_price_change_per_year", 0.0)) ** year


def replaced_value(plan, bought, n):
    """The value at the horizon of the devices replaced in one year: a tranche of that year and price."""
    return resale(plan, dict(capex=bought["amount"], purchase_year=bought["year"]), n)


def taxed(plan, taxable, loss):
    """(tax, loss carried on): a credit lowers the owner's other tax; carried forward, the loss offsets at most
    tax_loss_limit of a year's taxable income."""
    if plan.get("tax_losses", 0) == 1:
        return plan["tax_rate"] * taxable, 0.0
    offset = min(loss, plan.get("tax_loss_limit", 1.0) * max(taxable, 0.0))
    return plan["tax_rate"] * max(0.0, taxable - offset), loss - offset + max(0.0, -taxable)


def resale(plan, x, n):
    """A tranche's value at the horizon: linear to the residual over `years`, or declining balance."""
    age = n - x["purchase_year"]
    if plan.get("resale_curve", 0) == 1:
        return x["capex"] * (1 - plan["resale_decline_per_year"]) ** age
    return x["capex"] * (1 - (1 - plan["residual_value_fraction"]) * min(1, age / n))


# IRS Publication 946, Appendix A, Table A-1: MACRS GDS, half-year convention, percent of basis by year
MACRS = {2: [20.00, 32.00, 19.20, 11.52, 11.52, 5.76], 3: [14.29, 24.49, 17.49, 12.49, 8.93, 8.92, 8.93, 4.46]}


def depreciation_part(method, capex, R, D, age):
    """A tranche's depreciation at `age` (years since purchase): 0 straight line and 1 half-year of capex x
    (1 - residual) over D years; 2 / 3 MACRS 5 / 7 of the whole capex."""
    if age < 1:
        return 0.0
    if method == 0:
        return capex * (1 - R) / D if age <= D else 0.0
    if method == 1:
        share = 0.5 if age in (1, D + 1) else (1.0 if age <= D else 0.0)
        return capex * (1 - R) * share / D
    table = MACRS[method]
    return capex * table[age - 1] / 100 if age <= len(table) else 0.0


def engine(plan=PLAN, pools=POOLS):
    return finance_metrics(finance_inputs({k: [p[k] for p in pools] for k in pools[0]}, plan))


CONVENTIONS = {  # docs/model.md "Finance conventions", each alone and together (codes: the choices' order)
    "defaults": {},
    "mid-year discounting": dict(discounting=1),
    "half-year depreciation": dict(depreciation_method=1),
    "MACRS 5": dict(depreciation_method=2),
    "MACRS 7 (past the horizon)": dict(depreciation_method=3),
    "life past the horizon": dict(depreciation_years=7),
    "losses as a credit": dict(tax_losses=1),
    "all together": dict(discounting=1, depreciation_method=2, tax_losses=1),
    "declining-balance resale": dict(resale_curve=1, resale_decline_per_year=0.35),
    # docs/model.md "Revenue as device hours": H100-class prices of the field (reserved $1.85, on demand $2.10)
    "device-hour revenue": dict(revenue_mode=1, reserved_fraction=0.6, reserved_price_usd_per_device_hour=1.85,
                                price_usd_per_device_hour=2.10),
    # docs/model.md "Device failures": about 9 %/yr, Meta's Llama 3 H100 GPU and HBM3 interruptions (an upper bound)
    "device failures": dict(annual_failure_rate=0.09),
    "device failures, MACRS, credit": dict(annual_failure_rate=0.05, depreciation_method=2, tax_losses=1),
    "device failures, MACRS 7 (past the horizon)": dict(annual_failure_rate=0.05, depreciation_method=3),
    "device failures, half-year, life past the horizon": dict(annual_failure_rate=0.05, depreciation_method=1,
                                                              depreciation_years=7, tax_losses=1),
    "tranche ramp of 9 months": dict(tranche_ramp_months=9),
    "tranche ramp of 30 months, device hours": dict(tranche_ramp_months=30, revenue_mode=1, reserved_fraction=0.3,
                                                    reserved_price_usd_per_device_hour=1.85, price_usd_per_device_hour=2.10),
    "ramp and failures, mid-year, credit": dict(tranche_ramp_months=6, annual_failure_rate=0.09, discounting=1,
                                                tax_losses=1),
    # docs/model.md "Finance over time"
    "hardware 20% cheaper a year, failures": dict(hardware_price_change_per_year=-0.2, annual_failure_rate=0.09),
    "failures, declining-balance resale": dict(annual_failure_rate=0.09, resale_curve=1, resale_decline_per_year=0.35),
    "software 30% faster a year": dict(throughput_change_per_year=0.3),
    "losses offset 80% of income": dict(tax_loss_limit=0.8),
    "all over time, MACRS": dict(hardware_price_change_per_year=-0.15, throughput_change_per_year=0.25,
                                 tax_loss_limit=0.8, annual_failure_rate=0.05, depreciation_method=2),
}


@pytest.mark.parametrize("name", CONVENTIONS)
def test_every_year_matches_the_reference(name):
    plan = dict(PLAN, **CONVENTIONS[name])
    ref, out = reference(plan, POOLS), engine(plan)
    rows = out.years
    for t, row in enumerate(ref["rows"]):
        assert rows.cash_flow_usd[t] == pytest.approx(row["cash"], rel=1e-9, abs=1e-6), t
        assert rows.tax_usd[t] == pytest.approx(row["tax"], rel=1e-9, abs=1e-6), t
        assert rows.depreciation_usd[t] == pytest.approx(row["dep"], rel=1e-9, abs=1e-6), t
        assert rows.revenue_usd[t] == pytest.approx(row["revenue"], rel=1e-9, abs=1e-6), t
        assert rows.opex_usd[t] == pytest.approx(row["opex"], rel=1e-9, abs=1e-6), t
        assert rows.capex_usd[t] == pytest.approx(row["capex"], rel=1e-9, abs=1e-6), t
        assert rows.replacement_capex_usd[t] == pytest.approx(row["replaced"], rel=1e-9, abs=1e-6), t
    if plan.get("tax_losses", 0) == 0 and plan.get("revenue_mode", 0) == 0:
        assert any(r["tax"] == 0 for r in ref["rows"][1:]) and any(r["tax"] > 0 for r in ref["rows"][1:])  # a loss carried
        assert rows.loss_carried_usd[1] > 0
    elif plan.get("tax_losses", 0) == 1:
        assert any(r["tax"] < 0 for r in ref["rows"][1:]) and np.all(rows.loss_carried_usd == 0)  # a credit
    assert out.npv_usd == pytest.approx(ref["npv"], rel=1e-9)
    if cashflow.irr_is_ambiguous([r["cash"] for r in ref["rows"]]):  # several rates make NPV = 0: none is given
        assert np.isnan(out.irr)
    else:
        assert out.irr == pytest.approx(ref["irr"], rel=1e-9)
    if ref["payback"] is None:  # "never"
        assert np.isnan(out.payback_months)
    else:
        assert out.payback_months == pytest.approx(ref["payback"], rel=1e-9)
    assert out.roi == pytest.approx(ref["roi"], rel=1e-9)
    assert out.cost_per_million_output_tokens_usd == pytest.approx(ref["cost"], rel=1e-9)
    assert out.cost_per_million_input_tokens_usd == pytest.approx(ref["cost_in"], rel=1e-9)


FINANCING = {  # docs/model.md "Financing"
    "debt over the horizon": dict(debt_fraction=0.6, debt_rate=0.07),
    "a shorter loan": dict(debt_fraction=0.5, debt_rate=0.06, debt_years=3),
    "a loan past the horizon (balloon)": dict(debt_fraction=0.7, debt_rate=0.08, debt_years=8,
                                             equity_discount_rate=0.15),
    "interest-free, losses as a credit": dict(debt_fraction=0.4, debt_rate=0.0, tax_losses=1, discounting=1),
    "debt with device failures and a ramp": dict(debt_fraction=0.6, debt_rate=0.07, annual_failure_rate=0.09,
                                                 tranche_ramp_months=12),
    "a balloon, losses offset 80%, cheaper hardware": dict(debt_fraction=0.7, debt_rate=0.08, debt_years=8,
                                                           tax_loss_limit=0.8, hardware_price_change_per_year=-0.2),
}


@pytest.mark.parametrize("name", FINANCING)
def test_financing_matches_the_reference(name):
    plan = dict(PLAN, **FINANCING[name])
    ref, out = reference(plan, POOLS), engine(plan)
    for t, want in enumerate(ref["equity"]):
        assert out.years.equity_cash_flow_usd[t] == pytest.approx(want, rel=1e-9, abs=1e-6), t
    assert out.equity_npv_usd == pytest.approx(ref["equity_npv"], rel=1e-9)
    assert out.equity_irr == pytest.approx(ref["equity_irr"], rel=1e-8)
    assert out.min_dscr == pytest.approx(ref["min_dscr"], rel=1e-9)
    unlevered = engine(dict(PLAN, **{k: v for k, v in FINANCING[name].items() if not k.startswith(("debt", "equity"))}))
    assert np.array_equal(out.cash_flows_usd, unlevered.cash_flows_usd) and out.npv_usd == unlevered.npv_usd


def test_without_debt_the_equity_figures_are_the_project_figures_exactly():
    out = engine()
    assert np.array_equal(out.years.equity_cash_flow_usd, out.cash_flows_usd)
    assert out.equity_npv_usd == out.npv_usd and out.equity_irr == out.irr and np.isnan(out.min_dscr)


def _single(**keys):
    base = dict(POOLS[0], **{k: v for k, v in PLAN.items()})
    base.update(price_change_per_year=0.0, electricity_price_change_per_year=0.0, cost_change_per_year=0.0,
                first_year_utilization=float("nan"), ramp_years=0.0, tax_rate=0.0, depreciation_years=float("nan"))
    base.update(keys)
    return base


@settings(max_examples=80, deadline=None)
@given(st.floats(0.01, 0.99), st.floats(0.0, 0.4), st.integers(1, 12), st.floats(0.0, 0.9), st.floats(0.05, 5.0),
       st.floats(100, 5000))
def test_defaults_are_section_3_exactly(util, rate, years, resid, price, tps):
    x = _single(utilization=util, discount_rate=rate, years=years, residual_value_fraction=resid,
                price_usd_per_million_output_tokens=price, tokens_per_s_per_device=tps)
    out = finance_metrics(x)
    net = out.revenue_usd_per_year - out.opex_usd_per_year
    assert np.array_equal(out.cash_flows_usd, cashflow.cash_flows(out.capex_usd, net, resid, years))
    capex_year = recovery.capex_usd_per_year(out.capex_usd, resid, rate, years)
    assert out.cost_per_million_output_tokens_usd == (capex_year + out.opex_usd_per_year) / out.output_tokens_per_year * 1e6
    assert out.years.revenue_usd[1] == out.revenue_usd_per_year


@settings(max_examples=50, deadline=None)
@given(st.floats(-0.6, 0.2), st.floats(0.01, 0.3))
def test_npv_falls_as_prices_fall_faster(change, faster):
    slow, fast = engine(dict(PLAN, price_change_per_year=change)), engine(dict(PLAN, price_change_per_year=change - faster))
    assert fast.npv_usd < slow.npv_usd


def test_a_later_tranche_is_paid_in_its_year_and_serves_after():
    out = engine()
    pool_capex = out.years.pool_capex_usd
    assert pool_capex[1, 2] > 0 and pool_capex[1, 0] == 0 and pool_capex[0, 0] > 0
    ramp_free = engine(dict(PLAN, first_year_utilization=float("nan"), price_change_per_year=0.0))
    tokens = ramp_free.years.output_tokens
    assert tokens[3] > tokens[2] == tokens[1]  # the second tranche serves from year 3


@pytest.mark.parametrize("months", [0.0, 5.0, 12.0, 17.5, 36.0, 60.0])
def test_a_tranche_ramp_loses_half_its_months_of_full_load(months):
    """A linear ramp from 0 over R months serves R / 2 months less than full load (R within the horizon):
    the years' ramp factors of each tranche add up to (its months of service - R / 2) / 12."""
    plan = dict(PLAN, tranche_ramp_months=months, first_year_utilization=float("nan"), ramp_years=0.0)
    share = engine(plan).years.pool_utilization / plan["utilization"]
    for pool, row in zip(POOLS, share):
        served = 12 * (plan["years"] - pool["purchase_year"])
        assert np.sum(row) * 12 == pytest.approx(served - min(months, served) / 2 if months <= served else
                                                 served * served / (2 * months), rel=1e-12)
        assert np.all(np.diff(row[pool["purchase_year"] + 1:]) >= 0) and np.all(row <= 1)


def test_replacements_are_capex_depreciated_and_their_book_value_sold_at_the_horizon():
    """Over the horizon every dollar of replacement is deducted once: the depreciation of the replacements
    plus their book value at the horizon (their value then less the gain on them, in the disposal gain)
    equals what they cost."""
    base, failing = engine(dict(PLAN, tax_rate=0.0)), engine(dict(PLAN, tax_rate=0.0, annual_failure_rate=0.09))
    bought = np.sum(failing.years.replacement_capex_usd)
    assert bought == pytest.approx(0.09 * (64 * 30000 * 5 + 32 * 40000 * 3), rel=1e-12)
    value = failing.years.replacement_residual_value_usd[-1]
    assert value > 0 and failing.years.residual_value_usd[-1] == pytest.approx(base.years.residual_value_usd[-1] + value)
    book = value - (failing.years.disposal_gain_usd[-1] - base.years.disposal_gain_usd[-1])
    assert np.sum(failing.years.replacement_depreciation_usd) + book == pytest.approx(bought, rel=1e-12)
    assert failing.npv_usd < base.npv_usd and np.array_equal(failing.years.revenue_usd, base.years.revenue_usd)
