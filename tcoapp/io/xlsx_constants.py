"""The Constants sheet: every fixed number the formulas use, as a named cell (no literal in a formula).

They are the engine's constants, not inputs: the Checks sheet compares each with its value at export, so an edit
makes master_check > 0 (every plan STALE) instead of silently moving numbers the engine would not move."""
from __future__ import annotations

from openpyxl.workbook.defined_name import DefinedName

from ..engine.finance.depreciation import MACRS_5_PERCENT, MACRS_7_PERCENT

from .xlsx_styles import header, key_cell, put, unit_cell, widths, wrap

# name, unit, value (a number or a formula over other constants), description
CONSTANTS = (
    ("HOURS_PER_YEAR", "h/yr", 8760, "Hours in a (365-day) year."),
    ("SECONDS_PER_HOUR", "s/h", 3600, "Seconds in an hour."),
    ("SECONDS_PER_YEAR", "s/yr", "=HOURS_PER_YEAR*SECONDS_PER_HOUR", "Seconds in a (365-day) year."),
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
) + tuple(  # IRS Publication 946, Appendix A, Table A-1 (GDS, 200% declining balance, half-year convention)
    (f"MACRS_{life}_{year}", "fraction", pct / 100, f"MACRS {life}-year property, year {year}: {pct:.2f}% of the "
     "basis (IRS Publication 946, Table A-1, half-year convention).")
    for life, table in ((5, MACRS_5_PERCENT), (7, MACRS_7_PERCENT)) for year, pct in enumerate(table, start=1)
)


def write_constants(ws, workbook, cashflow_last_year: int) -> None:
    header(ws, 1, 1, "key")
    header(ws, 1, 2, "unit")
    header(ws, 1, 3, "value")
    header(ws, 1, 4, "description")
    layout = (("CASHFLOW_LAST_YEAR", "year", cashflow_last_year,
               "The last year the CashFlow sheet covers: a plan's years may be raised up to it."),)
    for row, (name, unit, value, text) in enumerate(CONSTANTS + layout, start=2):
        key_cell(ws, row, name)
        unit_cell(ws, row, 2, unit)
        # the engine's own numbers, not inputs: styled as engine values, and an edit fails a check (xlsx_checks)
        put(ws, row, 3, value, "formula" if isinstance(value, str) else "engine")
        ws.cell(row=row, column=3).number_format = ("0.00E+00" if name in ("CHECK_TOLERANCE", "SIZING_EPSILON") else
                                                    "0.00%" if unit.startswith("fraction") else "#,##0")
        wrap(ws.cell(row=row, column=4, value=text))
        workbook.defined_names[name] = DefinedName(name, attr_text=f"'{ws.title}'!$C${row}")
    ws.freeze_panes = "A2"
    widths(ws, {1: 22, 2: 14, 3: 14, 4: 60})
