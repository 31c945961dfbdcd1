"""Disaggregated prefill/decode as an option of the serving search (pipeline/disagg_search.py): priced with
the pair physics, sized for the decode pool's rate, kept only where the plan's objective prefers it."""
import pytest

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.pipeline.disagg_search import PREFILL_UTILIZATION, device_ratio, prefill_utilization
from tcoapp.engine.serving.freeze import frozen_plan
from tcoapp.io.default_scenario import default_scenario


def _scenario(index=2, **changes):
    scenario = default_scenario()
    name = scenario.plans[index].name
    scenario = scenario.with_plan(name, **changes)
    return scenario, scenario.plan(name)


DSR1_8K = dict(model="DeepSeek-R1", input_tokens=8192, output_tokens=1024, min_tokens_per_s_per_user=37.0,
               search_precisions="fp8", weight_precision="fp8", kv_precision="fp8")


def test_the_ratio_is_the_smallest_whole_ratio_that_does_not_starve_decode():
    assert device_ratio(0.25) == (1, 4)
    p, d = device_ratio(0.268)
    assert p / d >= 0.268 and p / d < 0.268 * 1.05 and d <= 32
    assert device_ratio(1.379)[0] / device_ratio(1.379)[1] >= 1.379
    assert device_ratio(float("nan")) is None and device_ratio(0.0) is None


def test_the_prefill_pool_runs_at_two_thirds_or_what_the_ttft_target_leaves():
    _, plan = _scenario()
    assert prefill_utilization(plan, 0.1, 0.05) == PREFILL_UTILIZATION
    tight = plan.with_(max_ttft_s=0.12)
    rho = prefill_utilization(tight, 0.1, 0.05)          # slack 0.02 s: rho t_p / (2 (1 - rho)) = 0.02
    assert rho == pytest.approx(0.04 / 0.09) and rho * 0.05 / (2 * (1 - rho)) == pytest.approx(0.02)
    assert prefill_utilization(plan.with_(max_ttft_s=0.09), 0.1, 0.05) == 0.0


def test_off_by_default_and_the_plan_as_before():
    scenario, plan = _scenario(**DSR1_8K)
    assert plan.search_disaggregation == "off"
    result = compute_plan(scenario, plan)
    assert result.disaggregation is None and len(result.pools) == 1 and result.searched_plan is None


def test_where_the_pair_is_cheaper_the_search_chooses_it_by_the_objective():
    scenario, plan = _scenario(search_disaggregation="auto", **DSR1_8K)
    aggregated = compute_plan(scenario, plan.with_(search_disaggregation="off"))
    result = compute_plan(scenario, plan)
    info = result.disaggregation
    assert info["chosen"] and [p.role for p in result.pools] == ["prefill", "decode"]
    cost = result.metrics.cost_per_million_output_tokens_usd
    assert cost < aggregated.metrics.cost_per_million_output_tokens_usd
    assert info["disaggregated_objective_value"] == pytest.approx(cost)
    assert info["aggregated_objective_value"] == pytest.approx(aggregated.metrics.cost_per_million_output_tokens_usd)
    assert result.metrics.tokens_per_s_per_user >= 37.0
    # the prefill pool has room: it runs at 2/3 of its capacity or less, the decode pool sets the rate
    assert result.fleet.limited_by == "decode"
    assert f"prefill/decode on {info['prefill_devices']}:{info['decode_devices']} devices" in " ".join(result.warnings)
    assert result.as_json()["serving"]["disaggregation"]["chosen"] is True
    pair = result.searched_plan
    assert (pair.prefill_devices, pair.decode_devices) == (info["prefill_devices"], info["decode_devices"])
    # the aggregated plan's frontier stays the yardstick (the widest search: here it runs NVFP4)
    assert result.frontier == aggregated.frontier and result.frontier_share > aggregated.frontier_share
    assert result.frontier_share == pytest.approx(result.metrics.tokens_per_s_per_device
                                                  / aggregated.frontier.tokens_per_s_per_device)
    gain = next(g for g in result.configuration_gains["gains"] if g["term"] == "disaggregation")
    assert gain["used"] and gain["gain"] > 0


def test_frozen_the_chosen_pair_computes_to_the_same_numbers():
    scenario, plan = _scenario(search_disaggregation="auto", **DSR1_8K)
    result = compute_plan(scenario, plan)
    frozen = frozen_plan(result.searched_plan, result.searches)
    assert frozen.serving_search == "off" and [p.role for p in frozen.pools] == ["prefill", "decode"]
    again = compute_plan(scenario.with_plan(plan.name, **{}), frozen)
    assert again.metrics.tokens_per_s_per_device == pytest.approx(result.metrics.tokens_per_s_per_device, rel=1e-6)


def test_where_aggregated_is_cheaper_it_is_kept_and_the_pair_is_said():
    scenario, plan = _scenario(index=3, search_disaggregation="auto")    # GB200 NVL72, Llama-3.3-70B
    result = compute_plan(scenario, plan)
    info = result.disaggregation
    assert not info["chosen"] and len(result.pools) == 1 and result.searched_plan is None
    assert info["disaggregated_objective_value"] > info["aggregated_objective_value"]
    assert any(w.startswith("serving search kept aggregated serving") for w in result.warnings)


def test_a_plan_of_pools_or_request_classes_is_not_priced_disaggregated():
    scenario, plan = _scenario(search_disaggregation="auto", serving_search="off")
    assert compute_plan(scenario, plan).disaggregation is None


def test_the_prefill_pool_runs_the_fastest_prefill_configuration_that_holds_the_model():
    from tcoapp.engine.performance.pool_pair import prefill_capacity
    from tcoapp.engine.pipeline.disagg_search import PREFILL_KEYS, best_prefill
    from tcoapp.engine.plan.pools import resolve_pools
    scenario, plan = _scenario(index=0, model="DeepSeek-R1", search_precisions="fp8", weight_precision="fp8",
                               kv_precision="fp8")     # H100: DeepSeek-R1 in FP8 does not fit in one node
    pool = resolve_pools(plan)[0]
    keys = best_prefill(scenario, plan, pool)
    assert keys["tensor_parallel"] * keys["expert_parallel"] > 8
    device, model = scenario.device("H100-SXM"), scenario.model("DeepSeek-R1")
    chosen = prefill_capacity(device, model, pool.serving.with_(spec_decode_draft_tokens=0, **keys), plan.workload,
                              scenario.factors_for("H100-SXM")).requests_per_s_per_device
    one_node = dict(keys, tensor_parallel=8, expert_parallel=2, attention_dp=False)
    other = prefill_capacity(device, model, pool.serving.with_(spec_decode_draft_tokens=0, **one_node), plan.workload,
                             scenario.factors_for("H100-SXM")).requests_per_s_per_device
    assert chosen >= other and set(keys) == set(PREFILL_KEYS)
