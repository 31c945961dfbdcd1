"""Sensitivity (tornado data) and breakeven price / utilization of one plan (DESIGN section 6).

Both work on the plan's finance inputs at its operating point and sized device count (the
`inputs` of a computed PlanResult): the device count is held fixed, so a swing shows what the
input does to the metric of the fleet as bought.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from ..fields import PLAN_FIELD_BY_NAME
from .metrics import finance_metrics

SWING_KEYS = (
    "tokens_per_s_per_device", "price_usd_per_million_output_tokens", "price_usd_per_million_input_tokens",
    "utilization", "price_usd", "server_price_usd", "power_w", "electricity_usd_per_kwh", "pue",
    "colocation_usd_per_kw_month", "maintenance_fraction_per_year", "software_usd_per_device_year",
    "staff_usd_per_year", "other_capex_fraction", "discount_rate", "residual_value_fraction",
)
_UNBOUNDED_ABOVE = {"tokens_per_s_per_device", "power_w", "price_usd", "server_price_usd"}


@dataclass(frozen=True)
class Swing:
    """One bar of a tornado: the metric at the input's low and high value."""

    input: str
    base_input: float
    low_input: float
    high_input: float
    metric_low: float
    metric_high: float
    limited: bool  # the +/- fraction crossed the field's allowed range and stopped at its bound

    @property
    def span(self) -> float:
        return abs(self.metric_high - self.metric_low)


def _bounds(key: str) -> tuple[float, float]:
    field = PLAN_FIELD_BY_NAME.get(key)
    if field is None or key in _UNBOUNDED_ABOVE:
        return 0.0, np.inf
    return (field.min or 0.0), (field.max if field.max is not None else np.inf)


def tornado(inputs: Mapping[str, float], metric: str = "npv_usd", fraction: float = 0.2,
            keys: Sequence[str] = SWING_KEYS) -> list[Swing]:
    """Swing each non-zero input by +/- `fraction` (within its allowed range), all variants in one
    vectorized finance call; bars sorted by span, widest first."""
    if not 0 < fraction < 1:
        raise ValueError(f"fraction = {fraction}: must be between 0 and 1 (exclusive)")
    keys = [k for k in keys if float(inputs[k]) != 0.0]
    n = len(keys)
    batch = {k: np.full(2 * n, float(v)) for k, v in inputs.items()}
    lows, highs, limited = [], [], []
    for i, key in enumerate(keys):
        base = float(inputs[key])
        lo_bound, hi_bound = _bounds(key)
        low, high = base * (1 - fraction), base * (1 + fraction)
        lows.append(max(low, lo_bound))
        highs.append(min(high, hi_bound))
        limited.append(low < lo_bound or high > hi_bound)
        batch[key][i] = lows[-1]
        batch[key][n + i] = highs[-1]
    values = np.asarray(finance_metrics(batch, with_irr=(metric == "irr"))[metric], float) if n else np.empty(0)
    swings = [Swing(k, float(inputs[k]), lows[i], highs[i], float(values[i]), float(values[n + i]), limited[i])
              for i, k in enumerate(keys)]
    return sorted(swings, key=lambda s: -np.nan_to_num(s.span, nan=-1.0))


def _affine_root(inputs: Mapping[str, float], key: str, a: float = 0.0, b: float = 1.0) -> float:
    """Root of npv(key) where npv is affine in `key` (exact: two evaluations)."""
    batch = {k: np.full(2, float(v)) for k, v in inputs.items()}
    batch[key] = np.array([a, b])
    npv = np.asarray(finance_metrics(batch, with_irr=False)["npv_usd"], float)
    slope = (npv[1] - npv[0]) / (b - a)
    if not np.isfinite(slope) or slope == 0:
        return float("nan")
    return float(a - npv[0] / slope)


def breakeven_output_price(inputs: Mapping[str, float]) -> float:
    """Output price [USD per million output tokens] at which NPV = 0, input price held.

    NPV is affine in the output price, so the root is exact. A negative value means input-token
    revenue alone already pays for the plan.
    """
    return _affine_root(inputs, "price_usd_per_million_output_tokens")


def breakeven_utilization(inputs: Mapping[str, float]) -> float:
    """Utilization (0..1) at which NPV = 0; NaN ("never") when even full utilization does not pay
    or the plan pays at zero utilization. NPV is affine in utilization (tokens and energy both are)."""
    root = _affine_root(inputs, "utilization")
    return root if 0.0 <= root <= 1.0 else float("nan")
