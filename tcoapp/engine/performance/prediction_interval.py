"""Prediction intervals of a generated curve's operating point (docs/model.md, "How sure it is").

An 80 % interval per plan and pool on a generated curve (None on a measured one), calibrated on
published measurements the factor fit never saw: the BAND_QUANTILES (5th and 95th) percentiles of
measured / predicted over the *held-out* rows of `tcoapp accuracy` in the point's regime
(offline / server / interactive). Why these quantiles and this cell: the error varies more between
sources (submitters, serving stacks, dates) than within one, so a band built from some sources must
be wider than their own 10th-90th percentiles to hold 80 % of another source's measurements. Built
from half of the held-out sources and tested on the other half, the 10th-90th band of the regime
held 68 % (of finer (regime, class, vendor) cells 61 %) and the 5th-95th band of the regime 79 %
(offline 82 %, server 80 %, interactive 78 %): the shipped band is the latter (tools/refit_factors.py --intervals prints the table and that calibration). Class (dense /
MoE) and vendor stay in the `basis` text; their own cells are too small to be calibrated.
Tokens/s per user has its own quantiles, from rows measured at a stated concurrency (InferenceX
sweeps: the predicted per-user rate at that batch vs the measured 1 / TPOT).

The regime of an operating point: *interactive* at >= 25 tokens/s per user (as the accuracy set
classes its rows), else *offline* where the batch is at least 90 % of the memory limit (a
max-throughput point), else *server*.
"""
from __future__ import annotations

import math

INTERACTIVE_MIN_TOKENS_PER_S_PER_USER = 25.0
OFFLINE_BATCH_SHARE = 0.9
MIN_ROWS = 8
LEVEL = 0.8
BAND_QUANTILES = (0.05, 0.95)

# regime ("*": every regime) -> (held-out rows, low, high quantile of measured / predicted tokens/s
# per device). Written by tools/refit_factors.py --intervals (factors of 2026-12-01, issue 21).
RESIDUAL_QUANTILES: dict[str, tuple[int, float, float]] = {
    "offline": (55, 0.634, 1.156),
    "server": (35, 0.694, 1.231),
    "interactive": (151, 0.670, 1.499),
    "*": (241, 0.662, 1.432),
}
# regime -> (rows, low, high quantile of measured / predicted tokens/s per user)
PER_USER_QUANTILES: dict[str, tuple[int, float, float]] = {
    "server": (11, 0.554, 1.382),
    "interactive": (139, 0.706, 1.537),
    "*": (150, 0.703, 1.532),
}


def point_regime(tokens_per_s_per_user: float, batch: float, max_batch_by_memory: float) -> str:
    """interactive, offline or server (module docstring)."""
    if math.isfinite(tokens_per_s_per_user) and tokens_per_s_per_user >= INTERACTIVE_MIN_TOKENS_PER_S_PER_USER:
        return "interactive"
    if math.isfinite(max_batch_by_memory) and max_batch_by_memory > 0 and batch >= OFFLINE_BATCH_SHARE * max_batch_by_memory:
        return "offline"
    return "server"


def band_cell(table: dict, regime: str) -> tuple[str, tuple[int, float, float]]:
    """(key, (rows, low, high)) of `regime` where it holds MIN_ROWS rows, else of every regime ("*")."""
    found = table.get(regime)
    return (regime, found) if found is not None and found[0] >= MIN_ROWS else ("*", table["*"])


def prediction_interval(point, kind: str, vendor: str, generated: bool | None = None) -> dict | None:
    """{"level", "tokens_per_s_per_device": [low, high], "tokens_per_s_per_user": [low, high], "basis"}
    for a generated operating point that exists (`generated` None: its source says so); None
    otherwise (a measured curve, no operating point)."""
    generated = str(getattr(point, "source", "")).startswith("generated") if generated is None else generated
    if point is None or not generated or not point.exists:
        return None
    regime = point_regime(point.tokens_per_s_per_user, point.batch, point.max_batch_by_memory)
    key, (n, lo, hi) = band_cell(RESIDUAL_QUANTILES, regime)
    ukey, (un, ulo, uhi) = band_cell(PER_USER_QUANTILES, regime)
    per_user = point.tokens_per_s_per_user
    user = [per_user * ulo, per_user * uhi] if math.isfinite(per_user) else None
    where = "all regimes" if key == "*" else f"{key} regime"
    uwhere = "all regimes" if ukey == "*" else f"{ukey} regime"
    basis = (f"{regime} point ({kind}, {vendor}): the 5th-95th percentiles of {n} held-out published measurements "
             f"({where}; sources the factor fit never saw) lay between {lo:.2f}x and {hi:.2f}x the model's tokens/s "
             f"per device, a band that held about 80 % of measurements from other sources; per user {ulo:.2f}x-{uhi:.2f}x "
             f"({un} rows measured at a stated concurrency, {uwhere})")
    return {"level": LEVEL, "tokens_per_s_per_device": [point.tokens_per_s_per_device * lo, point.tokens_per_s_per_device * hi],
            "tokens_per_s_per_user": user, "basis": basis}
