"""The named constants the equations use (docs/workbook_format.md, "Constants"): the engine reads their
values here and the workbook writes each as a named cell of its Constants sheet (io/xlsx_constants.py), so
an expression (expr.py) names `TOKENS_PER_MILLION` in both and no formula holds a literal."""
from __future__ import annotations

# name, unit, value (a number, or the names of constants whose product it is), description
CONSTANTS: tuple[tuple[str, str, float | tuple[str, ...], str], ...] = (
    ("HOURS_PER_YEAR", "h/yr", 8760, "Hours in a (365-day) year."),
    ("SECONDS_PER_HOUR", "s/h", 3600, "Seconds in an hour."),
    ("SECONDS_PER_YEAR", "s/yr", ("HOURS_PER_YEAR", "SECONDS_PER_HOUR"), "Seconds in a (365-day) year."),
    ("MONTHS_PER_YEAR", "months/yr", 12, "Months in a year (colocation rent, payback in months)."),
    ("W_PER_KW", "W/kW", 1000, "Watts in a kilowatt."),
    ("TOKENS_PER_MILLION", "tokens/Mtok", 1000000, "Tokens in a million tokens (prices and costs per Mtok)."),
    ("IRR_GUESS_LOW", "fraction/yr", -0.9, "A last starting point for IRR() when the flows lose most of the capital."),
    ("IRR_GUESS_LOWEST", "fraction/yr", -0.99, "The very last starting point for IRR() (near-total loss)."),
    ("CHECK_TOLERANCE", "fraction", 1e-9, "Relative difference a check tolerates (floating-point rounding)."),
    ("SIZING_EPSILON", "servers", 1e-9, "Rounding guard of the sizing formulas (the engine's): a fleet that fits "
                                        "exactly is not rounded one server down."),
    ("SECONDS_PER_DAY", "s/day", 86400, "Seconds in a day (demand sizing)."),
    ("HALF_YEAR", "years", 0.5, "Half a year: the half-year depreciation convention and mid-year discounting."),
    ("RAMP_MEAN", "fraction", 0.5, "The mean share of a linear ramp from 0 to 1 (the tranche ramp's average load: "
                                   "(c^2 - a^2) / (2 R) = RAMP_MEAN x (c - a) x (c + a) / R)."),
)


def _values() -> dict[str, float]:
    out: dict[str, float] = {}
    for name, _, value, _ in CONSTANTS:
        if isinstance(value, tuple):
            product = 1.0
            for factor in value:
                product *= out[factor]
            out[name] = product
        else:
            out[name] = float(value)
    return out


CONSTANT_VALUES: dict[str, float] = _values()
HOURS_PER_YEAR = CONSTANT_VALUES["HOURS_PER_YEAR"]
SECONDS_PER_YEAR = CONSTANT_VALUES["SECONDS_PER_YEAR"]


def constant_formula(value: float | tuple[str, ...]):
    """The Constants sheet's cell: the number, or the product of the named constants as a formula."""
    return "=" + "*".join(value) if isinstance(value, tuple) else value
