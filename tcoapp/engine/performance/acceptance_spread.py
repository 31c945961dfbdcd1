"""The published spread of a draft acceptance carried into the prediction band (docs/model.md, "How
sure it is").

A pool that drafts tokens at a model's published acceptance alpha (the plan's was empty) runs at a
rate the publications give as a spread, alpha_low..alpha_high (resources/catalog/spec_acceptance.csv:
chat to code). At the pool's batch and draft tokens k the verification step costs the same whatever
is accepted; what moves is the expected tokens per step, p(alpha) (spec_decode.tokens_per_step, at the
realised acceptance alpha x `spec_acceptance_realised`). A device spends the share s of its time
prefilling (the operating point's `prefill_share`) and 1 - s decoding, so its tokens/s at alpha' over
its tokens/s at alpha is

    r(alpha') = 1 / ((1 - s) x p(alpha) / p(alpha') + s)

`acceptance_ratios` gives (r(alpha_low), r(alpha_high)); `prediction_interval` widens the band with
them (each side's ln half-width and ln r combined as independent errors).
"""
from __future__ import annotations

import math

from .spec_decode import tokens_per_step


def acceptance_ratios(draft_tokens: int, acceptance: float, low: float, high: float, realised_share: float = 1.0,
                      later_ratio: float = 1.0, prefill_share: float = 0.0) -> tuple[float, float] | None:
    """(tokens/s per device at `low`, at `high`) over tokens/s per device at `acceptance`, at the same
    batch (module docstring); None without draft tokens or without a spread."""
    if draft_tokens <= 0 or not low < high:
        return None
    if not 0.0 <= low <= acceptance <= high <= 1.0:
        raise ValueError(f"acceptance spread: {low:g} <= {acceptance:g} <= {high:g} must hold, each in 0..1")
    s = prefill_share if math.isfinite(prefill_share) and 0.0 <= prefill_share < 1.0 else 0.0

    def per_step(alpha: float) -> float:
        return float(tokens_per_step(draft_tokens, min(alpha * realised_share, 1.0), later_ratio))

    nominal = per_step(acceptance)
    return tuple(1.0 / ((1.0 - s) * nominal / per_step(a) + s) for a in (low, high))   # type: ignore[return-value]


def widened(low: float, high: float, ratios: tuple[float, float]) -> tuple[float, float]:
    """The band (low, high, ratios of the figure) widened by the acceptance ratios about its geometric
    centre: each side's ln half-width and ln r added in quadrature (independent errors)."""
    centre = math.sqrt(low * high)
    half = math.log(high / low) / 2.0
    down, up = -math.log(min(ratios[0], 1.0)), math.log(max(ratios[1], 1.0))
    return centre * math.exp(-math.hypot(half, down)), centre * math.exp(math.hypot(half, up))
