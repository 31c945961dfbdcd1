"""Request lengths as distributions (docs/model.md, "Request classes"): a lognormal through a class's mean
and p90 (a fixed length where the p90 is empty), the lengths a running batch holds (a request stays in
the batch for as long as it decodes, so the batch holds long outputs more often than requests do), and
the largest batch whose KV cache fits at a stated quantile of its summed contexts.

Lognormal through mean m and p90 q (z90 = 1.2816): ln m = mu + sigma^2 / 2 and ln q = mu + z90 sigma, so
sigma = z90 - sqrt(z90^2 - 2 ln(q / m)), the smaller root (the larger one puts the p90 at q with almost
all the mass far below it). A solution exists only for q / m <= exp(z90^2 / 2) = 2.273: no lognormal has
its p90 further above its mean (`MAX_P90_OVER_MEAN`).

Length-biased (residence-weighted) output: a sequence found in the batch is drawn in proportion to its
output length O, whose length-biased law is lognormal(mu + sigma^2, sigma): mean m e^{sigma^2}, second
moment m^2 e^{3 sigma^2}. A fixed length is its own length-biased law.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..quantities.records import MAX_P90_OVER_MEAN, Z90  # noqa: F401 (MAX_P90_OVER_MEAN: read here too)

Z99 = 2.3263478740408408
KV_FIT_QUANTILE = 0.99   # the batch's reserved KV cache fits at this quantile of its summed contexts
KV_FIT_Z = Z99


def lognormal_sigma(mean: float, p90: float | None) -> float:
    """The log-space spread sigma of the lognormal through `mean` and `p90` (0: a fixed length, p90
    None). ValueError where no lognormal has them (p90 <= mean or p90 > 2.27 x mean)."""
    if p90 is None:
        return 0.0
    ratio = float(p90) / float(mean)
    if not 1.0 < ratio <= MAX_P90_OVER_MEAN * (1 + 1e-12):
        raise ValueError(f"p90 {p90:g} / mean {mean:g} = {ratio:.4g}: a lognormal's p90 lies above its mean and at "
                         f"most {MAX_P90_OVER_MEAN:.4g} x it")
    return Z90 - math.sqrt(max(Z90 * Z90 - 2.0 * math.log(ratio), 0.0))


@dataclass(frozen=True)
class LengthLaw:
    """A length distribution: its mean (tokens) and log-space spread (0: every length is the mean)."""

    mean: float
    sigma: float = 0.0

    @classmethod
    def through(cls, mean: float, p90: float | None) -> LengthLaw:
        """The lognormal through `mean` and `p90` (fixed where p90 is None)."""
        return cls(float(mean), lognormal_sigma(mean, p90))

    def quantile(self, q: float | None) -> float:
        """The q-quantile (None: the mean): exp(mu + z_q sigma), mu = ln(mean) - sigma^2 / 2."""
        if q is None or self.sigma == 0.0:
            return self.mean
        z = {0.9: Z90, 0.99: Z99}[q]
        return self.mean * math.exp(z * self.sigma - self.sigma ** 2 / 2.0)

    @property
    def variance(self) -> float:
        """m^2 (e^{sigma^2} - 1)."""
        return self.mean ** 2 * math.expm1(self.sigma ** 2)

    @property
    def second_moment_over_mean(self) -> float:
        """E[L^2] / E[L] = m e^{sigma^2}: the mean of the length-biased law (an M/G/1 wait's service)."""
        return self.mean * math.exp(self.sigma ** 2)

    @property
    def biased_variance(self) -> float:
        """Variance of the length-biased law: m^2 e^{2 sigma^2} (e^{sigma^2} - 1)."""
        return self.mean ** 2 * math.exp(2 * self.sigma ** 2) * math.expm1(self.sigma ** 2)


def batch_weights(shares, output_means) -> np.ndarray:
    """Share of a running batch's sequences from each class: s_i O_i / sum_j s_j O_j (a request stays
    for its decode, O_i steps of the shared step)."""
    w = np.asarray(shares, float) * np.asarray(output_means, float)
    return w / w.sum()


def batch_context_moments(shares, inputs: list[LengthLaw], outputs: list[LengthLaw]) -> tuple[float, float]:
    """(mean, standard deviation) of the reserved context I + O of a sequence found in the running batch:
    classes weighted by `batch_weights`, within a class the input as drawn and the output length-biased
    (module docstring), input and output independent; the mixture's variance by the law of total variance."""
    w = batch_weights(shares, [o.mean for o in outputs])
    means = np.array([i.mean + o.second_moment_over_mean for i, o in zip(inputs, outputs)])
    variances = np.array([i.variance + o.biased_variance for i, o in zip(inputs, outputs)])
    mean = float(w @ means)
    var = float(w @ (variances + (means - mean) ** 2))
    return mean, math.sqrt(max(var, 0.0))


def tail_batch_limit(free_bytes, kv_at_mean, kv_at_mean_plus_sd, z: float = KV_FIT_Z):
    """Largest batch B (floor, >= 0) whose summed KV cache fits `free_bytes` at the quantile z of the
    sum: B kv(mu) + z sqrt(B) d <= free, d = kv(mu + sd) - kv(mu) the KV bytes of one standard deviation of
    context (the sum of B independent contexts has mean B mu and standard deviation sqrt(B) sd; the
    normal approximation of its quantile). d = 0 (fixed lengths): floor(free / kv(mu)), the
    fixed-length limit exactly."""
    free = np.asarray(free_bytes, float)
    a = np.asarray(kv_at_mean, float)
    d = np.maximum(np.asarray(kv_at_mean_plus_sd, float) - a, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = (-z * d + np.sqrt((z * d) ** 2 + 4.0 * a * np.maximum(free, 0.0))) / (2.0 * a)
        tail = np.floor(root ** 2)
        fixed = np.floor(free / a)
    return np.maximum(np.where(d > 0, tail, fixed), 0.0)
