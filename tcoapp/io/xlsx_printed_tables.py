"""The PrintedTables sheet: a small Devices or Models table on its side, for print (docs/workbook_format.md,
"Printing").

A table of 27 (Devices) or 20 (Models) columns cannot print one page wide at 8 pt however few its rows are: its
numbers alone need more width than a landscape page has. Turned on its side (a field a row, an entry a column) a
table of up to PRINTED_MAX_ENTRIES entries prints on one page. Every cell here is a formula reading its Devices or
Models cell, so an edit there shows here; such a table's own sheet then prints nothing (xlsx_print). An entry added
on the table after the export is named in one line under its block (tcoapp writes it here on the next save). A
larger table prints from its own sheet, and this sheet says so.
"""
from __future__ import annotations

import math

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.pagebreak import Break

from ..engine.quantities.inputs import DEVICE_FIELDS, MODEL_FIELDS
from . import sheets as S
from .xlsx_styles import (
    CHARS_PER_WIDTH, HEADER_FILL, HEADER_FONT, ROW_PT, label_width, put, section, set_text, styled, widths, with_unit,
    wrap,
)

PRINTED_MAX_ENTRIES = 5   # entries a printed page holds across (landscape at 8 pt: the label column and five of 22)
ENTRY_WIDTH = 22
LABEL_WIDTH_MAX = 34
TEXT_LINES_MAX = 8      # a source or note longer than this is cut here (whole on its sheet): the table fits a page
TABLES = ((S.DEVICES, DEVICE_FIELDS, "device"), (S.MODELS, MODEL_FIELDS, "model"))


def on_printed_tables(entries: int) -> bool:
    """Whether a table of `entries` rows prints here (turned on its side) instead of from its own sheet."""
    return 0 < entries <= PRINTED_MAX_ENTRIES


def write_printed_tables(ws, tables: dict[str, object], entries: dict[str, int]) -> int:
    """tables: the Devices and Models worksheets as written; entries: their rows. Returns the sheet's last row (0:
    nothing here prints)."""
    label_w = min(LABEL_WIDTH_MAX, label_width(with_unit(f.label or f.name, f.unit) for _, fs, _ in TABLES for f in fs))
    row, last, blocks = 1, 0, 0
    for title, fields, noun in TABLES:
        count = entries.get(title, 0)
        if not on_printed_tables(count):
            if count:
                set_text(ws.cell(row=row, column=1), f"The {title} table ({count} {noun}s) prints from its own sheet.")
                row += 2
            continue
        if blocks:
            ws.row_breaks.append(Break(id=row - 1))   # a table a page
        last = _block(ws, row, (title, fields, noun), (tables[title], label_w), count)
        row, blocks = last + 2, blocks + 1
    widths(ws, {1: label_w, **{2 + i: ENTRY_WIDTH for i in range(PRINTED_MAX_ENTRIES)}})
    return last


def _block(ws, first: int, table: tuple, source: tuple, count: int) -> int:
    """One table on its side from row `first` (source: the table's worksheet, the label column's width); returns its
    last row: a line saying where a cut text is whole, or that the table has grown since the export."""
    title, fields, noun = table
    section(ws, first, f"{title}: each {noun} a column", 1 + count)
    for offset, field in enumerate(fields, start=1):
        _field_row(ws, first + offset, (title, offset, field), source, count)
    names = f"{title}!$A${S.FIRST_ENTRY_ROW}:$A${S.FIRST_ENTRY_ROW + 10_000}"
    shown = f"{title}!$A${S.FIRST_ENTRY_ROW}:$A${S.FIRST_ENTRY_ROW + count - 1}"
    note = first + len(fields) + 1
    cell = put(ws, note, 1, f'=IF(COUNTA({names})>COUNTA({shown}),"The {title} sheet has more {noun}s than this '
                            f'page shows: save the workbook in tcoapp, or print the {title} sheet","Edit them on the '
                            f'{title} sheet; a text longer than {TEXT_LINES_MAX} lines is cut here, whole there.")',
               "formula")
    wrap(cell)
    ws.row_dimensions[note].height = ROW_PT * 3
    return note


def _field_row(ws, row: int, where: tuple, source: tuple, count: int) -> None:
    """One field: its label (unit), then each entry's cell reading the table's; a text row as tall as its longest
    text (at most TEXT_LINES_MAX lines)."""
    title, col, field = where
    source_ws, label_w = source
    label = ws.cell(row=row, column=1)
    set_text(label, with_unit(field.label or field.name, field.unit))
    lines = _lines(label.value, label_w)
    for entry in range(count):
        ref = f"{title}!{get_column_letter(col)}{S.FIRST_ENTRY_ROW + entry}"
        cell = put(ws, row, 2 + entry, f'=IF(ISBLANK({ref}),"",{ref})', "formula", field.unit)
        if field.name == "name":
            styled(cell, font=HEADER_FONT, fill=HEADER_FILL)
        elif field.type == "str":
            wrap(cell)
            lines = max(lines, _lines(source_ws.cell(row=S.FIRST_ENTRY_ROW + entry, column=col).value))
    if field.name == "name":
        styled(label, font=HEADER_FONT, fill=HEADER_FILL)
    if lines > 1:
        wrap(label)
        ws.row_dimensions[row].height = ROW_PT * min(lines, TEXT_LINES_MAX)


def _lines(text, width: float = ENTRY_WIDTH) -> int:
    """The lines a text wraps to in a column `width` wide."""
    if not isinstance(text, str):
        return 1
    return sum(math.ceil(max(len(part), 1) / (width * CHARS_PER_WIDTH)) for part in text.split("\n"))


def printed_tables_values(ws, devices_ws, models_ws) -> dict[str, object]:
    """The cached value of each formula cell reading a table cell (its value; none where blank)."""
    sheets = {S.DEVICES: devices_ws, S.MODELS: models_ws}
    out: dict[str, object] = {}
    for row in ws.iter_rows(min_col=2):
        for cell in row:
            text = cell.value
            if isinstance(text, str) and text.startswith("=IF(ISBLANK("):
                title, ref = text[len("=IF(ISBLANK("):].split(")", 1)[0].split("!")
                value = sheets[title][ref].value
                if value is not None and value != "":
                    out[cell.coordinate] = value if isinstance(value, str) else float(value)
    return out
