"""Paired draws of the two leading plans' objective: the model's error and the Uncertainty sheet's
inputs, drawn together and joined to the finance exactly (docs/user_guide.md, "Decision"; docs/model.md,
"How the model's errors correlate").

The draws are `uncertainty.simulate`'s, with its defaults (DRAWS draws, seed SEED, the model's error
on): each generated pool's throughput takes the model error shared per architecture and stack and per
configuration, plus its own, centred on the figure shown (`uncertainty/model_error.py`), beside the
Uncertainty sheet's inputs with their common random numbers; every draw goes through the engine
(operating point, sizing, finance) as one state of the world. Only the two plans compared are
simulated: every stream is named by its group (or the plan), not by its position, so their draws are
those of `tcoapp simulate` over the whole scenario with the same seed, and P is recomputed exactly
from its exported draws. DRAWS = 10,000 holds P to within +-0.01 (two standard errors at P = 0.5).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

DRAWS = 10_000
SEED = 0


@dataclass(frozen=True)
class ObjectiveDraws:
    values: np.ndarray             # (2, draws): the two plans' objective per draw (NaN: none)
    drivers: dict                  # what was drawn -> (draws,) values: "model error: Blackwell / TensorRT-LLM", input keys


def value(record, key: str):
    """A metric from a Metrics / DrawMetrics record or a finance result (arrays over draws)."""
    return getattr(record, key) if hasattr(record, key) else record[key]


def two_plans(scenario, results, indices):
    """(scenario, results) of the plans at `indices` alone, with the Uncertainty rows that apply to them."""
    plans = [scenario.plans[i] for i in indices]
    names = {p.name for p in plans} | {"*"}
    rows = tuple(r for r in scenario.uncertainty if r.plan in names)
    return replace(scenario.with_plans(plans), uncertainty=rows), tuple(results[i] for i in indices)


def load_modules() -> None:
    """Import what `objective_draws` runs (the simulation and scipy.special's normal quantile, ~1 s together
    on a cold start), so that a caller can load them where waiting costs nothing (the app: in the worker
    that computes the first results, not on the thread that draws them)."""
    from ..uncertainty.simulate import simulate  # noqa: F401
    from scipy.special import ndtri  # noqa: F401


def objective_draws(scenario, results, indices, value_of, draws: int = DRAWS, seed: int = SEED) -> ObjectiveDraws:
    """The objective of the plans at `indices` over paired draws (module docstring). `value_of(k, metrics)`
    reads plan k's (its index in the scenario) objective from a metrics record (arrays over draws)."""
    from ..uncertainty.simulate import simulate
    pair_scenario, pair_results = two_plans(scenario, results, indices)
    sim = simulate(pair_scenario, draws, seed, pair_results)
    values = np.array([value_of(k, p.metrics) for k, p in zip(indices, sim.plans)], float)
    drivers: dict[str, np.ndarray] = {}
    for p in sim.plans:
        for name, z in p.model_error:
            drivers.setdefault(name, z)
        for d in p.inputs:
            drivers.setdefault(d.row.key, d.values)
    return ObjectiveDraws(values, drivers)


def share_better(first: np.ndarray, second: np.ndarray, better: str) -> float:
    """The share of paired draws in which `first` beats `second` (a missing value never beats)."""
    bad = np.inf if better == "low" else -np.inf
    a = np.nan_to_num(np.asarray(first, float), nan=bad)
    b = np.nan_to_num(np.asarray(second, float), nan=bad)
    return float(np.mean(a < b if better == "low" else a > b))


def separating(drivers: dict, first: np.ndarray, second: np.ndarray, top: int = 2) -> list[str]:
    """The drawn quantities that most move which plan wins: by rank correlation with the difference."""
    diff = np.asarray(first, float) - np.asarray(second, float)
    ok = np.isfinite(diff)
    if ok.sum() < 3 or np.ptp(diff[ok]) == 0:
        return []
    rank = lambda v: np.argsort(np.argsort(v)).astype(float)  # noqa: E731
    scored = []
    for name, values in drivers.items():
        v = np.asarray(values, float)[ok]
        if np.ptp(v) > 0:
            scored.append((abs(float(np.corrcoef(rank(v), rank(diff[ok]))[0, 1])), name))
    return [name for score, name in sorted(scored, reverse=True)[:top] if score >= 0.1]
