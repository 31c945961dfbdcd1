"""Turn raw cell values into typed field values, collecting every problem.

Raw values come from workbook cells, CSV text, the GUI or Python code. Nothing is clamped: a value
outside its range is a problem naming the place, the value and the allowed range.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Mapping

from ..core.errors import Problem, as_text, shown
from ..core.number_text import read_typed
from .inputs import Field

Locator = Callable[[str], str]

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


def is_blank(value: Any) -> bool:
    """Whether a cell value is empty (None or only spaces)."""
    return value is None or (isinstance(value, str) and value.strip() == "")


def coerce(field: Field, value: Any) -> tuple[Any, str | None]:
    """Return (typed value, None) or (None, error message). Blank gives the field's default."""
    if is_blank(value):
        if field.required:
            return None, f"is required ({field.range_text()})"
        return field.default, None
    kind = field.type
    if kind == "str":
        return as_text(value).strip(), None     # TRUE, not True; a date cell as 2025-03-15
    if kind == "choice":
        text = str(value).strip().lower()
        if text in field.choices:
            return text, None
        return None, f"= {shown(value)}: must be {field.range_text()}"
    if kind == "bool":
        return _coerce_bool(field, value)
    return _coerce_number(field, value)


def _coerce_bool(field: Field, value: Any) -> tuple[Any, str | None]:
    if isinstance(value, bool):
        return value, None
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value), None
    text = str(value).strip().lower()
    if text in _TRUE:
        return True, None
    if text in _FALSE:
        return False, None
    return None, f"= {shown(value)}: must be {field.range_text()}"


def _coerce_number(field: Field, value: Any) -> tuple[Any, str | None]:
    if isinstance(value, bool):
        return None, f"= {shown(value)}: must be {field.range_text()}"
    if isinstance(value, str):
        number, error = read_typed(value, fraction=field.fraction)
        if error:
            return None, f"{error}; must be {field.range_text()}"
        if number is None and _non_finite_word(value):
            return None, f"= {shown(value)} is not a finite number: must be {field.range_text()}"
        if number is None:
            return None, f"= {shown(value)} is not a number: must be {field.range_text()}"
    else:
        try:
            number = float(value)
        except OverflowError:  # an integer of hundreds of digits: beyond any float, so out of range
            return None, f"= {shown(value)}: must be {field.range_text()}"
        except (TypeError, ValueError):
            return None, f"= {shown(value)} is not a number: must be {field.range_text()}"
    if not math.isfinite(number):
        return None, f"= {shown(value)} is not a finite number: must be {field.range_text()}"
    if field.type == "int":
        if number != round(number):
            return None, f"= {shown(value)}: must be {field.range_text()}"
        number = int(round(number))
    if not _in_range(field, number):
        return None, f"= {_show(value)}: must be {field.range_text()}"
    return number, None


def _non_finite_word(text: str) -> bool:
    """`inf`, `-Infinity`, `nan`: words Python reads as numbers that are not finite."""
    try:
        return not math.isfinite(float(text))
    except ValueError:
        return False


def _show(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else shown(value)


def _in_range(field: Field, number: float) -> bool:
    if field.min is not None:
        if number < field.min or (field.min_exclusive and number == field.min):
            return False
    if field.max is not None and number > field.max:
        return False
    return True


def coerce_record(
    fields: tuple[Field, ...], raw: Mapping[str, Any], where: Locator, problems: list[Problem]
) -> dict[str, Any]:
    """Typed values for every field (defaults for missing keys); problems are appended."""
    named = _named(fields)
    if not raw.keys() <= named.keys():
        for key in raw:
            if key not in named:
                problems.append(Problem(where(key), key, "unknown key"))
    values: dict[str, Any] = {}
    isfinite = math.isfinite
    for name, field, kind in named.values():
        value = raw.get(name)
        if value is None and not field.required:
            values[name] = field.default   # what coerce gives a blank optional cell
            continue
        if type(value) is float and kind == "float" and isfinite(value) and _in_range(field, value):
            values[name] = value   # what coerce gives a finite float in range (most cells), without its steps
            continue
        if type(value) is str and kind == "str" and value.strip():
            values[name] = value.strip()   # what coerce gives a text that is not blank
            continue
        value, error = coerce(field, value)
        if error:
            problems.append(Problem(where(name), name, error))
        values[name] = value
    return values


_NAMED: dict[int, tuple[tuple, dict]] = {}


def _named(fields: tuple[Field, ...]) -> dict[str, tuple[str, Field, str]]:
    """{key: (key, field, type)} of a field table, in its order (kept per table: a table is read row by row)."""
    kept = _NAMED.get(id(fields))
    if kept is None or kept[0] is not fields:
        if len(_NAMED) > 64:   # tables built on the fly: the kept ones never grow without bound
            _NAMED.clear()
        kept = _NAMED[id(fields)] = (fields, {f.name: (f.name, f, f.type) for f in fields})
    return kept[1]
