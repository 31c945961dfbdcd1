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

from tcoapp.engine.core.errors import ValidationError

from tcoapp.engine.pipeline.compute import compute_scenario
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


SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"
MOE_POOL_PLAN = 4   # moe_rack_scale's plan with Pools rows
MOE_PLAIN_PLAN = 1  # one of its plans without


def _letter(col):
    return openpyxl.utils.get_column_letter(col)


def _edits(paths) -> dict:
    """name -> (source, ops, after): ops done in LibreOffice, `after` reading what cells show once recalculated."""
    book = openpyxl.load_workbook(paths["default"])
    npv = _row(book[S.RESULTS], "npv_usd")
    helper = book[S.PLANS].max_row + 2
    count = ROWS["device_count"]
    moe = openpyxl.load_workbook(paths["moe"])
    pools_plan = moe[S.PLANS].cell(1, S.FIRST_PLAN_COLUMN + MOE_POOL_PLAN).value
    pool_rows = [r[0].row for r in moe[S.POOLS].iter_rows(min_row=3, max_col=1) if r[0].value == pools_plan]
    renamed = [["set", S.PLANS, f"{_letter(S.FIRST_PLAN_COLUMN + MOE_POOL_PLAN)}1", "Pools plan renamed"]]
    results = book[S.RESULTS]
    last = f"{_letter(results.max_column)}{results.max_row}"
    devices = book[S.DEVICES]
    return {
        "my_sheet": ("default", [["insert_sheet", "MyAnalysis", 0],
                                 ["set", "MyAnalysis", "A1", "NPV of the first plan, in millions"],
                                 ["set", "MyAnalysis", "B1", f"={S.RESULTS}.C{npv}/1000000"],
                                 ["set", "MyAnalysis", "B2", f"={S.PLANS}.C{count}*2"],
                                 ["annotate", "MyAnalysis", "A1", "my own note"],
                                 ["number_format", "MyAnalysis", "B1", "#,##0.000"]], []),
        "backup_copy": ("default", [["copy_sheet", S.PLANS, "Plans (2)", 3],
                                    ["set", "Plans (2)", f"C{count}", 999]], []),
        "renamed_summary": ("default", [["rename_sheet", S.SUMMARY, "Summary before"]], []),
        "helper_row": ("default", [["set", S.PLANS, f"A{helper}", "My helper: devices x 2"],
                                   ["set", S.PLANS, f"C{helper}", f"=C{count}*2"],
                                   ["annotate", S.PLANS, f"A{helper}", "helper row"]], []),
        # a plan removed: its Plans column deleted (and its Pools rows, for a plan with pools)
        "delete_plan": ("moe", [["delete_columns", S.PLANS, S.FIRST_PLAN_COLUMN + MOE_PLAIN_PLAN, 1]], []),
        "delete_pools_plan": ("moe", [["delete_rows", S.POOLS, pool_rows[0], len(pool_rows)],
                                      ["delete_columns", S.PLANS, S.FIRST_PLAN_COLUMN + MOE_POOL_PLAN, 1]], []),
        "rename_pools_plan_both": ("moe", renamed + [["set", S.POOLS, f"A{r}", "Pools plan renamed"] for r in pool_rows], []),
        "rename_pools_plan_on_plans_only": ("moe", renamed, []),
        # paste-values over the whole Results sheet, then an engine input changes
        "paste_values_results": ("default", [["paste_values", S.RESULTS, f"A1:{last}"],
                                             ["set", S.PLANS, f"C{ROWS['batch']}", 16]],
                                 [["shown", sheet, cell] for sheet in (S.RESULTS, S.SUMMARY, S.CASH_FLOW)
                                  for cell in ("B2", "C2")] + [["shown", S.RESULTS, "C4"]]),
        "move_devices_table": ("default", [["move_range", S.DEVICES,
                                            f"A1:{_letter(devices.max_column)}{devices.max_row}", "C5"]], []),
    }


@pytest.fixture(scope="module")
def worked(tmp_path_factory):
    folder = tmp_path_factory.mktemp("analyst_work")
    scenarios = {"default": default_scenario(), "moe": read_scenario(SAMPLES / "moe_rack_scale.xlsx")}
    paths = {}
    for name, scenario in scenarios.items():
        paths[name] = folder / f"{name}.xlsx"
        write_scenario(scenario, paths[name], compute_scenario(scenario))
    edits = _edits(paths)
    jobs = [{"src": str(paths[source]), "dst": str(folder / f"edit_{name}.xlsx"), "ops": ops, "after": after}
            for name, (source, ops, after) in edits.items()]
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
        if name in KEPT:
            write_scenario(read[name], folder / f"saved_{name}.xlsx")
            saved.append(folder / f"saved_{name}.xlsx")
    recalc(saved, folder / "recalc")
    return {"folder": folder, "read": read, "scenario": scenarios["default"], "scenarios": scenarios}


KEPT = ("my_sheet", "backup_copy", "renamed_summary", "helper_row")


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


def _edited(worked, name):
    return openpyxl.load_workbook(worked["folder"] / f"edit_{name}.xlsx", data_only=True)


def _summary(book, plans: int):
    """(name, failing checks, status) of each plan on the Checks summary."""
    return [tuple(book[S.CHECKS].cell(4 + i, c).value for c in (2, 3, 4)) for i in range(plans)]


@pytest.mark.parametrize("name, gone", [("delete_plan", MOE_PLAIN_PLAN), ("delete_pools_plan", MOE_POOL_PLAN)])
def test_a_deleted_plan_is_one_check_and_the_app_reads_the_others(worked, name, gone):
    moe = worked["scenarios"]["moe"]
    book = _edited(worked, name)
    assert book[S.CHECKS]["B1"].value == 1   # one line, not a cascade over every plan
    summary = _summary(book, len(moe.plans))
    assert summary[gone] == (moe.plans[gone].name, 1, "deleted"), summary   # the plan named in one line
    assert all(status == "current" for i, (_, _, status) in enumerate(summary) if i != gone), summary
    failing = [r[1].value for r in book[S.CHECKS].iter_rows(min_row=4 + len(moe.plans) + 4, max_col=3)
               if r[2].value == 1]
    assert len(failing) == 1 and repr(moe.plans[gone].name) in failing[0], failing
    scenario = worked["read"][name]
    assert not isinstance(scenario, Exception), scenario
    assert scenario.plans == tuple(p for i, p in enumerate(moe.plans) if i != gone)


def test_a_plan_renamed_on_plans_and_pools_stays_live(worked):
    from .workbook_recalc import compare

    path = worked["folder"] / "edit_rename_pools_plan_both.xlsx"
    book = _edited(worked, "rename_pools_plan_both")
    assert book[S.CHECKS]["B1"].value == 0, _summary(book, len(worked["scenarios"]["moe"].plans))
    scenario = worked["read"]["rename_pools_plan_both"]
    assert not isinstance(scenario, Exception), scenario
    assert scenario.plans[MOE_POOL_PLAN].name == "Pools plan renamed"
    assert compare(path, scenario, compute_scenario(scenario)) == []   # no #N/A: every number is the engine's


def test_a_plan_renamed_on_plans_only_is_named_in_one_line(worked):
    error = worked["read"]["rename_pools_plan_on_plans_only"]
    old = worked["scenarios"]["moe"].plans[MOE_POOL_PLAN].name
    assert isinstance(error, ValidationError), error
    lines = [line for line in str(error).splitlines() if repr(old) in line]
    assert len(lines) == 1 and "renamed" in lines[0], str(error)
    book = _edited(worked, "rename_pools_plan_on_plans_only")
    failing = [r[1].value for r in book[S.CHECKS].iter_rows(min_row=12, max_col=3) if r[2].value == 1]
    assert any("renamed on Plans is renamed in its Pools rows" in what for what in failing), failing


def test_paste_values_over_results_cannot_freeze_its_status(worked):
    book = _edited(worked, "paste_values_results")
    master = book[S.CHECKS]["B1"].value
    assert master > 0
    shown = json.loads((worked["folder"] / "edit_paste_values_results.xlsx.shown.json").read_text())
    for sheet in (S.SUMMARY, S.CASH_FLOW):   # the live banners (the frozen one: what LibreOffice prints, below)
        assert shown[f"{sheet}!C2"].startswith("STOP"), (sheet, shown)
    text = _pdf_text(worked["folder"] / "edit_paste_values_results.xlsx")   # what the sheets show, as printed
    results = text[text.index("Is this plan current?"):]
    assert "All checks pass" not in text and "STOP: checks fail, see the Checks sheet" in text
    assert results.split("\n", 1)[0].count("pasted as values") >= 1   # Results' frozen "current": shown STALE
    summary = book[S.SUMMARY].cell(_row(book[S.SUMMARY], "Is the plan current?"), S.FIRST_PLAN_COLUMN).value
    assert summary.startswith("STALE"), summary   # Summary reads the Checks, not the frozen Results
    failing = [r[1].value for r in book[S.CHECKS].iter_rows(min_row=12, max_col=3) if r[2].value == 1]
    assert any("master_check rows" in what for what in failing), failing   # the frozen status is a failing check


def test_a_moved_table_is_one_line(worked):
    error = worked["read"]["move_devices_table"]
    assert isinstance(error, ValidationError), error
    lines = [line for line in str(error).splitlines() if f"{S.DEVICES}!" in line]
    assert len(lines) == 1 and "keys are now in row 5" in lines[0], str(error)


def _pdf_text(path: pathlib.Path) -> str:
    """The workbook as LibreOffice prints it (conditional formats applied), as text."""
    out = path.parent / "pdf"
    profile = out / "profile"
    subprocess.run([SOFFICE, f"-env:UserInstallation={profile.resolve().as_uri()}", "--headless", "--norestore",
                    "--convert-to", "pdf", "--outdir", str(out), str(path)], capture_output=True, timeout=300)
    pdf = out / (path.stem + ".pdf")
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
