"""Headers that state their unit (`ttft (ms)`, `ttft_ms`, `TTFT [us]`, `power (kW)`, `power_w`) for a
quantity the format's own spellings do not cover: converted to the project's unit (s, W), or refused
in one line when the unit is not one of that quantity's. Never dropped silently."""
from __future__ import annotations

import re

from ...engine.core.errors import Problem
from .table import Table, header_key

TIME_TO_S = {"s": 1.0, "sec": 1.0, "secs": 1.0, "seconds": 1.0, "ms": 1e-3, "msec": 1e-3, "milliseconds": 1e-3,
             "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "microseconds": 1e-6}
POWER_TO_W = {"w": 1.0, "watt": 1.0, "watts": 1.0, "kw": 1e3, "kilowatt": 1e3, "kilowatts": 1e3}
# field -> (the header's name part, as header_key, without its unit; the units it may state)
UNIT_FIELDS = {
    "ttft": (("ttft", "medianttft", "timetofirsttoken"), TIME_TO_S),
    "tpot": (("tpot", "mediantpot", "timeperoutputtoken"), TIME_TO_S),
    "power_w": (("power", "powergpu", "powerchip", "powerdevice", "powerpergpu", "powerperdevice"), POWER_TO_W),
}
_BRACKETED = re.compile(r"^(.*?)[\s_]*[\(\[]\s*([^\)\]]*?)\s*[\)\]]\s*$")
_SUFFIX = re.compile(r"^(.*?)[\s_\-]+([a-zµμ]+)$", re.IGNORECASE)


def split_unit(header: str) -> tuple[str, str | None]:
    """(name, unit) of a header: 'ttft (ms)' -> ('ttft', 'ms'), 'ttft_ms' -> ('ttft', 'ms'), 'ttft' ->
    ('ttft', None). A bare suffix counts as a unit only where it is one of the known units."""
    match = _BRACKETED.match(header.strip())
    if match:
        return match.group(1), match.group(2)
    match = _SUFFIX.match(header.strip())
    known = set(TIME_TO_S) | set(POWER_TO_W)
    if match and match.group(2).lower() in known:
        return match.group(1), match.group(2)
    return header.strip(), None


def unit_column(field: str, table: Table, problems: list[Problem]) -> tuple[int, float] | None:
    """(column, scale to W) of a unit-bearing power header (`power (kW)`, `power_w`), None where the
    file has none; a unit that is not a power is a problem. Latencies are found by the tools' vocabulary
    instead (latency_headers.latency_column: `mean_ttft_ms`, `p50 ttft (ms)`, ...)."""
    names, units = UNIT_FIELDS[field]
    for i, header in enumerate(table.headers):
        name, unit = split_unit(header)
        if header_key(name) not in names:
            continue
        if unit is None:
            return i, 1.0     # `power`: the project's unit (W)
        scale = scale_of(units, unit, header, table, problems)
        return None if scale is None else (i, scale)
    return None


def scale_of(units: dict, unit: str, header: str, table: Table, problems: list[Problem]) -> float | None:
    """The scale of `unit` to the project's unit; None (a problem naming the header) if not one of `units`."""
    scale = units.get(unit.strip().lower())
    if scale is None:
        problems.append(Problem(table.where(table.header_row), header,
                                f"unit {unit!r} is not one of {', '.join(_shown_units(units))}: rename the header "
                                "with one of them (the values are converted)"))
    return scale


LABELS = {1.0: "s", 1e-3: "ms", 1e-6: "us"}, {1.0: "W", 1e3: "kW"}
POWER_SCALE = {"W": 1.0, "kW": 1e3, "": 1.0}


def stated_unit(field: str, header: str, spelled: str, table: Table, problems: list[Problem]) -> str | None:
    """The unit label ("s", "ms", "us"; "W", "kW") a header found by the format's spellings states in its
    own text (`Median TTFT (us)` is not seconds however its spelling starts); its spelling's unit where
    the header states none; None (a problem) for a unit that is not the quantity's."""
    _, units = UNIT_FIELDS[field]
    _, unit = split_unit(header)
    if unit is None:
        return spelled
    scale = scale_of(units, unit, header, table, problems)
    return None if scale is None else label(field, scale)


def label(field: str, scale: float) -> str:
    return LABELS[0 if UNIT_FIELDS[field][1] is TIME_TO_S else 1][scale]


def _shown_units(units: dict) -> list[str]:
    return ["s", "ms", "us"] if units is TIME_TO_S else ["W", "kW"]
