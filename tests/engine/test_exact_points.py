"""The search's exact re-evaluation in one kernel call (serving/exact_points.py) gives, for every configuration,
the operating point `operating_point` gives it typed one by one: the same tokens/s per device, power and batch,
bit for bit, with an interactivity target, without one, and where the typed batch does not fit (queued)."""
from dataclasses import replace

import numpy as np
import pytest

from tcoapp.engine.plan.pools import resolve_pools, with_acceptance
from tcoapp.engine.serving.exact_points import exact_points
from tcoapp.engine.serving.operating import operating_point
from tcoapp.engine.serving.search import pool_search_space, space_configs
from tcoapp.io.default_scenario import default_scenario

SEARCH = {"serving_search": "auto", "search_max_draft_tokens": 2, "search_precisions": "bf16;fp8;mxfp4;nvfp4"}


def _space(index: int, **changes):
    scenario = default_scenario()
    name = scenario.plans[index].name
    scenario = scenario.with_plan(name, **SEARCH, **changes)
    plan = scenario.plan(name)
    scoped = scenario.for_plan(plan)
    pool = with_acceptance(resolve_pools(plan), scoped.acceptance_for(plan.model))[0]
    return scoped, plan, pool, space_configs(pool_search_space(scoped, plan, pool), pool.serving)


def _one_by_one(scenario, plan, pool, servings):
    out = []
    for serving in servings:
        point = operating_point(scenario, plan, replace(pool, serving=serving))[0]
        out.append((point.tokens_per_s_per_device, point.power_w, point.batch) if point.exists else None)
    return out


@pytest.mark.parametrize("index", range(len(default_scenario().plans)))
@pytest.mark.parametrize("changes", [{"min_tokens_per_s_per_user": 36.0}, {"min_tokens_per_s_per_user": 5.0, "max_ttft_s": 2.0},
                                     {"min_tokens_per_s_per_user": None, "max_ttft_s": None, "batch": 4096},
                                     {"min_tokens_per_s_per_user": None, "max_ttft_s": None, "batch": 8}])
def test_every_configuration_as_typed_one_by_one(index, changes):
    scenario, plan, pool, servings = _space(index, **changes)
    assert len(servings) > 1
    together = exact_points(scenario, plan, pool, servings)
    assert together == _one_by_one(scenario, plan, pool, servings)
    assert any(p is not None for p in together)


def test_queued_configurations_served_at_their_memory_limit():
    scenario, plan, pool, servings = _space(0, min_tokens_per_s_per_user=None, max_ttft_s=None, batch=65536)
    together = exact_points(scenario, plan, pool, servings)
    assert together == _one_by_one(scenario, plan, pool, servings)
    assert any(p is not None and p[2] < 65536 for p in together)   # some served at the limit, the rest queued


def test_mixed_acceptances_each_at_its_own():
    scenario, plan, pool, servings = _space(0, min_tokens_per_s_per_user=None, max_ttft_s=None, batch=8)
    drafting = [s for s, p in zip(servings, exact_points(scenario, plan, pool, servings))
                if s.spec_decode_draft_tokens > 0 and p is not None][:4]
    assert len(drafting) == 4
    mixed = drafting + [s.with_(spec_decode_acceptance=0.5) for s in drafting]
    together = exact_points(scenario, plan, pool, mixed)
    assert together == _one_by_one(scenario, plan, pool, mixed)
    assert together[:4] != together[4:]
