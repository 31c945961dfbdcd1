"""A calibration applies to its scope only (device x model class x serving stack): a MoE fit on B200
does not move a dense plan on B200, a stack-scoped fit applies to plans naming that stack."""
from __future__ import annotations

from dataclasses import replace

import pytest

from tcoapp.engine.plan.calibration_scope import CalibrationScope, parse_scope, stack_name
from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.io.default_scenario import default_scenario

BASE = default_scenario()
MOE = BASE.factors.with_(eta_mem=0.3, step_overhead_s=0.02)      # what a poor MoE fit might store
DENSE_TRT = BASE.factors.with_(eta_mem=0.95)


def scenario_with(device_factors, plans):
    return replace(BASE, plans=tuple(plans), device_factors=device_factors)


def b200(name, model, stack=""):
    plan = next(p for p in BASE.plans if p.device == "B200")
    return replace(plan, name=name, model=model, serving_stack=stack)


def tokens(scenario) -> dict[str, float]:
    return {r.name: r.metrics.tokens_per_s_per_device for r in compute_scenario(scenario)}


def test_a_moe_fit_on_b200_does_not_move_dense_plans_on_b200():
    plans = [b200("llama trt", "Llama-3.3-70B", "trtllm"), b200("llama", "Llama-3.3-70B"),
             b200("gpt-oss trt", "gpt-oss-120b", "trtllm")]
    before = tokens(scenario_with({}, plans))
    after = tokens(scenario_with({"B200 | moe | trtllm": MOE}, plans))
    assert after["llama trt"] == before["llama trt"] and after["llama"] == before["llama"]
    assert after["gpt-oss trt"] != before["gpt-oss trt"]


def test_the_most_specific_scope_wins_and_a_stack_scope_needs_the_plan_to_name_it():
    plans = [b200("trt", "Llama-3.3-70B", "TensorRT-LLM"), b200("vllm", "Llama-3.3-70B", "vllm"),
             b200("none", "Llama-3.3-70B")]
    scenario = scenario_with({"B200": BASE.factors.with_(eta_mem=0.6), "B200 | dense | trtllm": DENSE_TRT}, plans)
    seen = {p.name: scenario.for_plan(p).factors_for("B200").eta_mem for p in plans}
    assert seen == {"trt": 0.95, "vllm": 0.6, "none": 0.6}
    assert scenario.for_plan(plans[0]).factors_for("H200-SXM") == BASE.factors  # other devices untouched


@pytest.mark.parametrize("text, scope", [
    ("B200", CalibrationScope("B200")), ("B200 | moe | trtllm", CalibrationScope("B200", "moe", "trtllm")),
    ("B200 | * | vLLM", CalibrationScope("B200", "", "vllm")), ("B200 | dense | *", CalibrationScope("B200", "dense"))])
def test_scope_headers_parse_and_print_back(text, scope):
    assert parse_scope(text) == (scope, "")
    assert parse_scope(scope.key)[0] == scope


def test_bad_scope_headers_say_the_form():
    assert "one of dense, moe" in parse_scope("B200 | big | trtllm")[1]
    assert "'DEVICE | MODEL_CLASS | STACK'" in parse_scope("B200 | moe")[1]


def test_stack_names_from_the_tools():
    assert [stack_name(s) for s in ("trtllm", "TRT-LLM", "dynamo-trt", "dynamo-sglang", "vllm", "")] == [
        "trtllm", "trtllm", "trtllm", "sglang", "vllm", ""]
