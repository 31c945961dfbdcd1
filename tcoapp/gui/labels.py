"""Display text for engine values: field labels and units come from the field table, metric labels
and units from the engine's metric table.

Formatting is the one place numbers become text in the GUI, so every view shows a value the same way.
"""
from __future__ import annotations

import math

from ..engine.decision.summary import months_text
from ..engine.quantities.inputs import PLAN_FIELD_BY_NAME, Field
from ..engine.quantities.metrics import METRICS as METRIC_TABLE, missing_text
from ..engine.core.number_format import count, money, percent, plain

# metric key -> (label, unit, better): better is "high", "low" or "" (no preferred direction)
METRICS: dict[str, tuple[str, str, str]] = {m.key: (m.label, m.unit, m.better) for m in METRIC_TABLE}



def metric_label(key: str) -> str:
    if key in METRICS:
        return METRICS[key][0]
    field = PLAN_FIELD_BY_NAME.get(key)
    return field.label if field else key


def metric_unit(key: str) -> str:
    if key in METRICS:
        return METRICS[key][1]
    field = PLAN_FIELD_BY_NAME.get(key)
    return field.unit if field else ""


def display_unit(key: str) -> str:
    """The unit a metric is shown in: fractions are shown as percent (inputs stay 0..1 as entered)."""
    unit = metric_unit(key)
    if key in METRICS and unit.startswith("fraction"):
        return "%" + unit[len("fraction"):]
    return unit


def label_with_unit(key: str) -> str:
    unit = display_unit(key)
    return f"{metric_label(key)} [{unit}]" if unit else metric_label(key)


def better(key: str) -> str:
    return METRICS.get(key, ("", "", ""))[2]


def format_number(value: float, unit: str = "") -> str:
    """Compact, unit-aware text of a number (present/numbers.py, the one formatter): fractions as %,
    money with its precision (the unit is in the label), counts with separators or an SI suffix
    ('27.3 T'), never scientific notation."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "n/a"
    value = float(value)
    if unit.startswith("fraction"):
        return percent(value)
    if unit.startswith("USD"):
        return money(value).replace("$", "")
    if abs(value) >= 1000:
        return count(value)
    return plain(value, 4)


def format_metric(key: str, value, metrics=None) -> str:
    """`metrics` (the plan's, optional) tells a payback never reached from a plan without cash flows."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return missing_text(key, metrics)
    return format_number(value, metric_unit(key))


from ..present.values import CHOICE_LABELS, choice_label  # noqa: E402 - the words a person reads
from ..engine.core.number_text import POINT, Convention  # noqa: E402

ENGLISH = Convention(POINT, "the app's own display")


def parse_input(field: Field, raw):
    """What a person typed, as the engine reads it: a choice's label (or its key, any case) -> its key,
    '70%' -> 0.7 for a fraction; anything else unchanged (the engine validates it)."""
    if not isinstance(raw, str):
        return raw
    text = raw.strip()
    if field.type == "choice":
        for key in field.choices:
            if text.lower() in (key.lower(), choice_label(key).lower()):
                return key
        return raw
    if field.type in ("int", "float"):
        # the app shows numbers US-style (26,737,500): what it shows reads back as that, not as a guess
        number = ENGLISH.read(text[:-1] if field.fraction and text.endswith("%") else text)
        if number is not None:
            return number / 100.0 if text.endswith("%") else number
    return raw


def format_field(field: Field, value) -> str:
    """Text of an input value as the editor and the compare table show it (fractions as entered: 0..1;
    a choice by its label)."""
    if value is None:
        return ""
    if field.type == "bool":
        return "yes" if value else "no"
    if field.type == "choice":
        return choice_label(value)
    if field.type == "str":
        return str(value)
    number = float(value)
    if abs(number) >= 10_000 and number.is_integer():
        return f"{number:,.0f}"   # thousands separators; the engine's coerce() accepts them back
    if field.type == "int":
        return f"{int(value)}"
    return f"{number:.10g}"


def format_metric_with_unit(key: str, value, metrics=None) -> str:
    """'35.3 %/yr', '1,234 USD', 'never': the value and the unit it is shown in."""
    text = format_metric(key, value, metrics)
    if text in ("n/a", "never"):
        return text
    unit = display_unit(key)
    if unit.startswith("%"):
        return text + unit[1:]
    if unit == "months":
        return months_text(text)
    return f"{text} {unit}".strip()
