"""Monte Carlo over a scenario's Uncertainty rows (docs/model.md, "Uncertainty"; DESIGN section 14).

`simulate(scenario, draws, seed)` computes every plan once (the deterministic result), draws one
quantile per (input stream, draw) with common random numbers (`sampling.py`), and pushes each plan's
draws through the engine in one vectorized call (`plan_draws.py`): no Python loop over draws. The
loop is over plans, with `progress(done, total)` after each and `should_cancel()` before each.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ..compute import PlanResult, compute_plan
from ..errors import Cancelled, Problem, ValidationError, raise_if
from .plan_draws import PlanDraws, simulate_plan
from .references import simulation_problems, uncertainty_problems
from .sampling import MAX_DRAWS, rows_for_plan, stream_quantiles

DEFAULT_DRAWS = 10_000
DEFAULT_SEED = 0


@dataclass(frozen=True)
class Simulation:
    draws: int
    seed: int
    plans: tuple[PlanDraws, ...]

    def plan(self, name: str) -> PlanDraws:
        return next(p for p in self.plans if p.name == name)


def check_run(draws, seed) -> None:
    """draws: a whole number 1..MAX_DRAWS; seed: a whole number >= 0."""
    problems = []
    if isinstance(draws, bool) or not isinstance(draws, int) or not 1 <= draws <= MAX_DRAWS:
        problems.append(Problem("draws", "", f"= {draws!r}: must be a whole number between 1 and {MAX_DRAWS:,}"))
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        problems.append(Problem("seed", "", f"= {seed!r}: must be a whole number >= 0"))
    raise_if(problems)


def simulate(scenario, draws: int = DEFAULT_DRAWS, seed: int = DEFAULT_SEED,
             results: tuple[PlanResult, ...] | None = None,
             progress: Callable[[int, int], None] | None = None,
             should_cancel: Callable[[], bool] | None = None) -> Simulation:
    """Every plan's metrics over `draws` draws of its uncertain inputs (see module docstring).

    `results`: the plans' deterministic results where already computed (the GUI's), else computed here.
    Raises ValidationError for bad rows or arguments, Cancelled when `should_cancel()` turns true.
    """
    check_run(draws, seed)
    problems = uncertainty_problems(scenario) + simulation_problems(scenario)
    if problems:
        raise ValidationError(problems)
    quantiles = stream_quantiles((row.stream for row in scenario.uncertainty), draws, seed)
    out, row_values = [], {}
    total = len(scenario.plans)
    for index, plan in enumerate(scenario.plans):
        if should_cancel is not None and should_cancel():
            raise Cancelled("simulation cancelled")
        base = results[index] if results is not None else compute_plan(scenario, plan)
        out.append(simulate_plan(scenario, plan, base, rows_for_plan(scenario.uncertainty, plan.name), quantiles, draws,
                                 row_values))
        if progress is not None:
            progress(index + 1, total)
    return Simulation(draws, seed, tuple(out))
