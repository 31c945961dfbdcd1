"""What makes the serving search fast changes no number (docs/model.md, "Serving search"): the sweep's
chunking, the sweep of feasible points only, the memory limit read without the kernel, the frontier reusing the plan's own sweep, the
Pareto set computed on demand."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import tcoapp.engine.serving.search as serving_search
from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.serving.frontier_share import frontier_for
from tcoapp.engine.performance.frontier import pareto_mask, sweep
from tcoapp.engine.performance.generated import generate_curve, memory_limit
from tcoapp.engine.quantities.records import ServingConfig, Workload, make_plan
from tcoapp.engine.plan.scenario import Scenario, check_scenario
from tcoapp.engine.serving.defaults import widest_search
from tcoapp.io.catalog import load_catalog

CATALOG = load_catalog()
SWEPT = ("tokens_per_s_per_user", "tokens_per_s_per_device", "ttft_s", "power_w", "max_batch_by_memory", "feasible")


def _sweep(device, model, **kw):
    return sweep(CATALOG.devices[device], CATALOG.models[model], Workload(input_tokens=1000, output_tokens=1000),
                 batches=np.unique(np.geomspace(1, 4096, 90).round()), tensor_parallel=(1, 2, 4, 8),
                 expert_parallel=(1, 2, 8), attention_dp=(False, True), weight_precisions=("fp8", "nvfp4"),
                 kv_precisions=("fp8",), spec_decode_draft_tokens=(0, 2), **kw)


@pytest.mark.parametrize("device, model, attention", [("B200", "DeepSeek-R1", ""), ("H200-SXM", "DeepSeek-R1", ""),
                                                      ("MI355X", "Llama-3.3-70B", ""), ("B200", "DeepSeek-R1", "bf16"),
                                                      ("GB200-NVL72", "DeepSeek-R1", "fp8")])
def test_a_sweep_of_feasible_points_only_equals_the_whole_sweep_there(device, model, attention):
    """(the memory limits the feasible points are read from computed without the kernel, a mixed checkpoint's
    non-expert weights included)"""
    whole = _sweep(device, model, attention_weight_precision=attention)
    feasible = _sweep(device, model, feasible_only=True, attention_weight_precision=attention)
    f = whole.feasible
    assert f.any() and not f.all()
    assert np.array_equal(feasible.feasible, f) and np.array_equal(feasible.max_batch_by_memory, whole.max_batch_by_memory)
    for name in ("tokens_per_s_per_user", "tokens_per_s_per_device", "ttft_s", "power_w"):
        assert np.array_equal(getattr(feasible, name)[f], getattr(whole, name)[f]), name
        assert np.isnan(getattr(feasible, name)[~f]).all(), name   # not evaluated


def test_a_sweep_in_one_call_equals_the_sweep_in_twenty_steps():
    steps = []
    followed = _sweep("B200", "DeepSeek-R1", progress=steps.append)
    alone = _sweep("B200", "DeepSeek-R1")
    assert len(steps) == 20
    for name in SWEPT:
        assert np.array_equal(getattr(followed, name), getattr(alone, name), equal_nan=True), name
    assert np.array_equal(alone.pareto_mask, pareto_mask(alone.tokens_per_s_per_user, alone.tokens_per_s_per_device,
                                                         alone.feasible))
    assert alone.pareto_mask.any()


@pytest.mark.parametrize("device, model", [("H200-SXM", "DeepSeek-R1"), ("B200", "Llama-3.3-70B"),
                                           ("MI355X", "gpt-oss-120b"), ("GB200-NVL72", "DeepSeek-R1")])
def test_the_memory_limit_read_directly_is_the_curves(device, model):
    d, m = CATALOG.devices[device], CATALOG.models[model]
    for tp, adp, w, attention in itertools.product((1, 2, 8), (False, True), ("bf16", "fp8", "mxfp4"), ("", "bf16")):
        if attention and not m.n_experts:
            continue
        serving = ServingConfig(tensor_parallel=tp, attention_dp=adp and m.n_experts > 0, weight_precision=w,
                                kv_precision="fp8", attention_weight_precision=attention)
        workload = Workload(input_tokens=3000, output_tokens=700)
        assert memory_limit(d, m, serving, workload) == generate_curve(d, m, serving, workload, 1.0).max_batch_by_memory


def test_the_frontier_reuses_the_plans_sweep_and_finds_what_its_own_sweep_finds(monkeypatch):
    raw = {"device": "B200", "model": "DeepSeek-R1", "min_tokens_per_s_per_user": 40.0, "spec_decode_acceptance": 0.7,
           "input_tokens": 1000, "output_tokens": 1000}
    p = make_plan("p", dict(raw, **widest_search(raw)))
    scenario = check_scenario(Scenario((p,), catalog_devices=CATALOG.devices, catalog_models=CATALOG.models))
    calls = []
    real = serving_search._sweep
    monkeypatch.setattr(serving_search, "_sweep", lambda *a: calls.append(1) or real(*a))
    result = compute_plan(scenario, p)
    assert result.frontier is not None and len(calls) == 1     # one sweep for the search and the frontier
    scoped = scenario.for_plan(p)
    fresh = frontier_for(scoped, p.with_(input_tokens=1001), result.pools, result.point.tokens_per_s_per_user)
    assert len(calls) == 2 and fresh is not None                # another workload: swept again, not reused
    import tcoapp.engine.serving.frontier_share as frontier_share
    monkeypatch.setattr(frontier_share, "_CACHE", {})
    again = frontier_for(scoped, p, result.pools, result.point.tokens_per_s_per_user)
    assert len(calls) == 3 and again == result.frontier         # its own sweep finds the same frontier
