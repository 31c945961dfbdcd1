"""Efficiency curves and operating points: the interface between performance and finance.

An efficiency curve gives, per batch B (concurrent sequences per replica), output tokens/s per
device, tokens/s per user, time to first token, power per device and whether the point is
feasible (fits in memory / inside the measured range). Both sources, measured points and the
generated roofline model, return a `CurveArrays`; the operating point is then picked from it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class CurveArrays:
    """Arrays of equal length over `batch`. NaN = unknown. Units in the names."""

    batch: np.ndarray
    tokens_per_s_per_device: np.ndarray
    tokens_per_s_per_user: np.ndarray
    ttft_s: np.ndarray
    power_w: np.ndarray
    feasible: np.ndarray  # bool: fits memory (generated) or inside the measured range (measured)
    max_batch_by_memory: float = float("nan")
    source: str = "generated"
    notes: tuple[str, ...] = ()
    prefill_share: np.ndarray | None = None  # share of device time spent prefilling (None: unknown)

    @property
    def tokens_per_joule(self) -> np.ndarray:
        """tokens/s per device / power_w = tokens per joule (= tokens/s/W)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return self.tokens_per_s_per_device / self.power_w


@dataclass(frozen=True)
class OperatingPoint:
    """Where a plan runs on its curve. NaN = does not exist; warnings say why."""

    batch: float
    tokens_per_s_per_device: float
    tokens_per_s_per_user: float
    ttft_s: float
    power_w: float
    max_batch_by_memory: float
    source: str
    extrapolated: bool = False
    queued: bool = False
    warnings: tuple[str, ...] = field(default=())
    prefill_share: float = float("nan")  # share of device time spent prefilling (NaN: unknown, e.g. measured)

    @property
    def tokens_per_joule(self) -> float:
        """Output tokens per joule: tokens/s per device / W per device (NaN without power)."""
        return self.tokens_per_s_per_device / self.power_w if self.power_w > 0 else float("nan")

    @property
    def exists(self) -> bool:
        """Whether the point serves tokens (tokens/s per device finite and > 0)."""
        return bool(np.isfinite(self.tokens_per_s_per_device) and self.tokens_per_s_per_device > 0)


def missing_point(source: str, reason: str, max_batch_by_memory: float = float("nan")) -> OperatingPoint:
    """An operating point that does not exist (NaN numbers), with the reason as its warning."""
    nan = float("nan")
    return OperatingPoint(nan, nan, nan, nan, nan, max_batch_by_memory, source, warnings=(reason,))


def meets_target(tokens_per_s_per_user, ttft_s, min_tokens_per_s_per_user=None, max_ttft_s=None) -> np.ndarray:
    """Where the interactivity targets hold, elementwise: tokens/s per user >= the minimum and a finite
    TTFT [s] <= the maximum (a target None holds everywhere). The one definition every batch search
    reads: an operating point, the serving search's sweep, a decode pool, a Monte Carlo draw and an
    accuracy row."""
    ok = np.asarray(True)
    if min_tokens_per_s_per_user is not None:
        ok = ok & (np.asarray(tokens_per_s_per_user, float) >= min_tokens_per_s_per_user)
    if max_ttft_s is not None:
        ttft = np.asarray(ttft_s, float)
        ok = ok & np.isfinite(ttft) & (ttft <= max_ttft_s)
    return ok


def largest_batch_meeting(curve: CurveArrays, min_tokens_per_s_per_user=None, max_ttft_s=None) -> int | None:
    """Index of the largest feasible batch meeting both interactivity targets, or None."""
    ok = np.asarray(curve.feasible, bool) & meets_target(curve.tokens_per_s_per_user, curve.ttft_s,
                                                          min_tokens_per_s_per_user, max_ttft_s)
    if not ok.any():
        return None
    candidates = np.nonzero(ok)[0]
    return int(candidates[np.argmax(curve.batch[candidates])])


def point_at(curve: CurveArrays, index: int, warnings: tuple[str, ...] = ()) -> OperatingPoint:
    """The curve's operating point at its `index`-th batch (tokens/s, s, W as the curve's)."""
    return OperatingPoint(
        batch=float(curve.batch[index]),
        tokens_per_s_per_device=float(curve.tokens_per_s_per_device[index]),
        tokens_per_s_per_user=float(curve.tokens_per_s_per_user[index]),
        ttft_s=float(curve.ttft_s[index]),
        power_w=float(curve.power_w[index]),
        max_batch_by_memory=float(curve.max_batch_by_memory),
        source=curve.source,
        extrapolated=not bool(curve.feasible[index]) and curve.source.startswith("measured"),
        warnings=tuple(curve.notes) + warnings,
        prefill_share=float("nan") if curve.prefill_share is None else float(np.asarray(curve.prefill_share)[index]),
    )
