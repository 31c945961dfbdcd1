"""The KV tiers a plan buys (docs/model.md, "Agentic sessions and KV tiers"): extra host memory and NVMe
per server at their prices are hardware of every bought server, so capex grows by
servers x extra x (1 + other_capex_fraction) and the NPV by the flows that capex drives (maintenance, the
residual value); both recomputed by hand on the real pipeline. A plan that buys nothing extra computes
exactly as before, and a quantity bought without its price is refused."""
import math

import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.plan.kv_tiers import device_tiers, extra_tier_usd_per_server, server_with_kv_tiers
from tcoapp.engine.plan.scenario import checked_plan_fields
from tcoapp.io.default_scenario import default_scenario

GB, USD_PER_GB, TB, USD_PER_TB = 1536.0, 9.5, 30.0, 120.0
OTHER, MAINT, RESIDUAL, RATE, YEARS = 0.1, 0.03, 0.2, 0.1, 4


@pytest.fixture(scope="module")
def scenario():
    return default_scenario()


def _plan(scenario, **keys):
    base = scenario.plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64,
                                   sizing_mode="devices", device_count=64, other_capex_fraction=OTHER,
                                   maintenance_fraction_per_year=MAINT, residual_value_fraction=RESIDUAL,
                                   discount_rate=RATE, years=YEARS, tax_rate=0.0, hardware_price_change_per_year=0.0,
                                   discounting="end_of_year", resale_curve="linear")
    return base.with_(**keys)


def test_extra_host_memory_and_nvme_move_capex_and_npv_as_the_finance_equations_say(scenario):
    bare = compute_plan(scenario, _plan(scenario))
    plan = _plan(scenario, kv_offload="host_nvme", extra_host_memory_gb=GB, host_memory_price_usd_per_gb=USD_PER_GB,
                 extra_nvme_tb=TB, nvme_price_usd_per_tb=USD_PER_TB)
    tiered = compute_plan(scenario, plan)
    servers = float(bare.finance["servers"])
    assert servers == float(tiered.finance["servers"]) == 8
    extra = GB * USD_PER_GB + TB * USD_PER_TB                       # 17,592 USD per server
    assert extra_tier_usd_per_server(plan) == extra
    d_capex = servers * extra * (1 + OTHER)
    assert math.isclose(float(tiered.finance["capex_usd"]) - float(bare.finance["capex_usd"]), d_capex, rel_tol=1e-9)
    # no tax: year 0 pays the capex, years 1..N maintenance (a fraction of the hardware capex, before the
    # other-capex fraction), year N sells it at the residual fraction
    d_npv = -d_capex - sum(MAINT * servers * extra / (1 + RATE) ** t for t in range(1, YEARS + 1)) \
        + RESIDUAL * d_capex / (1 + RATE) ** YEARS
    assert math.isclose(float(tiered.finance["npv_usd"]) - float(bare.finance["npv_usd"]), d_npv, rel_tol=1e-9)
    # the operating point, tokens and power do not move: the memory is bought, not (here) used
    assert float(tiered.finance["output_tokens_per_year"]) == float(bare.finance["output_tokens_per_year"])


def test_a_plan_that_buys_nothing_extra_keeps_the_catalog_server(scenario):
    device = scenario.device(scenario.plans[2].device)
    assert server_with_kv_tiers(device, _plan(scenario)) is device
    bought = server_with_kv_tiers(device, _plan(scenario, extra_host_memory_gb=GB, host_memory_price_usd_per_gb=1.0))
    assert bought.host_memory_gb == device.host_memory_gb + GB
    tiers = device_tiers(bought)
    assert tiers.host_gb == pytest.approx((device.host_memory_gb + GB) / device.devices_per_server)
    assert tiers.nvme_gb_s == pytest.approx(device.nvme_gb_s / device.devices_per_server)


def test_extra_memory_without_its_price_is_refused_naming_the_key(scenario):
    with pytest.raises(ValidationError, match="host_memory_price_usd_per_gb.*extra_host_memory_gb = 512: the extra "
                                              "memory needs its price, USD per GB"):
        checked_plan_fields([_plan(scenario, extra_host_memory_gb=512.0)])
    with pytest.raises(ValidationError, match="kv_offload"):
        checked_plan_fields([_plan(scenario, kv_offload="dram")])


def test_a_drawn_server_price_keeps_the_tiers_the_plan_buys():
    """Monte Carlo: device.server_price_usd drawn for both plans (common random numbers); the plan that buys
    extra memory pays servers x extra x (1 + other capex) more in every draw."""
    from tcoapp.engine.uncertainty.simulate import simulate
    from tests.engine.montecarlo_cases import fixed_batch_plan, row, scenario_with
    bare = fixed_batch_plan(name="bare", serving_search="off", other_capex_fraction=OTHER)
    tiered = bare.with_(name="tiered", extra_host_memory_gb=GB, host_memory_price_usd_per_gb=USD_PER_GB)
    scenario = scenario_with(row("*", "device.server_price_usd", "uniform", low=60000.0, high=120000.0),
                             plans=(bare, tiered))
    sim = simulate(scenario, draws=64, seed=3)
    a, b = sim.plan("bare").metric("capex_usd"), sim.plan("tiered").metric("capex_usd")
    assert a.std() > 0          # the server price moved
    assert b - a == pytest.approx([8 * GB * USD_PER_GB * (1 + OTHER)] * 64, rel=1e-9)
