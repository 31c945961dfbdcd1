"""The Constants sheet: every fixed number the formulas use, as a named cell (no literal in a formula).

They are the engine's constants, not inputs: the Checks sheet compares each with its value at export, so an edit
makes master_check > 0 (every plan STALE) instead of silently moving numbers the engine would not move."""
from __future__ import annotations

from openpyxl.workbook.defined_name import DefinedName

from ..engine.finance.depreciation import MACRS_5_PERCENT, MACRS_7_PERCENT
from ..engine.quantities.constants import CONSTANTS as ENGINE_CONSTANTS, constant_formula

from .xlsx_styles import header, key_cell, put, unit_cell, widths, wrap

# the Checks sheet's seals (xlsx_checks.py): named constants, so that no formula holds a literal number
SEAL_SCALE = 3    # a number's seal: value x SEAL_SCALE + 1
SEAL_CHARS = 64   # a text's seal: its length + the sum of code x position over its first SEAL_CHARS characters

# name, unit, value (a number or a formula over other constants), description: the engine's constants
# (engine/quantities/constants.py), then the MACRS tables
CONSTANTS = tuple((name, unit, constant_formula(value), text) for name, unit, value, text in ENGINE_CONSTANTS) + tuple(
    # IRS Publication 946, Appendix A, Table A-1 (GDS, 200% declining balance, half-year convention)
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
               "The last year the CashFlow sheet covers: a plan's years may be raised up to it."),
              ("SEAL_SCALE", "ratio", SEAL_SCALE, "Checks: a number snapshot's seal is its value x SEAL_SCALE + 1 "
                                                 "(a Find & Replace over every sheet rewrites a snapshot, not its seal)."),
              ("SEAL_CHARS", "characters", SEAL_CHARS, "Checks: a text snapshot's seal is its length + the sum of each "
                                                       "character's code x its position over its first SEAL_CHARS characters."))
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
