"""Paired draws of each plan's objective: the model's error and the Uncertainty sheet's inputs
(docs/user_guide.md, "Decision"; docs/model.md, "How sure it is").

- The model's error: one draw per device family (H100 of H100-SXM, GB200 of GB200-NVL72), shared
  by every plan and pool on that family (its own stream, seeded by the family's name): a lognormal multiplier of tokens/s per device whose central
  `level` share is the plan's prediction interval (performance/prediction_interval.py). A measured
  curve has no model error. A prefill/decode pair's output follows the family of the side that
  limits its rate. The finance layer is run over the draws at the plan's device counts.
- The Uncertainty sheet's inputs: `uncertainty.simulate` with its common random numbers, so draw k
  of every plan is the same state of the world.
- The two are joined to first order: a cost (lower is better) by ratio, sim x model / deterministic;
  a value (higher is better) by difference, sim + model - deterministic. Each alone is exact.
"""
from __future__ import annotations

import math
import re
import zlib
from dataclasses import dataclass

import numpy as np

DRAWS = 1000
SEED = 0


@dataclass(frozen=True)
class ObjectiveDraws:
    values: np.ndarray             # (plans, draws): each plan's objective per draw (NaN: none)
    drivers: dict                  # what was drawn -> (draws,) values: "model error: H100", input keys


def family(device_name: str) -> str:
    """'H100' of 'H100-SXM', 'GB200' of 'GB200-NVL72', 'MI355X' of 'MI355X'."""
    return re.split(r"[-_ ]", device_name.strip(), maxsplit=1)[0].upper()


def _log_sigma(interval: dict | None) -> float | None:
    """The sd of log(measured / predicted) whose central `level` share is the interval; None without one."""
    if not interval:
        return None
    low, high = interval["tokens_per_s_per_device"]
    if not (low > 0 and high > low):
        return None
    from statistics import NormalDist   # (12 ms to import: only where there is an interval to draw from)
    return (math.log(high) - math.log(low)) / (2.0 * NormalDist().inv_cdf(0.5 + float(interval["level"]) / 2.0))


def _pool_errors(result) -> list[tuple[str, float, float] | None]:
    """Per pool: (family whose draw moves its output, log-midpoint of its band relative to its point,
    sd of its log error), or None where the model has no error (a measured curve, no point)."""
    interval = result.prediction_interval
    sigma = _log_sigma(interval)
    point = result.metrics.tokens_per_s_per_device
    if sigma is None or not point > 0:
        return [None] * len(result.pools)
    low, high = interval["tokens_per_s_per_device"]
    centre = math.log(math.sqrt(low * high) / point)
    limiting = result.fleet.limited_by if result.fleet is not None else ""
    out: list[tuple[str, float, float] | None] = []
    for i, pool in enumerate(result.pools):
        device = pool.device
        if pool.role == "decode" and limiting == "prefill":
            device = next(p.device for p in result.pools if p.role == "prefill")
        own = _log_sigma(result.pool_intervals[i] if i < len(result.pool_intervals) else None)
        out.append((family(device), centre, sigma if own is None else own))
    return out


def value(record, key: str):
    """A metric from a Metrics / DrawMetrics record or a finance result (arrays over draws)."""
    return getattr(record, key) if hasattr(record, key) else record[key]


def model_error_draws(results, objective: str, value_of, draws: int, seed: int):
    """(plans, draws) objective under the model's error alone, and each family's standard normal draws."""
    from ..finance.metrics import finance_metrics       # the compute chain, with computed results only
    from ..quantities.finance import FinanceInputs
    errors = [_pool_errors(r) for r in results]
    families = sorted({e[0] for pools in errors for e in pools if e is not None})
    z = {f: np.random.default_rng([seed, zlib.crc32(f.encode())]).standard_normal(draws) for f in families}
    out = np.full((len(results), draws), np.nan)
    for k, (r, pools) in enumerate(zip(results, errors)):
        if r.inputs is None or all(e is None for e in pools):
            out[k] = value_of(k, r.metrics)
            continue
        a = r.inputs
        batch = {key: np.repeat(np.asarray(a[key], float)[None, ...], draws, axis=0) for key in a.keys()}
        for i, e in enumerate(pools):
            if e is not None:
                batch["tokens_per_s_per_device"][:, i] *= np.exp(e[1] + e[2] * z[e[0]])
        out[k] = value_of(k, finance_metrics(FinanceInputs(**batch)))
    return out, {f"model error: {f}": v for f, v in z.items()}


def input_draws(scenario, results, value_of, draws: int, seed: int):
    """(plans, draws) objective under the Uncertainty sheet's inputs (None without rows), and each
    input's draws by key."""
    if not scenario.uncertainty:
        return None, {}
    from ..uncertainty.simulate import simulate
    sim = simulate(scenario, draws, seed, tuple(results))
    out = np.array([value_of(k, p.metrics) for k, p in enumerate(sim.plans)], float)
    drivers: dict[str, np.ndarray] = {}
    for p in sim.plans:
        for d in p.inputs:
            drivers.setdefault(d.row.key, d.values)
    return out, drivers


def objective_draws(scenario, results, objective: str, better: str, value_of,
                    draws: int = DRAWS, seed: int = SEED) -> ObjectiveDraws:
    """Each plan's objective over paired draws (module docstring). `value_of(k, metrics)` reads plan k's
    objective from a metrics record or a finance result (arrays over draws)."""
    model, drivers = model_error_draws(results, objective, value_of, draws, seed)
    sim, input_drivers = input_draws(scenario, results, value_of, draws, seed + 1)
    drivers.update(input_drivers)
    if sim is None:
        return ObjectiveDraws(model, drivers)
    det = np.array([value_of(k, r.metrics) for k, r in enumerate(results)], float)[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        joined = sim * model / det if better == "low" else sim + model - det
    return ObjectiveDraws(joined, drivers)


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
