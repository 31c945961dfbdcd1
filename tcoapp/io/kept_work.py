"""The analyst's own work in a scenario workbook: kept, never refused (docs/workbook_format.md, "Your own sheets");
what a save cannot keep (rows typed into Results or CashFlow, output_rows.py) is named when the file is read.

A sheet whose name is not one of the app's (a sheet of your own, a backup copy "Plans (2)", a renamed
Summary) and a row of Plans whose column A is not a Plans key (a helper row) are read past with a note
naming them, and written back on the next save as they were: values, formulas (into the app's sheets
too), comments, number formats, fonts, fills, borders, column widths, row heights, merged cells.

`find_kept(path, sheet_names, source, plans_rows)` records them at read; `write_kept(workbook, kept)` copies them
into the workbook being written, from the file as it was read (held in memory: the next save may
overwrite that very file).
"""
from __future__ import annotations

import difflib
import io
import math
import re
import posixpath
import warnings
import zipfile
from copy import copy
from dataclasses import dataclass

from . import sheets as S
from .archive_parts import PartsArchive
from .output_rows import output_row_notes
from .xlsx_cells_read import names_and_states, sheet_parts


@dataclass(frozen=True)
class KeptWork:
    source: bytes                          # the workbook file as read
    sheets: tuple[tuple[str, int], ...]    # (name, position in the workbook) of each analyst sheet
    plans_rows: tuple[int, ...]            # Plans rows that are the analyst's (1-based)
    notes: tuple[str, ...]                 # one line per kept thing, for the user
    plans_formulas: tuple[tuple[str, str, str, object], ...] = ()   # (key, plan, formula, value read) of Plans inputs


def kept_notes(scenario) -> tuple[str, ...]:
    """The notes of how a read workbook was read: what it holds that the app keeps but does not read, and a
    renamed input sheet read as its table. Every surface shows them (compute, simulate, report on stderr as
    `note: ...`, the desktop app on its problem bar, the notebook API as a WorkbookNote warning)."""
    kept = getattr(scenario, "kept", None)
    return kept.notes if kept is not None else ()


def print_notes(scenario, stream=None) -> None:
    """The read notes as `note: ...` lines on stderr (the command-line surfaces)."""
    import sys

    for note in kept_notes(scenario):
        print(f"note: {note}", file=stream or sys.stderr)


def find_kept(path, sheet_names, source: bytes, plans_rows: tuple[int, ...] = (), roles=None,
              parts=None) -> KeptWork | None:
    """The analyst's sheets (names not the app's, in workbook order) and Plans rows of the file at `path`; `roles`
    (sheet_roles.Roles) notes the renamed input sheets read as their table; `parts`: the parts unpacked already
    (safety.check_archive); `source`: the file's bytes, read once by the reader (safety.file_bytes)."""
    names = list(sheet_names)
    own = tuple((name, index) for index, name in enumerate(names) if name not in S.KNOWN_SHEETS)
    notes = list(roles.notes) if roles is not None else []
    if own:
        listed = ", ".join(repr(name) for name, _ in own)
        notes.append(f"sheet{'s' if len(own) > 1 else ''} {listed}: not the app's, not read; kept on save ({SHEET_KEEPS})")
    if plans_rows:
        rows = ", ".join(str(r) for r in plans_rows)
        notes.append(f"{S.PLANS} row{'s' if len(plans_rows) > 1 else ''} {rows}: no Plans key in column A, not "
                     "read; kept on save (values, formulas, comments, formats)")
    notes.extend(input_formula_notes(sheet_names, plans_rows))
    with PartsArchive(io.BytesIO(source), parts) as archive:   # parts: those unpacked already (archive_parts.py)
        notes.extend(output_row_notes(archive))
    return KeptWork(source, own, tuple(plans_rows), tuple(notes), plans_formulas(sheet_names, plans_rows))


def plans_formulas(sheets, plans_rows=()) -> tuple:
    """(key, plan name, formula, value read) of every formula in a Plans input cell (written back as the formula
    while the plan's value is still the one read: write_plans_formulas)."""
    sheet = sheets.get(S.PLANS) if hasattr(sheets, "get") else None
    out = []
    for (row, col), text in sorted(getattr(sheet, "_formulas", {}).items()) if sheet is not None else ():
        key, plan = sheet.cell(row, 1), sheet.cell(1, col)
        if row > 1 and row not in plans_rows and key is not None and plan is not None and not _constant(text):
            out.append((str(key).strip(), str(plan).strip(), str(text), sheet.cell(row, col)))
    return tuple(out)


def _constant(text) -> bool:
    return str(text).replace(" ", "").upper() in _CONSTANT_FORMULAS


def write_plans_formulas(workbook, kept: KeptWork | None) -> None:
    """The analyst's formulas in Plans input cells, back into the Plans written, where the plan's value is still the
    one the formula gave when read (a value changed in the app replaces the formula); the cell's cached value is
    the plan's value (xlsx_cached)."""
    if kept is None or not kept.plans_formulas:
        return
    ws = workbook[S.PLANS]
    rows = {str(ws.cell(r, 1).value).strip(): r for r in range(2, ws.max_row + 1) if ws.cell(r, 1).value is not None}
    cols = {str(ws.cell(1, c).value).strip(): c for c in range(3, ws.max_column + 1) if ws.cell(1, c).value is not None}
    for key, plan, formula, value in kept.plans_formulas:
        row, col = rows.get(key), cols.get(plan)
        if row is None or col is None or isinstance(value, bool) or not isinstance(value, (int, float, str)):
            continue
        cell = ws.cell(row, col)
        same = cell.value == value or (isinstance(value, (int, float)) and isinstance(cell.value, (int, float))
                                       and not isinstance(cell.value, bool) and abs(cell.value - value) <= 1e-12 * max(1.0, abs(value)))
        if same:
            cell.value = formula


SHEET_KEEPS = ("values, formulas, comments, formats, conditional formats, validations, merged cells, widths, "
               "hidden state, protection, charts (redrawn: their styling may differ); images are dropped")
FORMULAS_LISTED = 5


_CONSTANT_FORMULAS = {"=TRUE()", "=FALSE()", "=TRUE", "=FALSE"}   # how LibreOffice saves a TRUE / FALSE cell


def input_formula_notes(sheets, plans_rows=()) -> list[str]:
    """One note per input sheet holding formulas in its input cells: read as their saved values, written back as
    values (the app rewrites its input sheets; a formula of yours belongs on a sheet of your own)."""
    notes = []
    for name in S.INPUT_SHEETS:
        sheet = sheets.get(name) if hasattr(sheets, "get") else None
        formulas = getattr(sheet, "_formulas", {}) if sheet is not None else {}
        cells = [(r, c) for (r, c), text in sorted(formulas.items()) if r > 1 and not (name == S.PLANS and r in plans_rows)
                 and not _constant(text) and not _output_column(sheet, name, c)]
        if not cells:
            continue
        shown = ", ".join(sheet.where(r, c) for r, c in cells[:FORMULAS_LISTED])
        more = f" and {len(cells) - FORMULAS_LISTED} more" if len(cells) > FORMULAS_LISTED else ""
        many = len(cells) > 1
        what = 'formulas in input cells' if many else 'a formula in an input cell'
        if name == S.PLANS:
            notes.append(f"{shown}{more}: {what}, read as the value saved with {'them' if many else 'it'}; kept on "
                         "save as the formula while the plan's value is unchanged (a value changed in the app, or a "
                         "TRUE / FALSE, is saved as the value)")
            continue
        notes.append(f"{shown}{more}: {what}, read as the value saved with {'them' if many else 'it'}; a save writes "
                     "the value, not the formula (put a formula of yours on a sheet of your own, or in a helper row "
                     "of Plans)")
    return notes


def _output_column(sheet, name: str, col: int) -> bool:
    """A formula column of an input sheet (the Workloads sheet's live figures): the app's own, not the analyst's."""
    from .xlsx_workloads import OUTPUT_KEYS

    return name == S.WORKLOADS and str(sheet.cell(1, col) or "").strip() in OUTPUT_KEYS


def write_kept(workbook, kept: KeptWork | None) -> None:
    """Copy the kept sheets and Plans rows from the workbook as read into `workbook` (being written)."""
    if kept is None or not kept.source:
        return
    wanted = {name for name, _ in kept.sheets} | ({S.PLANS} if kept.plans_rows else set())
    if not wanted and _nothing_to_copy(kept.source, workbook):
        return
    source = _open_only(kept.source, wanted)
    for name, position in kept.sheets:
        if name in workbook.sheetnames or name not in source.sheetnames:
            continue
        target = workbook.create_sheet(name, index=min(position, len(workbook.worksheets)))
        _copy_sheet(source[name], target)
    if kept.plans_rows and S.PLANS in source.sheetnames:
        _copy_rows(source[S.PLANS], workbook[S.PLANS], kept.plans_rows)
    _copy_names(source, workbook)
    for sheet in source.worksheets:   # an app sheet the analyst hid stays hidden
        if sheet.title in workbook.sheetnames and sheet.title not in wanted and sheet.sheet_state != "visible":
            workbook[sheet.title].sheet_state = sheet.sheet_state


def _nothing_to_copy(data: bytes, workbook) -> bool:
    """No sheet or row kept, and the file read has no name the app did not write and no hidden sheet: the copy
    below would change nothing, so the file is not loaded into openpyxl (about a tenth of a sample's save).
    Read from the workbook part alone; any name or state it cannot rule out leaves the decision to the copy."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        names, states = names_and_states(archive)
    if any(state != "visible" for state in states):
        return False
    return all(name.startswith("_xlnm") or (local is None and name in workbook.defined_names)
               for name, local in names)


def _copy_names(source, workbook) -> None:
    """The analyst's named ranges (workbook-level and sheet-level): every name the app did not write, whose sheets
    are in the workbook written (the app's own names, such as in_utilization, are written afresh)."""
    for name, defined in source.defined_names.items():
        if name not in workbook.defined_names and not name.startswith("_xlnm") and _sheets_exist(defined, workbook):
            workbook.defined_names[name] = copy(defined)
    for sheet in source.worksheets:
        if sheet.title not in workbook.sheetnames:
            continue
        target = workbook[sheet.title]
        for name, defined in sheet.defined_names.items():
            if name not in target.defined_names and not name.startswith("_xlnm") and _sheets_exist(defined, workbook):
                target.defined_names[name] = copy(defined)


def _sheets_exist(defined, workbook) -> bool:
    try:
        return all(title in workbook.sheetnames for title, _ in defined.destinations)
    except Exception:  # noqa: BLE001 - a constant or a formula as the name's value: no sheet to check
        return True


def _open_only(data: bytes, wanted: set[str]):
    """openpyxl's workbook of `data` with every sheet outside `wanted` emptied first (loading the app's big sheets
    would cost seconds)."""
    import openpyxl

    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        parts = sheet_parts(archive)
        empty = {part for name, part in parts.items() if name not in wanted}
        rels = {posixpath.join(posixpath.dirname(p), "_rels", posixpath.basename(p) + ".rels") for p in empty}
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as trimmed:
            for item in archive.infolist():
                if item.filename in rels:
                    continue
                body = _EMPTY_SHEET if item.filename in empty else archive.read(item.filename)
                trimmed.writestr(item.filename, body)
    with warnings.catch_warnings():   # openpyxl's warnings about parts it skips (the emptied sheets' local names)
        warnings.simplefilter("ignore")
        return openpyxl.load_workbook(io.BytesIO(out.getvalue()), rich_text=True)


_EMPTY_SHEET = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
                b'<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData/></worksheet>')


def _copy_cell(cell, target) -> None:
    value = cell.value
    if isinstance(value, float) and not math.isfinite(value):
        value = repr(value)   # 'inf', '-inf', 'nan' (1e999 reads as inf): no workbook stores it as a number, so
                              # it is kept as its text, not written as an empty cell (a kept row would lose its label)
    target.value = value
    if cell.has_style:
        target.font, target.fill, target.border = copy(cell.font), copy(cell.fill), copy(cell.border)
        target.alignment, target.protection = copy(cell.alignment), copy(cell.protection)
        target.number_format = cell.number_format
    if cell.comment is not None:
        target.comment = copy(cell.comment)
    if cell.hyperlink is not None:
        target.hyperlink = copy(cell.hyperlink)


def _copy_sheet(source, target) -> None:
    for row in source.iter_rows():
        for cell in row:
            if cell.value is not None or cell.has_style or cell.comment is not None:
                _copy_cell(cell, target.cell(cell.row, cell.column))
    for key, dim in source.column_dimensions.items():
        target.column_dimensions[key].width = dim.width
        target.column_dimensions[key].hidden = dim.hidden
    for key, dim in source.row_dimensions.items():
        target.row_dimensions[key].height = dim.height
        target.row_dimensions[key].hidden = dim.hidden
    for merged in source.merged_cells.ranges:
        target.merge_cells(str(merged))
    for validation in source.data_validations.dataValidation:
        target.add_data_validation(copy(validation))
    for cf_range in source.conditional_formatting:
        for rule in cf_range.rules:
            target.conditional_formatting.add(str(cf_range.sqref), copy(rule))
    target.freeze_panes = source.freeze_panes
    target.sheet_state = source.sheet_state
    target.protection = copy(source.protection)
    for chart in getattr(source, "_charts", ()):   # openpyxl reads a chart's series and axes, not all its styling
        target.add_chart(chart, chart.anchor)
    target.sheet_properties.tabColor = copy(source.sheet_properties.tabColor)


def _copy_rows(source, target, rows: tuple[int, ...]) -> None:
    """The analyst's Plans rows into the written Plans: at their own row when the app left it empty, else below
    the app's last row (in their order)."""
    used = {cell.row for row in target.iter_rows() for cell in row if cell.value is not None}
    next_free = max(used, default=0) + 1
    for row in rows:
        at = row
        if row in used:
            at, next_free = next_free, next_free + 1
        for cell in source[row]:
            if cell.value is not None or cell.has_style or cell.comment is not None:
                _copy_cell(cell, target.cell(at, cell.column))
        height = source.row_dimensions[row].height
        if height is not None:
            target.row_dimensions[at].height = height
        used.add(at)


def is_own_row(key: str, known) -> bool:
    """A Plans row whose column A is not a key is the analyst's, unless it reads as a key (snake_case, or close to a
    key: then the reader names it as an unknown key, as before: a typo must not silently drop an input)."""
    text = key.strip()
    return not _KEY_SHAPE.match(text) and not difflib.get_close_matches(text.lower(), list(known), n=1, cutoff=0.8)


_KEY_SHAPE = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
