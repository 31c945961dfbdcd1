"""The About sheet: app and schema version, date written, the legend of cell styles, how to read the file."""
from __future__ import annotations

import datetime

from .versions import APP_VERSION, SCHEMA_VERSION
from . import sheets as S
from .xlsx_styles import (
    ENGINE_FILL, ENGINE_FONT, FORMULA_FONT, INPUT_FILL, INPUT_FONT, NEVER, NOT_AVAILABLE, header, key_cell,
    set_text, widths, wrap,
)

NOTES = (
    "Plans, Devices, Models, Curves, PriceTiers and Calibration are the inputs: edit them here or in the app.",
    "Results and CashFlow are live formulas over the inputs; the engine-output block of Results holds values "
    "computed by the tcoapp engine (operating point, device economics, sized device count, effective price).",
    "When the app opens this file it reads the inputs only: Results and CashFlow are recomputed, never trusted.",
    f'A value that does not exist reads "{NOT_AVAILABLE}" (payback never reached within the horizon: "{NEVER}").',
    "Fixed numbers (hours per year, watts per kW, ...) live on the Constants sheet as named cells.",
    "Fractions are stored as 0..1 and shown as %. Money is USD; cash flows are year-end.",
)


def write_about(ws, written: datetime.datetime | None = None) -> None:
    written = written or datetime.datetime.now(datetime.timezone.utc)
    header(ws, 1, 1, "key")
    header(ws, 1, 2, "value")
    rows = (
        (S.ABOUT_APP_KEY, "tcoapp"),
        (S.ABOUT_VERSION_KEY, APP_VERSION),
        (S.ABOUT_SCHEMA_KEY, SCHEMA_VERSION),
        (S.ABOUT_WRITTEN_KEY, written.strftime("%Y-%m-%d %H:%M:%S UTC")),
    )
    for row, (key, value) in enumerate(rows, start=2):
        key_cell(ws, row, key)
        cell = ws.cell(row=row, column=2)
        if isinstance(value, str):
            set_text(cell, value)
        else:
            cell.value = value
    row = len(rows) + 3
    header(ws, row, 1, "cell style")
    header(ws, row, 2, "meaning")
    legend = (
        ("input", "a value you may change", INPUT_FONT, INPUT_FILL),
        ("formula", "a live formula", FORMULA_FONT, None),
        ("engine value", "computed by the tcoapp engine, written as a value", ENGINE_FONT, ENGINE_FILL),
    )
    for offset, (name, meaning, font, fill) in enumerate(legend, start=1):
        cell = ws.cell(row=row + offset, column=1, value=name)
        cell.font = font
        if fill is not None:
            cell.fill = fill
        ws.cell(row=row + offset, column=2, value=meaning)
    row += len(legend) + 2
    header(ws, row, 1, "notes")
    for offset, text in enumerate(NOTES, start=1):
        wrap(ws.cell(row=row + offset, column=2, value=text))
    widths(ws, {1: 22, 2: 100})


def append_about_notes(ws, notes) -> None:
    """Extra (label, text) rows under the About notes, e.g. a sample's question and the source of its
    numbers. Written as text cells, never formulas, whatever they start with."""
    row = ws.max_row + 2
    for offset, (label, text) in enumerate(notes):
        set_text(ws.cell(row=row + offset, column=1), str(label))
        cell = ws.cell(row=row + offset, column=2)
        set_text(cell, str(text))
        wrap(cell)
