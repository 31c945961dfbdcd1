"""The operating points of many serving configurations of one generated pool at once (docs/model.md,
"Serving search"): what `operating.operating_point` gives for each configuration typed into the pool, its
tokens/s per device, power and batch, from one vectorized kernel call instead of one call per configuration.

Per configuration, as `operating_point` computes it:
- with an interactivity target: the configuration's own batch grid (`search_batches` up to its memory
  limit), the largest feasible batch meeting the target;
- without: the pool's batch; where it does not fit, the memory limit (the rest queued: the point's
  tokens/s per device and power are those at the limit);
and no point where neither exists. The search re-evaluates its shortlist exactly with it.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..performance.curve import meets_target
from ..performance.frontier import CONFIG_COLUMNS, row_memory_limits, rows
from ..performance.generated import curve_of
from ..plan.pools import ResolvedPool
from ..plan.scenario import Scenario
from ..quantities.records import Plan, ServingConfig
from .operating import MAX_SEARCH_BATCH, search_batches, stacked_batches

Point = tuple[float, float, float]   # (tokens/s per device, power per device W, batch)


def exact_points(scenario: Scenario, plan: Plan, pool: ResolvedPool,
                 servings: list[ServingConfig], curves: dict | None = None) -> list[Point | None]:
    """Per configuration, its operating point in the pool as (tokens/s per device, power W, batch), or None
    where it has none. The pool has no measured curve. Configurations of one acceptance and mixed precision
    (a search's) share one kernel call. `curves` (a plan with an interactivity target): filled with, per
    configuration, a function giving the generated curve `operating.operating_point` reads for it (over its
    batch grid, `generated.generate_curve`'s), from the same kernel call's values."""
    out: list[Point | None] = [None] * len(servings)
    groups: dict = {}
    for i, s in enumerate(servings):
        groups.setdefault((s.spec_decode_acceptance, s.attention_weight_precision), []).append(i)
    for indices in groups.values():
        for i, point in zip(indices, _group_points(scenario, plan, pool, [servings[i] for i in indices], curves)):
            out[i] = point
    return out


def _group_points(scenario, plan, pool, servings, curves=None) -> list[Point | None]:
    """`exact_points` of configurations sharing one acceptance and mixed precision."""
    device, model, factors = scenario.device(pool.device), scenario.model(plan.model), scenario.factors_for(pool.device)
    evaluate = _evaluator(device, model, plan, servings, factors)
    if plan.has_target:
        return _target_points(device, model, factors, plan, servings, evaluate, curves)
    batch = np.array([[float(s.batch)] for s in servings])
    points = evaluate(np.arange(len(servings)), batch)
    out: list[Point | None] = [_point(points, i, 0, batch[i, 0]) if points.feasible[i, 0] else None
                               for i in range(len(servings))]
    limits = points.max_batch_by_memory[:, 0]
    queued = [i for i in range(len(servings))
              if out[i] is None and not points.feasible[i, 0] and np.isfinite(limits[i]) and 1 <= limits[i] < batch[i, 0]]
    if queued:   # served at the memory limit, the rest queued (operating._queued_point)
        at = np.array([[float(math.floor(limits[i]))] for i in queued])
        limited = evaluate(np.array(queued), at)
        for j, i in enumerate(queued):
            if limited.feasible[j, 0]:
                out[i] = _point(limited, j, 0, at[j, 0])
    return out


def _target_points(device, model, factors, plan, servings, evaluate, curves) -> list[Point | None]:
    """`_group_points` with an interactivity target: each configuration over its own batch grid."""
    # each configuration's memory limit (`generated.memory_limit`'s, the same values), all in one call
    limits = row_memory_limits(device, model, plan.workload, evaluate.columns,
                               attention_weight_precision=servings[0].attention_weight_precision, factors=factors)
    grids = [search_batches(max(limit if np.isfinite(limit) else MAX_SEARCH_BATCH, 1.0))
             for limit in map(float, limits[:, 0])]
    batches = stacked_batches(grids)
    points = evaluate(np.arange(len(servings)), batches)
    ok = points.feasible & meets_target(points.tokens_per_s_per_user, points.ttft_s,
                                        plan.min_tokens_per_s_per_user, plan.max_ttft_s)
    last = batches.shape[1] - 1 - np.argmax(ok[:, ::-1], axis=1)   # a row's padding repeats its last batch
    if curves is not None:
        for i, (serving, grid) in enumerate(zip(servings, grids)):
            curves[serving] = functools.partial(_curve, device, model, serving, plan.workload, grid, points, i)
    return [_point(points, i, int(last[i]), batches[i, last[i]]) if ok[i].any() else None
            for i in range(len(servings))]


def _curve(device, model, serving, workload, grid, points, i: int):
    """Configuration i's generated curve over its batch grid, from the kernel call's row i."""
    return curve_of(device, model, serving, workload, grid, points.row(i, grid.size))


def _evaluator(device, model, plan, servings, factors):
    """f(indices, batches [n, B]): the kernel's points of servings[indices], one row each."""
    columns = {c: np.array([getattr(s, c) for s in servings]) for c in CONFIG_COLUMNS}

    def evaluate(indices: np.ndarray, batches: np.ndarray):
        return rows(device, model, plan.workload, {c: v[indices] for c, v in columns.items()}, batches,
                    spec_decode_acceptance=servings[0].spec_decode_acceptance,
                    attention_weight_precision=servings[0].attention_weight_precision, factors=factors)
    evaluate.columns = columns   # type: ignore[attr-defined]
    return evaluate


def _point(points, i: int, j: int, batch) -> Point | None:
    """(tokens/s per device, power W, batch) of row i's j-th point; None where it serves no tokens."""
    tps = float(points.tokens_per_s_per_device[i, j])
    if not (np.isfinite(tps) and tps > 0):
        return None
    return tps, float(points.power_w[i, j]), float(batch)
