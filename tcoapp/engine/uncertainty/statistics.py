"""Summaries of simulated metrics (docs/model.md, "Uncertainty: Monte Carlo"): mean and percentiles with "never" handled,
probabilities, rank correlations, the payback curve and the cash-flow fan. Vectorized over draws.

A draw where a metric does not exist (NaN) is missing: `share_defined` < 1 and the mean is over the
defined draws. Payback "never" ranks as infinitely late: its percentiles are taken over every draw
with never = +infinity, and a percentile whose interpolation touches a "never" draw is None. Other
metrics' percentiles are over their defined draws (None when no draw is defined). Percentiles are
numpy's default (linear between order statistics, position (n - 1) x p).
"""
from __future__ import annotations

import numpy as np

from ..quantities.metrics import SUMMARY_METRICS  # noqa: F401 (summarized over every draw of a run)

PERCENTILES = (5, 10, 50, 90, 95)
NEVER_LATE = frozenset({"payback_months"})


def percentile(values: np.ndarray, p: float, never_late: bool) -> float | None:
    """The p-th percentile (0..100) of the draws; see the module docstring for missing values."""
    return _of_sorted(_sorted_draws(values, never_late), p)


def _sorted_draws(values: np.ndarray, never_late: bool) -> np.ndarray:
    """The draws a percentile is taken over, sorted (sorted once for every percentile of a summary)."""
    x = np.asarray(values, float)
    x = np.where(np.isnan(x), np.inf, x) if never_late else x[np.isfinite(x)]
    return np.sort(x)


def _of_sorted(x: np.ndarray, p: float) -> float | None:
    if x.size == 0:
        return None
    h = (x.size - 1) * p / 100.0
    lo, hi = int(np.floor(h)), int(np.ceil(h))
    frac = h - lo
    if not np.isfinite(x[lo]) or (frac > 0 and not np.isfinite(x[hi])):
        return None
    return float(x[lo] + (x[hi] - x[lo]) * frac) if frac > 0 else float(x[lo])


def summary(values: np.ndarray, key: str) -> dict[str, float | None]:
    """{"mean", "p5", "p10", "p50", "p90", "p95", "share_defined"} of one metric's draws."""
    x = np.asarray(values, float)
    defined = np.isfinite(x)
    out: dict[str, float | None] = {"mean": float(np.mean(x[defined])) if defined.any() else None}
    ordered = _sorted_draws(x, key in NEVER_LATE)
    for p in PERCENTILES:
        out[f"p{p}"] = _of_sorted(ordered, p)
    out["share_defined"] = float(np.mean(defined)) if x.size else 0.0
    return out


def prob_positive(values: np.ndarray) -> float:
    """Share of draws with a value > 0 (a missing value is not > 0)."""
    return float(np.mean(np.nan_to_num(np.asarray(values, float), nan=-np.inf) > 0))


def prob_higher(a: np.ndarray, b: np.ndarray) -> float:
    """Share of paired draws where a > b (a missing value is never higher)."""
    return share_higher(ranked(a), ranked(b))


def ranked(values: np.ndarray) -> np.ndarray:
    """The draws as `prob_higher` compares them: a missing value -infinity (numpy's nan_to_num, so an infinite
    value becomes the largest finite one of its sign)."""
    return np.nan_to_num(np.asarray(values, float), nan=-np.inf)


def share_higher(a: np.ndarray, b: np.ndarray) -> float:
    """`prob_higher` of draws already `ranked` (each plan's once, for every pair of plans)."""
    return float(np.mean(a > b))


def rank_correlations(inputs: dict[str, np.ndarray], metric: np.ndarray) -> dict[str, float]:
    """Spearman rank correlation of each input's draws with the metric over the draws where it is
    defined (NaN where either is constant); sorted by |correlation|, largest first."""
    from scipy import stats   # lazy: scipy.stats takes ~1 s to load, and the Decision tab's draws (simulate) need none of it
    y = np.asarray(metric, float)
    keep = np.isfinite(y)
    out = {}
    for name, x in inputs.items():
        x = np.asarray(x, float)[keep]
        if x.size < 2 or np.ptp(x) == 0 or np.ptp(y[keep]) == 0:
            out[name] = float("nan")
            continue
        out[name] = float(stats.spearmanr(x, y[keep]).statistic)
    return dict(sorted(out.items(), key=lambda kv: -np.nan_to_num(abs(kv[1]), nan=-1.0)))


def payback_probability(payback_months: np.ndarray, months: np.ndarray) -> np.ndarray:
    """P(payback <= m) for each month m ("never" is never <= m)."""
    x = np.sort(np.nan_to_num(np.asarray(payback_months, float), nan=np.inf))
    return np.searchsorted(x, np.asarray(months, float), side="right") / max(x.size, 1)


def fan(cumulative: np.ndarray, percentiles=(10, 50, 90)) -> np.ndarray:
    """Percentiles of the cumulative cash flow per year: shape (len(percentiles), years + 1)."""
    with np.errstate(invalid="ignore"):
        import warnings
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an all-NaN year (no finance): NaN
            return np.nanpercentile(np.asarray(cumulative, float), percentiles, axis=0)


def histograms(samples, bins: int = 40) -> tuple[np.ndarray, list[np.ndarray]]:
    """(shared bin edges, share of each sample's draws per bin) over the defined values of all samples."""
    arrays = [np.asarray(x, float) for x in samples]
    finite = np.concatenate([x[np.isfinite(x)] for x in arrays]) if arrays else np.empty(0)
    if finite.size == 0:
        return np.array([0.0, 1.0]), [np.zeros(1) for _ in arrays]
    lo, hi = float(finite.min()), float(finite.max())
    if hi == lo:
        lo, hi = lo - 0.5 * max(abs(lo), 1.0), hi + 0.5 * max(abs(hi), 1.0)
    edges = np.linspace(lo, hi, bins + 1)
    return edges, [np.histogram(x[np.isfinite(x)], bins=edges)[0] / max(x.size, 1) for x in arrays]
