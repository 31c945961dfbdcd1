"""The Curves sheet read column by column (engine/quantities/validate_columns.py, io/workbook_read.py): each
record and each problem as `coerce_record` row by row gives them, the problems in a row-by-row read's order."""
from __future__ import annotations

import math

import openpyxl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.validate import coerce_record
from tcoapp.engine.quantities.validate_columns import coerce_records
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.sheet_roles import CURVE_POINT_FIELDS
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

NAMES = [f.name for f in CURVE_POINT_FIELDS]
CELL = st.one_of(
    st.none(), st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0.0, -1.0, 1e7, 1e7 + 1, 4096.0, 1.5]),
    st.integers(-3, 5000), st.booleans(), st.sampled_from(["", "  ", " H100 ", "8", "abc", "1e3", "TRUE"]))


def _locator(i):
    return lambda key: f"Curves!{key}{i}"


def _same(a, b) -> bool:
    return a == b or (isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(NAMES), CELL), max_size=12))
def test_column_by_column_equals_row_by_row(raws):
    wheres = [_locator(i) for i in range(len(raws))]
    records, by_row = coerce_records(CURVE_POINT_FIELDS, raws, wheres)
    for i, (raw, where) in enumerate(zip(raws, wheres)):
        problems: list = []
        expected = coerce_record(CURVE_POINT_FIELDS, raw, where, problems)
        assert expected.keys() == records[i].keys()
        assert all(_same(expected[k], records[i][k]) and type(expected[k]) is type(records[i][k]) for k in expected)
        assert by_row.get(i, []) == problems


def test_an_unknown_key_is_named_as_row_by_row():
    raws = [{"curve": "c", "batch": 1.0, "tokens_per_s_per_device": 2.0, "colour": "red"}]
    records, by_row = coerce_records(CURVE_POINT_FIELDS, raws, [_locator(3)])
    problems: list = []
    assert records == [coerce_record(CURVE_POINT_FIELDS, raws[0], _locator(3), problems)]
    assert by_row == {0: problems} and problems[0].field == "colour"


def test_curves_sheet_problems_come_in_row_order(tmp_path):
    """A bad batch in row 3, a row without its curve name in row 4 (found while the rows are read) and a bad
    throughput in row 5: named in that order, each at its cell, as a row-by-row read names them."""
    path = tmp_path / "curves.xlsx"
    write_scenario(default_scenario(), path)
    wb = openpyxl.load_workbook(path)
    ws = wb["Curves"] if "Curves" in wb.sheetnames else wb.create_sheet("Curves")
    ws.delete_rows(1, ws.max_row)
    ws.append(NAMES)
    ws.append([None, None, None, "sequences", "tokens/s"])
    ws.append(["c1", "H100-SXM", "Llama-3.3-70B", -4.0, 100.0])
    ws.append([None, "H100-SXM", "Llama-3.3-70B", 8.0, 120.0])
    ws.append(["c1", "H100-SXM", "Llama-3.3-70B", 16.0, "fast"])
    ws.append(["c1", "H100-SXM", "Llama-3.3-70B", 32.0, 300.0])
    wb.save(path)
    with pytest.raises(ValidationError) as caught:
        read_scenario(path)
    cells = [p.where for p in caught.value.problems if p.where.startswith("Curves!")]
    assert cells == ["Curves!D3", "Curves!A4", "Curves!E5"], cells


ROW_CELL = st.one_of(st.none(), st.sampled_from(["", "  ", "c1", " c2 ", "H100-SXM", 8.0, -1.0, 16, True]))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(ROW_CELL, min_size=6, max_size=6), max_size=10),
       st.sampled_from([NAMES[:5], NAMES[:5] + ["colour"], ["batch", "curve", "model"], NAMES[:4] + ["batch"]]),
       st.sets(st.tuples(st.integers(3, 12), st.integers(1, 6)), max_size=2))
def test_the_columns_read_are_the_rows_read(cells, header, uncached):
    """_table_columns (the Curves sheet a column at a time) gives what _table_rows gives row by row: the same values,
    the same locators, the same problems (blank names, unknown and repeated keys, formulas without a saved value) in
    the same order, and the same count of problems before each row."""
    from tcoapp.io.workbook_read import _Sheet, _table_columns, _table_rows

    values = {1: dict(enumerate(header, start=1)), 2: {4: "sequences"}}
    values.update({r: {c: v for c, v in enumerate(row, start=1) if v is not None} for r, row in enumerate(cells, start=3)})
    formulas = {cell: "=A1" for cell in uncached if values.get(cell[0], {}).get(cell[1]) is None}
    sheet = _Sheet("Curves", values, formulas)
    by_rows: list = []
    rows = [(raw, where, len(by_rows)) for _, raw, where in _table_rows(sheet, CURVE_POINT_FIELDS, by_rows)]
    by_columns: list = []
    columns, wheres, marks = _table_columns(sheet, CURVE_POINT_FIELDS, by_columns)
    assert by_columns == by_rows
    assert marks == [m for _, _, m in rows]
    assert len(wheres) == len(rows)
    for i, (raw, where, _) in enumerate(rows):
        assert {k: columns[k][i] for k in columns} == raw
        assert [wheres[i](k) for k in NAMES] == [where(k) for k in NAMES]
