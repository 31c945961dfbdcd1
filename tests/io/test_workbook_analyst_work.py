"""The analyst's own work in an exported workbook, done inside LibreOffice Calc (headless, through UNO:
tests/io/lo_edit.py), then read by tcoapp, saved by tcoapp and recalculated by LibreOffice again
(docs/workbook_format.md, "Your own sheets and rows").

A sheet of your own, a backup copy of an app sheet, a renamed Summary and a helper row under Plans are read
past with a note naming them and written back on the next save: values, formulas (into the app's sheets
too), comments and number formats."""
from __future__ import annotations

import json
import pathlib
import subprocess

import openpyxl
import pytest

from tcoapp.engine.compute import compute_scenario
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.kept_work import kept_notes
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_inputs import plan_rows

from .workbook_recalc import SOFFICE, recalc

UNO_PYTHON = "/usr/bin/python3"
LO_EDIT = pathlib.Path(__file__).with_name("lo_edit.py")
pytestmark = [pytest.mark.libreoffice, pytest.mark.slow,
              pytest.mark.skipif(SOFFICE is None or not pathlib.Path(UNO_PYTHON).exists(),
                                 reason="LibreOffice Calc with its Python UNO bridge is not installed")]
ROWS = plan_rows()


def _row(ws, key, col=1):
    return next(r[0].row for r in ws.iter_rows(min_col=col, max_col=col) if r[0].value == key)


def _edits(source: pathlib.Path) -> dict:
    book = openpyxl.load_workbook(source)
    npv = _row(book[S.RESULTS], "npv_usd")
    helper = book[S.PLANS].max_row + 2
    count = ROWS["device_count"]
    return {
        "my_sheet": [["insert_sheet", "MyAnalysis", 0],
                     ["set", "MyAnalysis", "A1", "NPV of the first plan, in millions"],
                     ["set", "MyAnalysis", "B1", f"={S.RESULTS}.C{npv}/1000000"],
                     ["set", "MyAnalysis", "B2", f"={S.PLANS}.C{count}*2"],
                     ["annotate", "MyAnalysis", "A1", "my own note"],
                     ["number_format", "MyAnalysis", "B1", "#,##0.000"]],
        "backup_copy": [["copy_sheet", S.PLANS, "Plans (2)", 3],
                        ["set", "Plans (2)", f"C{count}", 999]],
        "renamed_summary": [["rename_sheet", S.SUMMARY, "Summary before"]],
        "helper_row": [["set", S.PLANS, f"A{helper}", "My helper: devices x 2"],
                       ["set", S.PLANS, f"C{helper}", f"=C{count}*2"],
                       ["annotate", S.PLANS, f"A{helper}", "helper row"]],
    }


@pytest.fixture(scope="module")
def worked(tmp_path_factory):
    folder = tmp_path_factory.mktemp("analyst_work")
    scenario = default_scenario()
    source = folder / "source.xlsx"
    write_scenario(scenario, source, compute_scenario(scenario))
    edits = _edits(source)
    jobs = [{"src": str(source), "dst": str(folder / f"edit_{name}.xlsx"), "ops": ops} for name, ops in edits.items()]
    (folder / "jobs.json").write_text(json.dumps(jobs))
    done = subprocess.run([UNO_PYTHON, str(LO_EDIT), str(folder / "jobs.json")], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    read, saved = {}, []
    for name in edits:   # tcoapp reads what LibreOffice saved, and saves it again
        try:
            read[name] = read_scenario(folder / f"edit_{name}.xlsx")
        except Exception as exc:  # noqa: BLE001 - the test of that edit reports it
            read[name] = exc
            continue
        write_scenario(read[name], folder / f"saved_{name}.xlsx")
        saved.append(folder / f"saved_{name}.xlsx")
    recalc(saved, folder / "recalc")
    return {"folder": folder, "read": read, "scenario": scenario, "source": source}


def _read_ok(worked, name):
    scenario = worked["read"][name]
    assert not isinstance(scenario, Exception), f"{name}: {scenario}"
    assert scenario.plans == worked["scenario"].plans, name
    return scenario


def _recalculated(worked, name, formulas=False):
    return openpyxl.load_workbook(worked["folder"] / "recalc" / f"saved_{name}.xlsx", data_only=not formulas)


def test_a_sheet_of_your_own_is_kept_with_its_formulas_comments_and_formats(worked):
    scenario = _read_ok(worked, "my_sheet")
    assert any("'MyAnalysis'" in note for note in kept_notes(scenario)), kept_notes(scenario)
    book = _recalculated(worked, "my_sheet")
    formulas = _recalculated(worked, "my_sheet", formulas=True)
    mine = book["MyAnalysis"]
    assert book.sheetnames[0] == "MyAnalysis"   # where the analyst put it
    npv = book[S.RESULTS].cell(_row(book[S.RESULTS], "npv_usd"), 3).value
    assert mine["B1"].value == pytest.approx(npv / 1e6, rel=1e-12)   # live: the formula into Results recalculated
    assert formulas["MyAnalysis"]["B1"].value.startswith(f"={S.RESULTS}!C")
    assert mine["B2"].value == 2 * worked["scenario"].plans[0].device_count
    assert mine["A1"].comment is not None and "my own note" in mine["A1"].comment.text
    assert mine["B1"].number_format == "#,##0.000"
    assert book[S.CHECKS]["B1"].value == 0   # the app's own sheets pass every check


def test_a_backup_copy_of_an_app_sheet_is_the_analysts_sheet(worked):
    scenario = _read_ok(worked, "backup_copy")   # its 999 devices are not read
    assert any("'Plans (2)'" in note for note in kept_notes(scenario)), kept_notes(scenario)
    book = _recalculated(worked, "backup_copy")
    assert book.sheetnames.index("Plans (2)") == 3
    assert book["Plans (2)"].cell(ROWS["device_count"], 3).value == 999
    assert book[S.PLANS].cell(ROWS["device_count"], 3).value == worked["scenario"].plans[0].device_count


def test_a_renamed_summary_is_kept_and_a_new_summary_written(worked):
    scenario = _read_ok(worked, "renamed_summary")
    assert any("'Summary before'" in note for note in kept_notes(scenario)), kept_notes(scenario)
    book = _recalculated(worked, "renamed_summary")
    assert "Summary before" in book.sheetnames and S.SUMMARY in book.sheetnames
    assert book[S.CHECKS]["B1"].value == 0


def test_a_helper_row_under_plans_is_kept(worked):
    scenario = _read_ok(worked, "helper_row")
    assert any(note.startswith(f"{S.PLANS} row") for note in kept_notes(scenario)), kept_notes(scenario)
    book = _recalculated(worked, "helper_row")
    plans = book[S.PLANS]
    helper = _row(plans, "My helper: devices x 2")
    assert plans.cell(helper, 3).value == 2 * worked["scenario"].plans[0].device_count
    assert plans.cell(helper, 1).comment is not None
    assert read_scenario(worked["folder"] / "recalc" / "saved_helper_row.xlsx").plans == worked["scenario"].plans
