"""The statistic an interactivity target bounds: the mean, or the 90th / 99th percentile over requests
(plan key `latency_percentile`; docs/model.md, "Latency percentiles").

Per-request time per output token. With continuous batching and chunked prefill, every decode step
that carries a prefill chunk of a newly admitted request is longer than the others, and every
sequence in the batch waits for it. While one request decodes its `output` tokens (one cycle of the
replica), the replica admits on average B new requests (B = the batch: B complete per cycle), so it
spends `B x t_prefill` prefilling. Arrivals are Poisson (as in an MLPerf Server run), so the number
of prefills a request sits through is Poisson(B); its p-quantile is taken by the normal
approximation `B + z_p sqrt(B)`:

    time per output token at p = (output / tokens_per_step x t_step + (B + z_p sqrt(B)) x t_prefill) / output

(z_p = 0 for the mean, which is the engine's cycle). The tail binds where prefill takes a large share
of the replica (long prompts, short outputs) at small batch (sqrt(B) / B is largest there); at large
batch the relative spread of Poisson(B) vanishes and the percentile approaches the mean.

TTFT at p: the M/D/1 admission wait's tail is close to exponential beyond its mean,
P(W > t) ~ rho exp(-t rho / W_mean), so its p-quantile is `W_mean / rho x ln(rho / (1 - p))` where
rho > 1 - p (else 0: a p-share of requests is admitted at once), plus the isolated prefill and the
first step. MLPerf Server / Interactive limits are 99th percentiles.
"""
from __future__ import annotations

import numpy as np

LATENCY_PERCENTILES = ("mean", "p90", "p99")
_QUANTILE = {"mean": None, "p90": 0.90, "p99": 0.99}
_NORMAL_Z = {0.90: 1.2815515655446004, 0.99: 2.3263478740408408}  # standard normal quantiles


def quantile(latency_percentile: str) -> float | None:
    """The quantile (0.9, 0.99) of a `latency_percentile` value, None for the mean."""
    try:
        return _QUANTILE[str(latency_percentile or "mean")]
    except KeyError:
        raise ValueError(f"unknown latency_percentile {latency_percentile!r}: one of "
                         f"{', '.join(LATENCY_PERCENTILES)}") from None


def prefills_sat_through(batch, latency_percentile: str = "mean"):
    """Prefills of newly admitted requests one request sits through while it decodes, at the
    percentile: B for the mean, B + z_p sqrt(B) (Poisson(B), normal approximation) at p90 / p99."""
    b = np.asarray(batch, float)
    q = quantile(latency_percentile)
    return b if q is None else b + _NORMAL_Z[q] * np.sqrt(b)


def wait_quantile_s(mean_wait_s, prefill_share, latency_percentile: str = "mean"):
    """The admission wait at the percentile (s): the mean wait for the mean; else the exponential-tail
    quantile W_mean / rho x ln(rho / (1 - p)) where rho > 1 - p, 0 below (infinite where the mean is)."""
    w = np.asarray(mean_wait_s, float)
    q = quantile(latency_percentile)
    if q is None:
        return w
    rho = np.clip(np.asarray(prefill_share, float), 1e-12, None)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = np.where(rho > 1.0 - q, w / rho * np.log(np.maximum(rho / (1.0 - q), 1.0)), 0.0)
    return np.where(np.isfinite(w), tail, np.inf)
