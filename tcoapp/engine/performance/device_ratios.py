"""Device-vs-device ratio error (docs/model.md, "How sure it is"): the ratio a decision rests on.

Two devices measured on the same work (the same model, benchmark scenario, input length,
concurrency and precision label, and for MLPerf the same round) give a measured ratio of tokens/s
per device; the model gives a predicted one. The error of a pair is predicted ratio / measured
ratio - 1; a device with several rows in one group counts once (geometric means of its measured and
predicted values). Rows whose prediction is 0 (a target no configuration reaches) are left out of
the pairs. Pure: results come with the measurement rows they were modelled from.
"""
from __future__ import annotations

import itertools
import math

import numpy as np


def work_key(row: dict, source_family: str) -> tuple:
    """What makes two rows the same work (module docstring)."""
    round_ = source_family.split()[1] if source_family.startswith("MLPerf") else ""
    return (row.get("model") or "", row.get("scenario") or "", round_, (row.get("input_len") or "").strip(),
            (row.get("batch_or_concurrency") or "").strip(), (row.get("precision") or "").strip().upper(),
            (row.get("output_len") or "").strip() if not round_ else "")


def ratio_errors(results, rows: dict[int, dict]) -> np.ndarray:
    """Predicted / measured device ratio - 1 of every pair of catalog devices on the same work."""
    groups: dict[tuple, dict[str, list[tuple[float, float]]]] = {}
    for r in results:
        if r.predicted > 0 and r.line in rows:
            key = work_key(rows[r.line], r.source_family)
            groups.setdefault(key, {}).setdefault(r.device, []).append((r.measured, r.predicted))
    out = []
    for devices in groups.values():
        means = {d: tuple(math.exp(np.mean(np.log(v))) for v in zip(*pairs)) for d, pairs in devices.items()}
        for a, b in itertools.combinations(sorted(means), 2):
            (ma, pa), (mb, pb) = means[a], means[b]
            out.append((pa / pb) / (ma / mb) - 1.0)
    return np.array(out)


def ratio_summary(results, rows: dict[int, dict]) -> dict[str, float] | None:
    """{n, median_abs_pct, p90_abs_pct} of the device-pair ratio errors, or None without a pair."""
    errors = np.abs(ratio_errors(results, rows)) * 100.0
    if errors.size == 0:
        return None
    return {"n": int(errors.size), "median_abs_pct": float(np.median(errors)), "p90_abs_pct": float(np.percentile(errors, 90))}
