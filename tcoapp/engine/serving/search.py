"""Serving search: the best configuration of a pool at the plan's target (docs/model.md, "Serving
search").

For a `serve` pool of a plan with `serving_search = auto`:
1. sweep the pool's search space (`serving/space.py`) x the batch in one vectorized frontier sweep
   (`performance/frontier.sweep`, the roofline kernel over every feasible point: a batch beyond a
   configuration's memory limit is not evaluated);
2. per configuration take the point a typed configuration would run at: the largest feasible batch
   meeting the interactivity targets (no target: the plan's batch, or the memory limit below it
   where it does not fit: the rest is queued);
3. score each configuration by `search_objective` (`serving/objective.py`);
4. re-evaluate the best few (and the typed configuration, where it lies in the space) exactly as if
   typed (the operating points the plan's own operating-point path gives them, all in one kernel call:
   `serving/exact_points.py`), and keep the best. The reported point is therefore the point the
   chosen configuration gives when frozen.
A pool with a measured curve is not searched (its configuration is the measured one).

A `decode` pool of a prefill/decode pair has no prefill in its cycle, so the frontier sweep does
not describe it: `search_by_evaluation` runs its exact capacity for every configuration of the
space (each vectorized over the batch) and keeps the best by the same objective, at full load.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
import itertools
from typing import Callable, Mapping

import numpy as np

from .operating import MAX_SEARCH_BATCH, search_batches
from ..performance.curve import meets_target
from ..performance.frontier import SweepResult, sweep
from ..plan.pools import ResolvedPool, with_acceptance
from ..quantities.records import Plan, ServingConfig
from ..plan.scenario import Scenario
from .exact_points import exact_points
from .objective import objective_score, objective_value
from .space import SearchSpace, search_space

REFINED_CONFIGURATIONS = 8     # configurations re-evaluated exactly after the sweep ranks them
NEAR_BEST_FRACTION = 0.02      # ... and every other one within 2 % of the sweep's best


@dataclass(frozen=True)
class SearchOutcome:
    """What the search chose for one pool, and how hard it looked."""

    serving: ServingConfig      # the chosen configuration (its batch: the chosen batch)
    objective: str
    objective_value: float      # in the objective's unit (USD/Mtok or tokens/s per device)
    configurations: int         # configurations swept (batch not counted)
    points: int                 # (configuration, batch) points of the sweep's grid (those past a configuration's
                                # memory limit counted, not evaluated)
    refined: int                # configurations re-evaluated exactly
    not_run: tuple[str, ...] = ()   # precisions / draft tokens asked for that no serving stack runs here (left out)
    sweep: EvaluatedSweep | None = field(default=None, repr=False, compare=False)  # what was swept
    scale_up_domain: int = 0    # the device's scale-up domain (0: not stated), for the replica's span
    ranked: Ranked | None = field(default=None, repr=False, compare=False)  # how the sweep ranked, and the exact points
    # with an interactivity target: a function giving the chosen configuration's generated curve over its batch
    # grid, as its re-evaluation computed it (what `operating_point` reads for it: fleet.py passes it)
    chosen_curve: Callable | None = field(default=None, repr=False, compare=False)
    # a pool serving request classes: per gain space (serving/gain_spaces.py), the best configuration it keeps and
    # its tokens/s per device at the mix's operating point, or None (pipeline/config_gains.py)
    within_gain_spaces: tuple = field(default=(), repr=False, compare=False)

    def text(self) -> str:
        """What the search chose, in words (configuration, the devices one replica spans and the
        scale-up domains where it spans several, batch, objective value in its unit)."""
        s = self.serving
        parts = [f"TP{s.tensor_parallel}"] + ([f"EP{s.expert_parallel}"] if s.expert_parallel > 1 else [])
        parts += [replica_span_text(s.tensor_parallel * s.expert_parallel, self.scale_up_domain)]
        parts += ["attention-DP"] if s.attention_dp else []
        parts += [f"{s.weight_precision} weights", f"{s.kv_precision} KV"]
        if s.spec_decode_draft_tokens:
            parts.append(f"{s.spec_decode_draft_tokens} draft tokens")
        from ..core.number_format import money, number
        from ..quantities.metrics import METRIC_BY_KEY
        label = METRIC_BY_KEY[self.objective].label.lower() if self.objective in METRIC_BY_KEY else self.objective
        value = (f"{money(self.objective_value)} per Mtok" if self.objective.endswith("_usd")
                 else f"{number(self.objective_value, 4)} tokens/s per device")
        left_out = f"; left out, not run by a serving stack here: {', '.join(self.not_run)}" if self.not_run else ""
        return (f"{', '.join(parts)}, batch {s.batch:g}: lowest {label} ({value}) "
                f"of {self.configurations:,} configurations x batch ({self.points:,} points){left_out}"
                if self.objective.endswith("_usd") else
                f"{', '.join(parts)}, batch {s.batch:g}: most {label} ({value}) "
                f"of {self.configurations:,} configurations x batch ({self.points:,} points){left_out}")


def replica_span_text(devices: int, scale_up_domain: int) -> str:
    """"1 device per replica", "8 devices per replica", "32 devices per replica over 4 scale-up domains"."""
    text = f"{devices} device{'s' if devices != 1 else ''} per replica"
    if scale_up_domain and devices > scale_up_domain:
        text += f" over {-(-devices // scale_up_domain)} scale-up domains"
    return text


def pool_search_space(scenario: Scenario, plan: Plan, pool: ResolvedPool) -> SearchSpace:
    """The serving configurations the search tries for the pool (its device, the plan's model)."""
    device, model = scenario.device(pool.device), scenario.model(plan.model)
    count = pool.device_count if plan.sizing_mode == "devices" else None
    return search_space(plan, device, model, count, pool.serving.weight_precision, pool.serving.kv_precision)


@dataclass(frozen=True)
class EvaluatedSweep:
    """A search's sweep and what decided it (device, model, workload, batches, space, acceptance,
    mixed precision, factors): another search of the same pool over the same inputs (the plan's
    frontier, `serving/frontier_share.py`) reuses it instead of sweeping again."""

    key: tuple
    result: SweepResult


@dataclass(frozen=True)
class Ranked:
    """How a search ranked its sweep, kept for `best_within` on the same plan and pool: the pool searched, per
    configuration the flat index of its pick (-1: none) and its score, every configuration re-evaluated
    exactly so far (configuration -> (score, batch, tokens/s per device) or None where it has no operating
    point), and the shortlists of restricted spaces made so far ((keep, the typed configuration) -> shortlist:
    the search makes those of its `keeps`, and `best_within_each` finds them)."""

    scenario: Scenario
    plan: Plan
    pool: ResolvedPool
    picks: np.ndarray
    scores: np.ndarray
    exact: dict = field(default_factory=dict)
    shortlists: dict = field(default_factory=dict)


def search_serve_pool(scenario: Scenario, plan: Plan, pool: ResolvedPool, swept: EvaluatedSweep | None = None,
                      keeps=()) -> tuple[ResolvedPool, SearchOutcome | None]:
    """(the pool with the chosen serving configuration, the outcome); the pool unchanged and None
    where no configuration of the space has an operating point. `swept`: a sweep already evaluated
    (another search's `SearchOutcome.sweep`), used where it was made from the same inputs. `keeps`: restricted
    spaces whose best a caller will ask for (`best_within_each`'s): their shortlists are re-evaluated with the
    search's own, in one kernel call and one objective call, and `best_within_each` finds them evaluated."""
    pool = with_acceptance((pool,), scenario.acceptance_for(plan.model))[0]  # empty: the published rate
    space = pool_search_space(scenario, plan, pool)
    key = _sweep_key(scenario, plan, pool, space)
    result = swept.result if swept is not None and swept.key == key else _sweep(scenario, plan, pool, space)
    device = scenario.device(pool.device)
    ranked = _ranked(scenario, plan, pool, device, result, space)
    candidates = _shortlist(ranked.scores, result, ranked.picks, pool.serving, space, plan.has_target)
    kept = [c for keep in keeps for c in _kept_shortlist(ranked, result, pool.serving, space, plan, keep)]
    curves: dict = {}
    _evaluate_exact(scenario, plan, pool, device, candidates + kept, ranked.exact, curves)
    best = _best_of(plan, candidates, ranked.exact)
    if best is None:
        return pool, None
    outcome = SearchOutcome(best[1], plan.search_objective, objective_value(plan, best[0]), len(ranked.scores),
                            result.size, len(candidates), space.dropped_precisions, EvaluatedSweep(key, result),
                            int(device.scale_up_domain), ranked, curves.get(best[3]))
    return replace(pool, serving=best[1]), outcome


def _ranked(scenario, plan, pool, device, result: SweepResult, space: SearchSpace) -> Ranked:
    """Per configuration of the sweep, its pick (the point a typed configuration would run at) and its score (NaN
    without a pick; the objective, elementwise, computed for the picks only)."""
    picks = _picks(plan, result, _batch_count(plan, pool), space)
    scores = np.full(picks.shape, np.nan)
    at = picks[picks >= 0]
    if at.size:
        scores[picks >= 0] = objective_score(plan, pool, device, result.tokens_per_s_per_device[at], result.power_w[at])
    return Ranked(scenario, plan, pool, picks, scores)


def _evaluate_exact(scenario, plan, pool, device, candidates, exact: dict, curves: dict | None = None) -> None:
    """Re-evaluate the candidates not yet in `exact` as typed (their operating points in one kernel call, their
    objectives in one call): `exact[configuration]` = (score, batch, tokens/s per device), or None where it has no
    operating point; `curves`: filled as `exact_points` fills it."""
    new = [serving for serving in dict.fromkeys(candidates) if serving not in exact]
    points: list[tuple[ServingConfig, tuple[float, float, float]]] = []
    for serving, point in zip(new, exact_points(scenario, plan, pool, new, curves)):   # one kernel call (exact_points.py)
        if point is None:
            exact[serving] = None
        else:
            points.append((serving, point))
    if points:
        scores = objective_score(plan, pool, device, np.array([p[0] for _, p in points]), np.array([p[1] for _, p in points]))
        exact.update((serving, (float(score), point[2], point[0])) for (serving, point), score in zip(points, scores))


def _best_of(plan, candidates, exact: dict) -> tuple[float, ServingConfig, float, ServingConfig] | None:
    """(score, configuration, its tokens/s per device, the candidate as listed) of the best evaluated candidate (the
    first of equals), or None."""
    best = None
    for serving in candidates:
        found = exact[serving]
        if found is not None and np.isfinite(found[0]) and (best is None or found[0] > best[0]):
            batch = int(round(found[1])) if plan.has_target else serving.batch
            best = (found[0], replace(serving, batch=batch), found[2], serving)
    return best


def best_within(scenario: Scenario, plan: Plan, pool: ResolvedPool, outcome: SearchOutcome,
                keep: Callable[[Mapping[str, np.ndarray]], np.ndarray]) -> ServingConfig | None:
    """The configuration the search would have chosen for `pool` had its space held only the configurations
    `keep(configurations)` marks (a bool per configuration of the sweep's columns), from the sweep `outcome`
    already evaluated and re-evaluated exactly as any search's shortlist; None where none of them has an
    operating point (e.g. the target is met only with draft tokens)."""
    return best_within_each(scenario, plan, pool, outcome, (keep,))[0]


def best_within_each(scenario: Scenario, plan: Plan, pool: ResolvedPool, outcome: SearchOutcome,
                     keeps) -> list[ServingConfig | None]:
    """`best_within` for each of several `keeps` (`best_points_within_each` without the points)."""
    return [None if best is None else best[0] for best in best_points_within_each(scenario, plan, pool, outcome, keeps)]


def best_points_within_each(scenario: Scenario, plan: Plan, pool: ResolvedPool, outcome: SearchOutcome,
                            keeps) -> list[tuple[ServingConfig, float] | None]:
    """`best_within` for each of several `keeps`, with its tokens/s per device (the operating point the
    configuration gives typed into `pool`), their shortlists re-evaluated together (one objective call).
    The sweep's picks and scores are the search's own (a configuration's score does not depend on which others
    are kept), and a configuration the search (or an earlier call) already re-evaluated exactly for the same plan
    and pool is not evaluated again."""
    if outcome.sweep is None:
        return [None for _ in keeps]
    result, space = outcome.sweep.result, pool_search_space(scenario, plan, pool)
    device = scenario.device(pool.device)
    ranked = outcome.ranked
    searched = with_acceptance((pool,), scenario.acceptance_for(plan.model))[0]
    if ranked is None or ranked.scenario is not scenario or ranked.plan != plan or ranked.pool != searched:
        ranked = _ranked(scenario, plan, pool, device, result, space)
    shortlists = [_kept_shortlist(ranked, result, pool.serving, space, plan, keep) for keep in keeps]
    _evaluate_exact(scenario, plan, pool, device, [c for shortlist in shortlists for c in shortlist], ranked.exact)
    return [None if (best := _best_of(plan, shortlist, ranked.exact)) is None else (best[1], best[2])
            for shortlist in shortlists]


def _kept_shortlist(ranked: Ranked, result: SweepResult, typed: ServingConfig, space: SearchSpace, plan: Plan,
                    keep) -> list[ServingConfig]:
    """The shortlist of the search's ranking held to the configurations `keep` marks (made once per ranking, keep
    and typed configuration: `Ranked.shortlists`)."""
    made = ranked.shortlists.get((keep, typed))
    if made is not None:
        return list(made)
    kept = np.asarray(keep(result.configurations), bool)
    picks, scores = np.where(kept, ranked.picks, -1), np.where(kept & (ranked.picks >= 0), ranked.scores, np.nan)
    typed_kept = bool(keep({k: np.array([getattr(typed, k)]) for k in result.configurations})[0])
    shortlist = _shortlist(scores, result, picks, typed, space, plan.has_target, typed_kept)
    ranked.shortlists[(keep, typed)] = tuple(shortlist)
    return shortlist


def _batch_count(plan: Plan, pool: ResolvedPool) -> int:
    return len(_batches(plan, pool))


def _batches(plan: Plan, pool: ResolvedPool) -> np.ndarray:
    """With a target: every batch up to the largest searched. Without: up to the plan's batch (a
    configuration where it does not fit serves at its memory limit and queues the rest, as typed)."""
    return search_batches(_batch_upper(plan, pool))


def _batch_upper(plan: Plan, pool: ResolvedPool) -> float:
    return MAX_SEARCH_BATCH if plan.has_target else float(pool.serving.batch)


def _sweep_key(scenario, plan, pool, space: SearchSpace) -> tuple:
    """Everything `_sweep` depends on (two searches with equal keys sweep the same points)."""
    return (scenario.device(pool.device), scenario.model(plan.model), plan.workload, _batch_upper(plan, pool), space,
            pool.serving.spec_decode_acceptance, pool.serving.attention_weight_precision, scenario.factors_for(pool.device))


def _sweep(scenario, plan, pool, space: SearchSpace) -> SweepResult:
    device, model = scenario.device(pool.device), scenario.model(plan.model)
    return sweep(device, model, plan.workload, batches=_batches(plan, pool), tensor_parallel=space.tensor_parallel,
                 expert_parallel=space.expert_parallel, attention_dp=space.attention_dp,
                 weight_precisions=space.weight_precisions, kv_precisions=space.kv_precisions,
                 spec_decode_draft_tokens=space.spec_decode_draft_tokens,
                 spec_decode_acceptance=pool.serving.spec_decode_acceptance, parallel_pairs=space.pairs,
                 attention_weight_precision=pool.serving.attention_weight_precision,
                 factors=scenario.factors_for(pool.device), feasible_only=True)   # the search reads no other point


def _picks(plan: Plan, result: SweepResult, n_b: int, space: SearchSpace | None = None) -> np.ndarray:
    """Per configuration, the flat index of the largest feasible batch meeting the targets (-1: none);
    a replica larger than the pool (`space.max_devices`) is not feasible."""
    ok = result.feasible.copy()
    if space is not None:
        ok &= result.per_point(space.fits(result.configurations["tensor_parallel"],
                                          result.configurations["expert_parallel"]))
    if plan.has_target:
        ok &= meets_target(result.tokens_per_s_per_user, result.ttft_s, plan.min_tokens_per_s_per_user, plan.max_ttft_s)
    ok = ok.reshape(-1, n_b)
    last = n_b - 1 - np.argmax(ok[:, ::-1], axis=1)
    flat = np.arange(ok.shape[0]) * n_b + last
    return np.where(ok.any(axis=1), flat, -1)


def _shortlist(scores, result: SweepResult, picks, typed: ServingConfig, space: SearchSpace,
               batch_searched: bool, typed_kept: bool = True) -> list[ServingConfig]:
    """The configurations re-evaluated exactly: the best few by the sweep's score, those within
    NEAR_BEST_FRACTION of the best, and the typed configuration where it lies in the space (and, for a
    restricted space, is kept: `typed_kept`)."""
    order = np.argsort(-np.nan_to_num(scores, nan=-np.inf), kind="stable")
    order = order[np.isfinite(scores[order])]
    chosen = order[:REFINED_CONFIGURATIONS]
    if order.size:
        top = scores[order[0]]
        margin = NEAR_BEST_FRACTION * abs(top)
        rest = order[REFINED_CONFIGURATIONS:]
        chosen = np.concatenate([chosen, rest[scores[rest] >= top - margin]])
    configs = [_config(result, int(picks[i]), typed, batch_searched) for i in chosen]
    if typed_kept and _in_space(typed, space) and typed not in configs:
        configs.append(typed)
    return configs


def _config(result: SweepResult, flat_index: int, typed: ServingConfig, batch_searched: bool) -> ServingConfig:
    """Point `flat_index`'s configuration; its batch where the batch is searched, else the typed one."""
    values = result.config(flat_index)
    swept_batch = values.pop("batch")
    batch = int(round(float(swept_batch))) if batch_searched else typed.batch
    return replace(typed, batch=batch, **values)


def _in_space(serving: ServingConfig, space: SearchSpace) -> bool:
    return ((serving.tensor_parallel, serving.expert_parallel) in space.pairs
            and bool(serving.attention_dp) in space.attention_dp and serving.weight_precision in space.weight_precisions
            and serving.kv_precision in space.kv_precisions
            and serving.spec_decode_draft_tokens in space.spec_decode_draft_tokens)


def space_configs(space: SearchSpace, typed: ServingConfig) -> list[ServingConfig]:
    """Every configuration of the space that fits in the pool, the typed batch and acceptance kept."""
    return [replace(typed, tensor_parallel=tp, expert_parallel=ep, attention_dp=adp, weight_precision=wp,
                    kv_precision=kv, spec_decode_draft_tokens=k)
            for (tp, ep), adp, wp, kv, k in itertools.product(space.pairs, space.attention_dp, space.weight_precisions,
                                                             space.kv_precisions, space.spec_decode_draft_tokens)
            if space.fits(tp, ep)]


def search_by_evaluation(scenario: Scenario, plan: Plan, pool: ResolvedPool,
                         evaluate: Callable[[list[ResolvedPool]], list[tuple[float, float, float] | None]]
                         ) -> tuple[ResolvedPool, SearchOutcome | None]:
    """Exhaustive search with an exact evaluator: `evaluate(pools)` gives, per pool (one per configuration of the
    space, in one call), (tokens/s per device, power per device W, batch) of the pool at full load, or None where
    it has no operating point."""
    pool = with_acceptance((pool,), scenario.acceptance_for(plan.model))[0]  # empty: the published rate
    space = pool_search_space(scenario, plan, pool)
    device = scenario.device(pool.device)
    configs = space_configs(space, pool.serving)
    found: list[tuple[ServingConfig, tuple[float, float, float]]] = []
    for serving, point in zip(configs, evaluate([replace(pool, serving=s) for s in configs])):
        if point is not None:
            found.append((serving, point))
    if not found:
        return pool, None
    # every configuration's objective in one call (it reads only the point's tokens/s and power, and
    # the pool's count, racking and ownership, which the configurations share)
    scores = objective_score(plan, pool, device, np.array([p[0] for _, p in found], float),
                             np.array([p[1] for _, p in found], float))
    finite = np.isfinite(scores)
    if not finite.any():
        return pool, None
    i = int(np.argmax(np.where(finite, scores, -np.inf)))   # the first of equals, as the configurations are listed
    serving, point = found[i]
    chosen = replace(serving, batch=int(round(point[2])) if plan.has_target else serving.batch)
    outcome = SearchOutcome(chosen, plan.search_objective, objective_value(plan, float(scores[i])), len(configs),
                            len(configs) * _batch_count(plan, pool), len(configs), space.dropped_precisions,
                            scale_up_domain=int(device.scale_up_domain))
    return replace(pool, serving=chosen), outcome
