"""Edge cases found in review: impossible configurations, zero FLOPS, factor ranges, MoE sizes,
price below every tier, curves measured elsewhere."""
import math

import pytest

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.factors import FACTOR_FIELD_BY_NAME
from tcoapp.engine.quantities.factors import factor_problem
from tcoapp.engine.performance.factors import DEFAULT_FACTORS, FACTOR_NAMES
from tcoapp.engine.performance.measured import make_measured_curve
from tcoapp.engine.quantities.records import make_device, make_model, make_plan
from tcoapp.engine.plan.scenario import PriceTiers, Scenario
from tcoapp.io.catalog import load_catalog


def scenario(*plans, **kw):
    catalog = load_catalog()
    return Scenario(tuple(plans), catalog_devices=catalog.devices, catalog_models=catalog.models, **kw)


@pytest.mark.parametrize("keys, reason", [
    ({"tensor_parallel": 16}, "exceeds H100-SXM's scale_up_domain"),
    ({"expert_parallel": 2}, "needs an MoE model"),
])
def test_impossible_configuration_has_no_operating_point(keys, reason):
    plan = make_plan("x", {"device": "H100-SXM", "model": "Llama-3.3-70B", **keys})
    result = compute_plan(scenario(plan), plan).as_json()
    for key in ("ttft_s", "tokens_per_s_per_device", "npv_usd", "payback_months"):
        assert result[key] is None, key
    assert any(reason in w for w in result["warnings"])
    target = plan.with_(min_tokens_per_s_per_user=10.0)
    assert any(reason in w for w in compute_plan(scenario(target), target).warnings)


def test_memory_limit_still_queues():
    plan = make_plan("x", {"device": "H100-SXM", "model": "Llama-3.3-70B", "tensor_parallel": 2, "batch": 5000})
    point = compute_plan(scenario(plan), plan).point
    assert point.queued and point.ttft_s > 0


def test_zero_bf16_peak_is_refused():
    with pytest.raises(ValidationError, match="peak_tflops_bf16 = 0: must be a number > 0"):
        make_device({**load_catalog().devices["H100-SXM"].as_dict(), "peak_tflops_bf16": 0})


def test_moe_with_negative_shared_parameters_is_refused():
    with pytest.raises(ValidationError, match="active_params_b = 10: too small"):
        make_model({"name": "M", "total_params_b": 100, "active_params_b": 10, "n_layers": 4, "hidden_size": 64,
                    "n_kv_heads": 1, "head_dim": 8, "n_experts": 8, "experts_per_token": 2})


def test_factor_ranges_cover_every_factor_and_defaults_are_inside():
    assert set(FACTOR_FIELD_BY_NAME) == set(FACTOR_NAMES)
    for name, value in DEFAULT_FACTORS.as_dict().items():
        assert factor_problem(name, value) is None, name
    assert factor_problem("eta_mem", 0) == "= 0: must be a number >= 0.01 and <= 1"
    assert factor_problem("eta_comm", 5e-324) is not None, "a denormal efficiency made every metric vanish"
    assert factor_problem("usable_memory_fraction", 5) is not None
    assert factor_problem("eta_mem", True) is not None
    assert "unknown factor" in factor_problem("eta_magic", 0.5)


def test_below_every_price_tier_sells_no_output_but_still_has_returns():
    plan = make_plan("x", {"device": "H100-SXM", "model": "Llama-3.1-8B", "batch": 256, "price_tiers": "t",
                           "price_usd_per_million_input_tokens": 0.0})
    s = scenario(plan, price_tiers={"t": PriceTiers("t", (5000.0,), (9.0,))})
    result = compute_plan(s, plan)
    assert result.inputs.price_usd_per_million_output_tokens[0] == 0.0
    assert result.metrics.npv_usd < 0 and not math.isnan(result.metrics.npv_usd)
    assert any("no output revenue" in w for w in result.warnings)


def test_curve_measured_on_another_device_is_said():
    curve = make_measured_curve("c", "B200", "Llama-3.1-8B", [1, 8], [100.0, 700.0])
    plan = make_plan("x", {"device": "H100-SXM", "model": "Llama-3.1-8B", "curve": "c", "batch": 8})
    result = compute_plan(scenario(plan, curves={"c": curve}), plan)
    assert any("measured on device 'B200'" in w for w in result.warnings)
