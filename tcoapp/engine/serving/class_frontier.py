"""One request class's frontier (docs/model.md, "Request classes"): the most tokens/s per device a plan's
serve pool reaches at each tokens/s per user when it serves that class alone, over every configuration of
the pool's search space and every batch that fits, with the class's length tails (memory at the 99th
percentile of its contexts) and its latency percentile. The data a frontier chart draws for one class.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..performance.frontier import pareto_mask
from ..performance.request_mix import mix_curve, mix_memory_limit
from ..plan.pools import resolve_pools, with_acceptance
from ..plan.request_classes import class_load, class_prices, mix_plan
from ..plan.scenario import Scenario
from ..quantities.records import Plan
from .operating import search_batches
from .search import pool_search_space, space_configs


@dataclass(frozen=True)
class ClassFrontier:
    """The frontier's points, by rising tokens/s per user (arrays of equal length), and the configuration of
    each point in words."""

    class_: str
    tokens_per_s_per_user: np.ndarray
    tokens_per_s_per_device: np.ndarray
    batch: np.ndarray
    configurations: tuple[str, ...]
    swept_configurations: int


def _words(s) -> str:
    parts = [f"TP{s.tensor_parallel}"] + ([f"EP{s.expert_parallel}"] if s.expert_parallel > 1 else [])
    parts += (["attention-DP"] if s.attention_dp else []) + [f"{s.weight_precision} weights", f"{s.kv_precision} KV"]
    return ", ".join(parts + ([f"{s.spec_decode_draft_tokens} draft tokens"] if s.spec_decode_draft_tokens else []))


def class_frontier(scenario: Scenario, plan: Plan, name: str) -> ClassFrontier:
    """The frontier of class `name` of `plan` on its first serve pool (module docstring). KeyError where the
    plan has no such class; empty arrays where no configuration fits."""
    rc = next((c for c in plan.workloads if c.class_ == name), None)
    if rc is None:
        raise KeyError(f"plan {plan.name!r} has no request class {name!r}")
    scenario = scenario.for_plan(plan)
    load = (replace(class_load(plan, rc), share=1.0),)
    alone = mix_plan(plan, load, [class_prices(plan, rc)])
    pool = next(p for p in resolve_pools(plan) if p.role == "serve")
    pool = with_acceptance((pool,), scenario.acceptance_for(plan.model))[0]
    device, model, factors = scenario.device(pool.device), scenario.model(plan.model), scenario.factors_for(pool.device)
    configs = space_configs(pool_search_space(scenario, alone, pool), pool.serving)
    user, tps, batch, words = [], [], [], []
    for serving in configs:
        limit, _ = mix_memory_limit(device, model, serving, load, factors)
        if not limit >= 1:
            continue
        curve = mix_curve(device, model, serving, load, search_batches(limit), factors, plan.software_date)
        ok = curve.feasible
        user.append(curve.tokens_per_s_per_user[0][ok])
        tps.append(curve.tokens_per_s_per_device[ok])
        batch.append(curve.batch[ok])
        words += [_words(serving)] * int(ok.sum())
    if not user:
        empty = np.empty(0)
        return ClassFrontier(name, empty, empty, empty, (), len(configs))
    x, y, b = np.concatenate(user), np.concatenate(tps), np.concatenate(batch)
    front = np.nonzero(pareto_mask(x, y, np.isfinite(x) & np.isfinite(y) & (y > 0)))[0]
    front = front[np.argsort(x[front], kind="stable")]
    return ClassFrontier(name, x[front], y[front], b[front], tuple(words[i] for i in front), len(configs))
