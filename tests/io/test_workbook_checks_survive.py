"""Checks that survive what analysts do, done inside LibreOffice Calc (headless, through UNO: tests/io/lo_edit.py)
(docs/workbook_format.md, "Checks, Summary and what stays live"): a Find & Replace over every sheet, a column
inserted in Plans, a paste of values over Summary, a renamed or copied input sheet; and the equity IRR's uniqueness
rule, recalculated by LibreOffice."""
from __future__ import annotations

import dataclasses
import json
import pathlib
import subprocess

import openpyxl
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.kept_work import kept_notes
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_inputs import plan_rows

from .test_workbook_analyst_work import LO_EDIT, UNO_PYTHON, _pdf_text
from .workbook_recalc import SOFFICE, compare, recalc

pytestmark = [pytest.mark.libreoffice, pytest.mark.slow,
              pytest.mark.skipif(SOFFICE is None or not pathlib.Path(UNO_PYTHON).exists(),
                                 reason="LibreOffice Calc with its Python UNO bridge is not installed")]
SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"
ROWS = plan_rows()


def _last(ws) -> str:
    return f"{openpyxl.utils.get_column_letter(ws.max_column)}{ws.max_row}"


def _loan_scenario():
    """A 10-year loan on a 4-year horizon at 12.4 % utilization: the equity flows (-4.7, +3.9, +3.9, +3.9, -7.3 M USD)
    change sign twice and so does their cumulative, so no equity IRR is unique (the engine's n/a) though two rates
    (4.4 % and 25 %) make the equity NPV 0 (IRR() finds one); a 7-year loan at 14 %, whose cumulative flow changes
    sign once (the one positive rate, 51 %, beside a negative one); one whose flows change sign once. (The
    utilizations follow the model's throughput: refit, they are found again where the flows have these shapes.)"""
    base = default_scenario()
    plan = base.plans[0]
    return dataclasses.replace(base, plans=(
        plan.with_(name="10-year loan, 4 years", debt_fraction=0.8, debt_years=10, years=4, utilization=0.124),
        plan.with_(name="7-year loan, 4 years", debt_fraction=0.8, debt_years=7, years=4, utilization=0.14),
        plan.with_(name="7-year loan, busy", debt_fraction=0.8, debt_years=7, years=4, utilization=0.3)))


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    folder = tmp_path_factory.mktemp("checks_survive")
    moe = read_scenario(SAMPLES / "moe_rack_scale.xlsx")
    loan = _loan_scenario()
    scenarios = {"moe": moe, "default": default_scenario(), "loan": loan}
    paths = {}
    for name, scenario in scenarios.items():
        paths[name] = folder / f"{name}.xlsx"
        write_scenario(scenario, paths[name], compute_scenario(scenario))
    summary = openpyxl.load_workbook(paths["default"])[S.SUMMARY]
    edits = {
        "replace_fp8": ("moe", [["replace_all", "*", "fp8", "nvfp4"]], []),
        "plan_in_front": ("moe", [["insert_columns", S.PLANS, 3, 1], ["set", S.PLANS, "C1", "New first plan"]], []),
        "blank_column_between": ("moe", [["insert_columns", S.PLANS, 4, 1]], []),
        "paste_values_summary": ("default", [["paste_values", S.SUMMARY, f"A1:{_last(summary)}"],
                                             ["set", S.PLANS, f"C{ROWS['batch']}", 16]], []),
        "pools_renamed": ("moe", [["rename_sheet", S.POOLS, "Fleet"]], []),
        "pools_move_copy": ("moe", [["rename_sheet", S.POOLS, "Pools (2)"]], []),
        "pools_copied": ("moe", [["copy_sheet", S.POOLS, "Pools (2)", 3]], []),
    }
    jobs = [{"src": str(paths[source]), "dst": str(folder / f"edit_{name}.xlsx"), "ops": ops, "after": after}
            for name, (source, ops, after) in edits.items()]
    (folder / "jobs.json").write_text(json.dumps(jobs))
    run = subprocess.run([UNO_PYTHON, str(LO_EDIT), str(folder / "jobs.json")], capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr
    # a Find & Replace of a number, done by openpyxl over every cell (LibreOffice's would do the same to the text)
    book = openpyxl.load_workbook(paths["default"])
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.value == 0.7 and cell.data_type == "n":
                    cell.value = 0.75
    book.save(folder / "replace_number.xlsx")
    recalc([paths["loan"], folder / "replace_number.xlsx"], folder / "recalc")
    return {"folder": folder, "scenarios": scenarios}


def _edited(done, name):
    return openpyxl.load_workbook(done["folder"] / f"edit_{name}.xlsx", data_only=True)


def _failing(book) -> list[str]:
    return [r[1].value for r in book[S.CHECKS].iter_rows(min_row=10, max_col=3) if r[2].value == 1]


def test_find_and_replace_over_every_sheet_fails_the_checks(done):
    book = _edited(done, "replace_fp8")
    assert book[S.CHECKS]["B1"].value > 0   # before: 0, "All checks pass" while the engine's numbers were fp8's
    assert any(what.endswith("weight_precision") or what.endswith("kv_precision") for what in _failing(book))
    assert book[S.SUMMARY]["C2"].value.startswith("STOP")


def test_a_number_replaced_everywhere_fails_its_check(done):
    book = openpyxl.load_workbook(done["folder"] / "recalc" / "replace_number.xlsx", data_only=True)
    failing = _failing(book)
    # the inputs that held 0.7 (a factor's default, a typed acceptance) fail their checks
    assert book[S.CHECKS]["B1"].value > 0 and any(k in what for what in failing for k in ("eta_comm", "spec_decode_acceptance")), failing


def test_a_plan_inserted_in_front_of_plan_1_is_counted(done):
    book = _edited(done, "plan_in_front")
    failing = _failing(book)
    assert any(what.startswith("Plans: 5 plan(s) in row 1") for what in failing), failing


def test_a_blank_column_inserted_between_plans_keeps_every_check(done):
    book = _edited(done, "blank_column_between")
    assert book[S.CHECKS]["B1"].value == 0, _failing(book)


def test_paste_values_over_summary_cannot_freeze_its_plan_status(done):
    text = _pdf_text(done["folder"] / "edit_paste_values_summary.xlsx")
    line = next(line for line in text.splitlines() if "Is the plan current?" in line)
    assert "pasted as values" in line, line   # the frozen "current" shows STALE (before: "current")


def test_the_equity_irr_formula_applies_the_engines_uniqueness_rule(done):
    loan = done["scenarios"]["loan"]
    results = compute_scenario(loan)
    assert results[0].metrics.equity_irr != results[0].metrics.equity_irr   # the engine: n/a
    path = done["folder"] / "recalc" / "loan.xlsx"
    assert compare(path, loan, results) == []   # every number LibreOffice computes is the engine's
    book = openpyxl.load_workbook(path, data_only=True)
    row = next(r for r in book[S.RESULTS].iter_rows() if r[0].value == "equity_irr")
    assert row[2].value == "n/a"   # before: IRR() found one of the two rates
    for col, result in ((3, results[1]), (4, results[2])):
        assert row[col].value == pytest.approx(result.metrics.equity_irr, rel=1e-6)


@pytest.mark.parametrize("name, sheet", [("pools_renamed", "Fleet"), ("pools_move_copy", "Pools (2)")])
def test_a_pools_sheet_renamed_in_libreoffice_is_read(done, name, sheet):
    moe = done["scenarios"]["moe"]
    scenario = read_scenario(done["folder"] / f"edit_{name}.xlsx")
    assert scenario.plans == moe.plans
    assert any(note.startswith(f"sheet {sheet!r}: read as the Pools table") for note in kept_notes(scenario))
    book = _edited(done, name)
    assert book[S.CHECKS]["B1"].value == 0   # the formulas followed the renamed sheet


def test_a_pools_sheet_copied_in_libreoffice_is_refused_in_one_line(done):
    with pytest.raises(ValidationError) as info:
        read_scenario(done["folder"] / "edit_pools_copied.xlsx")
    lines = str(info.value).splitlines()
    assert len(lines) == 1 and "'Pools' and 'Pools (2)'" in lines[0], lines
