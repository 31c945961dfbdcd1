"""Serving search (docs/model.md, "Serving search"): never worse than the best configuration a user could type in
the same space, reported, frozen to the same numbers, and refused with a clear error on bad input."""
from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.serving.operating import operating_point
from tcoapp.engine.plan.pools import POOL_SERVING_KEYS, resolve_pools
from tcoapp.engine.quantities.records import make_plan, make_pool
from tcoapp.engine.plan.scenario import Scenario, check_scenario
from tcoapp.engine.serving.objective import objective_score
from tcoapp.engine.serving.space import parallel_sizes
from tcoapp.engine.serving.freeze import frozen_plan
from tcoapp.engine.serving.search import pool_search_space, search_serve_pool, space_configs
from tcoapp.engine.serving.fleet import pool_capacities
from tcoapp.engine.performance.pool_pair import busy_power_w
from tcoapp.io.catalog import load_catalog

CATALOG = load_catalog()


def scenario_with(*plans) -> Scenario:
    return check_scenario(Scenario(tuple(plans), catalog_devices=CATALOG.devices, catalog_models=CATALOG.models))


def plan(**keys):
    raw = {"device": "H200-SXM", "model": "DeepSeek-R1", "serving_search": "auto", "input_tokens": 1000,
           "output_tokens": 1000, **keys}
    return make_plan("p", raw)


def best_typed_score(scenario, p) -> float:
    """The best objective score over every configuration of the search space, each typed by hand
    and computed through the plan's ordinary operating-point path."""
    pool = resolve_pools(p)[0]
    space = pool_search_space(scenario, p, pool)
    device = scenario.device(pool.device)
    best = -math.inf
    for serving in space_configs(space, pool.serving):
        typed = p.with_(serving_search="off", **{k: getattr(serving, k) for k in POOL_SERVING_KEYS})
        point, _ = operating_point(scenario, typed, resolve_pools(typed)[0])
        if point.exists:
            best = max(best, float(objective_score(p, pool, device, point.tokens_per_s_per_device, point.power_w)[0]))
    return best


CASES = [
    dict(min_tokens_per_s_per_user=36.0),
    dict(min_tokens_per_s_per_user=20.0, device="B200", weight_precision="nvfp4"),
    dict(min_tokens_per_s_per_user=50.0, search_precisions="fp8;nvfp4", search_max_draft_tokens=2, device="B200"),
    dict(min_tokens_per_s_per_user=100.0, max_ttft_s=2.0, search_objective="tokens_per_s_per_device"),
    dict(batch=256, model="Llama-3.3-70B", device="H100-SXM", search_precisions="bf16;fp8"),
    dict(min_tokens_per_s_per_user=30.0, model="gpt-oss-120b", device="MI355X", search_max_draft_tokens=1),
]


@pytest.mark.parametrize("keys", CASES)
def test_the_search_is_never_worse_than_the_best_typed_configuration(keys):
    p = plan(**keys)
    scenario = scenario_with(p)
    pool, outcome = search_serve_pool(scenario, p, resolve_pools(p)[0])
    assert outcome is not None
    best = best_typed_score(scenario, p)
    device = scenario.device(pool.device)
    point, _ = operating_point(scenario, p, pool)
    found = float(objective_score(p, pool, device, point.tokens_per_s_per_device, point.power_w)[0])
    assert found >= best - 1e-9 * abs(best)
    assert outcome.configurations == pool_search_space(scenario, p, resolve_pools(p)[0]).size


def test_the_search_beats_a_poor_typed_configuration_and_meets_the_target():
    typed = plan(min_tokens_per_s_per_user=36.0, tensor_parallel=1, expert_parallel=8, attention_dp=True,
                 serving_search="off")
    searched = typed.with_(serving_search="auto")
    scenario = scenario_with(typed)
    before, after = compute_plan(scenario, typed), compute_plan(scenario, searched)
    assert after.metrics.cost_per_million_output_tokens_usd < before.metrics.cost_per_million_output_tokens_usd
    assert after.metrics.tokens_per_s_per_user >= 36.0


def test_freezing_the_chosen_configuration_gives_the_same_numbers():
    p = plan(min_tokens_per_s_per_user=36.0, search_precisions="fp8;nvfp4", device="B200")
    scenario = scenario_with(p)
    searched = compute_plan(scenario, p)
    chosen = searched.pools[0].serving
    frozen = p.with_(serving_search="off", **{k: getattr(chosen, k) for k in (
        "tensor_parallel", "expert_parallel", "attention_dp", "weight_precision", "kv_precision",
        "spec_decode_draft_tokens")})
    again = compute_plan(scenario, frozen)
    for key in ("tokens_per_s_per_device", "tokens_per_s_per_user", "cost_per_million_output_tokens_usd", "npv_usd"):
        assert getattr(again.metrics, key) == pytest.approx(getattr(searched.metrics, key), rel=1e-12)


def test_search_off_is_the_typed_configuration():
    p = plan(min_tokens_per_s_per_user=36.0, serving_search="off")
    result = compute_plan(scenario_with(p), p)
    assert result.pools[0].serving.tensor_parallel == p.tensor_parallel
    assert result.as_json()["serving"] == {"serving_search": "off", "pools": {}}
    assert not any("serving search" in w for w in result.warnings)


def test_the_chosen_configuration_is_reported_in_json_and_notes():
    p = plan(min_tokens_per_s_per_user=36.0)
    result = compute_plan(scenario_with(p), p)
    data = result.as_json()
    chosen = data["serving"]["pools"]["serve"]
    assert data["serving"]["serving_search"] == "auto"
    assert chosen["objective"] == "cost_per_million_output_tokens_usd"
    assert chosen["objective_value"] == pytest.approx(data["cost_per_million_output_tokens_usd"], rel=1e-9)
    assert data["pools"][0]["serving"]["searched"] is True
    assert data["pools"][0]["serving"]["tensor_parallel"] == chosen["tensor_parallel"]
    assert any(w.startswith("serving search chose TP") for w in data["warnings"])


def test_the_throughput_objective_gets_at_least_the_throughput_of_the_cost_objective():
    cost = plan(min_tokens_per_s_per_user=36.0, search_precisions="fp8;nvfp4", device="B200")
    tps = cost.with_(search_objective="tokens_per_s_per_device")
    scenario = scenario_with(cost)
    assert compute_plan(scenario, tps).metrics.tokens_per_s_per_device >= \
        compute_plan(scenario, cost).metrics.tokens_per_s_per_device - 1e-9


def test_each_serve_pool_is_searched_within_its_own_devices():
    raw = {"device": "H100-SXM", "model": "DeepSeek-R1", "serving_search": "auto", "min_tokens_per_s_per_user": 30}
    p = make_plan("fleet", raw).with_(pools=(make_pool({"plan": "fleet", "pool": "a", "device": "B200", "device_count": 8}),
                                             make_pool({"plan": "fleet", "pool": "b", "device": "H200-SXM",
                                                        "device_count": 16})))
    result = compute_plan(scenario_with(p), p)
    chosen = result.as_json()["serving"]["pools"]
    assert set(chosen) == {"a", "b"}
    for pool in result.pools:
        n = pool.serving.tensor_parallel * pool.serving.expert_parallel
        assert n <= pool.device_count and pool.serving.tensor_parallel <= 8
        if n > 8:  # beyond one scale-up domain only expert parallelism spans (over the scale-out network)
            assert pool.device == "H200-SXM" and pool.serving.expert_parallel > 1 and n % 8 == 0


def test_a_small_pool_limits_the_replica():
    assert parallel_sizes(1) == (1,)
    assert parallel_sizes(8) == (1, 2, 4, 8)
    assert parallel_sizes(72) == (1, 2, 4, 8, 16, 32, 64, 72)
    p = plan(min_tokens_per_s_per_user=20.0, device_count=2)
    pool = resolve_pools(p)[0]
    assert pool_search_space(scenario_with(p), p, pool).tensor_parallel == (1, 2)


@pytest.mark.parametrize("raw, message", [
    ({"search_precisions": "fp8;fp6"}, "search_precisions = 'fp8;fp6': fp6 is not a precision"),
    ({"serving_search": "on"}, "serving_search"),
    ({"search_max_draft_tokens": 9}, "search_max_draft_tokens"),
    ({"search_objective": "npv_usd"}, "search_objective"),
])
def test_bad_search_fields_are_refused_naming_the_field(raw, message):
    with pytest.raises(ValidationError) as err:
        make_plan("p", {"device": "B200", "model": "DeepSeek-R1", **raw})
    assert message in str(err.value)


def test_a_dense_model_is_searched_without_expert_parallelism():
    p = plan(model="Llama-3.3-70B", min_tokens_per_s_per_user=30.0)
    space = pool_search_space(scenario_with(p), p, resolve_pools(p)[0])
    assert space.expert_parallel == (1,) and space.attention_dp == (False,)
    assert np.all(np.array(space.tensor_parallel) <= 8)


def test_frozen_plan_computes_to_the_same_numbers_without_searching():
    single = plan(min_tokens_per_s_per_user=36.0, search_precisions="fp8;nvfp4", device="B200")
    raw = {"device": "H100-SXM", "model": "DeepSeek-R1", "serving_search": "auto", "batch": 128}
    fleet = make_plan("fleet", raw).with_(pools=(make_pool({"plan": "fleet", "pool": "a", "device": "B200",
                                                            "device_count": 8}),
                                                 make_pool({"plan": "fleet", "pool": "b", "device": "H200-SXM",
                                                            "device_count": 8})))
    for p in (single, fleet):
        scenario = scenario_with(p)
        searched = compute_plan(scenario, p)
        frozen = frozen_plan(p, searched.searches)
        assert frozen.serving_search == "off"
        again = compute_plan(scenario, frozen)
        assert again.as_json()["serving"]["pools"] == {}
        for key in ("tokens_per_s_per_device", "cost_per_million_output_tokens_usd", "npv_usd"):
            assert getattr(again.metrics, key) == pytest.approx(getattr(searched.metrics, key), rel=1e-12)
    assert frozen_plan(single.with_(serving_search="off"), (None,)) == single.with_(serving_search="off")


def decode_score(scenario, p, pools_of_plan):
    caps = pool_capacities(scenario, p, pools_of_plan)
    dec = caps[1]
    device = scenario.device(dec.pool.device)
    power = busy_power_w(device, dec.busy, scenario.factors_for(device.name))
    return float(objective_score(p, dec.pool, device, dec.requests_per_s_per_device * p.output_tokens, power)[0]), dec


def test_a_decode_pool_is_searched_and_never_worse_than_any_typed_configuration():
    raw = {"device": "B200", "model": "DeepSeek-R1", "min_tokens_per_s_per_user": 40.0, "weight_precision": "nvfp4",
           "tensor_parallel": 8, "input_tokens": 4000, "output_tokens": 1000, "serving_search": "auto"}
    pools = (make_pool({"plan": "pd", "pool": "pre", "role": "prefill", "device": "B200", "device_count": 16}),
             make_pool({"plan": "pd", "pool": "dec", "role": "decode", "device": "B200", "device_count": 16}))
    p = make_plan("pd", raw).with_(pools=pools)
    scenario = scenario_with(p)
    result = compute_plan(scenario, p)
    assert set(result.as_json()["serving"]["pools"]) == {"dec"}
    assert result.metrics.tokens_per_s_per_user >= 40.0
    found, dec = decode_score(scenario, p, resolve_pools(p))
    assert dec.search is not None and dec.pool.serving == result.pools[1].serving
    space = pool_search_space(scenario, p, resolve_pools(p)[1])
    typed_plan = p.with_(serving_search="off")
    best = -math.inf
    for serving in space_configs(space, resolve_pools(p)[1].serving):
        typed_pools = resolve_pools(typed_plan)
        typed_pools = (typed_pools[0], replace(typed_pools[1], serving=serving))
        score, cap = decode_score(scenario, typed_plan, typed_pools)
        if np.isfinite(cap.requests_per_s_per_device):
            best = max(best, score)
    assert np.isfinite(best) and found >= best - 1e-9 * abs(best)


def test_freezing_a_derived_prefill_decode_pair_keeps_the_prefill_pool_as_typed():
    raw = {"device": "B200", "model": "DeepSeek-R1", "serving_search": "auto", "min_tokens_per_s_per_user": 40.0,
           "weight_precision": "nvfp4", "tensor_parallel": 8, "prefill_devices": 1, "decode_devices": 1,
           "device_count": 32, "input_tokens": 4000, "output_tokens": 1000}
    p = make_plan("pair", raw)
    scenario = scenario_with(p)
    searched = compute_plan(scenario, p)
    assert set(searched.as_json()["serving"]["pools"]) == {"decode"}
    frozen = frozen_plan(p, searched.searches)
    assert frozen.serving_search == "off" and not frozen.is_disaggregated and len(frozen.pools) == 2
    prefill = next(pool for pool in frozen.pools if pool.role == "prefill")
    assert prefill.tensor_parallel is None  # the plan's TP8, as before
    again = compute_plan(scenario, frozen)
    for key in ("tokens_per_s_per_device", "cost_per_million_output_tokens_usd", "npv_usd"):
        assert getattr(again.metrics, key) == pytest.approx(getattr(searched.metrics, key), rel=1e-12)


def test_speculative_decoding_is_chosen_where_it_pays_at_high_interactivity():
    fast = plan(device="B200", weight_precision="nvfp4", min_tokens_per_s_per_user=150.0, spec_decode_acceptance=0.8)
    scenario = scenario_with(fast)
    without = compute_plan(scenario, fast)
    with_drafts = compute_plan(scenario, fast.with_(search_max_draft_tokens=3))
    assert with_drafts.pools[0].serving.spec_decode_draft_tokens > 0
    assert with_drafts.metrics.tokens_per_s_per_device > without.metrics.tokens_per_s_per_device
    assert with_drafts.metrics.tokens_per_s_per_user >= 150.0


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(["H200-SXM", "B200", "MI355X", "GB200-NVL72"]), st.sampled_from(["DeepSeek-R1", "gpt-oss-120b",
       "Llama-3.3-70B", "Qwen3-235B"]), st.floats(5.0, 120.0), st.sampled_from(["", "fp8;nvfp4", "bf16;fp8"]),
       st.sampled_from(["cost_per_million_output_tokens_usd", "tokens_per_s_per_device"]))
def test_seeded_fuzz_the_search_is_never_worse_than_any_typed_configuration(device, model, target, precisions,
                                                                               objective):
    p = plan(device=device, model=model, min_tokens_per_s_per_user=target, search_precisions=precisions,
             search_objective=objective)
    scenario = scenario_with(p)
    pool, outcome = search_serve_pool(scenario, p, resolve_pools(p)[0])
    best = best_typed_score(scenario, p)
    if outcome is None:
        assert best == -math.inf  # nothing in the space has an operating point
        return
    point, _ = operating_point(scenario, p, pool)
    found = float(objective_score(p, pool, scenario.device(pool.device), point.tokens_per_s_per_device,
                                  point.power_w)[0])
    assert found >= best - 1e-9 * abs(best)


def test_the_chosen_configuration_says_how_many_devices_a_replica_spans():
    """A replica beyond its scale-up domain (expert parallelism over several H100 nodes) says so in
    the search's text; memory feasibility is per replica of TP x EP devices."""
    from tcoapp.engine.serving.search import replica_span_text
    assert replica_span_text(1, 8) == "1 device per replica"
    assert replica_span_text(8, 8) == "8 devices per replica"
    assert replica_span_text(32, 8) == "32 devices per replica over 4 scale-up domains"
    assert replica_span_text(32, 72) == "32 devices per replica"


def test_deepseek_r1_fp8_on_h100_is_searched_only_in_replicas_that_fit():
    """671 GB of FP8 weights do not fit in one 8 x 80 GB H100 node: the search's replica spans several
    nodes (expert parallelism over the scale-out network), and its text says how many."""
    from tcoapp.engine.performance.generated import memory_limit
    from tcoapp.engine.pipeline.compute import compute_plan
    from tcoapp.engine.quantities.records import ServingConfig
    from tcoapp.io.default_scenario import default_scenario
    scenario = default_scenario()
    name = scenario.plans[0].name
    scenario = scenario.with_plan(name, device="H100-SXM", model="DeepSeek-R1", search_precisions="fp8",
                                  weight_precision="fp8", kv_precision="fp8", min_tokens_per_s_per_user=48.0)
    plan = scenario.plan(name)
    one_node = ServingConfig(tensor_parallel=8, expert_parallel=1, attention_dp=True, weight_precision="fp8",
                             kv_precision="fp8")
    assert memory_limit(scenario.device("H100-SXM"), scenario.model("DeepSeek-R1"), one_node, plan.workload,
                        scenario.factors_for("H100-SXM")) < 1
    result = compute_plan(scenario, plan)
    serving = result.pools[0].serving
    devices = serving.tensor_parallel * serving.expert_parallel
    assert devices > 8 and f"{devices} devices per replica over {devices // 8} scale-up domains" in result.serving_text()
