"""The statistic an interactivity target bounds: the mean, or the 90th / 99th percentile of the time
per output token and of the TTFT (plan key `latency_percentile`; docs/model.md, "Latency percentiles").

Time per output token. With continuous batching and chunked prefill, the prefill of newly admitted
requests rides on decode steps, and every sequence of the batch waits for the step that carries it.
Per cycle (one request's `output` tokens: output / tokens_per_step steps) B requests arrive, so
r = B x tokens_per_step / output arrive per step (Poisson: an MLPerf Server run, a production
front end). The scheduler spreads each arrival's prefill over the steps until the next one is due
(a window of max(1, 1 / r) steps) and puts at most a chunk of C = PREFILL_CHUNK_TOKENS tokens per
scheduler (per attention-DP rank) on one step. The arrivals of one window are Poisson(max(r, 1)),
so the p-quantile of the prefill riding on one step is

    k_p = the p-quantile of Poisson(max(r, 1))    (0 where e^-max(r,1) >= p; else the Cornish-Fisher
          ceil(m + z_p sqrt(m) + (z_p^2 - 1) / 6 - 1/2), m = max(r, 1), at least 1)
    requests_p = min(k_p x min(r, 1), C x ranks / n)     (n the new tokens of one prompt)
    TPOT_p = (t_step + requests_p x t_prefill) / tokens_per_step

against the mean (output / tokens_per_step x t_step + B x t_prefill) / output = (t_step + r x
t_prefill) / tokens_per_step. The p99 carries about 4x the mean prefill per step where arrivals are
rarer than steps (k_99 of Poisson(1) is 4), more where they are frequent; so a percentile target binds
where prefill is a large share of a step (long prompts, short outputs, a tight TPOT) and allows a
smaller batch than the mean; where prefill is a small share the percentile is close to the mean.

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


def arrivals_quantile(mean_arrivals, latency_percentile: str):
    """p-quantile of a Poisson count of mean `mean_arrivals` (broadcast): 0 where e^-mean >= p, else
    the Cornish-Fisher approximation ceil(mean + z sqrt(mean) + (z^2 - 1) / 6 - 1/2), at least 1."""
    lam = np.maximum(np.asarray(mean_arrivals, float), 0.0)
    q = quantile(latency_percentile)
    if q is None:
        return lam
    z = _NORMAL_Z[q]
    k = np.maximum(1.0, np.ceil(lam + z * np.sqrt(lam) + (z * z - 1.0) / 6.0 - 0.5))
    return np.where(np.exp(-lam) >= q, 0.0, k)


def seconds_per_token(step_s, tokens_per_step, prefill_s, batch, new_tokens, output_tokens, ranks,
                      chunk_tokens, latency_percentile: str = "mean"):
    """Time per output token (s) at the percentile (module docstring): the cycle's mean, or the
    p-quantile of the gaps between tokens, a step carrying the prefill chunk of the p-quantile of the
    requests arriving over one inter-arrival window (at most `chunk_tokens` per scheduler)."""
    b = np.asarray(batch, float)
    per_step = np.asarray(tokens_per_step, float)
    steps = np.asarray(output_tokens, float) / per_step
    q = quantile(latency_percentile)
    if q is None:
        return (steps * step_s + b * prefill_s) / output_tokens
    rate = b / steps                                    # requests arriving per step
    window = np.maximum(rate, 1.0)                      # arrivals in one window of max(1, 1 / rate) steps
    requests = arrivals_quantile(window, latency_percentile) * np.minimum(rate, 1.0)
    new = np.maximum(np.asarray(new_tokens, float), 1e-9)
    requests = np.minimum(requests, chunk_tokens * np.asarray(ranks, float) / new)
    return (step_s + requests * prefill_s) / per_step


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
