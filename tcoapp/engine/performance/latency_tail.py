"""The statistic an interactivity target bounds: the mean, or the 90th / 99th percentile of the time
per output token and of the TTFT (plan key `latency_percentile`; docs/model.md, "Latency percentiles").

Time per output token, per request (MLPerf's TPOT: a request's decode time over its output
tokens, its p99 over requests). With continuous batching and chunked prefill, the prefill of newly
admitted requests rides on decode steps, and every sequence of the batch waits for the steps that
carry a prefill chunk. While one request decodes its `output` tokens (one cycle of the replica), the
replica admits on average B new requests (B complete per cycle), so the request sits through B
prefills on average; arrivals are Poisson (an MLPerf Server run, a production front end), so the
number it sits through is Poisson(B), whose p-quantile is taken by the normal approximation
B + z_p sqrt(B) (z_90 = 1.28, z_99 = 2.33):

    TPOT_p = (output / tokens_per_step x t_step + (B + z_p sqrt(B)) x t_prefill) / output

(z = 0: the mean, the replica's cycle). The tail is the chunk-carrying steps a request is unlucky to
meet: it binds where prefill is a large share of the cycle (long prompts, short outputs) at small
and moderate batch (sqrt(B) / B is largest there); at large batch the percentile approaches the
mean. A leave-one-family-out comparison chose this per-request form over a per-step one (the p-th
slowest gap between two tokens, a step carrying the prefills that arrive in one inter-arrival
window): unseen median 15.5 % both, p90 39.5 % against 43.9 %, interactive 20.2 % against 24.1 %.

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


def seconds_per_token(step_s, tokens_per_step, prefill_s, batch, output_tokens, latency_percentile: str = "mean"):
    """A request's time per output token (s) at the percentile (module docstring): its decode steps
    and the prefills it sits through, over its output tokens."""
    steps = np.asarray(output_tokens, float) / np.asarray(tokens_per_step, float)
    return (steps * step_s + prefills_sat_through(batch, latency_percentile) * prefill_s) / output_tokens


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
