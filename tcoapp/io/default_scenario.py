"""The built-in default scenario: Hopper, Blackwell and AMD plans serving Llama-3.3-70B at the same
facility power (1 MW) and the same interactivity target, so they compare iso-power. Every plan
searches the widest serving space its device runs (serving_search = auto, engine/serving/defaults.py),
so the plans are compared at their best; the typed configuration is where Freeze starts from."""
from __future__ import annotations

from ..engine.quantities.records import make_plan
from ..engine.serving.defaults import widest_search
from ..engine.plan.scenario import Scenario, check_scenario
from .catalog import load_catalog

COMMON = {
    "model": "Llama-3.3-70B",
    "input_tokens": 1024,
    "output_tokens": 1024,
    "min_tokens_per_s_per_user": 50,
    "sizing_mode": "facility_power",
    "facility_power_kw": 1000,
    # Llama-3.3-70B-Instruct-Turbo at Together AI: $0.88 in / $0.88 out per million (REFERENCES C.4)
    "price_usd_per_million_output_tokens": 0.88,
    "price_usd_per_million_input_tokens": 0.88,
}

# The typed configuration (what a plan runs with its search turned off): the typed precision at the tensor
# parallelism that meets the target with about the most tokens/s per device (2026-12-07 factors: H100 FP8
# meets 50 tokens/s per user at no batch on TP1-2, H200 and MI355X give most at TP4). Every plan searches
# (`serving_search = auto`), so its answer is the search's.
PLANS = (
    ("H100", {"device": "H100-SXM", "weight_precision": "fp8", "kv_precision": "fp8", "tensor_parallel": 4}),
    ("H200", {"device": "H200-SXM", "weight_precision": "fp8", "kv_precision": "fp8", "tensor_parallel": 4}),
    ("B200", {"device": "B200", "weight_precision": "nvfp4", "kv_precision": "fp8", "tensor_parallel": 1}),
    ("GB200 NVL72", {"device": "GB200-NVL72", "weight_precision": "nvfp4", "kv_precision": "fp8",
                           "tensor_parallel": 1, "rack_power_cap_kw": 132, "servers_per_rack_max": 1}),
    ("MI355X", {"device": "MI355X", "weight_precision": "fp8", "kv_precision": "fp8", "tensor_parallel": 4}),
)


def default_scenario() -> Scenario:
    catalog = load_catalog()
    plans = tuple(make_plan(name, {**COMMON, **own, **widest_search({**COMMON, **own})}) for name, own in PLANS)
    return check_scenario(Scenario(plans, catalog_devices=catalog.devices, catalog_models=catalog.models,
                                   spec_acceptance=catalog.spec_acceptance))
