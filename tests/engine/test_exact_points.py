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


def test_a_model_running_every_expert_has_one_software_class_in_the_search_and_the_generated_curve():
    """experts_per_token == n_experts computes as dense (memory.architecture), so its software date speeds it
    as dense in the generated curve (generated.workload_args) and in the search's kernel (frontier.row_kernel)
    alike: with different MoE and dense maturity rates the two once gave 28.5 and 19.1 tokens/s per device."""
    from tcoapp.engine.performance.factors import DEFAULT_FACTORS
    from tcoapp.engine.performance.frontier import row_kernel, serving_columns
    from tcoapp.engine.performance.generated import run_roofline
    from tcoapp.engine.quantities.records import ServingConfig
    from tcoapp.engine.quantities.records import Workload
    scenario = default_scenario()
    model = scenario.model("DeepSeek-R1")
    every = replace(model, experts_per_token=model.n_experts, active_params_b=model.total_params_b)
    device = scenario.device("H200-SXM")
    workload = Workload(input_tokens=1000, output_tokens=1000, software_date="2024-06")
    factors = DEFAULT_FACTORS.with_(software_maturity_moe_per_year=0.3, software_maturity_dense_per_year=0.1)
    serving = ServingConfig(tensor_parallel=8, weight_precision="fp8", kv_precision="fp8")
    columns, acceptance, mixed = serving_columns([serving])
    fast = row_kernel(device, every, workload, columns, np.full((1, 1), 8.0), spec_decode_acceptance=acceptance,
                      attention_weight_precision=mixed, factors=factors)
    alone = run_roofline(device, every, serving, workload, np.array([8.0]), factors)
    assert float(np.ravel(fast.tokens_per_s_per_device)[0]) == pytest.approx(float(alone.tokens_per_s_per_device[0]),
                                                                              rel=1e-12)
    moe = run_roofline(device, model, serving, workload, np.array([8.0]), factors)
    dense_rate = run_roofline(device, every, serving, workload.with_(software_date=""), np.array([8.0]), factors)
    assert float(alone.tokens_per_s_per_device[0]) < float(dense_rate.tokens_per_s_per_device[0])  # the date slows it
    assert np.isfinite(moe.tokens_per_s_per_device[0])


def _same(a, b) -> bool:
    """Equal field for field, arrays bit for bit (NaN where NaN)."""
    from dataclasses import fields
    for f in fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            x, y = np.asarray(x), np.asarray(y)
            if x.shape != y.shape or x.dtype != y.dtype or x.tobytes() != y.tobytes():
                return False
        elif isinstance(x, float) and isinstance(y, float):
            if np.float64(x).tobytes() != np.float64(y).tobytes():
                return False
        elif x != y:
            return False
    return True


@pytest.mark.parametrize("index", range(len(default_scenario().plans)))
@pytest.mark.parametrize("changes", [{"min_tokens_per_s_per_user": 36.0}, {"min_tokens_per_s_per_user": 5.0, "max_ttft_s": 2.0}])
def test_the_searched_configurations_curve_is_the_one_its_operating_point_computes(index, changes):
    """The search hands the operating point the chosen configuration's curve from its exact re-evaluation
    (serving/fleet.py): every value of it, and the point read from it, as `operating_point` computes them alone."""
    from tcoapp.engine.serving.operating import _curve_for_target
    from tcoapp.engine.serving.search import search_serve_pool
    scenario, plan, pool, _ = _space(index, **changes)
    chosen, outcome = search_serve_pool(scenario, plan, pool)
    assert outcome is not None and outcome.chosen_curve is not None
    curve = outcome.chosen_curve()
    alone, share = _curve_for_target(scenario, plan, chosen)
    assert share == 0.0 and _same(curve, alone)
    reused, computed = operating_point(scenario, plan, chosen, curve), operating_point(scenario, plan, chosen)
    assert _same(reused[0], computed[0]) and reused[1] == computed[1]
    assert reused[0].exists and reused[0].batch == chosen.serving.batch
