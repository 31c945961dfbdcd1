"""The rows writer (io/xlsx_fast_rows.py) writes the bytes openpyxl's own worksheet writer writes, for every kind of
cell: those it writes itself and those it leaves to openpyxl."""
from __future__ import annotations

import datetime
import io

import openpyxl
import openpyxl.cell._writer as cell_writer
import pytest
from openpyxl.cell.rich_text import CellRichText, TextBlock
from openpyxl.cell.text import InlineFont
from openpyxl.comments import Comment
from openpyxl.styles import Font
from openpyxl.worksheet._writer import WorksheetWriter
from openpyxl.worksheet.formula import ArrayFormula

from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.xlsx_fast_rows import FastRowsWriter
from tcoapp.io.xlsx_styles import exact_floats


def _sheet_xml(ws, writer_class) -> bytes:
    writer = writer_class(ws, out=io.BytesIO())
    with exact_floats():
        writer.write()
    return writer.read()


def _every_kind():
    wb = openpyxl.Workbook()
    ws = wb.active
    rows = [
        [1, 2.5, 0.1 + 0.2, -3e-300, 10 ** 20, float("nan"), float("inf"), True, False],
        ["text", " padded ", "a & b < c > d \"q\"", "   ", "line\nbreak", "", "#N/A", "=", "=A1+B1"],
        ['=IF(A1>0,"x&y",0)', datetime.datetime(2025, 3, 15, 12), datetime.date(2025, 1, 2), datetime.time(6, 30),
         datetime.timedelta(hours=5), None],
    ]
    for r, values in enumerate(rows, start=1):
        for c, value in enumerate(values, start=1):
            ws.cell(r, c).value = value
    ws["A4"].value = CellRichText("plain ", TextBlock(InlineFont(b=True), "bold"))
    ws["B4"].value = ArrayFormula("B4:B5", "=SUM(A1:A2*2)")
    ws["C4"].value = "link"
    ws["C4"].hyperlink = "https://example.com/a?b=1&c=2"
    ws["D4"].font = Font(bold=True)                    # styled, empty
    ws["E4"].value = "commented"
    ws["E4"].comment = Comment("a note", "tcoapp")
    ws["F7"].font = Font(italic=True)                  # a row holding only a styled empty cell
    ws.row_dimensions[2].height = 30
    ws.row_dimensions[9].hidden = True                 # a row with dimensions and no cell
    ws["A1"].font = Font(color="FF0000")
    return wb, ws


def test_every_kind_of_cell_is_written_as_openpyxl_writes_it(monkeypatch):
    wb, ws = _every_kind()
    expected = _sheet_xml(ws, WorksheetWriter)
    comments = list(ws._comments)
    ws._comments.clear()
    left = []
    write_cell = cell_writer.write_cell
    monkeypatch.setattr(cell_writer, "write_cell", lambda xf, sheet, cell, styled: left.append(cell.coordinate)
                        or write_cell(xf, sheet, cell, styled))
    assert _sheet_xml(ws, FastRowsWriter) == expected
    assert len(ws._comments) == len(comments) == 1   # the comment recorded, as openpyxl records it
    assert sorted(left) == ["A4", "B3", "B4", "C3", "C4", "D3", "E3"]   # dates, rich text, array formula, link


@pytest.mark.parametrize("value", [0, -1.5, 1e308, 5e-324, "ü€𝄞", "<tag>", "tab\there", " x", "x "])
def test_one_value_alone_reads_the_same(value):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["B3"].value = value
    ws["B3"].font = Font(size=9)
    assert _sheet_xml(ws, FastRowsWriter) == _sheet_xml(ws, WorksheetWriter)


def test_a_written_workbook_is_byte_for_byte_openpyxls(tmp_path, monkeypatch):
    """The whole export with the rows writer and with openpyxl's: every part the same but the save time."""
    import zipfile

    import tcoapp.io.workbook_write as W

    written = datetime.datetime(2026, 1, 1)
    write_scenario(default_scenario(), tmp_path / "fast.xlsx", written=written)
    monkeypatch.setattr(W, "FastRowsWriter", WorksheetWriter)
    write_scenario(default_scenario(), tmp_path / "openpyxl.xlsx", written=written)
    fast, plain = zipfile.ZipFile(tmp_path / "fast.xlsx"), zipfile.ZipFile(tmp_path / "openpyxl.xlsx")
    assert fast.namelist() == plain.namelist()
    for name in fast.namelist():
        if name != "docProps/core.xml":   # the save's time
            assert fast.read(name) == plain.read(name), name


def _columns_sheet():
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "x"
    ws.column_dimensions["C"].width = 21.5
    ws.column_dimensions["A"].width = 30
    ws.column_dimensions["B"].hidden = True
    ws.column_dimensions["E"].font = Font(bold=True)             # a styled column
    ws.column_dimensions.group("G", "I", outline_level=2, hidden=True)
    ws.column_dimensions["K"].bestFit = True
    ws.column_dimensions["L"]                                  # looked up only: not written
    return wb, ws


def test_columns_are_written_as_openpyxl_writes_them():
    (theirs, theirs_ws), (ours, ours_ws) = _columns_sheet(), _columns_sheet()   # (a save keeps the outline level)
    expected = _sheet_xml(theirs_ws, WorksheetWriter)
    assert b"<cols>" in expected
    assert _sheet_xml(ours_ws, FastRowsWriter) == expected
    assert list(ours._cell_styles) == list(theirs._cell_styles)          # the same styles listed, in the same order
    assert ours_ws.column_dimensions.max_outline == theirs_ws.column_dimensions.max_outline == 2
    assert _sheet_xml(ours_ws, FastRowsWriter) == _sheet_xml(theirs_ws, WorksheetWriter)   # saved again alike


def test_a_sheet_without_column_widths_has_no_cols():
    wb = openpyxl.Workbook()
    wb.active["A1"] = 1
    assert b"<cols" not in _sheet_xml(wb.active, FastRowsWriter) == _sheet_xml(wb.active, WorksheetWriter)
