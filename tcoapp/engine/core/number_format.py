"""The one number formatter of every surface (command line, desktop app, report): money with its
precision, counts with SI suffixes or thousands separators, never scientific notation; and JSON
numbers rounded to what is meaningful. Pure Python (no Qt, no I/O), in the engine so every layer may use it
(the engine's own notes too).

- money: '$1.71', '$0.40', '$0.0622', '$26,737,500', '-$431,000'
- count: '12,345', '27.3 T' (M, G, T, P above a million)
- number: 3 significant digits in fixed notation with separators ('0.0123', '12.3', '1,234')
"""
from __future__ import annotations

import math

SI = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"))
JSON_DIGITS = 12


def _missing(value) -> str | None:
    if value is None:
        return "n/a"
    if isinstance(value, float) and math.isnan(value):
        return "n/a"
    if isinstance(value, float) and math.isinf(value):
        return "∞" if value > 0 else "-∞"
    return None


def number(value: float, digits: int = 3) -> str:
    """`value` to `digits` significant digits in fixed notation with separators (never 1.2e+04);
    whole digits are kept ('26,737,500' at 3 digits)."""
    missing = _missing(value)
    if missing:
        return missing
    if value == 0:
        return "0"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(abs(value)))))
    text = f"{value:,.{min(decimals, 12)}f}"
    return text


def plain(value: float, digits: int = 4) -> str:
    """A number without trailing zeros: 50 / 0.0895 / 1,000,000."""
    text = number(value, digits)
    return text.rstrip("0").rstrip(".") if "." in text else text


def money(value: float) -> str:
    """Dollars with their precision: cents from $1 ('$1.71'), 3 significant digits and at least the
    cents below ('$0.40', '$0.156', '$0.0622'), whole dollars with separators from $1,000
    ('$26,737,500')."""
    missing = _missing(value)
    if missing:
        return missing
    sign = "-" if value < 0 else ""
    x = abs(value)
    if x >= 1000:
        body = f"{x:,.0f}"
    elif x >= 1 or x == 0:
        body = f"{x:,.2f}"
    else:   # 3 significant digits, at least the cents: $0.40, $0.156, $0.0622
        body = plain(x, 3)
        if len(body.partition(".")[2]) < 2:
            body = f"{x:.2f}"
    return f"{sign}${body}"


def money_short(value: float) -> str:
    """Large money with an SI suffix ('$26.7 M', '-$431 k' stays '-$431,000'): for chart axes and tight columns."""
    missing = _missing(value)
    if missing:
        return missing
    for scale, suffix in SI:
        if abs(value) >= scale:
            return f"{'-' if value < 0 else ''}${number(abs(value) / scale, 3)} {suffix}"
    return money(value)


def count(value: float, unit: str = "") -> str:
    """A count: whole numbers with separators below a million ('12,345'), else 3 significant digits
    and an SI suffix ('27.3 T'); `unit` follows ('27.3 T tokens')."""
    missing = _missing(value)
    if missing:
        return missing
    text = None
    for scale, suffix in SI:
        if abs(value) >= scale:
            text = f"{plain(value / scale, 3)} {suffix}"
            break
    if text is None:
        text = f"{value:,.0f}" if float(value).is_integer() or abs(value) >= 100 else plain(value, 3)
    return f"{text} {unit}" if unit else text


def percent(fraction: float, digits: int = 3) -> str:
    """0.5449 -> '54.5 %'; 2.97 -> '297 %'; 0.006 -> '0.6 %'."""
    missing = _missing(fraction)
    if missing:
        return missing
    return f"{plain(fraction * 100.0, digits)} %"


def json_number(value):
    """A float rounded to JSON_DIGITS significant digits (26737499.999999996 -> 26737500.0)."""
    if isinstance(value, bool) or not isinstance(value, float) or not math.isfinite(value) or value == 0:
        return value
    return float(f"{value:.{JSON_DIGITS}g}")


def json_rounded(data):
    """`data` (dicts, lists, numbers) with every float rounded by `json_number`."""
    if isinstance(data, dict):
        return {k: json_rounded(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [json_rounded(v) for v in data]
    return json_number(data)
