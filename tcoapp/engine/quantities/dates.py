"""Software dates as the plan and the measurements type them (YYYY-MM), and the date of the
shipped factors: what a `software_date` may be, and its month count (performance/software_maturity.py
computes the speed at a date)."""
from __future__ import annotations

import re

CATALOG_DATE = "2026-12"   # year 0 of every plan: the month of the catalog's prices (catalog review 2026-12-06)
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


_TYPED_DAY = re.compile(r"(\d{4})-(\d{1,2})(?:-(\d{1,2})(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?)?")
_SERIAL = re.compile(r"\d{5}(?:\.\d+)?")
_RANGE = f"a month YYYY-MM between 2015-01 and 2100-12 (or a date), or empty (the date of the shipped factors, {FACTORS_DATE})"


def software_month(text: str) -> tuple[str, str | None]:
    """(the month 'YYYY-MM', None) of a `software_date` as typed or read from a cell: a month
    (2025-03), a day (2025-03-15, the text of an Excel date cell: 2025-03-15 00:00:00) is its month;
    empty stays empty. ('', the reason) where it is no such month: a date cell that lost its date
    format (a number) is named as what it would be, never as the serial number."""
    text = str(text or "").strip()
    if not text:
        return "", None
    m = _TYPED_DAY.fullmatch(text)
    if m is not None:
        year, month = int(m.group(1)), int(m.group(2))
        if 1 <= month <= 12 and 2015 <= year <= 2100:
            return f"{year:04d}-{month:02d}", None
        return "", f"= {text!r}: must be {_RANGE}"
    if _SERIAL.fullmatch(text):
        return "", (f"is a number, not a month (a date cell that lost its date format reads as one: "
                    f"{_serial_day(float(text))}): type the month as 2025-03 or format the cell as a date; must be "
                    f"{_RANGE}")
    return "", f"= {text!r}: must be {_RANGE}"


def _serial_day(serial: float) -> str:
    """The day a spreadsheet date number stands for (the 1900 date system), in words."""
    import datetime
    try:
        day = datetime.date(1899, 12, 30) + datetime.timedelta(days=int(serial))
    except OverflowError:
        return "no day at all"
    return f"that number would be {day.isoformat()}"


def month_plus_years(month: str, years: int) -> str:
    """'YYYY-MM' `years` years after the month `month` ('YYYY-MM')."""
    year, m = (int(x) for x in month.split("-"))
    return f"{year + int(years):04d}-{m:02d}"


def date_problem(text: str) -> str | None:
    """Why a `software_date` value is not a month (None: empty, a YYYY-MM month or a day in one)."""
    return software_month(text)[1]
