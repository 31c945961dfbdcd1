"""A decode pool's search scores every configuration in one kernel call, the memory limits read without it
(serving/decode_points.py): the same (tokens/s per device, power, batch) as each configuration's capacity computed alone (fleet._decode_capacity),
bit for bit, with and without an interactivity target."""
from dataclasses import replace

import numpy as np
import pytest

from tcoapp.engine.performance.pool_pair import busy_power_w, kv_link_gb_s, prefill_capacity
from tcoapp.engine.plan.pools import resolve_pools, with_acceptance
from tcoapp.engine.serving import fleet
from tcoapp.engine.serving.decode_points import decode_points
from tcoapp.engine.serving.search import pool_search_space, space_configs
from tcoapp.io.default_scenario import default_scenario

SEARCH = {"serving_search": "auto", "search_max_draft_tokens": 2, "search_precisions": "bf16;fp8;mxfp4;nvfp4",
          "prefill_devices": 1, "decode_devices": 1}


def _pair(index: int, **changes):
    scenario = default_scenario()
    name = scenario.plans[index].name
    scenario = scenario.with_plan(name, **SEARCH, **changes)
    plan = scenario.plan(name)
    scoped = scenario.for_plan(plan)
    prefill, decode = with_acceptance(resolve_pools(plan), scoped.acceptance_for(plan.model))
    device = scoped.device(decode.device)
    pre_device = scoped.device(prefill.device)
    pre_caps = {0: (pre_device, prefill_capacity(pre_device, scoped.model(plan.model), prefill.serving, plan.workload,
                                                 scoped.factors_for(pre_device.name)))}
    link = kv_link_gb_s(pre_device, device)[1:]
    return scoped, plan, decode, device, pre_caps, link


def _alone(scenario, plan, pool, device, pre_caps, link, servings):
    out = []
    for serving in servings:
        candidate = replace(pool, serving=serving)
        cap = fleet._decode_capacity(scenario, plan, candidate, device, fleet._lead_s(pre_caps, candidate, device), link)
        ok = np.isfinite(cap.requests_per_s_per_device) and cap.requests_per_s_per_device > 0
        power = float(busy_power_w(device, cap.busy, scenario.factors_for(device.name))) if ok else None
        out.append((cap.requests_per_s_per_device * plan.output_tokens, power, cap.point.batch) if ok else None)
    return out


@pytest.mark.parametrize("index", range(len(default_scenario().plans)))
@pytest.mark.parametrize("changes", [{"min_tokens_per_s_per_user": 36.0}, {"min_tokens_per_s_per_user": 5.0, "max_ttft_s": 2.0}, {"min_tokens_per_s_per_user": None, "max_ttft_s": 0.08},
                                     {"min_tokens_per_s_per_user": None, "max_ttft_s": None, "batch": 256},
                                     {"min_tokens_per_s_per_user": None, "max_ttft_s": None, "batch": 16}])
def test_every_decode_configuration_as_computed_alone(index, changes):
    scenario, plan, pool, device, pre_caps, link = _pair(index, **changes)
    servings = space_configs(pool_search_space(scenario, plan, pool), pool.serving)
    assert len(servings) > 1
    lead_s = [fleet._lead_s(pre_caps, replace(pool, serving=s), device) for s in servings]
    together = decode_points(scenario, plan, device, servings, lead_s)
    assert together == _alone(scenario, plan, pool, device, pre_caps, link, servings)
    assert any(p is not None for p in together)


def test_configurations_of_different_acceptances_refused():
    scenario, plan, pool, device, pre_caps, link = _pair(0)
    servings = space_configs(pool_search_space(scenario, plan, pool), pool.serving)[:2]
    with pytest.raises(ValueError):
        decode_points(scenario, plan, device, [servings[0], servings[1].with_(spec_decode_acceptance=0.25)], [0.0, 0.0])
