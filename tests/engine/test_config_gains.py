"""A plan's tokens/s per device as the validated base x each configuration gain (pipeline/config_gains.py):
the product is the plan's number, an unused term gains 1, each term is its own step at the target."""
import json
import math

import pytest

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.io.default_scenario import default_scenario
from tcoapp.present.config_gains import assumed_share, gains_sentence


def _product(gains):
    return gains["validated_base_tokens_per_s_per_device"] * math.prod(g["gain"] for g in gains["gains"])


def _plan(**changes):
    scenario = default_scenario()
    name = scenario.plans[2].name   # B200
    scenario = scenario.with_plan(name, **changes)
    return scenario, scenario.plan(name)


def test_the_gains_multiply_the_validated_base_to_the_plans_number():
    scenario, plan = _plan()
    result = compute_plan(scenario, plan)
    gains = result.configuration_gains
    assert gains["tokens_per_s_per_device"] == pytest.approx(result.metrics.tokens_per_s_per_device, rel=1e-12)
    assert _product(gains) == pytest.approx(gains["tokens_per_s_per_device"], rel=1e-9)
    terms = {g["term"]: g for g in gains["gains"]}
    assert set(terms) == {"speculative decoding", "FP4 KV cache", "disaggregation"}
    assert terms["disaggregation"]["gain"] == 1.0 and not terms["disaggregation"]["used"]
    serving = result.pools[0].serving
    assert terms["speculative decoding"]["used"] == (serving.spec_decode_draft_tokens > 0)
    assert "no draft tokens" in gains["base_configuration"] and "fp8 KV" in gains["base_configuration"]
    json.dumps(result.as_json()["configuration_gains"])   # JSON-ready


def test_without_speculation_or_fp4_kv_the_base_is_the_plan():
    scenario, plan = _plan(serving_search="off", weight_precision="fp8", kv_precision="fp8",
                           spec_decode_draft_tokens=0, tensor_parallel=1)
    gains = compute_plan(scenario, plan).configuration_gains
    assert all(g["gain"] == 1.0 and not g["used"] for g in gains["gains"])
    assert gains["validated_base_tokens_per_s_per_device"] == pytest.approx(gains["tokens_per_s_per_device"], rel=1e-12)
    assert assumed_share(gains) == pytest.approx(0.0, abs=1e-12)


def test_speculation_is_a_gain_over_the_same_configuration_without_it():
    typed = dict(serving_search="off", weight_precision="fp8", kv_precision="fp8", tensor_parallel=2)
    scenario, plan = _plan(spec_decode_draft_tokens=3, **typed)
    gains = compute_plan(scenario, plan).configuration_gains
    scenario0, plan0 = _plan(spec_decode_draft_tokens=0, **typed)
    without = compute_plan(scenario0, plan0).metrics.tokens_per_s_per_device
    spec = next(g for g in gains["gains"] if g["term"] == "speculative decoding")
    assert spec["used"] and spec["setting"].startswith("3 draft tokens at acceptance")
    assert gains["validated_base_tokens_per_s_per_device"] == pytest.approx(without, rel=1e-12)
    assert spec["gain"] == pytest.approx(gains["tokens_per_s_per_device"] / without, rel=1e-9)


def test_a_prefill_decode_plan_has_a_disaggregation_gain_over_its_decode_configuration_aggregated():
    scenario, plan = _plan(model="DeepSeek-R1", serving_search="off", prefill_devices=1, decode_devices=3,
                           tensor_parallel=8, attention_dp=True, weight_precision="fp8", kv_precision="fp8",
                           spec_decode_draft_tokens=0, sizing_mode="devices", device_count=32)
    result = compute_plan(scenario, plan)
    gains = result.configuration_gains
    disagg = next(g for g in gains["gains"] if g["term"] == "disaggregation")
    assert disagg["used"] and disagg["gain"] > 0
    assert _product(gains) == pytest.approx(result.metrics.tokens_per_s_per_device, rel=1e-9)


def test_a_target_met_only_with_speculation_has_no_base():
    gains = {"tokens_per_s_per_device": 900.0, "validated_base_tokens_per_s_per_device": None,
             "base_configuration": "TP8, fp8 weights, fp8 KV, no draft tokens, aggregated",
             "gains": [{"term": "speculative decoding", "used": True, "setting": "2 draft tokens at acceptance 0.7",
                        "gain": None},
                       {"term": "FP4 KV cache", "used": False, "setting": "fp8 KV (not FP4)", "gain": 1.0},
                       {"term": "disaggregation", "used": False, "setting": "aggregated", "gain": 1.0}]}
    text = gains_sentence(gains)
    assert "validated base none (the target is not met without the terms below)" in text
    assert "speculative decoding n/a (2 draft tokens at acceptance 0.7)" in text and assumed_share(gains) is None


def test_a_plan_without_an_operating_point_has_none():
    from tcoapp.engine.pipeline.config_gains import configuration_gains
    scenario = default_scenario()
    assert configuration_gains(scenario, scenario.plans[0], (), None) is None
    scenario, plan = _plan(min_tokens_per_s_per_user=1e6)   # no configuration meets it
    assert compute_plan(scenario, plan).configuration_gains is None


def test_the_report_and_the_command_line_state_each_plans_gains():
    from tcoapp.cli.text import compute_text
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.present.report_html import report_html
    scenario = default_scenario()
    results = compute_scenario(scenario)
    html = report_html(scenario, results, "gains")
    assert "How much of each plan's throughput is assumption" in html
    first = results[0].configuration_gains
    assert f"{first['tokens_per_s_per_device']:,.0f} tokens/s per device = validated base" in html
    assert f"The terms add {100 * assumed_share(first):.0f}" in html or "The terms add" in html
    text = compute_text(scenario, results)
    assert text.count("Configuration gains") == len(scenario.plans)
    assert all(len(line) <= 100 for line in text.splitlines())


def test_a_searched_plans_base_is_the_search_without_draft_tokens_or_fp4_kv():
    """The default H100 plan meets 50 tokens/s per user at TP2 only with draft tokens (without: batch 1, 25
    tokens/s per device); its validated base is the configuration the search chooses without them (TP4 here),
    exactly what a search with search_max_draft_tokens = 0 chooses (Hopper runs no FP4 KV), so the
    speculative-decoding gain is over the best plan without it, not over a configuration at its wall."""
    scenario = default_scenario()
    name = scenario.plans[0].name
    gains = compute_plan(scenario, scenario.plan(name)).configuration_gains
    without = scenario.with_plan(name, search_max_draft_tokens=0)
    plain = compute_plan(without, without.plan(name))
    assert gains["base_searched"]
    assert gains["validated_base_tokens_per_s_per_device"] == pytest.approx(plain.metrics.tokens_per_s_per_device,
                                                                            rel=1e-12)
    s = plain.pools[0].serving
    assert gains["base_configuration"].startswith(f"TP{s.tensor_parallel}, {s.weight_precision} weights")
    spec = next(g for g in gains["gains"] if g["term"] == "speculative decoding")
    assert 1.0 < spec["gain"] < 2.5
    assert _product(gains) == pytest.approx(gains["tokens_per_s_per_device"], rel=1e-9)


def test_a_target_no_configuration_meets_without_draft_tokens_has_a_null_base():
    """Where only draft tokens reach the target the base does not exist: null, not a small number."""
    scenario = default_scenario()
    name = scenario.plans[0].name
    scenario = scenario.with_plan(name, min_tokens_per_s_per_user=150)
    result = compute_plan(scenario, scenario.plan(name))
    gains = result.configuration_gains
    assert result.point.exists and result.pools[0].serving.spec_decode_draft_tokens > 0
    assert gains["validated_base_tokens_per_s_per_device"] is None
    assert next(g for g in gains["gains"] if g["term"] == "speculative decoding")["gain"] is None


CLASSES = [{"class": "chat", "share": 0.5, "input_tokens": 1000, "output_tokens": 300, "min_tokens_per_s_per_user": 50},
           {"class": "reasoning", "share": 0.3, "input_tokens": 2000, "output_tokens": 8000,
            "min_tokens_per_s_per_user": 30},
           {"class": "batch", "share": 0.2, "input_tokens": 4000, "output_tokens": 1000}]


def test_a_searched_plan_of_request_classes_states_its_gains_at_the_mix():
    """The base is the best configuration the mix search evaluated without draft tokens or FP4 KV; the product of
    the gains is the plan's number."""
    scenario, plan = _plan(workloads=CLASSES)
    result = compute_plan(scenario, plan)
    gains = result.configuration_gains
    assert gains is not None and gains["base_searched"]
    assert _product(gains) == pytest.approx(result.metrics.tokens_per_s_per_device, rel=1e-9)
    terms = {g["term"]: g for g in gains["gains"]}
    chosen = result.pools[0].serving
    assert chosen.spec_decode_draft_tokens > 0 and terms["speculative decoding"]["gain"] > 1.0
    assert "no draft tokens" in gains["base_configuration"] and "nvfp4 KV" not in gains["base_configuration"]


def test_a_typed_plan_of_request_classes_takes_each_step_at_the_mix():
    """Each step is the same plan typed without the term: the base equals the plan computed with no draft tokens
    and an FP8 KV cache; draft tokens and the FP4 KV cache each gain."""
    typed = dict(workloads=CLASSES, serving_search="off", tensor_parallel=4, weight_precision="nvfp4",
                 min_tokens_per_s_per_user=None, max_ttft_s=None)
    scenario, plan = _plan(**typed, kv_precision="nvfp4", spec_decode_draft_tokens=2)
    gains = compute_plan(scenario, plan).configuration_gains
    base_scenario, base_plan = _plan(**typed, kv_precision="fp8", spec_decode_draft_tokens=0)
    base = compute_plan(base_scenario, base_plan).metrics.tokens_per_s_per_device
    assert gains["validated_base_tokens_per_s_per_device"] == pytest.approx(base, rel=1e-12)
    assert _product(gains) == pytest.approx(gains["tokens_per_s_per_device"], rel=1e-9)
    terms = {g["term"]: g for g in gains["gains"]}
    assert terms["speculative decoding"]["gain"] > 1.0 and terms["FP4 KV cache"]["gain"] > 1.0
    assert not gains["base_searched"]
