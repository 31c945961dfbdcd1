"""Latency units, checked against each other instead of trusted from the label.

Time per output token and interactivity measure one thing: tokens/s per user = 1 / TPOT in
seconds. So the median of `interactivity x TPOT` over a file's rows is ~1 when its TPOT column
holds seconds and ~1000 when it holds milliseconds, whatever the header says. Older InferenceX
exports label seconds "(ms)"; read by the label their TTFT came out 1000x too small. TTFT comes
from the same export as TPOT: a header family that mislabels one mislabels both. Without an
interactivity column the label is kept, and a TTFT below a tenth of one decode step (TPOT) or a
TPOT under 0.1 ms is reported as implausible.
"""
from __future__ import annotations

import numpy as np

SCALE_TO_S = {"s": 1.0, "ms": 1e-3, "us": 1e-6}


def _median(values) -> float:
    values = np.asarray([v for v in values if np.isfinite(v) and v > 0], float)
    return float(np.median(values)) if values.size else float("nan")


def tpot_unit(label: str, tpot_raw, per_user, header: str, filename: str) -> tuple[str, list[str]]:
    """The unit the TPOT column really holds ("s" or "ms"), and what was found out."""
    product = _median(np.asarray(tpot_raw, float) * np.asarray(per_user, float))
    if not np.isfinite(product):
        if label == "ms" and _median(tpot_raw) < 0.1:
            return label, [f"{filename}: {header!r} is labelled ms but its values ({_median(tpot_raw):.3g}) would be "
                           "under 0.1 ms per token: they look like seconds (no interactivity column to check against)"]
        return label, []
    found = "s" if 0.5 <= product <= 2.0 else "ms" if 500 <= product <= 2000 else ""
    if not found:
        return label, [f"{filename}: interactivity x {header!r} = {product:.3g} (1 if TPOT is in s, 1000 if in ms): "
                       f"the two columns disagree; TPOT read as labelled ({label})"]
    if found != label:
        return found, [f"{filename}: {header!r} holds {'seconds' if found == 's' else 'milliseconds'}, not {label}: "
                       f"interactivity x TPOT = {product:.3g} when read as {found}; TPOT and TTFT read as {found}"]
    return found, []


def ttft_plausibility(ttft_s, tpot_s, filename: str) -> list[str]:
    """A warning when the median TTFT is under a tenth of the median TPOT (a unit slip)."""
    ttft, tpot = _median(ttft_s), _median(tpot_s)
    if np.isfinite(ttft) and np.isfinite(tpot) and ttft < 0.1 * tpot:
        return [f"{filename}: median TTFT {ttft:.3g} s is under a tenth of one decode step (TPOT {tpot:.3g} s): "
                "check the TTFT column's unit"]
    return []
