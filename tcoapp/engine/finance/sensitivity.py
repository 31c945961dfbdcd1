"""Sensitivity (tornado data) and breakeven price / utilization of one plan (docs/model.md section 3).

Both work on the plan's finance inputs at its operating point and sized device count (the
`inputs` of a computed PlanResult, or one flat mapping of a one-pool plan): the device count is held
fixed, so a swing shows what the input does to the metric of the fleet as bought. A per-pool input
(a device's price, power, throughput) moves by the same fraction in every pool; its base value is
shown as the device-weighted mean over the pools.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..quantities.inputs import PLAN_FIELD_BY_NAME
from .metrics import finance_metrics
from ..quantities.finance import SWING_KEYS, FinanceInputs, as_inputs




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
        """The metric's swing between the input's low and high value (the metric's unit)."""
        return abs(self.metric_high - self.metric_low)


def _bounds(key: str) -> tuple[float, float]:
    field = PLAN_FIELD_BY_NAME.get(key)
    if field is None:  # a device or operating-point quantity: no upper bound
        return 0.0, np.inf
    return (field.min or 0.0), (field.max if field.max is not None else np.inf)


def base_value(inputs: FinanceInputs, key: str) -> float:
    """A plan input's value; a per-pool input's device-weighted mean over the pools."""
    return _weighted(inputs, inputs[key])


def _weighted(inputs: FinanceInputs, value) -> float:
    value = np.asarray(value, float)
    if value.ndim == 0:
        return float(value)
    counts = np.asarray(inputs.device_count, float)
    total = float(np.sum(counts))
    return float(np.sum(value * counts) / total) if total > 0 else float(np.mean(value))


def _variants(inputs: FinanceInputs, n: int) -> dict[str, np.ndarray]:
    return {k: np.repeat(np.asarray(inputs[k], float)[None, ...], n, axis=0) for k in inputs.keys()}


def tornado(inputs, metric: str = "npv_usd", fraction: float = 0.2,
            keys: Sequence[str] = SWING_KEYS) -> list[Swing]:
    """Swing each non-zero input by +/- `fraction` (within its allowed range), all variants in one
    vectorized finance call; bars sorted by span, widest first."""
    if not 0 < fraction < 1:
        raise ValueError(f"fraction = {fraction}: must be between 0 and 1 (exclusive)")
    inputs = as_inputs(inputs)
    keys = [k for k in keys if np.any(np.asarray(inputs[k], float) != 0.0)]
    n = len(keys)
    batch = _variants(inputs, 2 * n)
    lows, highs, limited, bases = [], [], [], []
    for i, key in enumerate(keys):
        base = np.asarray(inputs[key], float)
        lo_bound, hi_bound = _bounds(key)
        low, high = base * (1 - fraction), base * (1 + fraction)
        batch[key][i] = np.maximum(low, lo_bound)
        batch[key][n + i] = np.minimum(high, hi_bound)
        limited.append(bool(np.any(low < lo_bound) or np.any(high > hi_bound)))
        bases.append(base_value(inputs, key))
        lows.append(_weighted(inputs, batch[key][i]))
        highs.append(_weighted(inputs, batch[key][n + i]))
    values = (np.asarray(finance_metrics(FinanceInputs(**batch), with_irr=(metric == "irr"))[metric], float)
              if n else np.empty(0))
    swings = [Swing(k, bases[i], lows[i], highs[i], float(values[i]), float(values[n + i]), limited[i])
              for i, k in enumerate(keys)]
    return sorted(swings, key=lambda s: -np.nan_to_num(s.span, nan=-1.0))


def _affine_root(inputs, key: str, a: float = 0.0, b: float = 1.0) -> float:
    """Root of npv(key) where npv is affine in `key` (exact: two evaluations); a per-pool key is set in
    every pool."""
    inputs = as_inputs(inputs)
    batch = _variants(inputs, 2)
    shape = batch[key].shape
    batch[key] = np.array([a, b]).reshape((2,) + (1,) * (len(shape) - 1)) * np.ones(shape)
    npv = np.asarray(finance_metrics(FinanceInputs(**batch), with_irr=False)["npv_usd"], float)
    slope = (npv[1] - npv[0]) / (b - a)
    if not np.isfinite(slope) or slope == 0:
        return float("nan")
    return float(a - npv[0] / slope)


def breakeven_output_price(inputs) -> float:
    """Output price [USD per million output tokens] at which NPV = 0, input price held.

    NPV is affine in the output price, so the root is exact. A negative value means input-token
    revenue alone already pays for the plan.
    """
    return _affine_root(inputs, "price_usd_per_million_output_tokens")


def breakeven_utilization(inputs) -> float:
    """Utilization (0..1) at which NPV = 0; NaN ("never") when even full utilization does not pay
    or the plan pays at zero utilization. NPV is affine in utilization (tokens and energy both are)."""
    root = _affine_root(inputs, "utilization")
    return root if 0.0 <= root <= 1.0 else float("nan")


def breakeven_device_hour_price(inputs) -> tuple[float, str]:
    """revenue_mode = device_hours: (the device-hour price at which NPV = 0, its key): the on-demand
    price where some devices are sold on demand, else the reserved price (NPV is affine in each)."""
    inputs = as_inputs(inputs)
    reserved = float(np.asarray(inputs["reserved_fraction"], float))
    key = "price_usd_per_device_hour" if reserved < 1.0 else "reserved_price_usd_per_device_hour"
    return _affine_root(inputs, key, 0.0, 10.0), key
