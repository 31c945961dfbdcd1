"""The analyst's own sheets and Plans rows are read past with a note and written back on save (io/kept_work.py;
the LibreOffice edits: tests/io/test_workbook_analyst_work.py). A row that reads as a mistyped key is still named."""
from __future__ import annotations

import openpyxl
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.inputs import PLAN_FIELD_BY_NAME
from tcoapp.io.kept_work import is_own_row, kept_notes
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

from .broken.corpus import hand_made


def _own(wb):
    scratch = wb.create_sheet("Scratch", 0)
    scratch["A1"] = "my numbers"
    scratch["B1"] = "=Plans!C2"
    scratch["B1"].number_format = "0.0%"
    plans = wb["Plans"]
    plans.cell(plans.max_row + 2, 2, "helper")
    plans.cell(plans.max_row, 3, "=C7*2")
    plans.cell(plans.max_row, 1, "My helper")


def test_own_sheet_and_helper_row_are_read_past_with_a_note_and_written_back(tmp_path):
    path = hand_made(tmp_path / "own.xlsx", mutate=_own)
    scenario = read_scenario(path)
    notes = kept_notes(scenario)
    assert len(notes) == 2 and "'Scratch'" in notes[0] and notes[1].startswith("Plans row"), notes
    write_scenario(scenario, tmp_path / "saved.xlsx")
    book = openpyxl.load_workbook(tmp_path / "saved.xlsx")
    assert book.sheetnames[0] == "Scratch"
    assert book["Scratch"]["B1"].value == "=Plans!C2" and book["Scratch"]["B1"].number_format == "0.0%"
    helper = next(r[0].row for r in book["Plans"].iter_rows(max_col=1) if r[0].value == "My helper")
    assert book["Plans"].cell(helper, 3).value == "=C7*2"
    again = read_scenario(tmp_path / "saved.xlsx")
    assert again.plans == scenario.plans and kept_notes(again)[0] == notes[0]   # the row moved below the app's rows
    assert kept_notes(again)[1] == (f"Plans row {helper}: no Plans key in column A, not read; kept on save (values, "
                                    "formulas, comments, formats)")


def test_an_unknown_sheet_no_longer_refuses_the_file(tmp_path):
    scenario = read_scenario(hand_made(tmp_path / "extra.xlsx", extra="Scratch"))
    assert "'Scratch'" in kept_notes(scenario)[0]


@pytest.mark.parametrize("key", ["gpu_count", "utilisation", "batchh", "device_colour"])
def test_a_row_that_reads_as_a_key_is_still_an_unknown_key(tmp_path, key):
    assert not is_own_row(key, PLAN_FIELD_BY_NAME)

    def typo(wb):
        wb["Plans"].append([key, "", 8])
    with pytest.raises(ValidationError, match=f"{key}.*unknown key"):
        read_scenario(hand_made(tmp_path / "typo.xlsx", mutate=typo))


def _formula_label(wb):
    plans = wb["Plans"]
    row = plans.max_row + 1
    plans.cell(row, 1, '=REPT("x",3)')   # no saved value: openpyxl writes none
    plans.cell(row, 2, "Debt share (fraction)")
    plans.cell(row, 3, 0.25)


def test_a_formula_in_column_a_with_no_saved_value_is_a_row_of_ones_own_and_its_save_reads_back(tmp_path):
    """Found by the workbook fuzzer (seed 14468950): a key replaced by a formula read as a row of one's own while the
    formula's value was saved, but its export (formula kept, value not) was refused as an input that lost its key."""
    path = hand_made(tmp_path / "formula_key.xlsx", mutate=_formula_label)
    scenario = read_scenario(path)
    notes = kept_notes(scenario)
    assert any(n.startswith("Plans row") and "no Plans key in column A" in n for n in notes), notes
    write_scenario(scenario, tmp_path / "saved.xlsx")
    again = read_scenario(tmp_path / "saved.xlsx")
    assert again.plans == scenario.plans
    book = openpyxl.load_workbook(tmp_path / "saved.xlsx")
    assert any(r[0].value == '=REPT("x",3)' for r in book["Plans"].iter_rows(max_col=1))


def test_a_key_cell_holding_1e999_is_a_row_of_ones_own_and_its_save_reads_back(tmp_path):
    """Found by the long workbook fuzzer (seed 777002): 1e999 in a key cell reads as inf, a label that is not a key,
    so the row is kept; the save wrote inf as an empty number cell, and the row read back as an input that lost
    its key. The value is kept as its text."""
    import re
    import zipfile

    path = hand_made(tmp_path / "plain.xlsx")
    with zipfile.ZipFile(path) as archive:
        members = {info.filename: archive.read(info.filename) for info in archive.infolist()}
    part = "xl/worksheets/sheet1.xml"
    members[part], count = re.subn(rb'<c r="A8"[^>]*?(/>|>.*?</c>)', b'<c r="A8" t="n"><v>1e999</v></c>',
                                   members[part], count=1)
    assert count == 1
    mutant = tmp_path / "inf_key.xlsx"
    with zipfile.ZipFile(mutant, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    scenario = read_scenario(mutant)
    assert any(n.startswith("Plans row 8:") for n in kept_notes(scenario)), kept_notes(scenario)
    write_scenario(scenario, tmp_path / "saved.xlsx")
    again = read_scenario(tmp_path / "saved.xlsx")
    assert again.plans == scenario.plans
    book = openpyxl.load_workbook(tmp_path / "saved.xlsx")
    assert any(r[0].value == "inf" for r in book["Plans"].iter_rows(max_col=1))
