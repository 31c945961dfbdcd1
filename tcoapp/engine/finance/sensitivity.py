"""Sensitivity (tornado data) and breakeven price / utilization of one plan (docs/model.md section 3).

Both work on the plan's finance inputs at its operating point and sized device count (the
`inputs` of a computed PlanResult, or one flat mapping of a one-pool plan): the device count is held
fixed, so a swing shows what the input does to the metric of the fleet as bought. A per-pool input
(a device's price, power, throughput) moves by the same fraction in every pool; its base value is
shown as the device-weighted mean over the pools.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..quantities.inputs import PLAN_FIELD_BY_NAME
from .metrics import finance_metrics, metric_values
from ..quantities.finance import SWING_KEYS, FinanceInputs, as_inputs

ROOT_STEPS = 60                      # regula falsi (Illinois) steps of a breakeven where NPV bends (tax)


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
    return _weigher(inputs)(value)


def _weigher(inputs: FinanceInputs):
    """`_weighted(inputs, value)` as a function of the value, the device counts read once."""
    counts = np.asarray(inputs.device_count, float)
    total = float(np.sum(counts))

    def weighted(value) -> float:
        value = np.asarray(value, float)
        if value.ndim == 0:
            return float(value)
        return float(np.sum(value * counts) / total) if total > 0 else float(np.mean(value))
    return weighted


def _variants(inputs: FinanceInputs, n: int) -> dict[str, np.ndarray]:
    return {k: np.repeat(np.asarray(inputs[k], float)[None, ...], n, axis=0) for k in inputs.keys()}


def tornado(inputs, metric: str = "npv_usd", fraction: float = 0.2,
            keys: Sequence[str] = SWING_KEYS, scaled: tuple | None = None) -> list[Swing]:
    """Swing each non-zero input by +/- `fraction` (within its allowed range), all variants in one
    vectorized finance call; bars sorted by span, widest first. `scaled`: (name, key, low factor, high
    factor) adds `scaled_swing`'s bar, its two variants in the same call."""
    if not 0 < fraction < 1:
        raise ValueError(f"fraction = {fraction}: must be between 0 and 1 (exclusive)")
    inputs = as_inputs(inputs)
    weighted = _weigher(inputs)
    # an input left empty (NaN: equity_discount_rate = discount_rate) or 0 has no +/- fraction of itself
    given = {k: np.asarray(inputs[k], float) for k in keys}
    keys = [k for k, base in given.items() if np.isfinite(base).all() and (base != 0.0).any()]
    n = len(keys)
    batch = _variants(inputs, 2 * n + (2 if scaled is not None else 0))
    lows, highs, limited, bases = [], [], [], []
    for i, key in enumerate(keys):
        base = given[key]
        lo_bound, hi_bound = _bounds(key)
        # the input lower and higher (a negative input, a price decline, is lower at (1 + fraction) x itself)
        low = np.minimum(base * (1 - fraction), base * (1 + fraction))
        high = np.maximum(base * (1 - fraction), base * (1 + fraction))
        batch[key][i] = np.maximum(low, lo_bound)
        batch[key][n + i] = np.minimum(high, hi_bound)
        limited.append(bool((low < lo_bound).any() or (high > hi_bound).any()))
        bases.append(weighted(base))
        lows.append(weighted(batch[key][i]))
        highs.append(weighted(batch[key][n + i]))
    factors = _scale(inputs, batch, 2 * n, *scaled[1:]) if scaled is not None else None
    values = np.asarray(metric_values(FinanceInputs(**batch), metric), float) if n or scaled is not None else np.empty(0)
    swings = [Swing(k, bases[i], lows[i], highs[i], float(values[i]), float(values[n + i]), limited[i])
              for i, k in enumerate(keys)]
    if scaled is not None and factors is not None:
        swings.append(Swing(scaled[0], 1.0, *factors, float(values[2 * n]), float(values[2 * n + 1]), False))
    return sorted(swings, key=_widest_first)


def _widest_first(swing: Swing) -> float:
    """The sort key of a tornado's bars: the widest first, those without a span (NaN) last."""
    span = swing.span
    return 1.0 if math.isnan(span) else -span


def _scale(inputs, batch, at: int, key: str, low_factor, high_factor) -> tuple[float, float]:
    """Set variants `at` and `at + 1` of `batch` to the per-pool input `key` times `low_factor` and times
    `high_factor`; (the device-weighted low factor, the high one)."""
    base = np.asarray(inputs[key], float)
    low = np.broadcast_to(np.asarray(low_factor, float), base.shape)
    high = np.broadcast_to(np.asarray(high_factor, float), base.shape)
    batch[key][at], batch[key][at + 1] = base * low, base * high
    return _weighted(inputs, low), _weighted(inputs, high)


def scaled_swing(inputs, name: str, key: str, low_factor, high_factor, metric: str = "npv_usd") -> Swing:
    """One bar: the per-pool input `key` times `low_factor` and times `high_factor` (per pool, or one
    number), the others held, in one vectorized call; the bar is named `name` and its input values are
    the device-weighted factors (the base 1)."""
    inputs = as_inputs(inputs)
    batch = _variants(inputs, 2)
    low, high = _scale(inputs, batch, 0, key, low_factor, high_factor)
    values = np.asarray(metric_values(FinanceInputs(**batch), metric), float)
    return Swing(name, 1.0, low, high, float(values[0]), float(values[1]), False)


def _npv(inputs, key: str, values, tied: tuple[tuple[str, float], ...] = ()) -> np.ndarray:
    """NPV with `key` set to each of `values` (a per-pool key in every pool), and each `tied` key to its ratio x
    the value, in one vectorized call."""
    batch = _variants(inputs, len(values))
    for name, ratio in ((key, 1.0),) + tuple(tied):
        shape = batch[name].shape
        batch[name] = ratio * np.asarray(values, float).reshape((len(values),) + (1,) * (len(shape) - 1)) * np.ones(shape)
    return np.asarray(finance_metrics(FinanceInputs(**batch), with_irr=False)["npv_usd"], float)


def _root(inputs, key: str, a: float = 0.0, b: float = 1.0, upward: bool = False, tied=()) -> float:
    """The value of `key` where NPV = 0 (NaN where there is none). NPV is affine in the key where nothing bends it
    (the root from two evaluations is exact then); income tax with losses carried forward (max(0, ...)) makes
    it piecewise linear, so the affine guess is checked and, where it misses, refined by regula falsi
    (Illinois) between values of opposite sign: from [a, b], widened upward (`upward`) until NPV changes sign.
    `tied`: (key, ratio) pairs moved with it."""
    inputs = as_inputs(inputs)
    npv = lambda x: float(_npv(inputs, key, (x,), tied)[0])  # noqa: E731
    fa, fb = npv(a), npv(b)
    if not (np.isfinite(fa) and np.isfinite(fb)) or fa == fb:
        return float("nan")
    guess = a - fa * (b - a) / (fb - fa)
    if not np.isfinite(guess):
        return float("nan")
    f_guess = npv(guess)
    if abs(f_guess) <= 1e-7 * max(abs(fa), abs(fb), 1.0):
        return float(guess)
    if upward:
        while fa * fb > 0 and b < 1e12:
            a, fa, b = b, fb, b * 4.0
            fb = npv(b)
    if fa * fb > 0:
        return float("nan")
    return _regula_falsi(npv, a, fa, b, fb)


def _regula_falsi(npv, a: float, fa: float, b: float, fb: float) -> float:
    """The Illinois variant of regula falsi between a and b where NPV changes sign: exact on each linear piece."""
    side = 0
    x = a
    for _ in range(ROOT_STEPS):
        x = b - fb * (b - a) / (fb - fa)
        fx = npv(x)
        if fx == 0 or abs(b - a) <= 1e-12 * max(abs(a), abs(b), 1e-12):
            return x
        if fx * fb > 0:
            b, fb = x, fx
            if side == -1:
                fa /= 2.0
            side = -1
        else:
            a, fa = x, fx
            if side == 1:
                fb /= 2.0
            side = 1
    return x


def _affine_root(inputs, key: str, a: float = 0.0, b: float = 1.0) -> float:
    """The affine extrapolation through NPV at a and b (where NPV is affine in `key`, its root)."""
    fa, fb = _npv(as_inputs(inputs), key, (a, b))
    slope = (fb - fa) / (b - a)
    if not np.isfinite(slope) or slope == 0:
        return float("nan")
    return float(a - fa / slope)


def breakeven_output_price(inputs) -> float:
    """Output price [USD per million output tokens] at which NPV = 0, input price held; NaN where the output
    price does not move NPV (revenue_mode = device_hours: see breakeven_device_hour_price).

    NPV rises with the output price. Where it is below 0 at a price of 0 the root is found (exactly where NPV is
    affine; with income tax, on its linear pieces); where it is already >= 0 at 0, the affine extrapolation
    below 0 is returned: a negative value means input-token revenue alone already pays for the plan.
    """
    inputs = as_inputs(inputs)
    key = "price_usd_per_million_output_tokens"
    at_zero = float(_npv(inputs, key, (0.0,))[0])
    if np.isfinite(at_zero) and at_zero >= 0:
        return _affine_root(inputs, key)
    return _root(inputs, key, upward=True)


def breakeven_device_hour_price(inputs) -> float:
    """revenue_mode = device_hours: the on-demand price per device-hour at which NPV = 0, the reserved price
    moved in the same proportion (both scaled by one factor; the reserved share held); NaN for a plan that sells
    tokens or where no price pays."""
    inputs = as_inputs(inputs)
    if not np.all(np.asarray(inputs.revenue_mode, float) == 1):
        return float("nan")
    on_demand = float(np.asarray(inputs.price_usd_per_device_hour, float))
    reserved = float(np.asarray(inputs.reserved_price_usd_per_device_hour, float))
    if on_demand <= 0 and reserved <= 0:
        return float("nan")
    if on_demand <= 0:  # only reserved capacity is sold: its price
        return _root(inputs, "reserved_price_usd_per_device_hour", upward=True)
    return _root(inputs, "price_usd_per_device_hour", upward=True,
                 tied=(("reserved_price_usd_per_device_hour", reserved / on_demand),))


def breakeven_utilization(inputs) -> float:
    """Utilization (0..1) at which NPV = 0; NaN ("never") when even full utilization does not pay
    or the plan pays at zero utilization. NPV is affine in utilization where nothing bends it (tokens and energy
    both are); with income tax it is piecewise linear and the root is found on its pieces."""
    root = _root(inputs, "utilization")
    return root if 0.0 <= root <= 1.0 else float("nan")
