"""Quantile functions of the Uncertainty sheet's distributions (scipy.stats), vectorized over draws.

A draw is `ppf(q)` of a quantile q in [TAIL, 1 - TAIL]: the 1e-9 tails of the unbounded normal and
lognormal are cut (a numerical bound, not a clamp of values: validation requires the whole interval
[ppf(TAIL), ppf(1 - TAIL)] inside the key's allowed range, so no draw leaves it).

- uniform(low, high); triangular(low, mode, high);
- pert(low, mode, high): Beta(a, b) on [low, high], a = 1 + 4 (mode - low) / (high - low),
  b = 1 + 4 (high - mode) / (high - low) (the classic PERT weight 4; mean (low + 4 mode + high) / 6);
- normal(mean, sd);
- lognormal(mean, sd) of the value itself: sigma^2 = ln(1 + sd^2 / mean^2), mu = ln(mean) - sigma^2 / 2.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

TAIL = 1e-9


def frozen(distribution: str, p: Mapping[str, Any]):
    """The scipy.stats frozen distribution of one row's parameters."""
    dist, args, kwds = _parameters(distribution, p)
    return dist(*args, **kwds)


def _parameters(distribution: str, p: Mapping[str, Any]):
    """(scipy.stats distribution, shape arguments, loc/scale) of one row's parameters."""
    from scipy import stats  # lazy: keeps scipy out of `tcoapp compute` start-up
    if distribution == "uniform":
        return stats.uniform, (), {"loc": p["low"], "scale": p["high"] - p["low"]}
    if distribution in ("triangular", "pert"):
        width = p["high"] - p["low"]
        if distribution == "triangular":
            return stats.triang, ((p["mode"] - p["low"]) / width,), {"loc": p["low"], "scale": width}
        a = 1.0 + 4.0 * (p["mode"] - p["low"]) / width
        b = 1.0 + 4.0 * (p["high"] - p["mode"]) / width
        return stats.beta, (a, b), {"loc": p["low"], "scale": width}
    if distribution == "normal":
        return stats.norm, (), {"loc": p["mean"], "scale": p["sd"]}
    if distribution == "lognormal":
        sigma2 = np.log1p((p["sd"] / p["mean"]) ** 2)
        return stats.lognorm, (np.sqrt(sigma2),), {"scale": np.exp(np.log(p["mean"]) - sigma2 / 2.0)}
    raise ValueError(f"unknown distribution {distribution!r}")


def ppf(distribution: str, p: Mapping[str, Any], q) -> np.ndarray:
    """Values at quantiles `q` (any shape), q confined to [TAIL, 1 - TAIL]."""
    dist, args, kwds = _parameters(distribution, p)   # not frozen: freezing copies the distribution and its docs
    return np.asarray(dist.ppf(np.clip(np.asarray(q, float), TAIL, 1.0 - TAIL), *args, **kwds), float)


def support(distribution: str, p: Mapping[str, Any]) -> tuple[float, float]:
    """The interval draws can reach: [ppf(TAIL), ppf(1 - TAIL)] (low..high for the bounded ones)."""
    if distribution in ("uniform", "triangular", "pert"):
        return float(p["low"]), float(p["high"])
    lo, hi = ppf(distribution, p, [TAIL, 1.0 - TAIL])
    return float(lo), float(hi)


def mean(distribution: str, p: Mapping[str, Any]) -> float:
    """The distribution's mean, in the key's unit."""
    return float(frozen(distribution, p).mean())
