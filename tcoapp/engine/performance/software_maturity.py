"""Serving software improves: the speed of the serving stack at an older `software_date` (plan key,
YYYY-MM; empty = FACTORS_DATE, the date of the shipped factors). docs/model.md, "Software date".

The shipped factors describe the software of FACTORS_DATE. At an earlier date d the decode steps and
prefills of a model class (dense / MoE) run slower by

    speed(d) = exp(-rate_class x max(0, years from d to FACTORS_DATE))

`software_maturity_moe_per_year` and `software_maturity_dense_per_year` (EfficiencyFactors) are fitted
with the other factors on measurements of the same devices and models at several dates (MLPerf
Offline rounds v4.1-v6.0, InferenceX histories): MoE serving (DeepSeek-R1) gained about 0.5 in log
throughput per year from 2025-09 to 2026-05 (the same devices, the same benchmark); dense models
(Llama-2-70B, Llama-3.1-405B) show no effect over 2024-08 to 2026, so their rate is 0. A date after
FACTORS_DATE is computed as FACTORS_DATE (nothing is known about later software; the plan's notes
say so).
"""
from __future__ import annotations

import re

import numpy as np

FACTORS_DATE = "2026-06"   # the newest measurements the shipped factors were fitted on (InferenceX, 2026-06-11)
# Publication months of the benchmark rounds the measurements cite without a day (MLPerf Inference
# publishes a spring and an autumn round; v6.0's month is an ESTIMATE: the file states the year only).
ROUND_DATES = {"v4.1": "2024-08", "v5.0": "2025-04", "v5.1": "2025-09", "v6.0": "2026-04"}
_DATE = re.compile(r"^\s*(\d{4})-(\d{2})(?:-\d{2})?")


def months(date_text: str) -> int | None:
    """Months since year 0 of a 'YYYY-MM' (or 'YYYY-MM-DD...') text, an MLPerf round named in it
    ('(v5.1 publication)'), else None (no date known)."""
    text = str(date_text or "")
    m = _DATE.match(text)
    if m is None:
        rnd = re.search(r"\(?(v\d\.\d)\b", text)
        m = _DATE.match(ROUND_DATES.get(rnd.group(1), "")) if rnd else None
    if m is None or not 1 <= int(m.group(2)) <= 12:
        return None
    return int(m.group(1)) * 12 + int(m.group(2)) - 1


def month_text(date_text: str) -> str:
    """'YYYY-MM' of a measurement's date text (`months`), '' where none is known."""
    d = months(date_text)
    return "" if d is None else f"{d // 12:04d}-{d % 12 + 1:02d}"


def date_problem(text: str) -> str | None:
    """Why a `software_date` value is not a date (None: empty or a YYYY-MM month)."""
    text = str(text or "").strip()
    if not text:
        return None
    m = re.fullmatch(r"(\d{4})-(\d{2})", text)
    if m is None or not 1 <= int(m.group(2)) <= 12 or not 2015 <= int(m.group(1)) <= 2100:
        return f"= {text!r}: must be a month YYYY-MM between 2015-01 and 2100-12, or empty (the date of the shipped factors, {FACTORS_DATE})"
    return None


def years_before_factors(date_text: str) -> float:
    """Years from `date_text` to FACTORS_DATE, 0 for an empty / unknown date or a later one."""
    d = months(date_text)
    return 0.0 if d is None else max(0.0, (months(FACTORS_DATE) - d) / 12.0)


def software_speed(date_text: str, is_moe: bool, factors):
    """Speed of the serving software at `date_text` relative to FACTORS_DATE (<= 1): exp(-rate x years)
    (an array where the factor holds Monte Carlo draws)."""
    rate = factors.software_maturity_moe_per_year if is_moe else factors.software_maturity_dense_per_year
    years = years_before_factors(date_text)
    if years == 0.0:
        return 1.0
    speed = np.exp(-np.asarray(rate, float) * years)
    return float(speed) if speed.ndim == 0 else speed


def date_note(date_text: str) -> str | None:
    """A note where `software_date` is after FACTORS_DATE (computed as of FACTORS_DATE)."""
    d = months(date_text)
    if d is not None and d > months(FACTORS_DATE):
        return (f"software_date {date_text} is after the shipped factors' date {FACTORS_DATE}: computed with the "
                f"software of {FACTORS_DATE} (later improvements are not predicted)")
    return None
