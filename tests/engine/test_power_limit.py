"""A device held below its TDP (`power_limit_w`; docs/model.md, "Power limit"): its math slows by the clock
that fits, memory-bound work little; it draws at most the limit; the server nameplate counts the limit; a bad
limit is refused naming the field."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.finance.sizing import pool_servers
from tcoapp.engine.performance import device_power
from tcoapp.engine.performance.generated import generate_curve
from tcoapp.engine.quantities.finance import DEVICE_NAMEPLATE_W
from tcoapp.engine.quantities.record_types import ServingConfig, Workload
from tcoapp.engine.quantities.records import make_device
from tcoapp.io.catalog import load_catalog

BATCH = np.array([1.0, 8.0, 64.0, 512.0, 2048.0])


@pytest.fixture(scope="module")
def catalog():
    return load_catalog()


def _curves(device, limit_w, model):
    serving = ServingConfig(tensor_parallel=1, weight_precision="fp8", kv_precision="fp8")
    workload = Workload(input_tokens=1024, output_tokens=1024)
    return (generate_curve(device, model, serving, workload, BATCH),
            generate_curve(replace(device, power_limit_w=limit_w), model, serving, workload, BATCH))


def test_a_limit_slows_compute_bound_batches_more_than_memory_bound_ones_and_holds_the_power(catalog):
    device, model = catalog.devices["MI355X"], catalog.models["Llama-3.3-70B"]
    free, held = _curves(device, 1000.0, model)
    ratio = np.asarray(held.tokens_per_s_per_device) / np.asarray(free.tokens_per_s_per_device)
    assert np.all(ratio <= 1.0 + 1e-12) and ratio[-1] < 0.99           # slower where the math binds
    assert ratio[0] == pytest.approx(1.0, abs=0.01)                     # batch 1: memory-bound, about unchanged
    assert np.all(np.diff(ratio) <= 1e-12)                              # the larger the batch, the more it costs
    assert ratio[-1] >= device_power.clock_ratio(replace(device, power_limit_w=1000.0)) - 1e-9   # never beyond the clock
    assert np.all(np.asarray(held.power_w) <= 1000.0 + 1e-9)
    assert np.all(np.asarray(held.power_w) <= np.asarray(free.power_w) + 1e-9)


def test_no_limit_a_zero_limit_and_a_limit_at_the_tdp_are_the_device_unlimited(catalog):
    device, model = catalog.devices["B200"], catalog.models["Llama-3.3-70B"]
    free = _curves(device, 0.0, model)[0]
    for limit in (0.0, device.tdp_w):
        held = _curves(device, limit, model)[1]
        assert np.array_equal(held.tokens_per_s_per_device, free.tokens_per_s_per_device)
        assert np.array_equal(held.power_w, free.power_w)
    assert device_power.clock_ratio(device) == 1.0 and device_power.nameplate_w(device) == device.tdp_w


def test_the_clock_follows_the_cube_law_above_idle(catalog):
    device = replace(catalog.devices["MI355X"], power_limit_w=1000.0)
    expected = ((1000.0 - device.idle_w) / (device.tdp_w - device.idle_w)) ** (1.0 / device_power.POWER_CLOCK_EXPONENT)
    assert device_power.clock_ratio(device) == pytest.approx(expected)
    assert 0.85 < device_power.clock_ratio(device) < 0.95
    assert device_power.nameplate_w(device) == 1000.0
    lower = replace(device, power_limit_w=700.0)
    assert device_power.clock_ratio(lower) < device_power.clock_ratio(device)   # lower limit, lower clock


def test_the_nameplate_and_facility_sizing_count_the_limit(catalog):
    inputs = {"tdp_w": np.array([[1400.0, 1400.0]]), "power_limit_w": np.array([[0.0, 1000.0]]),
              "devices_per_server": np.array([[8.0, 8.0]]), "server_overhead_w": np.array([[2000.0, 2000.0]]),
              "pue": np.array([1.0])}
    nameplate = DEVICE_NAMEPLATE_W.numpy(lambda key: inputs[key])
    assert nameplate.tolist() == [[1400.0, 1000.0]]
    servers = pool_servers("facility_power", np.array([131.0]), inputs, np.array([1.0, 0.0]))
    capped = pool_servers("facility_power", np.array([131.0]), inputs, np.array([0.0, 1.0]))
    assert servers[0, 0] == 9 and capped[0, 1] == 13          # 13.2 kW a server at the TDP, 10 kW at the limit


@pytest.mark.parametrize("limit", [50.0, 1500.0, -1.0])
def test_a_limit_at_or_below_idle_or_above_the_tdp_is_refused_naming_the_field(catalog, limit):
    row = {k: v for k, v in vars(catalog.devices["MI355X"]).items() if not k.startswith("_")}
    row.update(idle_w=100.0, power_limit_w=limit)
    with pytest.raises(ValidationError) as err:
        make_device(row)
    assert "power_limit_w" in str(err.value)


def test_a_drawn_power_limit_moves_a_generated_plan_and_its_nameplate_per_draw():
    """device.power_limit_w drawn per draw (an array through the roofline and the finance): the MI355X plan's
    throughput per device falls, and the devices its facility power holds rise, as the limit falls; no crash."""
    from tcoapp.engine.uncertainty.simulate import simulate
    from tcoapp.engine.uncertainty.statistics import rank_correlations

    from .montecarlo_cases import row, scenario_with
    name = next(p.name for p in scenario_with().plans if p.device == "MI355X")
    result = simulate(scenario_with(row(name, "device.power_limit_w", "uniform", low=800.0, high=1400.0)), 200, seed=2,
                      model_error=False)
    mi355x = next(p for p in result.plans if p.name == name)
    limit = next(d.values for d in mi355x.inputs if d.row.key == "device.power_limit_w")
    count = mi355x.metric("device_count")
    per_device = mi355x.metric("revenue_usd_per_year") / count     # its tokens at a fixed price
    assert np.isfinite(mi355x.metric("npv_usd")).all() and np.ptp(per_device) > 0
    assert rank_correlations({"limit": limit}, per_device)["limit"] > 0.9    # a lower limit: slower devices
    assert rank_correlations({"limit": limit}, count)["limit"] < -0.9        # ... and more of them in the site's power


def test_a_limited_device_says_so_in_its_notes_and_a_measured_curve_says_it_is_not_moved(catalog):
    from tcoapp.engine.performance.measured import make_measured_curve
    from tcoapp.engine.serving.operating import plan_curve
    from tcoapp.io.default_scenario import default_scenario
    device, model = catalog.devices["MI355X"], catalog.models["Llama-3.3-70B"]
    free, held = _curves(device, 1000.0, model)
    assert not [n for n in free.notes if "power_limit_w" in n]
    (note,) = [n for n in held.notes if "power_limit_w" in n]
    assert "1000 W" in note and "0.88 of its clock" in note
    scenario = default_scenario()
    plan = next(p for p in scenario.plans if p.device == "MI355X")
    capped = replace(device, name="MI355X-1000W", power_limit_w=1000.0)
    batch = np.array([1.0, 64.0])
    curve = make_measured_curve("m", capped.name, plan.model, batch, np.array([50.0, 2000.0]), None, None, None,
                                source="test")
    scenario = replace(scenario, devices={capped.name: capped}, curves={"m": curve})
    scenario = scenario.with_plan(plan.name, device=capped.name, curve="m")
    arrays, _ = plan_curve(scenario, scenario.plan(plan.name), batch)
    assert any("does not change the measured curve 'm'" in n for n in arrays.notes)
