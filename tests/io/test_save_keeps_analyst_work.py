"""A save through the app keeps what the analyst made, or says exactly what it drops (docs/workbook_format.md, "Your
own sheets and rows"): named ranges, a chart, conditional formats and protection on a sheet of their own, hidden
sheets (theirs and the app's); a formula typed into an input cell is named in a note (saved as its value). The
workbook is made as an analyst's would be and saved by LibreOffice (which computes the formula's value)."""
from __future__ import annotations

import pathlib

import openpyxl
import pytest
from openpyxl.chart import BarChart, Reference
from openpyxl.formatting.rule import CellIsRule
from openpyxl.styles import PatternFill
from openpyxl.workbook.defined_name import DefinedName

from tcoapp.io import sheets as S
from tcoapp.io.kept_work import kept_notes
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

from .workbook_recalc import SOFFICE, recalc

pytestmark = [pytest.mark.libreoffice, pytest.mark.slow,
              pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is not installed")]
SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    folder = tmp_path_factory.mktemp("keeps")
    book = openpyxl.load_workbook(SAMPLES / "moe_rack_scale.xlsx")
    mine = book.create_sheet("Mine")
    for i in range(1, 5):
        mine.append([f"r{i}", i * 10])
    chart = BarChart()
    chart.add_data(Reference(mine, min_col=2, min_row=1, max_row=4))
    mine.add_chart(chart, "D2")
    red = PatternFill("solid", start_color="FF0000", end_color="FF0000")
    mine.conditional_formatting.add("B1:B4", CellIsRule(operator="greaterThan", formula=["15"], fill=red))
    mine.protection.sheet = True
    book.defined_names["my_total"] = DefinedName("my_total", attr_text="Mine!$B$1:$B$4")
    mine["C1"] = "=SUM(my_total)"
    book.create_sheet("Hidden mine").sheet_state = "hidden"
    book[S.CONSTANTS].sheet_state = "hidden"
    plans = book[S.PLANS]
    row = next(c.row for c in plans["A"] if c.value == "utilization")
    plans.cell(row, 3).value = "=0.5+0.2"
    book.save(folder / "made.xlsx")
    analysts = recalc([folder / "made.xlsx"], folder / "lo")[0]   # saved by a spreadsheet application
    scenario = read_scenario(analysts)
    write_scenario(scenario, folder / "saved.xlsx")
    recalc([folder / "saved.xlsx"], folder / "again")
    return {"scenario": scenario, "row": row, "saved": folder / "saved.xlsx", "again": folder / "again" / "saved.xlsx"}


def test_named_ranges_of_the_analyst_are_kept_and_resolve(saved):
    book = openpyxl.load_workbook(saved["saved"])
    assert "my_total" in book.defined_names   # before: dropped, the analyst's cell read #NAME?
    values = openpyxl.load_workbook(saved["again"], data_only=True)
    assert values["Mine"]["C1"].value == 100


def test_a_chart_conditional_format_and_protection_of_their_sheet_are_kept(saved):
    mine = openpyxl.load_workbook(saved["saved"])["Mine"]
    assert len(mine._charts) == 1 and len(mine.conditional_formatting) == 1 and mine.protection.sheet


def test_hidden_sheets_stay_hidden(saved):
    book = openpyxl.load_workbook(saved["saved"])
    assert book["Hidden mine"].sheet_state == "hidden" and book[S.CONSTANTS].sheet_state == "hidden"


def test_a_formula_in_a_plans_input_cell_is_kept_and_named_in_a_note(saved):
    notes = kept_notes(saved["scenario"])
    row = saved["row"]
    assert any(note.startswith(f"Plans!C{row}: a formula in an input cell") and "kept on save as the formula" in note
               for note in notes), notes
    assert not any("kept as is" in note for note in notes), notes
    assert openpyxl.load_workbook(saved["saved"])[S.PLANS].cell(row, 3).value == "=0.5+0.2"   # before: 0.7
    assert openpyxl.load_workbook(saved["saved"], data_only=True)[S.PLANS].cell(row, 3).value == 0.7   # cached
    assert read_scenario(saved["saved"]).plans == saved["scenario"].plans   # tcoapp reads its own save
    assert openpyxl.load_workbook(saved["again"], data_only=True)[S.CHECKS]["B1"].value == 0


def test_a_value_changed_in_the_app_replaces_the_formula(saved, tmp_path):
    scenario = saved["scenario"]
    changed = scenario.with_plans((scenario.plans[0].with_(utilization=0.5), *scenario.plans[1:]))
    write_scenario(changed, tmp_path / "changed.xlsx")
    assert openpyxl.load_workbook(tmp_path / "changed.xlsx")[S.PLANS].cell(saved["row"], 3).value == 0.5
