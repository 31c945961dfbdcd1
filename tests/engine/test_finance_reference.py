"""Hand-checked reference cases for every finance metric (docs/model.md section 3).

The expected numbers were computed independently of tcoapp with plain float arithmetic, written
out step by step (ceil/floor packing, explicit loops for NPV, bisection for IRR, a cumulative
walk for payback), and are asserted to 1e-9 relative.
"""
import math

import numpy as np
import pytest

from tcoapp.engine.finance.metrics import finance_metrics


def inputs(**overrides):
    base = dict(
        price_usd=30000, devices_per_server=8, server_price_usd=50000, tdp_w=700, idle_w=100,
        server_overhead_w=4600, device_count=64, rack_power_cap_kw=40, servers_per_rack_max=4,
        other_capex_fraction=0.15, pue=1.3, electricity_usd_per_kwh=0.09, colocation_usd_per_kw_month=0,
        maintenance_fraction_per_year=0, software_usd_per_device_year=0, staff_usd_per_year=0,
        utilization=0.7, years=4, discount_rate=0.1, residual_value_fraction=0,
        price_usd_per_million_output_tokens=2.0, price_usd_per_million_input_tokens=0.5,
        input_tokens=1024, output_tokens=1024, tokens_per_s_per_device=2000, power_w=650)
    base.update(overrides)
    return base


CASE_A = (inputs(), {
    "servers": 8, "servers_per_rack": 3, "racks": 3, "capex_usd": 2668000.0, "it_avg_kw": 67.84,
    "it_provisioned_kw": 81.6, "energy_usd_per_year": 69530.5728, "opex_usd_per_year": 69530.5728,
    "output_tokens_per_year": 2825625600000.0, "capex_usd_per_year": 841676.1042878685,
    "cost_per_million_output_tokens_usd": 0.3224796225968042,
    "cost_per_million_total_tokens_usd": 0.1612398112984021, "revenue_usd_per_year": 7064064.0,
    "revenue_usd_per_rack_per_year": 2354688.0, "npv_usd": 19503729.824216373, "irr": 2.6061366271805815,
    "payback_months": 4.577288868975556, "roi": 9.486556862368815})

# An NVL72-like rack, zero discount rate (crf = 1/years), residual value, every opex component.
CASE_B = (inputs(price_usd=33333, devices_per_server=72, server_price_usd=600000, tdp_w=1200, idle_w=120,
                 server_overhead_w=33600, device_count=144, rack_power_cap_kw=132, servers_per_rack_max=1,
                 other_capex_fraction=0.10, pue=1.2, electricity_usd_per_kwh=0.0895,
                 colocation_usd_per_kw_month=150, maintenance_fraction_per_year=0.03,
                 software_usd_per_device_year=4500, staff_usd_per_year=250000, utilization=0.6, years=5,
                 discount_rate=0.0, residual_value_fraction=0.1, price_usd_per_million_output_tokens=0.3,
                 price_usd_per_million_input_tokens=0.1, input_tokens=2000, output_tokens=500,
                 tokens_per_s_per_device=7000, power_w=1100), {
    "servers": 2, "servers_per_rack": 1, "racks": 2, "capex_usd": 6599947.2, "it_avg_kw": 169.152,
    "it_provisioned_kw": 240.0, "energy_usd_per_year": 159142.26124799997, "opex_usd_per_year": 1669140.821248,
    "output_tokens_per_year": 19072972800000.0, "capex_usd_per_year": 1187990.496,
    "cost_per_million_output_tokens_usd": 0.1497999995704917,
    "cost_per_million_total_tokens_usd": 0.029959999914098336, "revenue_usd_per_year": 13351080.96,
    "revenue_usd_per_rack_per_year": 6675540.48, "npv_usd": 52469748.21376, "irr": 1.7600533070665167,
    "payback_months": 6.779641520099502, "roi": 7.950025450773303})

# A plan that never pays back: IRR and payback do not exist (NaN, shown as null / "never").
CASE_C = (inputs(price_usd=40000, server_price_usd=90000, tdp_w=1000, server_overhead_w=6300, device_count=20,
                 electricity_usd_per_kwh=0.12, colocation_usd_per_kw_month=200, maintenance_fraction_per_year=0.05,
                 software_usd_per_device_year=1000, staff_usd_per_year=500000, utilization=0.3,
                 discount_rate=0.08, price_usd_per_million_output_tokens=0.2,
                 price_usd_per_million_input_tokens=0.05, input_tokens=1000, output_tokens=1000,
                 tokens_per_s_per_device=500, power_w=800), {
    "servers": 3, "servers_per_rack": 2, "racks": 2, "capex_usd": 1230500.0, "it_avg_kw": 25.1,
    "it_provisioned_kw": 42.9, "energy_usd_per_year": 34300.656, "opex_usd_per_year": 710760.656,
    "output_tokens_per_year": 94608000000.0, "capex_usd_per_year": 371513.54988069524,
    "cost_per_million_output_tokens_usd": 11.43956331262362,
    "cost_per_million_total_tokens_usd": 5.71978165631181, "revenue_usd_per_year": 23652.0,
    "revenue_usd_per_rack_per_year": 11826.0, "npv_usd": -3506291.0215643877, "irr": None,
    "payback_months": None, "roi": -3.2335917301909793})


@pytest.mark.parametrize("case", [CASE_A, CASE_B, CASE_C], ids=["8gpu", "nvl72-r0-residual", "never"])
def test_reference_case(case):
    x, expected = case
    out = finance_metrics(x)
    for key, want in expected.items():
        got = float(out[key])
        if want is None:
            assert math.isnan(got), f"{key} should not exist, got {got}"
        else:
            assert got == pytest.approx(want, rel=1e-9), key


def test_arrays_match_scalars():
    x, expected = CASE_A
    arrays = dict(x, device_count=np.array([64, 128, 8]), utilization=np.array([0.7, 0.7, 0.5]))
    out = finance_metrics(arrays)
    assert out["npv_usd"].shape == (3,)
    assert out["npv_usd"][0] == pytest.approx(expected["npv_usd"], rel=1e-12)
    for i, (count, util) in enumerate([(64, 0.7), (128, 0.7), (8, 0.5)]):
        single = finance_metrics(dict(x, device_count=count, utilization=util))
        for key in ("capex_usd", "npv_usd", "irr", "payback_months", "cost_per_million_output_tokens_usd"):
            assert out[key][i] == pytest.approx(float(single[key]), rel=1e-12)


def test_server_that_does_not_fit_a_rack_has_no_racks():
    out = finance_metrics(inputs(devices_per_server=72, tdp_w=1200, server_overhead_w=33600, device_count=72))
    assert float(out["servers_per_rack"]) == 0
    assert math.isnan(float(out["racks"]))
    assert math.isnan(float(out["revenue_usd_per_rack_per_year"]))
    for key in ("capex_usd", "cost_per_million_output_tokens_usd", "npv_usd", "irr", "payback_months", "roi"):
        assert math.isnan(float(out[key])), key


def test_a_plan_buying_no_device_has_no_returns():
    out = finance_metrics(inputs(device_count=0))
    for key in ("capex_usd", "npv_usd", "irr", "payback_months", "roi"):
        assert math.isnan(float(out[key])), key


def test_npv_matches_excel_convention():
    """=CF0 + NPV(r, CF1:CFn): Excel's NPV discounts its first value, so CF0 stays outside."""
    x, expected = CASE_A
    flows = finance_metrics(x)["cash_flows_usd"]
    r = x["discount_rate"]
    excel_npv = sum(cf / (1 + r) ** (i + 1) for i, cf in enumerate(flows[1:]))
    assert flows[0] + excel_npv == pytest.approx(expected["npv_usd"], rel=1e-12)


def test_a_power_limit_is_the_nameplate_of_the_rack_fit_and_the_provisioned_power():
    """A device held to 500 W of its 700 W TDP: nameplate 8 x 500 + 4,600 = 8,600 W a server, so a 40 kW rack
    holds floor(40,000 / 8,600) = 4 servers (3 at the TDP's 10,200 W), 8 servers fill 2 racks and provision
    8 x 8.6 = 68.8 kW (81.6 kW at the TDP). A limit of 0 is no limit."""
    out = finance_metrics(inputs(power_limit_w=500))
    assert float(out["servers_per_rack"]) == 4 and float(out["racks"]) == 2
    assert float(out["it_provisioned_kw"]) == pytest.approx(68.8, rel=1e-12)
    same = finance_metrics(inputs(power_limit_w=0))
    assert float(same["servers_per_rack"]) == 3 and float(same["it_provisioned_kw"]) == pytest.approx(81.6, rel=1e-12)
