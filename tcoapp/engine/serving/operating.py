"""The operating point of a pool: from a measured curve or the generated one, at a batch or at the
largest batch meeting the plan's interactivity target (docs/model.md section 1). The pool
(`pools.ResolvedPool`) gives the device, curve and serving configuration; the plan the model,
workload and target."""
from __future__ import annotations

import functools
import math
from dataclasses import replace

import numpy as np

from ..performance.curve import CurveArrays, OperatingPoint, largest_batch_meeting, missing_point, point_at
from ..performance.device_power import nameplate_w
from ..performance.measured import evaluate_measured
from ..plan.pools import ResolvedPool, serve_pool, with_acceptance
from ..quantities.records import Plan
from ..plan.scenario import Scenario

TARGET_GRID_POINTS = 512
MAX_SEARCH_BATCH = 65536


def plan_curve(scenario: Scenario, plan: Plan, batch, pool: ResolvedPool | None = None) -> tuple[CurveArrays, float | np.ndarray]:
    """The efficiency curve of `pool` (its device, measured curve and serving configuration; the plan
    gives the model and workload) at `batch` [sequences], and the share of its devices that prefill
    (0 for a pool; one per batch for a prefill/decode plan drawn as a whole, `pool` None). Without
    `pool`: the plan as one pool of its own keys."""
    if pool is None and plan.is_disaggregated and not plan.curve:
        from ..performance.disaggregation import generate_disaggregated
        result = generate_disaggregated(
            scenario.device(plan.prefill_device or plan.device), scenario.device(plan.decode_device or plan.device),
            scenario.model(plan.model), scenario.serving_of(plan), plan.workload, batch, scenario.factors_for(plan.device))
        return result.curve, result.prefill_share
    pool = pool or with_acceptance((serve_pool(plan),), scenario.acceptance_for(plan.model))[0]
    device = scenario.device(pool.device)
    if pool.curve:
        curve = scenario.curves[pool.curve]
        devices = pool.serving.tensor_parallel * pool.serving.expert_parallel
        arrays = evaluate_measured(curve, batch, devices, device.idle_w, device.tdp_w)
        if nameplate_w(device) < device.tdp_w:   # a power limit: the points are measurements, not moved by it
            arrays = replace(arrays, notes=arrays.notes + (
                f"{device.name}'s power_limit_w ({nameplate_w(device):g} W) does not change the measured curve "
                f"{curve.name!r}: its points are measurements (it sets the servers' nameplate only)",))
        return arrays, 0.0
    from ..performance.generated import generate_curve
    return generate_curve(device, scenario.model(plan.model), pool.serving, plan.workload, batch,
                          scenario.factors_for(pool.device)), 0.0


def share_at(share, index: int) -> float:
    """The prefill share at the curve's `index`-th batch (a scalar share applies to every batch)."""
    return float(share) if np.ndim(share) == 0 else float(np.asarray(share)[index])


def search_batches(upper: float) -> np.ndarray:
    """Every integer batch up to 64, then a log grid up to `upper` (inclusive)."""
    return _search_batches(max(1.0, min(float(upper), MAX_SEARCH_BATCH))).copy()


def stacked_batches(grids) -> np.ndarray:
    """Batch grids as the rows of one array [n, width], each row filled past its end with its last batch (the
    same point again: whichever of the copies is chosen, its values and batch are the last batch's)."""
    width = max(grid.size for grid in grids)
    out = np.empty((len(grids), width))
    for i, grid in enumerate(grids):
        out[i, :grid.size] = grid
        out[i, grid.size:] = grid[-1]
    return out


@functools.lru_cache(maxsize=256)
def _search_batches(upper: float) -> np.ndarray:
    """`search_batches` of a clamped `upper` (kept: a search asks for the same grids again and again)."""
    small = np.arange(1, min(64, math.floor(upper)) + 1, dtype=float)
    large = np.unique(np.floor(np.geomspace(64, upper, TARGET_GRID_POINTS))) if upper > 64 else np.empty(0)
    return np.unique(np.concatenate([small, large, [math.floor(upper)]]))


def operating_point(scenario: Scenario, plan: Plan, pool: ResolvedPool | None = None,
                    target_curve=None) -> tuple[OperatingPoint, float]:
    """(operating point, prefill share of devices) of `pool` under the plan's workload and target: at
    its serving batch, or at the largest batch meeting the plan's interactivity target. Without `pool`:
    the plan as one pool of its own keys (a prefill/decode plan as a whole). `target_curve`: the generated
    pool's curve over its target grid, already computed (the serving search's re-evaluation of the
    configuration it chose, `exact_points`), read instead of computing it again."""
    if plan.has_target:
        return _point_for_target(scenario, plan, pool, target_curve)
    return _point_at_batch(scenario, plan, pool, float(pool.serving.batch if pool else plan.batch))


def _curve_for_target(scenario, plan, pool):
    """(the curve the target is looked for on, its prefill share): a measured curve over its batch range, a
    generated one over every batch up to its memory limit (`search_batches`)."""
    curve_name = pool.curve if pool else plan.curve
    if curve_name:
        lo, hi = scenario.curves[curve_name].batch_range
        grid = np.unique(np.concatenate([np.geomspace(lo, hi, TARGET_GRID_POINTS), [lo, hi]]))
    else:
        probe = _memory_limit(scenario, plan, pool)
        limit = probe if np.isfinite(probe) else MAX_SEARCH_BATCH
        grid = search_batches(max(limit, 1.0))
    return plan_curve(scenario, plan, grid, pool)


def _point_for_target(scenario, plan, pool, target_curve=None):
    reuse = target_curve is not None and pool is not None and not pool.curve
    curve, share = (target_curve, 0.0) if reuse else _curve_for_target(scenario, plan, pool)  # a pool's share: 0
    index = largest_batch_meeting(curve, plan.min_tokens_per_s_per_user, plan.max_ttft_s)
    if index is None:
        reason = _target_text(plan) + " is not met at any feasible batch"
        if not np.any(curve.feasible):
            reason += f" ({_reason(curve)})"
        return missing_point(curve.source, reason, curve.max_batch_by_memory), share_at(share, 0)
    return point_at(curve, index, (f"batch {curve.batch[index]:g} chosen for {_target_text(plan)}",)), share_at(share, index)


def _memory_limit(scenario: Scenario, plan: Plan, pool: ResolvedPool | None) -> float:
    """max_batch_by_memory [sequences] of the pool's generated curve (no batch enters it): read
    directly for one generated pool, from the curve at batch 1 for a prefill/decode plan drawn as a
    whole (`pool` None)."""
    if pool is None and plan.is_disaggregated:
        return plan_curve(scenario, plan, np.array([1.0]))[0].max_batch_by_memory
    pool = pool or serve_pool(plan)
    from ..performance.generated import memory_limit
    return memory_limit(scenario.device(pool.device), scenario.model(plan.model), pool.serving, plan.workload,
                        scenario.factors_for(pool.device))


def _target_text(plan: Plan) -> str:
    parts = []
    if plan.min_tokens_per_s_per_user is not None:
        parts.append(f">= {plan.min_tokens_per_s_per_user:g} tokens/s per user")
    if plan.max_ttft_s is not None:
        parts.append(f"TTFT <= {plan.max_ttft_s:g} s")
    return "the target " + " and ".join(parts)


def _point_at_batch(scenario, plan, pool, batch: float):
    curve, share = plan_curve(scenario, plan, np.array([batch]), pool)
    curve_name = pool.curve if pool else plan.curve
    share = share_at(share, 0)
    limit = curve.max_batch_by_memory
    if curve_name:
        notes = () if curve.feasible[0] else (
            f"batch {batch:g} is outside the measured range {_range(scenario.curves[curve_name])} "
            f"of curve {curve_name!r}: extrapolated",)
        return point_at(curve, 0, notes), share
    if curve.feasible[0]:
        return point_at(curve, 0), share
    if np.isfinite(limit) and 1 <= limit < batch:
        queued = _queued_point(scenario, plan, pool, batch, math.floor(limit))
        if queued is not None:
            return queued, share
    return missing_point(curve.source, f"infeasible: {_reason(curve)}", limit), share


def _reason(curve: CurveArrays) -> str:
    return "; ".join(curve.notes) or "the configuration does not fit"


def _range(curve) -> str:
    lo, hi = curve.batch_range
    return f"{lo:g}..{hi:g}"


def _queued_point(scenario, plan, pool, batch: float, limit: int) -> OperatingPoint | None:
    """Served at the memory limit, the rest queued: throughput saturates and TTFT grows.
    None where even the limit is infeasible (an impossible configuration, not a memory limit).

    Queued requests wait for running ones to finish: extra wait = queued / completion rate,
    completion rate = limit x tokens/s per user / output_tokens (requests/s of one replica).
    """
    curve, _ = plan_curve(scenario, plan, np.array([float(limit)]), pool)
    if not curve.feasible[0]:
        return None
    base = point_at(curve, 0)
    completions_per_s = limit * base.tokens_per_s_per_user / plan.output_tokens
    wait_s = (batch - limit) / completions_per_s if completions_per_s > 0 else float("inf")
    warning = (f"batch {batch:g} exceeds what fits in memory ({limit}): served at {limit} "
               f"with {batch - limit:g} sequences queued (+{wait_s:.3g} s to first token)")
    return OperatingPoint(
        batch=float(limit), tokens_per_s_per_device=base.tokens_per_s_per_device,
        tokens_per_s_per_user=base.tokens_per_s_per_user, ttft_s=base.ttft_s + wait_s,
        power_w=base.power_w, max_batch_by_memory=base.max_batch_by_memory, source=base.source,
        queued=True, warnings=base.warnings + (warning,), prefill_share=base.prefill_share)
