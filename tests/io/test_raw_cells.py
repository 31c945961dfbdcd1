"""The formula cells written as worksheet XML (xlsx_raw_cells) read back as openpyxl's own would."""
import copy
import io

import openpyxl
import pytest

from tcoapp.io.xlsx_bulk import splice_rows
from openpyxl.styles import Font

from tcoapp.io.xlsx_raw_cells import RawCells
from tcoapp.io.xlsx_styles import _style_of


def _saved(build):
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet"
    raw = build(wb, ws)
    data = io.BytesIO()
    wb.save(data)
    return splice_rows(wb, data.getvalue(), [], {"Sheet": raw.insert})


def test_cells_join_their_rows_and_new_rows_follow_with_the_dimension():
    def build(wb, ws):
        ws["A1"], ws["A2"] = "key", "other"
        raw = RawCells("Sheet")
        style = raw.style_id(wb, "formula", "USD")
        raw.formula(1, 3, '=IF(B1="n/a","n/a",B1*2)', style, 4.0)
        raw.formula(2, 3, "=1/0", style)              # no cached value: the application computes it
        raw.value(5, 1, "<total> & =not a formula", raw.style_id(wb, "plain"))
        raw.value(5, 2, 2.5, raw.style_id(wb, "engine"))
        raw.formula(5, 3, "=B5", style, "n/a")
        return raw

    content = _saved(build)
    values = openpyxl.load_workbook(io.BytesIO(content), data_only=True)["Sheet"]
    formulas = openpyxl.load_workbook(io.BytesIO(content))["Sheet"]
    assert formulas["C1"].value == '=IF(B1="n/a","n/a",B1*2)' and values["C1"].value == 4.0
    assert formulas["C2"].value == "=1/0" and values["C2"].value is None
    assert values["A5"].value == "<total> & =not a formula" and values["B5"].value == 2.5
    assert values["C5"].value == "n/a" and formulas["C5"].number_format == formulas["C1"].number_format
    assert formulas.max_row == 5 and formulas.calculate_dimension() == "A1:C5"


def test_new_rows_among_written_rows_take_their_places_as_openpyxl_would_write_them():
    import zipfile

    def fill(wb, ws, raw_rows):
        ws["A1"], ws["A9"] = "first", "last"
        ws.row_dimensions[6].hidden = True     # a row openpyxl writes for its dimensions alone
        ws["B2"].font = Font(bold=True)
        label = _style_of(wb, "label", None)
        raw = RawCells("Sheet")
        for row in (4, 6, 12):
            if raw_rows:
                raw.value(row, 1, f"key {row}", None)
                raw.value(row, 2, f"label {row}", raw.late_style(wb, "label"))
            else:
                ws.cell(row, 1).value = f"key {row}"
                ws.cell(row, 2).value = f"label {row}"
                ws.cell(row, 2)._style = copy.copy(label)
        ws["C20"].font = Font(italic=True)   # styled after the label's rows: its style numbered after the label's
        ws.cell(20, 2)._style = copy.copy(label)
        return raw

    def sheet(data):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return archive.read("xl/worksheets/sheet1.xml"), archive.read("xl/styles.xml")

    ours = sheet(_saved(lambda wb, ws: fill(wb, ws, True)))
    wb = openpyxl.Workbook()
    wb.active.title = "Sheet"
    fill(wb, wb.active, False)
    data = io.BytesIO()
    wb.save(data)
    assert ours == sheet(data.getvalue())


def test_a_late_style_no_openpyxl_cell_has_is_refused():
    def build(wb, ws):
        ws["A1"] = "first"
        raw = RawCells("Sheet")
        raw.value(4, 2, "label", raw.late_style(wb, "label"))
        return raw

    with pytest.raises(AssertionError, match="a style no cell openpyxl wrote has"):
        _saved(build)


def test_a_number_cell_must_be_finite():
    raw = RawCells("Sheet")
    with pytest.raises(ValueError, match="Sheet!C3"):
        raw.number(3, 3, float("nan"), 0)


def test_plain_values_are_written_as_cell_xml_writes_them_texts_checked_each_time():
    from tcoapp.io.xlsx_bulk import cell_xml
    from tcoapp.io.xlsx_raw_cells import RawCells
    from tcoapp.io.xlsx_styles import CellKindError

    raw = RawCells("Checks")
    values = ["Results", " padded ", "a<b & c", "Results", 7, True, 2.5, None, "", float("nan")]
    for row, value in enumerate(values, start=1):
        raw.value(row, 2, value, 3)
        assert raw.rows[row] == [cell_xml(f'r="B{row}" s="3"', value, "Checks", f"B{row}")], value
    for row in (20, 21):   # a text a workbook cannot hold: refused every time, not remembered
        with pytest.raises(CellKindError, match=f"Checks!B{row}"):
            raw.value(row, 2, "bad\x01text", 3)
