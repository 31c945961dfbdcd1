"""Hypothesis properties of the finance math."""
import math

import numpy as np
from hypothesis import assume, given, strategies as st

from tcoapp.engine.finance import cashflow, recovery
from tcoapp.engine.finance.metrics import finance_metrics
from tcoapp.engine.finance.sensitivity import breakeven_output_price, breakeven_utilization

from .test_finance_reference import inputs

rates = st.floats(0.0, 0.5)
years = st.integers(1, 30)


@given(years)
def test_crf_at_zero_rate_is_one_over_years(n):
    assert float(recovery.crf(0.0, n)) == 1.0 / n


@given(st.floats(1e-6, 0.5), years)
def test_crf_equals_annuity_inverse(r, n):
    annuity = sum(1 / (1 + r) ** t for t in range(1, n + 1))
    assert math.isclose(float(recovery.crf(r, n)), 1 / annuity, rel_tol=1e-9)


@given(st.integers(1, 10_000), st.integers(1, 50))
def test_capex_and_opex_linear_in_device_count_per_whole_server(servers, k):
    x = inputs(devices_per_server=8, rack_power_cap_kw=1e4, servers_per_rack_max=1000)
    one = finance_metrics(dict(x, device_count=8 * servers))
    many = finance_metrics(dict(x, device_count=8 * servers * k))
    for key in ("capex_usd", "opex_usd_per_year", "energy_usd_per_year", "output_tokens_per_year"):
        assert math.isclose(float(many[key]), k * float(one[key]), rel_tol=1e-9)
    assert math.isclose(float(many["cost_per_million_output_tokens_usd"]),
                        float(one["cost_per_million_output_tokens_usd"]), rel_tol=1e-9)


@given(st.floats(1e3, 1e8), st.floats(1.0, 1e8), years, rates, rates)
def test_npv_falls_as_rate_rises_for_conventional_flows(capex, net, n, r1, r2):
    assume(abs(r1 - r2) > 1e-6)
    flows = cashflow.cash_flows(capex, net, 0.0, n)
    lo, hi = sorted((r1, r2))
    assert float(cashflow.npv_usd(lo, flows)) > float(cashflow.npv_usd(hi, flows))


@given(st.floats(0.05, 50.0), st.floats(0.0, 0.3), years)
def test_breakeven_price_gives_zero_npv(price, r, n):
    x = inputs(price_usd_per_million_output_tokens=price, discount_rate=r, years=n)
    p = breakeven_output_price(x)
    npv = float(finance_metrics(dict(x, price_usd_per_million_output_tokens=p))["npv_usd"])
    assert abs(npv) <= 1e-6 * float(finance_metrics(x)["capex_usd"])


@given(st.floats(0.2, 5.0))
def test_breakeven_utilization_gives_zero_npv_or_never(price):
    x = inputs(price_usd_per_million_output_tokens=price, price_usd_per_million_input_tokens=0.0)
    u = breakeven_utilization(x)
    if math.isnan(u):
        return
    npv = float(finance_metrics(dict(x, utilization=u))["npv_usd"])
    assert abs(npv) <= 1e-6 * float(finance_metrics(x)["capex_usd"])


@given(st.floats(1e3, 1e7), st.floats(1.0, 1e7), years)
def test_irr_zeroes_npv(capex, net, n):
    flows = cashflow.cash_flows(capex, net, 0.0, n)
    r = float(cashflow.irr(flows))
    assume(np.isfinite(r) and r > -0.99)
    assert abs(float(cashflow.npv_usd(r, flows))) <= 1e-6 * capex


def test_payback_is_linear_within_the_year():
    flows = cashflow.cash_flows(100.0, 40.0, 0.0, 4)  # cumulative -100, -60, -20, +20
    assert float(cashflow.payback_months(flows)) == 12 * 2.5


def test_payback_never_and_irr_undefined():
    flows = cashflow.cash_flows(100.0, -5.0, 0.0, 4)
    assert math.isnan(float(cashflow.payback_months(flows)))
    assert math.isnan(float(cashflow.irr(flows)))


def test_tornado_bars_are_the_metric_at_each_swung_input():
    from tcoapp.engine.finance.sensitivity import tornado

    x = inputs()
    bars = tornado(x, "irr", 0.1)
    assert [b.input for b in bars][:1] in (["tokens_per_s_per_device"], ["utilization"])
    for bar in bars:
        low = float(finance_metrics(dict(x, **{bar.input: bar.low_input}))["irr"])
        assert math.isclose(bar.metric_low, low, rel_tol=1e-12)
    spans = [b.span for b in bars]
    assert spans == sorted(spans, reverse=True)
    limited = {b.input: b for b in tornado(dict(x, utilization=0.95), "npv_usd", 0.2)}["utilization"]
    assert limited.limited and limited.high_input == 1.0
