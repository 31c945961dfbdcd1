"""Monte Carlo over a scenario's Uncertainty rows (docs/model.md, "Uncertainty").

`simulate(scenario, draws, seed)` computes every plan once (the deterministic result), draws one
quantile per (input stream, draw) with common random numbers (`sampling.py`), and pushes each plan's
draws through the engine in vectorized calls (`plan_draws.py`), CHUNK_DRAWS draws at a time: memory
does not grow with the number of draws, `should_cancel()` is asked before every (chunk, plan) and
`progress(done, total)` told after each. By default the draws include the model's own error in each
generated pool's throughput (`model_error.py`: components shared per architecture and stack and per
configuration, drawn as streams like the rows'); `model_error=False` draws the rows alone.

The draws do not depend on the chunking: each stream's numpy Generator gives its doubles in order
whatever the chunk sizes, and the engine is elementwise over draws, so the same seed gives the same
draws (and numbers) as one call over all of them.

Up to KEEP_DRAWS draws the run keeps every draw (`Simulation.plans`: per-draw arrays) and its
summaries are taken over the arrays. Above, the plans keep their first KEEP_DRAWS draws (for charts,
rank correlations and the draws table) and the summaries (mean, percentiles, share defined,
probabilities) stream over all draws, exactly (`streaming.py`; percentiles may take further passes
over the same draws, `exact_percentiles.py`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Mapping

import numpy as np

from ..pipeline.compute import PlanResult, compute_plan
from ..core.errors import Cancelled, Problem, ValidationError, raise_if, shown
from .model_error import ACCEPTANCE_KEY, OWN_ROW_KEY, pool_errors, standard_normal, stream_names
from .plan_draws import PlanDraws, joined, simulate_plan, with_irr
from .references import uncertainty_problems
from .sampling import MAX_DRAWS, rows_for_plan, stream_generators
from .statistics import SUMMARY_METRICS, prob_positive, ranked, share_higher, summary
from .streaming import MetricStream

DEFAULT_DRAWS = 10_000
DEFAULT_SEED = 0
CHUNK_DRAWS = 25_000      # draws per engine call: ~0.2 s per plan on one core, ~50 MB
KEEP_DRAWS = 100_000      # per-draw arrays kept for charts and tables (the first draws of the run)


@dataclass(frozen=True)
class Simulation:
    draws: int
    seed: int
    plans: tuple[PlanDraws, ...]                       # per-draw arrays of the first `kept` draws
    summaries: tuple[Mapping[str, Mapping[str, float | None]], ...]   # per plan: SUMMARY_METRICS over all draws
    prob_npv_positive: tuple[float, ...]                                # per plan, over all draws
    prob_higher_npv: Mapping[tuple[str, str], float]                    # (a, b): P(NPV a > NPV b), all draws

    @property
    def kept(self) -> int:
        """The number of draws in the per-draw arrays (all of them up to KEEP_DRAWS)."""
        return min(self.draws, KEEP_DRAWS)

    def plan(self, name: str) -> PlanDraws:
        """The simulated draws of the plan of that name."""
        return next(p for p in self.plans if p.name == name)

    def _index(self, name: str) -> int:
        return next(i for i, p in enumerate(self.plans) if p.name == name)

    def summary(self, name: str, key: str) -> Mapping[str, float | None]:
        """{"mean", "p5", ..., "p95", "share_defined"} of a SUMMARY_METRICS metric over every draw."""
        return self.summaries[self._index(name)][key]

    def prob_positive(self, name: str) -> float:
        """P(NPV > 0) over every draw."""
        return self.prob_npv_positive[self._index(name)]

    def prob_higher(self, a: str, b: str) -> float:
        """P(plan a's NPV > plan b's) over every (paired) draw."""
        return self.prob_higher_npv[(a, b)]


def check_run(draws, seed) -> None:
    """draws: a whole number 1..MAX_DRAWS; seed: a whole number >= 0."""
    problems = []
    if isinstance(draws, bool) or not isinstance(draws, int) or not 1 <= draws <= MAX_DRAWS:
        problems.append(Problem("draws", "", f"= {shown(draws)}: must be a whole number between 1 and {MAX_DRAWS:,}"))
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        problems.append(Problem("seed", "", f"= {shown(seed)}: must be a whole number >= 0"))
    raise_if(problems)


def simulate(scenario, draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
             results: tuple[PlanResult, ...] | None = None,
             progress: Callable[[int, int], None] | None = None,
             should_cancel: Callable[[], bool] | None = None,
             model_error: bool = True) -> Simulation:
    """Every plan's metrics over `draws` draws of its uncertain inputs and (`model_error`, the default)
    of the model's own error in each generated pool's throughput (`model_error.py`; see module docstring).

    `results`: the plans' deterministic results where already computed (the GUI's), else computed here.
    `progress(done, total)`: (chunk, plan) steps; a further percentile pass adds its steps to `total`.
    Raises ValidationError for bad rows or arguments, Cancelled when `should_cancel()` turns true.
    """
    check_run(draws, seed)
    problems = uncertainty_problems(scenario)
    if problems:
        raise ValidationError(problems)
    run = _Run(scenario, draws, seed, results, progress, should_cancel, model_error)
    plans, streams, higher = _first_pass(run, draws)
    if streams is None:
        return _from_arrays(draws, seed, plans)
    _refine(run, streams)
    names = [p.name for p in plans]
    return Simulation(draws, seed, plans,
                      tuple({k: s.summary() for k, s in plan.items()} for plan in streams),
                      tuple(plan["npv_usd"].prob_positive() for plan in streams),
                      {(names[a], names[b]): count / draws for (a, b), count in higher.items()})


def _first_pass(run, draws: int):
    """(the kept draws per plan, the metric streams, the pairwise counts) after one pass over every chunk;
    the streams None where every draw is kept (the summaries are then over the arrays)."""
    kept = min(draws, KEEP_DRAWS)
    parts: list[list[PlanDraws]] = [[] for _ in run.scenario.plans]
    streams: list[dict[str, MetricStream]] | None = None
    higher: dict[tuple[int, int], int] = {}
    plans = None
    for start, chunk in run.chunks():
        rest = chunk
        if start < kept:
            rest, whole = _keep(parts, chunk, start, kept, run.size(start))
            if whole is not None:
                plans = whole
                if draws <= KEEP_DRAWS:
                    return plans, None, higher
                streams = [{k: MetricStream(k, p.metric(k)) for k in SUMMARY_METRICS} for p in plans]
                _feed(streams, higher, plans)
        if rest:
            _feed(streams, higher, rest)
    return plans, streams, higher


def _keep(parts, chunk, start: int, kept: int, size: int):
    """The chunk's draws before `kept` appended to `parts`; (the draws after it, the kept draws joined once
    the chunk reaches `kept`, else None)."""
    for i, p in enumerate(chunk):
        parts[i].append(p.head(kept - start))
    rest = [p.tail(kept - start) for p in chunk] if start + size > kept else []
    return rest, (tuple(joined(ps) for ps in parts) if start + size >= kept else None)


def _refine(run, streams) -> None:
    """Further passes over the same draws until every stream's percentiles are exact."""
    finished = [s.finish_pass() for plan in streams for s in plan.values()]
    while not all(finished):
        for _, chunk in run.chunks(again=True):
            for plan_streams, p in zip(streams, chunk):
                for key, s in plan_streams.items():
                    s.refine(p.metric(key))
        finished = [s.finish_refinement() for plan in streams for s in plan.values()]


def _from_arrays(draws: int, seed: int, plans: tuple[PlanDraws, ...]) -> Simulation:
    """Every draw kept: the summaries over the arrays."""
    npv = [ranked(p.metric("npv_usd")) for p in plans]   # once per plan, not once per pair
    return Simulation(draws, seed, plans,
                      tuple({k: summary(p.metric(k), k) for k in SUMMARY_METRICS} for p in plans),
                      tuple(prob_positive(p.metric("npv_usd")) for p in plans),
                      {(a.name, b.name): share_higher(npv[i], npv[j])
                       for i, a in enumerate(plans) for j, b in enumerate(plans) if a is not b})


def _feed(streams, higher: dict, chunk) -> None:
    """A chunk's draws into the metric streams and the pairwise counts."""
    for plan_streams, p in zip(streams, chunk):
        for key, s in plan_streams.items():
            s.add(p.metric(key))
    npv = [np.nan_to_num(np.asarray(p.metric("npv_usd"), float), nan=-np.inf) for p in chunk]
    for a in range(len(chunk)):
        for b in range(len(chunk)):
            if a != b:
                higher[(a, b)] = higher.get((a, b), 0) + int(np.count_nonzero(npv[a] > npv[b]))


class _Run:
    """The chunks of one run, each a PlanDraws per plan; the same draws on every pass."""

    def __init__(self, scenario, draws, seed, results, progress, should_cancel, model_error=True):
        self.scenario, self.draws, self.seed = scenario, draws, seed
        self.results, self.progress, self.should_cancel = results, progress, should_cancel
        self.bases: dict[int, PlanResult] = {}
        self.rows = [rows_for_plan(scenario.uncertainty, plan.name) for plan in scenario.plans]
        self.errors = [self._errors(i, plan) if model_error else () for i, plan in enumerate(scenario.plans)]
        self.error_streams = stream_names(e for errors in self.errors for e in errors)
        self.names = [row.stream for row in scenario.uncertainty] + self.error_streams
        self.steps = -(-draws // CHUNK_DRAWS) * len(scenario.plans)
        self.total, self.done = self.steps, 0

    def size(self, start: int) -> int:
        return min(CHUNK_DRAWS, self.draws - start)

    def chunks(self, again: bool = False):
        if again:
            self.total += self.steps
        generators = stream_generators(self.names, self.seed)
        for start in range(0, self.draws, CHUNK_DRAWS):
            size = self.size(start)
            quantiles = {name: g.random(size) for name, g in generators.items()}
            normals = {name: standard_normal(quantiles[name]) for name in self.error_streams}
            row_values: dict = {}
            out: list = []
            owners: list[int] = []
            flows: list = []   # each plan's flows, its IRRs found for every plan at once (plan_draws.with_irr)
            for index, plan in enumerate(self.scenario.plans):
                if self.should_cancel is not None and self.should_cancel():
                    raise Cancelled("simulation cancelled")
                before = len(flows)
                out.append(simulate_plan(self.scenario, plan, self._base(index), self.rows[index], quantiles, size,
                                         row_values, self.errors[index], normals, irr_later=flows))
                owners += [index] * (len(flows) - before)
                self.done += 1
                if self.progress is not None:
                    self.progress(self.done, self.total)
            yield start, with_irr(out, owners, flows)

    def _errors(self, index: int, plan) -> tuple:
        """The plan's model error, unless its Uncertainty rows draw `factor.model_error` themselves."""
        if any(row.key == OWN_ROW_KEY for row in self.rows[index]):
            return ()
        draws_acceptance = any(row.key == ACCEPTANCE_KEY for row in self.rows[index])
        return pool_errors(self.scenario.for_plan(plan), plan, self._base(index), draws_acceptance)

    def _base(self, index: int) -> PlanResult:
        if index not in self.bases:
            self.bases[index] = (self.results[index] if self.results is not None
                                 else compute_plan(self.scenario, self.scenario.plans[index]))
        return self.bases[index]
