"""A metric's value as a person reads it: its unit, thousands separators, percentages, dollars never
in scientific notation. Used by the command line's text output and the decision report."""
from __future__ import annotations

import math

from ..engine.quantities.metrics import METRIC_BY_KEY, missing_text
from ..engine.core.number_format import count, money, number, percent, plain  # noqa: F401 (plain, percent: the callers' names)

CHOICE_LABELS: dict[str, str] = {   # a choice's key -> the words a person reads (the workbook keeps the key)
    "bf16": "BF16", "fp8": "FP8", "mxfp4": "MXFP4", "nvfp4": "NVFP4",
    "devices": "Devices (count entered)", "facility_power": "Facility power (kW)",
    "capex_budget": "Capex budget (USD)", "demand": "Token demand (tokens/day)",
    "serve": "Serve", "prefill": "Prefill", "decode": "Decode",
    "buy": "Buy", "rent": "Rent",
    "off": "Off: as typed", "auto": "Auto: search the best configuration",
    "cost_per_million_output_tokens_usd": "Lowest cost per million output tokens",
    "tokens_per_s_per_device": "Most tokens/s per device",
}


def choice_label(value) -> str:
    """A choice as read: its label, else its key in words ('straight_line' -> 'Straight line')."""
    text = str(value)
    if text in CHOICE_LABELS:
        return CHOICE_LABELS[text]
    return text[:1].upper() + text[1:].replace("_", " ") if "_" in text else text


_PER = {"yr": "year", "h": "hour"}
_COUNTS = {"sequences", "devices", "servers", "racks"}
_UNIT_WORDS = {"tokens/s": "tokens/s", "s": "s", "W": "W", "tokens/J": "tokens/J", "kW": "kW",
               "tokens/yr": "tokens/yr", "months": "months"}


def significant(value: float, digits: int = 3) -> str:
    """`value` to `digits` significant digits in fixed notation with thousands separators
    (1,234 / 12.3 / 0.0123), never 1.23e+04 (numbers.number)."""
    return number(value, digits)


def usd(value: float, cents: bool = False) -> str:
    """Money with its precision (numbers.money): '$26,740,000', '-$11,620,000', '$1.71', '$0.40',
    '$0.156'. `cents` is kept for callers; every amount keeps its cents below $1,000."""
    return money(value)


def metric_value(key: str, value: float | None, metrics=None) -> str:
    """One metric's value with its unit; 'n/a' / 'never' where it does not exist."""
    if value is None or not math.isfinite(value):
        return missing_text(key, metrics)
    unit = METRIC_BY_KEY[key].unit if key in METRIC_BY_KEY else ""
    if unit == "USD/Mtok":
        return f"{money(value)} per Mtok"
    if unit.startswith("USD"):
        rest = unit[3:].lstrip("/")
        return usd(value) + (" per " + " per ".join(_PER.get(w, w) for w in rest.split("/")) if rest else "")
    if unit.startswith("fraction"):
        return percent(value) + (" per year" if unit.endswith("/yr") else "")
    if unit == "ratio":
        return f"{significant(value)}x"
    if unit in _COUNTS:
        return (f"{value:,.0f}" if float(value).is_integer() else significant(value)) + f" {unit}"
    if unit == "tokens/yr":
        return count(value, "tokens/yr")
    text = count(value) if abs(value) >= 100 else significant(value)
    if unit == "months" and text in ("1", "1.00"):
        return f"{text} month"
    return f"{text} {_UNIT_WORDS.get(unit, unit)}".rstrip()
