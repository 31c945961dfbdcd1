"""Disaggregated prefill/decode as an option of the serving search (docs/model.md, "Serving search").

For a plan that searches (`serving_search = auto`) with `search_disaggregation = auto` and serves one
request shape on one generated pool (no Pools rows, no prefill_devices:decode_devices of its own, no request classes, no measured
curve), the search also prices the same plan as a prefill/decode pair, with the engine's pair
physics (serving/fleet.py, performance/pool_pair.py: prefill capacity, decode capacity and the
KV-cache link):
1. the prefill pool runs the configuration of the plan's search space (without draft tokens) that
   prefills the most requests/s per device and holds the model (`best_prefill`); the decode pool
   is searched over the plan's space at full load, as any decode pool;
2. the prefill pool is sized for the decode pool's request rate at a utilization
   rho = min(PREFILL_UTILIZATION, the utilization whose M/D/1 admission wait
   rho t_p / (2 (1 - rho)) still fits the plan's max_ttft_s beside the pair's TTFT): devices
   prefill : decode = r_d : (rho r_p) per device, rounded up to whole-number ratios with at most
   MAX_RATIO_DEVICES decode devices (the prefill side never starves the decode side);
3. the pair is computed as a plan of its own and kept where it is better by the plan's
   `search_objective` (lower cost per million output tokens, or more tokens/s per device); the
   aggregated answer is kept otherwise. Either way the plan's notes and JSON (`serving.disaggregation`)
   give both figures. A pair kept keeps the aggregated plan's frontier (serving/frontier_share.py) as
   its yardstick: its `frontier_share` passes 1 by the gain of disaggregation.
"""
from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np

from ..performance.generated import config_problems
from ..performance.pool_pair import prefill_rates
from ..plan.pools import resolve_pools, with_acceptance
from ..serving.fleet import pool_capacities
from ..serving.freeze import FROZEN_KEYS
from ..serving.frontier_share import share_of
from ..serving.search import pool_search_space, space_configs

PREFILL_UTILIZATION = 2.0 / 3.0   # a request waits on average at most its own prefill (M/D/1: W = t_p at rho = 2/3)
MAX_RATIO_DEVICES = 32            # the ratio's decode side: at most 32 devices per ratio unit
PREFILL_KEYS = tuple(k for k in FROZEN_KEYS if k != "spec_decode_draft_tokens")   # the prefill pool's configuration


def eligible(plan) -> bool:
    """Whether the search prices the plan disaggregated (module docstring)."""
    return (plan.serving_search == "auto" and plan.search_disaggregation == "auto" and not plan.pools and not plan.is_disaggregated and not plan.workloads
            and not plan.curve)


def prefill_utilization(plan, ttft_s: float, prefill_s: float) -> float:
    """rho: PREFILL_UTILIZATION, lowered where the plan's max_ttft_s leaves less room for the wait
    rho t_p / (2 (1 - rho)) beside the pair's TTFT `ttft_s` (0: no room)."""
    if plan.max_ttft_s is None:
        return PREFILL_UTILIZATION
    slack = float(plan.max_ttft_s) - ttft_s
    if not slack > 0 or not prefill_s > 0:
        return 0.0
    return min(PREFILL_UTILIZATION, 2.0 * slack / (prefill_s + 2.0 * slack))


def device_ratio(decode_per_prefill: float) -> tuple[int, int] | None:
    """(prefill, decode) devices: the smallest ratio p / d >= `decode_per_prefill` with d <= MAX_RATIO_DEVICES."""
    if not (np.isfinite(decode_per_prefill) and decode_per_prefill > 0):
        return None
    best = None
    for d in range(1, MAX_RATIO_DEVICES + 1):
        p = max(1, int(np.ceil(decode_per_prefill * d - 1e-9)))
        if best is None or Fraction(p, d) < Fraction(*best):
            best = (p, d)
    return best


def best_prefill(scenario, plan, pool):
    """The prefill configuration (PREFILL_KEYS) of the pool's search space with the most requests/s per
    device (performance/pool_pair.prefill_capacity) among those whose weights fit; None where none fits."""
    device, model = scenario.device(pool.device), scenario.model(plan.model)
    factors = scenario.factors_for(pool.device)
    candidates: dict[tuple, object] = {}
    for serving in space_configs(pool_search_space(scenario, plan, pool), pool.serving.with_(spec_decode_draft_tokens=0)):
        keys = tuple(getattr(serving, k) for k in PREFILL_KEYS)
        if keys not in candidates and not serving.spec_decode_draft_tokens:
            candidates[keys] = serving
    if not candidates:
        return None
    # every candidate's rate and memory limit in one kernel call (pool_pair.prefill_rates)
    rates, limits = prefill_rates(device, model, list(candidates.values()), plan.workload, factors)
    best = None
    for (keys, serving), rate, limit in zip(candidates.items(), rates, limits):
        if limit < 1 or config_problems(device, model, serving):
            continue
        if np.isfinite(rate) and (best is None or rate > best[0]):
            best = (rate, keys)
    return None if best is None else dict(zip(PREFILL_KEYS, best[1]))


def pair_plan(scenario, plan, aggregated):
    """(the plan as a prefill/decode pair, the sizing it used) or (None, why not)."""
    if not aggregated.pools or not aggregated.point.exists:
        return None, "the aggregated search found no operating point"
    keys = best_prefill(scenario.for_plan(plan), plan, aggregated.pools[0])
    if keys is None:
        return None, "no configuration of the search space holds the model for prefill"
    probe = plan.with_(prefill_devices=1, decode_devices=1, spec_decode_draft_tokens=0, **keys)
    scoped = scenario.for_plan(probe)
    caps = pool_capacities(scoped, probe, with_acceptance(resolve_pools(probe), scoped.acceptance_for(plan.model)))
    pre, dec = caps
    if not (np.isfinite(pre.requests_per_s_per_device) and np.isfinite(dec.requests_per_s_per_device)
            and pre.requests_per_s_per_device > 0 and dec.requests_per_s_per_device > 0):
        return None, "no prefill/decode pair of the plan's space has an operating point"
    prefill_s = 1.0 / (pre.requests_per_s_per_device * pre.pool.serving.tensor_parallel * pre.pool.serving.expert_parallel)
    rho = prefill_utilization(plan, float(dec.point.ttft_s), prefill_s)
    ratio = device_ratio(dec.requests_per_s_per_device / (rho * pre.requests_per_s_per_device)) if rho > 0 else None
    if ratio is None:
        return None, "the TTFT target leaves no room for a prefill pool's wait"
    sizing = {"prefill_devices": ratio[0], "decode_devices": ratio[1], "prefill_utilization": rho,
              "prefill_requests_per_s_per_device": pre.requests_per_s_per_device,
              "decode_requests_per_s_per_device": dec.requests_per_s_per_device}
    return plan.with_(prefill_devices=ratio[0], decode_devices=ratio[1], spec_decode_draft_tokens=0, **keys), sizing


def better(plan, candidate, incumbent) -> bool:
    """Whether `candidate` beats `incumbent` by the plan's search objective (a result without it never does)."""
    key = plan.search_objective
    new, old = candidate.metric_or_none(key), incumbent.metric_or_none(key)
    if new is None:
        return False
    if old is None:
        return True
    return new < old if key.endswith("_usd") else new > old


def search_disaggregation(scenario, plan, aggregated, compute):
    """The plan's result with disaggregation priced as an option (module docstring); `compute(scenario,
    plan)` computes one plan (pipeline/compute.py). Unchanged where the plan is not eligible."""
    if not eligible(plan):
        return aggregated
    pair, sizing = pair_plan(scenario, plan, aggregated)
    if pair is None:
        info = {"chosen": False, "reason": sizing}
        return replace(aggregated, disaggregation=info)
    result = compute(scenario, pair)
    key = plan.search_objective
    chosen = better(plan, result, aggregated)
    info = dict(sizing, chosen=chosen, objective=key, disaggregated_objective_value=result.metric_or_none(key),
                aggregated_objective_value=aggregated.metric_or_none(key))
    note = disaggregation_note(plan, info)
    if chosen:   # the aggregated frontier stays the yardstick: the pair's share of it may pass 1
        share = share_of(float(result.point.tokens_per_s_per_device), aggregated.frontier)
        return replace(result, disaggregation=info, searched_plan=pair, frontier=aggregated.frontier,
                       frontier_share=share, warnings=tuple(dict.fromkeys(result.warnings + (note,))))
    return replace(aggregated, disaggregation=info, warnings=tuple(dict.fromkeys(aggregated.warnings + (note,))))


def disaggregation_note(plan, info: dict) -> str:
    """The plan note that says which of the two the search kept, with both objective values."""
    from ..core.number_format import money, number
    key = info["objective"]
    text = (lambda v: "none" if v is None else f"{money(v)} per Mtok") if key.endswith("_usd") else \
        (lambda v: "none" if v is None else f"{number(v, 4)} tokens/s per device")
    pair = (f"prefill/decode on {info['prefill_devices']}:{info['decode_devices']} devices (prefill pool at "
            f"{info['prefill_utilization']:.0%} of its capacity)")
    agg, dis = text(info["aggregated_objective_value"]), text(info["disaggregated_objective_value"])
    if info["chosen"]:
        return f"serving search chose {pair}: {dis}, against {agg} served aggregated"
    return f"serving search kept aggregated serving ({agg}): {pair} would give {dis}"
