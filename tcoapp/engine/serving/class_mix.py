"""A serve pool serving a plan's request classes (docs/model.md, "Request classes"): its operating point
(one batch where every class's targets hold) and the serving search over its space (one configuration
that meets every class it serves).

With a target on any class, the pool runs at the largest batch where the batch fits in memory at the
99th percentile of its contexts and every class meets its own targets (tokens/s per user and TTFT at
its percentile); without one, at its typed batch (above the memory limit: at the limit, the rest queued).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..core.number_format import number
from ..performance.curve import OperatingPoint, missing_point
from ..performance.generated import config_problems
from ..performance.request_mix import MixCurve, mix_curve, mix_memory_limit
from ..plan.pools import ResolvedPool, with_acceptance
from ..plan.scenario import Scenario
from ..quantities.records import Plan
from .gain_spaces import GAIN_SPACES
from .objective import objective_score, objective_value
from .operating import search_batches
from .search import SearchOutcome, pool_search_space, space_configs

SOURCE = "generated:mix"


@dataclass(frozen=True)
class MixPoint:
    """Per class at the pool's operating point (arrays over the classes, in the plan's class order)."""

    tokens_per_s_per_user: np.ndarray
    ttft_s: np.ndarray
    device_time_share: np.ndarray
    requests_per_s_per_device: float
    max_batch_by_memory: float
    fixed_length_batch_limit: float


def _curve(scenario, plan, pool, loads, batch) -> MixCurve:
    return mix_curve(scenario.device(pool.device), scenario.model(plan.model), pool.serving, loads, batch,
                     scenario.factors_for(pool.device), plan.software_date)


def _has_target(loads) -> bool:
    return any(c.has_target for c in loads)


def mix_operating_point(scenario: Scenario, plan: Plan, pool: ResolvedPool, loads
                        ) -> tuple[OperatingPoint, MixPoint | None]:
    """(the pool's operating point per device, the classes' figures there); a missing point (None) where
    no batch serves the mix (module docstring)."""
    if pool.curve:
        return missing_point(SOURCE, f"pool {pool.name!r} uses measured curve {pool.curve!r}, measured at one request "
                                     "shape: request classes need the generated curve (clear the pool's curve)"), None
    device, model = scenario.device(pool.device), scenario.model(plan.model)
    limit, _ = mix_memory_limit(device, model, pool.serving, loads, scenario.factors_for(pool.device))
    problems = config_problems(device, model, pool.serving)
    if problems or not limit >= 1:
        return missing_point(SOURCE, "; ".join(problems) or _no_fit(model, device, pool), limit), None
    if _has_target(loads):
        curve = _curve(scenario, plan, pool, loads, search_batches(limit))
        ok = curve.meets_targets(loads)
        if not ok.any():
            return missing_point(SOURCE, "no batch meets every class's target: " + _misses(curve, loads),
                                 curve.max_batch_by_memory), None
        k = int(np.nonzero(ok)[0][-1])
        return _point(curve, k, (f"batch {curve.batch[k]:g} chosen for every class's target",)), _mix(curve, k)
    return _typed_batch_point(scenario, plan, pool, loads, limit)


def _typed_batch_point(scenario, plan, pool, loads, limit: float):
    batch = float(pool.serving.batch)
    if batch <= limit:
        curve = _curve(scenario, plan, pool, loads, np.array([batch]))
        return _point(curve, 0, ()), _mix(curve, 0)
    curve = _curve(scenario, plan, pool, loads, np.array([limit]))
    replica = pool.serving.tensor_parallel * pool.serving.expert_parallel
    wait_s = (batch - limit) / (float(curve.requests_per_s_per_device[0]) * replica)
    note = (f"batch {batch:g} exceeds what fits in memory at the 99th percentile of the classes' contexts ({limit:g}): "
            f"served at {limit:g} with {batch - limit:g} sequences queued (+{wait_s:.3g} s to first token)")
    curve = replace(curve, ttft_s=curve.ttft_s + wait_s)
    return replace(_point(curve, 0, (note,)), queued=True), _mix(curve, 0)


def _no_fit(model, device, pool) -> str:
    s = pool.serving
    return (f"{model.name} weights ({s.weight_precision}) plus the classes' KV cache at the 99th percentile of one "
            f"sequence's context do not fit in {s.tensor_parallel * s.expert_parallel} x {device.memory_gb:g} GB of "
            f"{device.name}")


def _misses(curve: MixCurve, loads) -> str:
    """Each targeted class's best figure over the feasible batches (what its target asked)."""
    parts = []
    fits = curve.feasible
    for k, c in enumerate(loads):
        if c.min_tokens_per_s_per_user is not None:
            best = np.max(np.where(fits, curve.tokens_per_s_per_user[k], -np.inf))
            parts.append(f"{c.name} reaches at most {number(best, 3)} tokens/s per user "
                         f"(target {c.min_tokens_per_s_per_user:g})")
        if c.max_ttft_s is not None:
            best = np.min(np.where(fits, curve.ttft_s[k], np.inf))
            parts.append(f"{c.name} TTFT at least {number(best, 3)} s (target {c.max_ttft_s:g} s)")
    return "; ".join(parts)


def _point(curve: MixCurve, k: int, notes) -> OperatingPoint:
    """The pool's point at the curve's k-th batch: the slowest class's tokens/s per user, the longest TTFT."""
    return OperatingPoint(batch=float(curve.batch[k]), tokens_per_s_per_device=float(curve.tokens_per_s_per_device[k]),
                          tokens_per_s_per_user=float(np.min(curve.tokens_per_s_per_user[:, k])),
                          ttft_s=float(np.max(curve.ttft_s[:, k])), power_w=float(curve.power_w[k]),
                          max_batch_by_memory=curve.max_batch_by_memory, source=SOURCE,
                          warnings=tuple(curve.notes) + tuple(notes), prefill_share=float(curve.prefill_share[k]))


def _mix(curve: MixCurve, k: int) -> MixPoint:
    return MixPoint(curve.tokens_per_s_per_user[:, k].copy(), curve.ttft_s[:, k].copy(),
                    curve.device_time_share[:, k].copy(), float(curve.requests_per_s_per_device[k]),
                    curve.max_batch_by_memory, curve.fixed_length_batch_limit)


def search_mix_pool(scenario: Scenario, plan: Plan, pool: ResolvedPool, loads
                    ) -> tuple[ResolvedPool, SearchOutcome | None]:
    """The serving search for a pool serving classes: every configuration of the pool's space at its
    operating point for the mix (`mix_operating_point`), scored by the plan's search objective; (the pool
    with the best configuration, the outcome), or the pool unchanged and None where none serves the mix.
    `plan`: the plan's equivalent single request (its objective, sizing and finance keys)."""
    pool = with_acceptance((pool,), scenario.acceptance_for(plan.model))[0]
    space = pool_search_space(scenario, plan, pool)
    configs = space_configs(space, pool.serving)
    found = []
    for serving in configs:
        point, _ = mix_operating_point(scenario, plan, replace(pool, serving=serving), loads)
        if point.exists:
            found.append((serving, point))
    if not found:
        return pool, None
    scores = objective_score(plan, pool, scenario.device(pool.device), np.array([p.tokens_per_s_per_device for _, p in found]),
                             np.array([p.power_w for _, p in found]))
    if not np.isfinite(scores).any():
        return pool, None
    i = int(np.argmax(np.where(np.isfinite(scores), scores, -np.inf)))
    serving, point = found[i]
    chosen = replace(serving, batch=int(round(point.batch)) if _has_target(loads) else serving.batch)
    batches = len(search_batches(point.max_batch_by_memory)) if _has_target(loads) else 1
    outcome = SearchOutcome(chosen, plan.search_objective, objective_value(plan, float(scores[i])), len(configs),
                            len(configs) * batches, len(configs), space.dropped_precisions,
                            scale_up_domain=int(scenario.device(pool.device).scale_up_domain),
                            within_gain_spaces=_best_within_gain_spaces(found, scores))
    return replace(pool, serving=chosen), outcome


def _best_within_gain_spaces(found, scores) -> tuple:
    """Per gain space (serving/gain_spaces.py), the best-scoring configuration of those the search evaluated that
    the space keeps, with its tokens/s per device at the mix's operating point; None where it keeps none. The
    search's own scores and order: where the choice is in the space, it is the space's best."""
    columns = {"kv_precision": np.array([s.kv_precision for s, _ in found]),
               "spec_decode_draft_tokens": np.array([s.spec_decode_draft_tokens for s, _ in found])}
    best: list[tuple | None] = []
    for keep in GAIN_SPACES:
        kept = np.where(np.asarray(keep(columns), bool) & np.isfinite(scores), scores, -np.inf)
        if not np.isfinite(kept).any():
            best.append(None)
            continue
        serving, point = found[int(np.argmax(kept))]
        best.append((serving, float(point.tokens_per_s_per_device)))
    return tuple(best)
