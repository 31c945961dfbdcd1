"""A metric's value as a person reads it: its unit, thousands separators, percentages, dollars never
in scientific notation. Used by the command line's text output and the decision report."""
from __future__ import annotations

import math

from ..engine.quantities.metrics import METRIC_BY_KEY, missing_text

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
    return CHOICE_LABELS.get(str(value), str(value))


def plain(value: float, digits: int = 4) -> str:
    """A number without trailing zeros: 50 / 0.0895 / 1,000,000."""
    text = significant(value, digits)
    return text.rstrip("0").rstrip(".") if "." in text else text


_COUNTS = {"sequences", "devices", "servers", "racks"}
_UNIT_WORDS = {"tokens/s": "tokens/s", "s": "s", "W": "W", "tokens/J": "tokens/J", "kW": "kW",
               "tokens/yr": "tokens/yr", "months": "months"}


def significant(value: float, digits: int = 3) -> str:
    """`value` to `digits` significant digits in fixed notation with thousands separators
    (1,234 / 12.3 / 0.0123), never 1.23e+04."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))
    return f"{value:,.{min(decimals, 9)}f}"


def usd(value: float, cents: bool = False) -> str:
    """'$26,740,000', '-$11,620,000'; with `cents` small prices keep 3 significant digits ('$0.156')."""
    sign = "-" if value < 0 else ""
    body = significant(abs(value)) if cents and abs(value) < 1000 else f"{abs(value):,.0f}"
    return f"{sign}${body}"


def percent(fraction: float) -> str:
    """0.5449 -> '54.5 %'; 2.97 -> '297 %'."""
    return f"{significant(fraction * 100.0)} %"


def metric_value(key: str, value: float | None, metrics=None) -> str:
    """One metric's value with its unit; 'n/a' / 'never' where it does not exist."""
    if value is None or not math.isfinite(value):
        return missing_text(key, metrics)
    unit = METRIC_BY_KEY[key].unit if key in METRIC_BY_KEY else ""
    if unit == "USD/Mtok":
        return f"{usd(value, cents=True)} per Mtok"
    if unit.startswith("USD"):
        rest = unit[3:].lstrip("/")
        return usd(value) + (f" per {rest.replace('/', ' per ').replace('yr', 'year')}" if rest else "")
    if unit.startswith("fraction"):
        return percent(value) + (" per year" if unit.endswith("/yr") else "")
    if unit in _COUNTS:
        return (f"{value:,.0f}" if float(value).is_integer() else significant(value)) + f" {unit}"
    if unit == "tokens/yr":
        return f"{value:,.0f} tokens/yr"
    number = f"{value:,.0f}" if abs(value) >= 100 else significant(value)
    if unit == "months" and number in ("1", "1.00"):
        return f"{number} month"
    return f"{number} {_UNIT_WORDS.get(unit, unit)}".rstrip()
