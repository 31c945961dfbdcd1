"""Cell styles, number formats and safe cell writing for the exported workbook (FAST habits).

Three kinds of cells, visibly distinct (legend on the About sheet):
- INPUT: a value the user may change (blue font on light yellow);
- FORMULA: a live formula (black font);
- ENGINE: a value computed by the tcoapp engine and written as a number (green font on grey):
  change the inputs in the app, not here.
Text from user input is always written as a string cell, never as a formula, whatever it starts
with (=, +, -, @).
"""
from __future__ import annotations

import contextlib
import copy
import math
import threading
from typing import Any

import numpy as np
from openpyxl.cell._writer import safe_string as _openpyxl_safe_string
from openpyxl.comments import Comment
from openpyxl.styles.cell_style import StyleArray
from openpyxl.styles import Alignment, Border, Font, PatternFill, Side
from openpyxl.utils import get_column_letter

from .cell_limits import unwritable_text

INPUT_FONT = Font(color="0000CC")
INPUT_FILL = PatternFill("solid", fgColor="FFF9D9")
FORMULA_FONT = Font(color="000000")
ENGINE_FONT = Font(color="006100", italic=True)
ENGINE_FILL = PatternFill("solid", fgColor="EDEDED")
HEADER_FONT = Font(bold=True)
HEADER_FILL = PatternFill("solid", fgColor="D9E1F2")
SECTION_FONT = Font(bold=True, color="FFFFFF")
SECTION_FILL = PatternFill("solid", fgColor="44546A")
UNIT_FONT = Font(color="595959", italic=True)
LABEL_FONT = Font(color="262626")
LABEL_HEADER = "label (unit)"
TOTAL_BORDER = Border(top=Side(style="thin"))
RIGHT = Alignment(horizontal="right")
NOT_AVAILABLE = "n/a"
NEVER = "never"

UNIT_FORMATS = {
    "USD": '"$"#,##0',
    "USD/yr": '"$"#,##0',
    "USD/rack/yr": '"$"#,##0',
    "USD/device/yr": '"$"#,##0',
    "USD/Mtok": '"$"#,##0.0000',
    "USD/agent/h": '"$"#,##0.0000',
    "sessions/MW": "#,##0",
    "USD/kWh": '"$"0.0000',
    "USD/kW/month": '"$"#,##0.00',
    "fraction": "0.0%",
    "fraction/yr": "0.0%",
    "1/yr": "0.0000",
    "tokens/yr": "#,##0",
    "tokens/day": "#,##0",
    "tokens": "#,##0",
    "tokens/s": "#,##0.00",
    "tokens/J": "0.000",
    "W": "#,##0.0",
    "kW": "#,##0.0",
    "devices": "#,##0",
    "servers": "#,##0",
    "racks": "#,##0",
    "sequences": "#,##0.##",
    "months": "0.0",
    "years": "General",
    "s": "0.000",
    "GB": "#,##0.##",
    "GB/s": "#,##0.##",
    "TFLOPS": "#,##0.##",
}


def number_format(unit: str) -> str | None:
    return UNIT_FORMATS.get(unit)


class CellKindError(ValueError):
    """A text that a workbook cannot hold (control characters)."""


def put(ws, row: int, col: int, value: Any, kind: str = "input", unit: str = "") -> Any:
    """Write one cell: a number, a bool, text (always a string cell) or, for kind 'formula', a formula.

    NaN / inf / None are written as an empty input cell or the text "n/a" for engine values.
    """
    cell = ws.cell(row=row, column=col)
    if kind == "formula":
        cell.value = value
    else:
        _set_value(cell, value, kind)
    cell._style = copy.copy(_style_of(ws.parent, kind, number_format(unit)))
    return cell


def style_array(workbook, kind: str, unit: str = "", border=None):
    """The style of a cell `put` writes for (kind, unit), optionally with a border (xlsx_raw_cells)."""
    style = _style_of(workbook, kind, number_format(unit))
    if border is None:
        return style
    cache = workbook.__dict__.setdefault("_tcoapp_styles", {})
    key = (kind, number_format(unit), "border")
    if key not in cache:
        from openpyxl.cell.cell import Cell

        template = Cell(workbook.worksheets[0])
        template._style = copy.copy(style)
        template.border = border
        cache[key] = template._style
    return cache[key]


def _style_of(workbook, kind: str, fmt: str | None):
    """The style array of (kind, number format), built once per workbook: styling cell by cell
    through openpyxl's descriptors costs ~50 us a cell, copying an array ~1 us."""
    cache = workbook.__dict__.setdefault("_tcoapp_styles", {})
    key = (kind, fmt)
    if key not in cache:
        from openpyxl.cell.cell import Cell

        template = Cell(workbook.worksheets[0])
        if kind != "plain":  # plain: the default style (text written by set_text)
            template.font = {"input": INPUT_FONT, "engine": ENGINE_FONT, "label": LABEL_FONT}.get(kind, FORMULA_FONT)
        if kind in ("input", "engine"):
            template.fill = INPUT_FILL if kind == "input" else ENGINE_FILL
        if kind in ("formula", "engine"):
            template.alignment = RIGHT  # "n/a" and "never" line up with the numbers
        if fmt:
            template.number_format = fmt
        cache[key] = template._style if template._style is not None else StyleArray()
    return cache[key]


def written_value(value: Any, kind: str) -> Any:
    """What a cell of `kind` holds for `value`: numpy scalars as Python values; NaN / inf as the text "n/a"
    for engine values, empty (None) for inputs."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return NOT_AVAILABLE if kind == "engine" else None
    return value


def _set_value(cell, value: Any, kind: str) -> None:
    value = written_value(value, kind)
    if isinstance(value, str):
        set_text(cell, value)
    else:
        cell.value = value


def set_text(cell, text: str) -> None:
    """A string cell, never a formula, whatever the text starts with; never cut to Excel's limit."""
    problem = unwritable_text(text)
    if problem:
        raise CellKindError(f"{cell.parent.title}!{cell.coordinate}: {problem}")
    if type(text) is str:   # what openpyxl's value setter keeps of a text checked above: the text itself
        cell._value = text
    else:
        cell.value = text
    cell.data_type = "s"


def header(ws, row: int, col: int, text: str, comment: str | None = None):
    cell = ws.cell(row=row, column=col)
    set_text(cell, text)
    styled(cell, font=HEADER_FONT, fill=HEADER_FILL)
    if comment:
        cell.comment = Comment(comment, "tcoapp", width=320, height=120)
    return cell


def with_unit(label: str, unit: str) -> str:
    """ "Electricity price (USD/kWh)"; a key without a unit: its label alone."""
    return f"{label} ({unit})" if unit else label


_COLLECTIONS = (("font", "_fonts", "fontId"), ("fill", "_fills", "fillId"), ("alignment", "_alignments", "alignmentId"))


def styled(cell, **values) -> None:
    """cell.font = ..., cell.fill = ..., cell.alignment = ... as openpyxl's style descriptors set them (each value
    added to the workbook's list, its index set in the cell's style array), each (list, value) looked up once per
    workbook: hashing a Font for the list costs ~30 us a cell. The values are this module's constants, never
    changed (the cache holds them, so their ids stay theirs)."""
    workbook = cell.parent.parent
    ids = workbook.__dict__.setdefault("_tcoapp_style_ids", {})
    if not cell._style:
        cell._style = StyleArray()
    for attribute, collection, key in _COLLECTIONS:
        value = values.get(attribute)
        if value is None:
            continue
        items = getattr(workbook, collection)
        found = ids.get((id(items), id(value)))
        if found is None or found[0] is not items or found[1] is not value:
            found = ids[(id(items), id(value))] = (items, value, items.add(value))
        setattr(cell._style, key, found[2])


def label_cell(ws, row: int, col: int, label: str, unit: str = ""):
    """The readable label beside a key, with its unit."""
    cell = ws.cell(row=row, column=col)
    set_text(cell, with_unit(label, unit))
    cell._style = copy.copy(_style_of(ws.parent, "label", None))
    return cell


def label_width(labels) -> float:
    """A label column wide enough for its longest label (within reason: longer ones are cut at the next cell)."""
    return float(min(48, max([len(text) for text in labels] + [12]) + 2))


def unit_cell(ws, row: int, col: int, unit: str):
    cell = ws.cell(row=row, column=col)
    if unit:
        set_text(cell, unit)
    styled(cell, font=UNIT_FONT)
    return cell


def section(ws, row: int, title: str, last_col: int) -> None:
    """A section title row (column A holds the title; it is not a key)."""
    if last_col >= 1:   # the fill and font set as openpyxl's style descriptors set them, their ids looked up once
        fill_id, font_id = ws.parent._fills.add(SECTION_FILL), ws.parent._fonts.add(SECTION_FONT)
    for col in range(1, last_col + 1):
        cell = ws.cell(row=row, column=col)
        if not cell._style:
            cell._style = StyleArray()
        cell._style.fillId, cell._style.fontId = fill_id, font_id
    set_text(ws.cell(row=row, column=1), title)


def key_cell(ws, row: int, key: str, comment: str | None = None):
    cell = ws.cell(row=row, column=1)
    set_text(cell, key)
    if comment:
        cell.comment = Comment(comment, "tcoapp", width=320, height=120)
    return cell


PLAN_WIDTH_MAX = 22   # a plan's column: a longer name wraps in its header (five plan columns a printed page)


def widths(ws, widths_by_col: dict[int, float]) -> None:
    for col, width in widths_by_col.items():
        ws.column_dimensions[get_column_letter(col)].width = width


WRAP_TOP = Alignment(wrap_text=True, vertical="top")
WRAP = Alignment(wrap_text=True)


def wrap(cell) -> None:
    styled(cell, alignment=WRAP_TOP)


def wrap_longer(ws, col: int, width: float) -> None:
    """Wrap the texts of a column longer than its width, their rows as tall as their lines (a spreadsheet
    application does not grow a row for a wrapped text on opening the file); the last line, with the unit, beside
    the row's values."""
    for (cell,) in ws.iter_rows(min_col=col, max_col=col):
        lines = math.ceil(len(cell.value) / (width * CHARS_PER_WIDTH)) if isinstance(cell.value, str) else 1
        if lines > 1 and not cell.value.startswith("="):
            styled(cell, alignment=WRAP)
            ws.row_dimensions[cell.row].height = ROW_PT * lines


ROW_PT = 15             # a row of the 11 pt body font
CHARS_PER_WIDTH = 1.15  # characters of text (letters and spaces) in a width unit (one digit)


def _exact_string(value):
    """Floats with every digit (repr: the shortest text that reads back to the same double).

    openpyxl writes "%.16g", which loses the last bit of some doubles (0.1 + 0.2 becomes 0.3) and
    would break the round trip import(export(s)) == s.
    """
    if isinstance(value, (float, np.floating)) and not isinstance(value, bool) and math.isfinite(value):
        return repr(float(value))
    return _openpyxl_safe_string(value)


_SAVE_LOCK = threading.Lock()


@contextlib.contextmanager
def exact_floats():
    """While saving, write floats with repr() instead of openpyxl's 16 significant digits.

    openpyxl's cell writer looks the function up in its module, so it is swapped for the duration
    of the save; the lock keeps concurrent saves (a GUI autosave thread) from interleaving the swap.
    """
    import openpyxl.cell._writer as writer

    with _SAVE_LOCK:
        saved = writer.safe_string
        writer.safe_string = _exact_string
        try:
            yield
        finally:
            writer.safe_string = saved
