"""The Uncertainty sheet (docs/workbook_format.md, "Uncertainty"): read and write its rows.

Long format like Pools: row 1 the keys of the field table (engine/uncertainty/fields.py), row 2 their
units, one uncertain input per row from row 3. Every problem names its cell.
"""
from __future__ import annotations

from ..engine.uncertainty.fields import UNCERTAINTY_FIELDS
from ..engine.uncertainty.inputs import UncertainInput, make_uncertain_input
from .xlsx_inputs import write_table


def read_uncertainty(sheet, table_rows, problems) -> tuple[UncertainInput, ...]:
    """The sheet's rows (in row order); `table_rows` is the reader's row iterator (cells located)."""
    if sheet is None:
        return ()
    rows = []
    for _row, values, where in table_rows(sheet, problems):
        row = make_uncertain_input(values, where, problems)
        if row is not None:
            rows.append(row)
    return tuple(rows)


def write_uncertainty(ws, scenario) -> None:
    """Row 1 keys, row 2 units, one row per uncertain input (an empty table when there is none)."""
    write_table(ws, UNCERTAINTY_FIELDS, [row.as_row() for row in scenario.uncertainty])
