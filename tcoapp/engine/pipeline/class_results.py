"""Per-class figures of a plan serving request classes (docs/model.md, "Request classes"): each class's
tokens/s per user and TTFT at its percentile (the worst over the serve pools), its requests/s, achieved
prefix hit rate, cost per million output tokens and revenue per year.

- requests/s of class i = s_i x the plan's requests/s (the pools' capacity at their operating points);
- cost per million output tokens of class i = the plan's x (its share of device time) / (its share of
  output tokens): device time per request O_i / tokens_per_step x step / B + pf_i (its decode steps'
  share of the shared steps, its prefill), so the classes' costs weighted by their output tokens are the
  plan's;
- revenue of class i = the plan's token revenue per year x R_i / sum_j R_j, R_i = s_i (O_i p_out,i +
  I_i (1 - h_i) p_in,i + I_i h_i p_cached,i) (the three-price equation; the plan's revenue is the sum of
  its classes'); None where the plan sells device-hours.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np


@dataclass(frozen=True)
class ClassResult:
    """One class's figures (units in the names; None: does not exist)."""

    class_: str
    share: float
    input_tokens: float
    output_tokens: float
    latency_percentile: str
    min_tokens_per_s_per_user: float | None
    max_ttft_s: float | None
    tokens_per_s_per_user: float | None
    ttft_s: float | None
    requests_per_s: float | None
    achieved_prefix_hit_rate: float
    price_usd_per_million_output_tokens: float
    price_usd_per_million_input_tokens: float
    price_usd_per_million_cached_input_tokens: float
    cost_per_million_output_tokens_usd: float | None
    revenue_usd_per_year: float | None

    @property
    def meets_target(self) -> bool | None:
        """True where the class's targets hold at the operating point (None: it has no target)."""
        if self.min_tokens_per_s_per_user is None and self.max_ttft_s is None:
            return None
        rate, ttft = self.tokens_per_s_per_user, self.ttft_s
        if rate is None or ttft is None:
            return False
        if self.min_tokens_per_s_per_user is not None and rate < self.min_tokens_per_s_per_user * (1 - 1e-12):
            return False
        return self.max_ttft_s is None or ttft <= self.max_ttft_s * (1 + 1e-12)

    def as_json(self) -> dict:
        """The class's entry of a plan's `workloads` in `tcoapp compute --json` (keys: `json_keys`)."""
        return {key: (self.meets_target if key == "meets_target" else getattr(self, "class_" if key == "class" else key))
                for key in self.json_keys()}

    @staticmethod
    def json_keys() -> tuple[str, ...]:
        """The keys of `as_json`, in order: the fields (`class_` as "class"), `meets_target` after the TTFT."""
        keys = []
        for f in fields(ClassResult):
            keys.append("class" if f.name == "class_" else f.name)
            if f.name == "ttft_s":
                keys.append("meets_target")
        return tuple(keys)


def _finite(value) -> float | None:
    value = float(value)
    return value if np.isfinite(value) else None


def class_results(loads, prices, mixes, pool_devices, requests_per_s: float, plan_cost_per_mtok: float,
                  token_revenue_usd_per_year: float | None) -> tuple[ClassResult, ...]:
    """Each class's figures (module docstring). `mixes`: the serve pools' `MixPoint`s (None where a pool has
    no operating point) and `pool_devices` their device counts; `requests_per_s`: the plan's."""
    from ..plan.request_classes import class_revenue_per_request
    served = [(m, n) for m, n in zip(mixes, pool_devices) if m is not None]
    k = len(loads)
    nan = np.full(k, np.nan)
    per_user = np.min([m.tokens_per_s_per_user for m, _ in served], axis=0) if served else nan
    ttft = np.max([m.ttft_s for m, _ in served], axis=0) if served else nan
    weights = np.array([float(n) for _, n in served])
    if served and weights.sum() > 0:
        time_share = np.array([m.device_time_share for m, _ in served]).T @ weights / weights.sum()
    else:
        time_share = nan
    shares = np.array([c.share for c in loads])
    outputs = shares * np.array([c.output.mean for c in loads])
    output_share = outputs / outputs.sum()
    revenue = shares * class_revenue_per_request(loads, prices)
    revenue_share = revenue / revenue.sum() if revenue.sum() > 0 else np.zeros(k)
    out = []
    for i, (c, p) in enumerate(zip(loads, prices)):
        out.append(ClassResult(
            c.name, c.share, c.input.mean, c.output.mean, c.latency_percentile, c.min_tokens_per_s_per_user, c.max_ttft_s,
            _finite(per_user[i]), _finite(ttft[i]), _finite(c.share * requests_per_s), c.prefix_cache_hit_rate,
            p.output, p.input, p.cached_input, _finite(plan_cost_per_mtok * time_share[i] / output_share[i]),
            None if token_revenue_usd_per_year is None else _finite(token_revenue_usd_per_year * revenue_share[i])))
    return tuple(out)
