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

from ..quantities.dates import FACTORS_DATE, ROUND_DATES, date_problem, month_text, months  # noqa: F401 (read through this module too)


_FACTORS_MONTHS = months(FACTORS_DATE) or 0   # (a month text: never None)


def years_before_factors(date_text: str) -> float:
    """Years from `date_text` to FACTORS_DATE, 0 for an empty / unknown date or a later one."""
    d = months(date_text)
    return 0.0 if d is None else max(0.0, (_FACTORS_MONTHS - d) / 12.0)


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
    if d is not None and d > _FACTORS_MONTHS:
        return (f"software_date {date_text} is after the shipped factors' date {FACTORS_DATE}: computed with the "
                f"software of {FACTORS_DATE} (later improvements are not predicted)")
    return None
