"""What analysts do to an exported workbook, done inside LibreOffice Calc itself (headless, through UNO:
tests/io/lo_edit.py): type over cells, insert and delete rows, sort tables, move a sheet, copy a column;
LibreOffice recalculates and saves as .xlsx (writing, after a row deletion, the empty row 1048576).

Every edit ends `live` (master_check = 0 and every Results and CashFlow number equals what tcoapp computes
from the edited file) or `flagged` (master_check > 0 and the plan STALE; for the Uncertainty sheet the
MonteCarlo sheet says STALE). master_check is always a count. The reader accepts every saved file: it
either reads it or names what is wrong with its contents (never "too large")."""
from __future__ import annotations

import dataclasses
import json
import pathlib
import shutil
import subprocess

import numpy as np
import openpyxl
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.quantities.inputs import DEVICE_FIELDS
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_inputs import plan_rows
from tcoapp.io.xlsx_layout import cashflow_years

from .workbook_recalc import SOFFICE, compare

UNO_PYTHON = "/usr/bin/python3"
LO_EDIT = pathlib.Path(__file__).with_name("lo_edit.py")
SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"
pytestmark = [pytest.mark.libreoffice, pytest.mark.slow,
              pytest.mark.skipif(SOFFICE is None or not pathlib.Path(UNO_PYTHON).exists(),
                                 reason="LibreOffice Calc with its Python UNO bridge is not installed")]
ROWS = plan_rows()
MOE_POOL_PLAN = 4  # the moe_rack_scale plan with Pools rows
EDIT_NAMES = ("delete_pools_row", "delete_plans_engine_key_row", "delete_plans_finance_key_row", "number_over_results_npv",
              "number_over_summary_npv", "swap_two_curve_points", "widen_uncertainty_range", "edit_constant",
              "copy_plans_column", "sort_devices", "rename_plan", "device_fast_memory_gb", "device_step_overhead_s",
              "device_layer_overhead_s", "move_plans_sheet", "insert_plans_row", "finance_electricity",
              "sort_curves_by_batch", "sort_pools", "plans_batch", "add_pools_row", "plans_search")


def _curve_scenario():
    from tcoapp.engine.performance.measured import make_measured_curve

    base = default_scenario()
    plan = base.plans[0]
    batch = np.array([1.0, 4, 16, 32, 64, 128, 256, 512])
    curve = make_measured_curve("H100 measured", plan.device, plan.model, batch, 40.0 * batch ** 0.8,
                                60.0 * batch ** -0.3, 300 + 2 * batch, 0.05 + 0.001 * batch, source="benchmark")
    return dataclasses.replace(base.with_plans([plan.with_(curve=curve.name)] + list(base.plans[1:])), curves={curve.name: curve})


def _col(ws, key, row=1):
    return next(c.column for c in ws[row] if c.value == key)


def _row(ws, key, col=1):
    return next(r[0].row for r in ws.iter_rows(min_col=col, max_col=col) if r[0].value == key)


def _ref(col, row):
    return f"{openpyxl.utils.get_column_letter(col)}{row}"


def _edits(paths):
    """name -> (source, ops, expected, plan index): expected 'live', 'flagged' or 'monte_carlo'."""
    default = openpyxl.load_workbook(paths["default"])
    moe = openpyxl.load_workbook(paths["moe"])
    curve = openpyxl.load_workbook(paths["curve"])
    unc = openpyxl.load_workbook(paths["uncertainty"])
    dev = default[S.DEVICES]
    h100 = _row(dev, "H100-SXM")
    results_npv = _row(default[S.RESULTS], "npv_usd")
    from tcoapp.engine.quantities.metrics import METRIC_BY_KEY
    summary_npv = _row(default[S.SUMMARY], METRIC_BY_KEY["npv_usd"].label)
    cws = curve[S.CURVES]
    tokens = _col(cws, "tokens_per_s_per_device")
    t3, t4 = cws.cell(3, tokens).value, cws.cell(4, tokens).value
    uws = unc[S.UNCERTAINTY]
    low, high = _col(uws, "low"), _col(uws, "high")
    urow = next(r for r in range(3, uws.max_row + 1) if uws.cell(r, high).value is not None)
    wider = uws.cell(urow, low).value - 0.5 * (uws.cell(urow, high).value - uws.cell(urow, low).value)
    last_dev_col = openpyxl.utils.get_column_letter(len(DEVICE_FIELDS))
    pools = moe[S.POOLS]
    return {
        # the failures of the issue
        "delete_pools_row": ("moe", [["delete_rows", S.POOLS, 3, 1]], "flagged", MOE_POOL_PLAN),
        "delete_plans_engine_key_row": ("default", [["delete_rows", S.PLANS, ROWS["spec_decode_acceptance"], 1]],
                                        "flagged", 0),
        "delete_plans_finance_key_row": ("default", [["delete_rows", S.PLANS, ROWS["staff_usd_per_year"], 1]],
                                         "flagged", 0),
        "number_over_results_npv": ("default", [["set", S.RESULTS, f"C{results_npv}", 123456.0]], "flagged", 0),
        "number_over_summary_npv": ("default", [["set", S.SUMMARY, f"C{summary_npv}", 123456.0]], "flagged", 0),
        "swap_two_curve_points": ("curve", [["set", S.CURVES, _ref(tokens, 3), t4], ["set", S.CURVES, _ref(tokens, 4), t3]],
                                  "flagged", 0),
        "widen_uncertainty_range": ("uncertainty", [["set", S.UNCERTAINTY, _ref(low, urow), wider]], "monte_carlo", 0),
        "edit_constant": ("default", [["set", S.CONSTANTS, "C2", 8784]], "flagged", 0),
        "copy_plans_column": ("default", [["copy_column", S.PLANS, 3, 3 + len(default_scenario().plans)]], "flagged", 0),
        "sort_devices": ("default", [["sort", S.DEVICES, f"A3:{last_dev_col}{dev.max_row}", 0, False]], "live", 0),
        "rename_plan": ("default", [["set", S.PLANS, "C1", "H100 renamed"]], "live", 0),
        "device_fast_memory_gb": ("default", [["set", S.DEVICES, _ref(_col(dev, "fast_memory_gb"), h100), 0.05],
                                              ["set", S.DEVICES, _ref(_col(dev, "fast_mem_bw_gb_s"), h100), 20000]],
                                  "flagged", 0),
        "device_step_overhead_s": ("default", [["set", S.DEVICES, _ref(_col(dev, "step_overhead_s"), h100), 0.002]],
                                   "flagged", 0),
        "device_layer_overhead_s": ("default", [["set", S.DEVICES, _ref(_col(dev, "layer_overhead_s"), h100), 0.0001]],
                                    "flagged", 0),
        # ordinary edits that must stay live
        "move_plans_sheet": ("default", [["move_sheet", S.PLANS, 9]], "live", 0),
        "insert_plans_row": ("default", [["insert_rows", S.PLANS, ROWS["batch"], 1]], "live", 0),
        "finance_electricity": ("default", [["set", S.PLANS, f"C{ROWS['electricity_usd_per_kwh']}", 0.2]], "live", 0),
        "sort_curves_by_batch": ("curve", [["sort", S.CURVES, f"A3:L{cws.max_row}", 3, False]], "live", 0),
        "sort_pools": ("moe", [["sort", S.POOLS, f"A3:Z{pools.max_row}", 1, True]], "live", MOE_POOL_PLAN),
        # engine inputs typed: flagged
        "plans_batch": ("default", [["set", S.PLANS, f"C{ROWS['batch']}", 7]], "flagged", 0),
        "add_pools_row": ("moe", [["set", S.POOLS, f"A{pools.max_row + 1}", pools.cell(3, 1).value],
                                  ["set", S.POOLS, f"B{pools.max_row + 1}", "extra"],
                                  ["set", S.POOLS, f"C{pools.max_row + 1}", "serve"],
                                  ["set", S.POOLS, f"D{pools.max_row + 1}", "B200"],
                                  ["set", S.POOLS, f"E{pools.max_row + 1}", 8]], "flagged", MOE_POOL_PLAN),
        # the default plans search (serving_search = auto): turning it off is the engine-input edit
        "plans_search": ("default", [["set", S.PLANS, f"C{ROWS['serving_search']}", "off"]], "flagged", 0),
    }


@pytest.fixture(scope="module")
def edited(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lo_edits")
    scenarios = {"default": default_scenario(), "moe": read_scenario(SAMPLES / "moe_rack_scale.xlsx"),
                 "curve": _curve_scenario(), "uncertainty": read_scenario(SAMPLES / "uncertainty_llama70b.xlsx")}
    paths = {}
    for name, scenario in scenarios.items():
        paths[name] = folder / f"{name}.xlsx"
        write_scenario(scenario, paths[name], compute_scenario(scenario))
    edits = _edits(paths)
    jobs = [{"src": str(paths[source]), "dst": str(folder / f"edit_{name}.xlsx"), "ops": ops}
            for name, (source, ops, _, _) in edits.items()]
    jobs += [{"src": str(paths[name]), "dst": str(folder / f"saved_{name}.xlsx"), "ops": []} for name in scenarios]
    (folder / "jobs.json").write_text(json.dumps(jobs))
    done = subprocess.run([UNO_PYTHON, str(LO_EDIT), str(folder / "jobs.json")], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr
    return {"scenarios": scenarios, "paths": paths, "edits": edits, "folder": folder}


def _book(path):
    return openpyxl.load_workbook(path, data_only=True)


def test_unedited_saves_pass_every_check(edited):
    for name in edited["scenarios"]:
        wb = _book(edited["folder"] / f"saved_{name}.xlsx")
        assert wb[S.CHECKS]["B1"].value == 0, name
        back, mine = read_scenario(edited["folder"] / f"saved_{name}.xlsx"), edited["scenarios"][name]
        assert back.plans == mine.plans and back.uncertainty == mine.uncertainty, name
        for curve_name, curve in mine.curves.items():  # LibreOffice saves numbers to 15 significant digits
            assert np.allclose(back.curves[curve_name].tokens_per_s_per_device, curve.tokens_per_s_per_device,
                               rtol=1e-14), name


@pytest.mark.parametrize("name", ["delete_pools_row", "delete_plans_engine_key_row", "delete_plans_finance_key_row",
                                  "sort_devices", "sort_pools", "move_plans_sheet", "insert_plans_row"])
def test_the_reader_accepts_what_libreoffice_saved(edited, name):
    path = edited["folder"] / f"edit_{name}.xlsx"
    if name.startswith("delete"):
        import zipfile
        with zipfile.ZipFile(path) as archive:  # LibreOffice pads the sheet to its last row after a deletion
            sheet_xml = b"".join(archive.read(n) for n in archive.namelist() if n.startswith("xl/worksheets/sheet"))
        assert b'<row r="1048576"' in sheet_xml
    try:
        read_scenario(path)
    except ValidationError as exc:  # a real problem of the edited contents, named at its cell
        assert "too large" not in str(exc) and "refused" not in str(exc), str(exc)
        assert name.startswith("delete"), str(exc)


@pytest.mark.parametrize("name", EDIT_NAMES)
def test_every_edit_ends_live_or_flagged(edited, name):
    source, _ops, expected, plan = edited["edits"][name]
    path = edited["folder"] / f"edit_{name}.xlsx"
    wb = _book(path)
    master = wb[S.CHECKS]["B1"].value
    assert isinstance(master, (int, float)) and not isinstance(master, bool), (name, master)  # a count, never #REF!
    status_col = S.FIRST_PLAN_COLUMN + plan
    plan_check = wb[S.RESULTS].cell(_row(wb[S.RESULTS], "plan_check"), status_col).value
    banner = wb[S.SUMMARY]["C2"].value
    if expected == "flagged":
        assert master > 0, name
        assert str(plan_check).startswith("STALE") or str(plan_check).startswith("#"), (name, plan_check)
        assert wb[S.CHECKS].cell(4 + plan, 4).value == "STALE", name
        summary = [c.value for c in wb[S.CHECKS][4 + plan]]
        assert sum(summary[4:12]) == summary[2], (name, summary)  # the failures by sheet add up to the plan's
        assert banner.startswith("STOP"), (name, banner)
    elif expected == "monte_carlo":
        assert master > 0 and wb[S.CHECKS]["B2"].value > 0, name
        assert wb[S.MONTE_CARLO]["C2"].value.startswith("STALE"), name
    else:
        assert master == 0, name
        assert banner.startswith("All checks pass"), name
        scenario = read_scenario(path)
        results = compute_scenario(scenario)
        source_years = cashflow_years(p.years for p in edited["scenarios"][source].plans)
        bad = compare(path, scenario, results, max_years=source_years)
        if name == "sort_pools":  # the engine numbers pools in row order, the workbook's blocks keep their pool:
            bad = [b for b in bad if " pool" not in b]  # every plan number must still agree
        assert bad == [], name


def test_a_renamed_plan_is_named_in_every_output_header(edited):
    wb = _book(edited["folder"] / "edit_rename_plan.xlsx")
    assert wb[S.RESULTS]["C1"].value == "H100 renamed"
    assert wb[S.SUMMARY]["C1"].value == "H100 renamed"
    assert wb[S.CASH_FLOW]["A3"].value == "H100 renamed"  # the first plan's block title


def test_pools_dropdowns_reach_rows_below_the_exported_ones(edited):
    """tcoapp writes them to the sheet's last row; LibreOffice keeps them at least 1,000 rows down when it saves."""
    exported = openpyxl.load_workbook(edited["paths"]["moe"])
    ranges = [str(dv.sqref) for dv in exported[S.POOLS].data_validations.dataValidation]
    assert ranges and all(r.endswith("1048576") for r in ranges), ranges
    pools = len([p for plan in edited["scenarios"]["moe"].plans for p in plan.pools])
    saved = openpyxl.load_workbook(edited["folder"] / "saved_moe.xlsx")
    for dv in saved[S.POOLS].data_validations.dataValidation:
        last = max(r.max_row for r in dv.sqref.ranges)
        assert last >= 1000 > S.FIRST_ENTRY_ROW + pools, str(dv.sqref)


def test_exported_files_open_in_pandas(edited):
    pandas = pytest.importorskip("pandas")
    for name, scenario in edited["scenarios"].items():
        sheets = pandas.read_excel(edited["paths"][name], sheet_name=None)
        results = sheets[S.RESULTS]
        assert list(results.columns[2:2 + len(scenario.plans)]) == [p.name for p in scenario.plans], name
        npv = results[results["key"] == "npv_usd"].iloc[0, 2]
        assert isinstance(npv, float) and np.isfinite(npv), (name, npv)
        assert sheets[S.CHECKS].iloc[0, 1] == 0, name


def test_lo_edit_helper_is_there():
    assert shutil.which("soffice") and LO_EDIT.exists()
