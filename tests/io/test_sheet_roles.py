"""Inputs recognised by content, not only by sheet name (docs/workbook_format.md, "Your own sheets and rows"): a
renamed input sheet is read as its table with a note, two sheets claiming one table are refused in one line, a row
with values but an empty key cell is refused naming the cell, and every surface shows the same notes."""
from __future__ import annotations

import json
import pathlib
import warnings

import openpyxl
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io import sheets as S
from tcoapp.io.kept_work import kept_notes
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

from ..cli.test_cli_workbook import run_cli
from .uncertainty_factory import write_uncertain_workbook

SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"
MOE = SAMPLES / "moe_rack_scale.xlsx"   # plans with Pools rows, Uncertainty rows


def _edited(tmp_path, source, edit, name="edited.xlsx"):
    book = openpyxl.load_workbook(source)
    edit(book)
    path = tmp_path / name
    book.save(path)
    return path


def _rename(sheet, new):
    def edit(book):
        book[sheet].title = new
    return edit


@pytest.fixture(scope="module")
def moe():
    return read_scenario(MOE)


@pytest.mark.parametrize("sheet, new", [(S.POOLS, "Fleet"), (S.POOLS, "Pools (2)"), (S.DEVICES, "My devices"),
                                        (S.MODELS, "Models (2)"), (S.CURVES, "Measured"),
                                        (S.CALIBRATION, "Fit")])
def test_a_renamed_input_sheet_is_read_as_its_table_with_a_note(tmp_path, moe, sheet, new):
    path = _edited(tmp_path, MOE, _rename(sheet, new))
    scenario = read_scenario(path)
    assert scenario.plans == moe.plans   # the Pools rows still on their plans (before: the later tranche was gone)
    assert scenario.devices == moe.devices and scenario.models == moe.models and scenario.curves == moe.curves
    assert scenario.uncertainty == moe.uncertainty and scenario.factors == moe.factors
    notes = kept_notes(scenario)
    assert notes == (f"sheet {new!r}: read as the {sheet} table (its row 1 is the {sheet} keys); a save writes it "
                     f"as {sheet!r}",), notes


def test_a_renamed_sheets_problems_name_it(tmp_path):
    def edit(book):
        book[S.POOLS].title = "Fleet"
        book["Fleet"]["E3"] = "lots"   # device_count: a number
    with pytest.raises(ValidationError) as info:
        read_scenario(_edited(tmp_path, MOE, edit))
    assert "Fleet!E3" in str(info.value), str(info.value)


def test_a_renamed_device_price_edit_is_read(tmp_path, moe):
    book = openpyxl.load_workbook(MOE)
    devices = book[S.DEVICES]
    col = next(c.column for c in devices[1] if c.value == "price_usd")
    name = devices.cell(3, 1).value
    devices.cell(3, col).value = 123_456
    devices.title = "Prices"
    book.save(tmp_path / "prices.xlsx")
    assert read_scenario(tmp_path / "prices.xlsx").device(name).price_usd == 123_456


def test_two_sheets_claiming_one_table_are_refused_in_one_line(tmp_path):
    def edit(book):
        book.copy_worksheet(book[S.POOLS]).title = "Pools (2)"
    with pytest.raises(ValidationError) as info:
        read_scenario(_edited(tmp_path, MOE, edit))
    lines = str(info.value).splitlines()
    assert len(lines) == 1 and "'Pools' and 'Pools (2)'" in lines[0] and "Pools table" in lines[0], lines


def test_a_sheet_of_your_own_with_a_few_table_words_stays_yours(tmp_path, moe):
    def edit(book):
        mine = book.create_sheet("Notes")
        mine.append(["name", "what I think", "why"])
        mine.append(["H200", "fine", "cheap"])
    scenario = read_scenario(_edited(tmp_path, MOE, edit))
    assert scenario.devices == moe.devices
    assert any("'Notes'" in note and "not read" in note for note in kept_notes(scenario)), kept_notes(scenario)


def test_a_plans_row_with_values_but_no_key_is_refused_naming_the_cell(tmp_path):
    book = openpyxl.load_workbook(MOE)
    plans = book[S.PLANS]
    row = next(c.row for c in plans["A"] if c.value == "utilization")
    plans.cell(row, 1).value = None
    book.save(tmp_path / "blank.xlsx")
    with pytest.raises(ValidationError) as info:
        read_scenario(tmp_path / "blank.xlsx")
    lines = str(info.value).splitlines()
    assert lines == [f"Plans!A{row}: is empty but the row holds values for plans (Plans!C{row}, ...): type the row's "
                     "key in column A (its label 'Utilization (fraction)' is the key 'utilization'), or, for a row "
                     "of your own, a label that is not a key"], lines


def test_a_helper_row_with_a_label_is_still_kept(tmp_path, moe):
    def edit(book):
        plans = book[S.PLANS]
        plans.cell(plans.max_row + 2, 1, "My total")
        plans.cell(plans.max_row, 3, "=C10*2")
    scenario = read_scenario(_edited(tmp_path, MOE, edit))
    assert scenario.plans == moe.plans


@pytest.mark.parametrize("sheet, key", [(S.POOLS, "plan"), (S.DEVICES, "name"), (S.UNCERTAINTY, "plan"),
                                        (S.UNCERTAINTY, "key")])
def test_a_table_row_with_values_but_no_name_is_refused_naming_the_cell(tmp_path, sheet, key):
    source = MOE if sheet != S.UNCERTAINTY else write_uncertain_workbook(tmp_path / "u.xlsx")

    def edit(book):
        ws = book[sheet]
        col = next(c.column for c in ws[1] if c.value == key)
        ws.cell(3, col).value = None
    with pytest.raises(ValidationError) as info:
        read_scenario(_edited(tmp_path, source, edit))
    from openpyxl.utils import get_column_letter
    book = openpyxl.load_workbook(source)
    col = next(c.column for c in book[sheet][1] if c.value == key)
    hits = [line for line in str(info.value).splitlines() if line.startswith(f"{sheet}!{get_column_letter(col)}3 {key}")]
    assert hits and "is empty but the row holds values" in hits[0], str(info.value)


def test_a_price_tier_row_without_its_table_name_is_refused(tmp_path):
    def edit(book):
        ws = book[S.PRICE_TIERS]
        ws.append([None, 30, 2.5])
    with pytest.raises(ValidationError) as info:
        read_scenario(_edited(tmp_path, MOE, edit))
    assert "PriceTiers!A3 price_tiers: is empty but the row holds values" in str(info.value), str(info.value)


# ---- every surface shows the same notes

@pytest.fixture(scope="module")
def renamed_uncertainty(tmp_path_factory):
    path = write_uncertain_workbook(tmp_path_factory.mktemp("notes") / "u.xlsx")
    book = openpyxl.load_workbook(path)
    book[S.UNCERTAINTY].title = "Risks"
    book.save(path)
    return path


NOTE = "note: sheet 'Risks': read as the Uncertainty table (its row 1 is the Uncertainty keys); a save writes it as 'Uncertainty'"


def test_compute_simulate_and_report_print_the_notes(renamed_uncertainty, tmp_path):
    for args in (("compute", str(renamed_uncertainty)),
                 ("simulate", str(renamed_uncertainty), "--draws", "200", "--json"),
                 ("report", str(renamed_uncertainty), "--out", str(tmp_path / "r.pdf"))):
        done = run_cli(*args)
        assert done.returncode == 0, done.stderr
        assert NOTE in done.stderr.splitlines(), (args[0], done.stderr)
    sim = json.loads(run_cli("simulate", str(renamed_uncertainty), "--draws", "500", "--json").stdout)
    npv = sim["plans"][0]["npv_usd"]
    assert npv["p5"] < npv["p95"]   # the renamed Uncertainty rows are simulated (before: P5 = P95 = the mean)


def test_the_api_warns_with_the_notes(renamed_uncertainty):
    import tcoapp
    from tcoapp.api.scenario import WorkbookNote

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tcoapp.compute(str(renamed_uncertainty))
    notes = [str(w.message) for w in caught if issubclass(w.category, WorkbookNote)]
    assert notes == [NOTE.removeprefix("note: ")], notes


def test_a_save_writes_the_renamed_sheet_under_its_tables_name(tmp_path, moe):
    path = _edited(tmp_path, MOE, _rename(S.POOLS, "Fleet"))
    scenario = read_scenario(path)
    write_scenario(scenario, tmp_path / "saved.xlsx")
    names = openpyxl.load_workbook(tmp_path / "saved.xlsx", read_only=True).sheetnames
    assert S.POOLS in names and "Fleet" not in names
    again = read_scenario(tmp_path / "saved.xlsx")
    assert again.plans == moe.plans and kept_notes(again) == ()
