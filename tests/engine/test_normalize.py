"""Normalization re-sizes every plan to the reference plan's power, capex or demand."""
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.pipeline.normalize import normalize
from tcoapp.engine.quantities.records import make_plan
from tcoapp.engine.plan.scenario import Scenario
from tcoapp.io.catalog import load_catalog


def scenario():
    catalog = load_catalog()
    plans = (make_plan("h100", {"device": "H100-SXM", "model": "Llama-3.1-8B", "device_count": 64, "batch": 32}),
             make_plan("b200", {"device": "B200", "model": "Llama-3.1-8B", "device_count": 16, "batch": 32}),
             make_plan("mi300x", {"device": "MI300X", "model": "Llama-3.1-8B", "device_count": 24, "batch": 32}))
    return Scenario(plans, catalog_devices=catalog.devices, catalog_models=catalog.models)


def test_as_entered_is_identity():
    s = scenario()
    assert normalize(s, "as_entered") == s


def test_iso_budget_keeps_reference_and_fits_others():
    s = scenario()
    base = compute_scenario(s)
    results = compute_scenario(normalize(s, "iso_budget"))
    assert results[0].metrics.device_count == base[0].metrics.device_count
    budget = base[0].metrics.capex_usd
    for r in results:
        assert r.metrics.capex_usd <= budget * (1 + 1e-12)


def test_iso_power_and_iso_demand():
    s = scenario()
    base = compute_scenario(s)
    power = compute_scenario(normalize(s, "iso_power"))
    assert power[0].metrics.device_count == 64
    for r, plan in zip(power, s.plans):
        assert r.metrics.it_provisioned_kw * plan.pue <= base[0].metrics.it_provisioned_kw * plan.pue + 1e-9
    demand = compute_scenario(normalize(s, "iso_demand"))
    assert demand[0].metrics.device_count == 64
    for r in demand:
        assert r.metrics.output_tokens_per_year >= base[0].metrics.output_tokens_per_year * (1 - 1e-12)


def test_unknown_mode_is_an_error():
    with pytest.raises(ValueError, match="must be one of"):
        normalize(scenario(), "iso_vibes")
