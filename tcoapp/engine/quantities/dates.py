"""Software dates as the plan and the measurements type them (YYYY-MM), and the date of the
shipped factors: what a `software_date` may be, and its month count (performance/software_maturity.py
computes the speed at a date)."""
from __future__ import annotations

import re

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
