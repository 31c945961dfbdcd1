"""Fleet plans: hand-computed per-pool cases (plain arithmetic, independent of the code), sizing that
never exceeds its input, rented pools, the KV-cache link, and one-pool plans computing as before."""
from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.finance.metrics import finance_metrics
from tcoapp.engine.quantities.finance import finance_inputs
from tcoapp.engine.finance.sizing import servers_within
from tcoapp.engine.quantities.records import make_plan, make_pool
from tcoapp.engine.plan.scenario import Scenario, check_scenario
from tcoapp.io.catalog import load_catalog

SECONDS_PER_YEAR = 8760 * 3600
PLAN = dict(other_capex_fraction=0.15, pue=1.3, electricity_usd_per_kwh=0.1, colocation_usd_per_kw_month=150.0,
            maintenance_fraction_per_year=0.02, software_usd_per_device_year=500.0, staff_usd_per_year=100000.0,
            utilization=0.7, years=4, discount_rate=0.1, residual_value_fraction=0.1,
            price_usd_per_million_input_tokens=0.2, input_tokens=1000.0, output_tokens=500.0)
# two devices whose servers differ in size, power and price, under two rack caps
POOL_A = dict(price_usd=30000, devices_per_server=8, server_price_usd=70000, tdp_w=700, idle_w=70,
              server_overhead_w=4600, device_count=12, rack_power_cap_kw=40, servers_per_rack_max=4,
              tokens_per_s_per_device=1000, power_w=600, price_usd_per_million_output_tokens=1.0, owned=1,
              rent_usd_per_device_hour=0)
POOL_B = dict(price_usd=15000, devices_per_server=4, server_price_usd=20000, tdp_w=600, idle_w=50,
              server_overhead_w=1000, device_count=10, rack_power_cap_kw=20, servers_per_rack_max=8,
              tokens_per_s_per_device=500, power_w=400, price_usd_per_million_output_tokens=2.0, owned=1,
              rent_usd_per_device_hour=0)


def two_pools(a=POOL_A, b=POOL_B, **plan):
    return finance_inputs({k: [a[k], b[k]] for k in a}, {**PLAN, **plan})


def test_two_pools_by_hand():
    out = finance_metrics(two_pools())
    # pool A: 2 servers of 10.2 kW, 3 fit a 40 kW rack (space 4): 1 rack; pool B: 3 servers of 3.4 kW,
    # 5 fit a 20 kW rack (space 8): 1 rack. Pools never share a rack: 2 racks.
    assert list(out.pools.servers) == [2, 3] and list(out.pools.servers_per_rack) == [3, 5]
    assert list(out.pools.racks) == [1, 1] and out.racks == 2 and math.isnan(out.servers_per_rack)
    hw = 12 * 30000 + 2 * 70000 + 10 * 15000 + 3 * 20000
    assert out.hardware_capex_usd == pytest.approx(hw, rel=1e-12)
    assert out.capex_usd == pytest.approx(hw * 1.15, rel=1e-12)
    assert out.it_provisioned_kw == pytest.approx(2 * 10.2 + 3 * 3.4, rel=1e-12)
    avg_kw = (12 * (0.7 * 600 + 0.3 * 70) + 2 * 4600 + 10 * (0.7 * 400 + 0.3 * 50) + 3 * 1000) / 1000
    assert out.it_avg_kw == pytest.approx(avg_kw, rel=1e-12)
    out_tok = (1000 * 12 + 500 * 10) * 0.7 * SECONDS_PER_YEAR
    assert out.output_tokens_per_year == pytest.approx(out_tok, rel=1e-12)
    revenue = (1000 * 12 * 1.0 + 500 * 10 * 2.0) * 0.7 * SECONDS_PER_YEAR / 1e6 + out_tok * 2 * 0.2 / 1e6
    assert out.revenue_usd_per_year == pytest.approx(revenue, rel=1e-12)
    assert out.revenue_usd_per_rack_per_year == pytest.approx(revenue / 2, rel=1e-12)
    opex = (avg_kw * 1.3 * 8760 * 0.1 + 30.6 * 150 * 12 + 0.02 * hw + 500 * 22 + 100000)
    assert out.opex_usd_per_year == pytest.approx(opex, rel=1e-12)
    flows = [-hw * 1.15] + [revenue - opex] * 4
    flows[-1] += 0.1 * hw * 1.15
    assert out.npv_usd == pytest.approx(sum(f / 1.1 ** t for t, f in enumerate(flows)), rel=1e-12)


def test_a_pool_that_cannot_be_racked_makes_the_plan_infeasible():
    out = finance_metrics(two_pools(b=dict(POOL_B, rack_power_cap_kw=3)))  # a 3.4 kW server over a 3 kW cap
    assert out.pools.servers_per_rack[1] == 0 and math.isnan(out.capex_usd) and math.isnan(out.npv_usd)


def test_a_rented_pool_has_no_capex_and_pays_its_rent():
    out = finance_metrics(two_pools(b=dict(POOL_B, owned=0, rent_usd_per_device_hour=2.5)))
    hw_a = 12 * 30000 + 2 * 70000
    assert out.pools.capex_usd[1] == 0 and out.capex_usd == pytest.approx(hw_a * 1.15, rel=1e-12)
    assert out.pools.rent_usd_per_year[1] == pytest.approx(10 * 2.5 * 8760, rel=1e-12)
    # energy, facility and maintenance are in the rent
    assert out.pools.energy_usd_per_year[1] == 0 and out.pools.colocation_usd_per_year[1] == 0
    assert out.pools.maintenance_usd_per_year[1] == 0
    assert out.cost_per_million_output_tokens_rent_usd > 0


def scenario_with(plan) -> Scenario:
    catalog = load_catalog()
    return check_scenario(Scenario((plan,), catalog_devices=catalog.devices, catalog_models=catalog.models))


def fleet(pools, **keys):
    raw = {"device": "H100-SXM", "model": "Llama-3.1-8B", "tensor_parallel": 1, "batch": 16, **keys}
    return make_plan("fleet", raw).with_(pools=tuple(make_pool({"plan": "fleet", **p}) for p in pools))


def test_serve_pools_of_two_devices_by_hand():
    plan = fleet([{"pool": "a", "device": "H100-SXM", "device_count": 20},
                  {"pool": "b", "device": "B200", "device_count": 12, "rack_power_cap_kw": 60}])
    result = compute_plan(scenario_with(plan), plan)
    h100, b200 = load_catalog().devices["H100-SXM"], load_catalog().devices["B200"]
    rows = result.pool_rows()
    assert [r["servers"] for r in rows] == [math.ceil(20 / 8), math.ceil(12 / b200.devices_per_server)]
    per_rack_b = min(4, math.floor(60000 / (b200.devices_per_server * b200.tdp_w + b200.server_overhead_w)))
    assert rows[1]["servers_per_rack"] == per_rack_b
    assert rows[0]["servers_per_rack"] == min(4, math.floor(40000 / (8 * h100.tdp_w + h100.server_overhead_w)))
    assert result.metrics.racks == rows[0]["racks"] + rows[1]["racks"]
    assert result.metrics.capex_usd == pytest.approx(1.15 * (20 * h100.price_usd + 3 * h100.server_price_usd
                                                                + 12 * b200.price_usd + 2 * b200.server_price_usd))
    # each pool serves at its own operating point; the plan's throughput is their sum
    tokens = sum(r["tokens_per_s_per_device"] * r["device_count"] for r in rows)
    assert result.metrics.tokens_per_s_per_device == pytest.approx(tokens / 32, rel=1e-12)
    assert rows[0]["tokens_per_s_per_device"] != rows[1]["tokens_per_s_per_device"]


@settings(max_examples=60, deadline=None)
@given(st.floats(1, 1e5), st.lists(st.floats(0.05, 10), min_size=1, max_size=3),
       st.lists(st.sampled_from([1, 4, 8, 72]), min_size=3, max_size=3),
       st.lists(st.floats(1, 200), min_size=3, max_size=3))
def test_pool_sizing_never_exceeds_its_input(limit, weights, dps, cost):
    n = len(weights)
    servers = servers_within(limit, [cost[:n]], dps[:n], weights)[0]
    assert servers @ np.array(cost[:n]) <= limit * (1 + 1e-9)
    # one more step of the scale would not fit
    if n == 1:
        assert servers[0] == math.floor(limit / cost[0] + 1e-9)


def test_facility_sizing_of_two_pools_keeps_the_ratio_and_the_power():
    plan = fleet([{"pool": "prefill", "role": "prefill", "device": "H100-SXM", "device_count": 1},
                  {"pool": "decode", "role": "decode", "device": "B200", "device_count": 3}],
                 sizing_mode="facility_power", facility_power_kw=500, min_tokens_per_s_per_user=50)
    result = compute_plan(scenario_with(plan), plan)
    rows = result.pool_rows()
    assert result.metrics.it_provisioned_kw * 1.3 <= 500 + 1e-9
    assert all(r["servers"] >= 1 and r["device_count"] % 8 == 0 for r in rows)
    assert rows[1]["device_count"] / rows[0]["device_count"] == pytest.approx(3, rel=0.15)


def test_prefill_decode_pools_run_their_own_parallelism_and_name_the_limit():
    plan = fleet([{"pool": "p", "role": "prefill", "device": "H100-SXM", "device_count": 8, "tensor_parallel": 8},
                  {"pool": "d", "role": "decode", "device": "H100-SXM", "device_count": 24, "tensor_parallel": 1}])
    result = compute_plan(scenario_with(plan), plan)
    p, d = result.pool_rows()
    assert p["serving"]["tensor_parallel"] == 8 and d["serving"]["tensor_parallel"] == 1
    assert p["requests_per_s"] == pytest.approx(d["requests_per_s"], rel=1e-12)  # one request stream
    assert result.fleet.limited_by in ("prefill", "decode")
    assert p["tokens_per_s_per_device"] == 0 and d["tokens_per_s_per_device"] > 0


def test_kv_transfer_adds_to_ttft_and_caps_the_rate():
    catalog = load_catalog()
    slow = catalog.devices["H100-SXM"].with_(name="H100-slow-net", scale_out_gb_s=0.01)
    plan = fleet([{"pool": "p", "role": "prefill", "device": "H100-slow-net", "device_count": 8},
                  {"pool": "d", "role": "decode", "device": "H100-SXM", "device_count": 8}])
    scenario = check_scenario(Scenario((plan,), devices={slow.name: slow}, catalog_devices=catalog.devices,
                                       catalog_models=catalog.models))
    result = compute_plan(scenario, plan)
    model = catalog.models["Llama-3.1-8B"]
    kv_bytes = 2 * model.n_layers * model.n_kv_heads * model.head_dim * 1 * plan.input_tokens  # fp8 KV
    assert result.fleet.limited_by == "kv_transfer"
    assert result.fleet.requests_per_s[1] == pytest.approx(8 * 0.01e9 / kv_bytes, rel=1e-9)
    assert result.metrics.ttft_s > kv_bytes / (1 * 0.01e9)  # TP1 prefill replica: one link carries it


def test_derived_pair_from_prefill_and_decode_devices():
    plan = make_plan("x", {"device": "H100-SXM", "model": "Llama-3.1-8B", "prefill_device": "H100-SXM",
                           "decode_device": "B200", "prefill_devices": 1, "decode_devices": 3, "device_count": 32})
    result = compute_plan(scenario_with(plan), plan)
    p, d = result.pool_rows()
    assert (p["device"], p["device_count"], d["device"], d["device_count"]) == ("H100-SXM", 8, "B200", 24)
    assert result.metrics.servers == 1 + math.ceil(24 / load_catalog().devices["B200"].devices_per_server)


def test_one_pool_plan_equals_the_single_device_operating_point():
    plan = make_plan("x", {"device": "H100-SXM", "model": "Llama-3.1-8B", "batch": 32, "device_count": 16})
    result = compute_plan(scenario_with(plan), plan)
    assert len(result.pools) == 1 and result.pools[0].role == "serve"
    (row,) = result.pool_rows()
    assert row["tokens_per_s_per_device"] == result.metrics.tokens_per_s_per_device
    assert row["capex_usd"] == result.metrics.capex_usd


@pytest.mark.parametrize("pools, message", [
    ([{"pool": "p", "role": "prefill", "device": "H100-SXM", "device_count": 8}], "no decode pool"),
    ([{"pool": "a", "device": "H100-SXM", "device_count": 8}, {"pool": "a", "device": "B200", "device_count": 8}],
     "already has a pool"),
    ([{"pool": "a", "device": "H100-SXM", "device_count": 2.5}], "whole number"),
    ([{"pool": "a", "device": "Nope", "device_count": 8}], "no device of that name"),
])
def test_bad_pools_are_refused(pools, message):
    plan = fleet(pools)
    with pytest.raises(ValidationError) as error:
        scenario_with(plan)
    assert message in str(error.value)


@pytest.mark.parametrize("raw, message", [
    ({"ownership": "rent"}, "needs its rent"),
    ({"rent_usd_per_device_hour": 2.0}, "pays no rent"),
    ({"purchase_year": 60}, "purchase_year"),
    ({"role": "router"}, "one of serve, prefill, decode"),
    ({"device_count": 0}, "device_count"),
])
def test_bad_pool_fields_are_refused(raw, message):
    with pytest.raises(ValidationError) as error:
        make_pool({"plan": "x", "pool": "a", "device": "H100-SXM", "device_count": 8, **raw})
    assert message in str(error.value)


def _tranche_plan(second_year: int, prefill_count: int = 64):
    return fleet([{"pool": "p", "role": "prefill", "device": "H100-SXM", "device_count": prefill_count},
                  {"pool": "d1", "role": "decode", "device": "B200", "device_count": 192},
                  {"pool": "d2", "role": "decode", "device": "B200", "device_count": 192,
                   "purchase_year": second_year}], years=4, min_tokens_per_s_per_user=50)


def test_a_pool_not_bought_yet_takes_no_traffic_and_an_idle_tranche_adds_no_output():
    """H100 prefill + B200 decode + a second B200 decode pool bought in year 2 (the issue's case):
    each year's output is the rate of the pools that exist then, never the all-pools rate split
    over pools that do not exist yet."""
    small = _tranche_plan(2, prefill_count=16)          # prefill-limited even with one decode pool
    result = compute_plan(scenario_with(small), small)
    tokens = [r["output_tokens"] for r in result.year_rows()][1:]
    assert result.fleet.limited_by == "prefill"
    assert tokens[0] == pytest.approx(tokens[3], rel=1e-12)   # the tranche is idle: no year changes
    d1, d2 = result.pool_rows()[1:]
    assert d2["tokens_per_s_per_device"] == 0 and d1["tokens_per_s_per_device"] > 0
    # and against the same plan without the idle tranche: the same output every year
    alone = fleet([{"pool": "p", "role": "prefill", "device": "H100-SXM", "device_count": 16},
                   {"pool": "d1", "role": "decode", "device": "B200", "device_count": 192}],
                  years=4, min_tokens_per_s_per_user=50)
    single = [r["output_tokens"] for r in compute_plan(scenario_with(alone), alone).year_rows()][1:]
    assert tokens == pytest.approx(single, rel=1e-12)


def test_a_later_tranche_carries_only_the_rate_it_adds():
    late, early = _tranche_plan(2), _tranche_plan(0)
    tokens = [r["output_tokens"] for r in compute_plan(scenario_with(late), late).year_rows()][1:]
    full = [r["output_tokens"] for r in compute_plan(scenario_with(early), early).year_rows()][1:]
    assert tokens[2] == pytest.approx(full[2], rel=1e-12) and tokens[3] == pytest.approx(full[3], rel=1e-12)
    assert full[0] / 2 < tokens[0] <= full[0] and tokens[0] == tokens[1]   # one decode pool: its own cap
