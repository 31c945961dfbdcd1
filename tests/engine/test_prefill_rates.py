"""The prefill pool of a searched prefill/decode pair is chosen from every configuration's prefill rate in one
kernel call (performance/pool_pair.prefill_rates): each rate and memory limit as the configuration's own
prefill_capacity and memory_limit give it alone, bit for bit."""
import pytest

from tcoapp.engine.performance.generated import memory_limit
from tcoapp.engine.performance.pool_pair import prefill_capacity, prefill_rates
from tcoapp.engine.plan.pools import resolve_pools, with_acceptance
from tcoapp.engine.serving.search import pool_search_space, space_configs
from tcoapp.io.default_scenario import default_scenario


@pytest.mark.parametrize("index", range(len(default_scenario().plans)))
def test_every_prefill_rate_as_computed_alone(index):
    scenario = default_scenario()
    name = scenario.plans[index].name
    scenario = scenario.with_plan(name, serving_search="auto", search_precisions="bf16;fp8;mxfp4;nvfp4")
    plan = scenario.plan(name)
    scoped = scenario.for_plan(plan)
    pool = with_acceptance(resolve_pools(plan), scoped.acceptance_for(plan.model))[0]
    device, model, factors = scoped.device(pool.device), scoped.model(plan.model), scoped.factors_for(pool.device)
    servings = space_configs(pool_search_space(scoped, plan, pool), pool.serving.with_(spec_decode_draft_tokens=0))
    rates, limits = prefill_rates(device, model, servings, plan.workload, factors)
    assert rates == [prefill_capacity(device, model, s, plan.workload, factors).requests_per_s_per_device for s in servings]
    assert list(limits) == [memory_limit(device, model, s, plan.workload, factors) for s in servings]
    assert len(set(rates)) > 1
