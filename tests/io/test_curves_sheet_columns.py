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
