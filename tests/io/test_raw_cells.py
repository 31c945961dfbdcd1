"""The formula cells written as worksheet XML (xlsx_raw_cells) read back as openpyxl's own would."""
import io

import openpyxl
import pytest

from tcoapp.io.xlsx_bulk import splice_rows
from tcoapp.io.xlsx_raw_cells import RawCells


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


def test_a_new_row_among_written_rows_is_refused():
    def build(wb, ws):
        ws["A1"], ws["A9"] = "first", "last"
        raw = RawCells("Sheet")
        raw.value(4, 1, 1.0, raw.style_id(wb, "engine"))
        return raw

    with pytest.raises(AssertionError, match="among written rows"):
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
