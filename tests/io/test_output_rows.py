"""Rows an analyst types into Results or CashFlow are not kept on save (those sheets are rewritten): the read
names them in a note on every surface, before a save could drop them (io/output_rows.py)."""
from __future__ import annotations

import subprocess
import sys
import zipfile

import openpyxl

from tcoapp.io.kept_work import kept_notes
from tcoapp.io.output_rows import analyst_output_rows
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

from .broken.corpus import hand_made


def _saved(tmp_path):
    path = tmp_path / "book.xlsx"
    write_scenario(read_scenario(hand_made(tmp_path / "base.xlsx")), path)
    return path


def test_a_workbook_the_app_wrote_has_no_rows_of_the_analyst(tmp_path):
    path = _saved(tmp_path)
    with zipfile.ZipFile(path) as archive:
        assert analyst_output_rows(archive) == {}
    assert not [n for n in kept_notes(read_scenario(path)) if "rewritten on save" in n]


def test_rows_typed_into_results_and_cashflow_are_named_with_their_text(tmp_path):
    path = _saved(tmp_path)
    book = openpyxl.load_workbook(path)
    results = book["Results"]
    results.insert_rows(8)
    results.cell(8, 1, "Gross margin (mine)")
    results.cell(results.max_row + 2, 1, "Check vs finance model")
    results.cell(results.max_row, 3, "=C20*2")
    book["CashFlow"].cell(book["CashFlow"].max_row + 3, 1, 42)
    book.save(path)
    with zipfile.ZipFile(path) as archive:
        found = analyst_output_rows(archive)
    assert [text for _, text in found["Results"]] == ["Gross margin (mine)", "Check vs finance model"]
    assert found["Results"][0][0] == 8 and found["CashFlow"][0][1] == "42"
    notes = [n for n in kept_notes(read_scenario(path)) if "rewritten on save" in n]
    assert len(notes) == 2
    assert notes[0].startswith("Results rows 8 ('Gross margin (mine)'), ") and "not kept" in notes[0]
    assert notes[1].startswith("CashFlow row ") and "a sheet of your own" in notes[1]


def test_many_rows_are_counted_after_the_first_few(tmp_path):
    path = _saved(tmp_path)
    book = openpyxl.load_workbook(path)
    results = book["Results"]
    first = results.max_row + 2
    for k in range(9):
        results.cell(first + k, 1, f"Row {k}")
    book.save(path)
    (note,) = [n for n in kept_notes(read_scenario(path)) if n.startswith("Results")]
    assert "'Row 5'" in note and "'Row 6'" not in note and "and 3 more" in note


def test_the_command_line_prints_the_note(tmp_path):
    path = _saved(tmp_path)
    book = openpyxl.load_workbook(path)
    book["Results"].cell(book["Results"].max_row + 2, 1, "My check")
    book.save(path)
    run = subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(path)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "note: Results row " in run.stderr and "'My check'" in run.stderr


def test_a_chart_on_results_and_a_validation_on_cashflow_are_named(tmp_path):
    from openpyxl.chart import BarChart, Reference
    from openpyxl.worksheet.datavalidation import DataValidation

    path = _saved(tmp_path)
    book = openpyxl.load_workbook(path)
    results = book["Results"]
    chart = BarChart()
    chart.add_data(Reference(results, min_col=3, min_row=10, max_row=12))
    results.add_chart(chart, "H5")
    rule = DataValidation(type="whole", operator="between", formula1="0", formula2="9")
    book["CashFlow"].add_data_validation(rule)
    rule.add("Z5")
    book.save(path)
    with zipfile.ZipFile(path) as archive:
        from tcoapp.io.output_rows import analyst_drawings
        assert analyst_drawings(archive) == {"Results": "1 chart or picture", "CashFlow": "1 data validation"}
    notes = [n for n in kept_notes(read_scenario(path)) if "not the app's: " in n]
    assert notes == [
        "Results holds 1 chart or picture not the app's: Results is rewritten on save and they are not kept: put "
        "them on a sheet of your own (kept on save, charts redrawn)",
        "CashFlow holds 1 data validation not the app's: CashFlow is rewritten on save and they are not kept: put "
        "them on a sheet of your own (kept on save, charts redrawn)"]
