"""Checks: master_check is 0 on every exported workbook after LibreOffice recalculates it; an analyst
edit of an input only the engine can follow (batch, device, precision, target, workload, a Devices,
Models, Pools, Curves or Calibration cell, a device price a cost-objective serving search picked by) makes it > 0 and marks that plan STALE on Results; a
finance edit keeps it 0; a horizon longer than the CashFlow sheet fails the horizon check."""
from __future__ import annotations

import pathlib

import openpyxl
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.quantities.inputs import DEVICE_FIELDS, MODEL_FIELDS, POOL_FIELDS
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_inputs import plan_rows
from tcoapp.io.xlsx_results import result_rows

from tcoapp.io.xlsx_layout import cashflow_years

from .workbook_recalc import SOFFICE, compare, recalc

pytestmark = [pytest.mark.libreoffice, pytest.mark.skipif(SOFFICE is None, reason="LibreOffice is not installed")]
SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"
ROWS = plan_rows()


def _col(fields, key):
    return [f.name for f in fields].index(key) + 1


# edit name -> (workbook, function(wb) applying it, plan index expected STALE or None for a finance edit)
def _plans(key, value, col=3):
    def edit(wb):
        wb[S.PLANS].cell(ROWS[key], col).value = value
    return edit


def _cell(sheet, row, col, value):
    def edit(wb):
        wb[sheet].cell(row, col).value = value
    return edit


EDITS = {
    "batch": ("default", _plans("batch", 7), 0),
    "device": ("default", _plans("device", "H200-SXM"), 0),
    "weight_precision": ("default", _plans("weight_precision", "bf16"), 0),
    "target": ("default", _plans("min_tokens_per_s_per_user", 80), 0),
    "input_tokens": ("default", _plans("input_tokens", 4096), 0),
    "devices_mem_bw": ("default", _cell(S.DEVICES, 3, _col(DEVICE_FIELDS, "mem_bw_gb_s"), 1000), 0),
    "models_layers": ("default", _cell(S.MODELS, 3, _col(MODEL_FIELDS, "n_layers"), 99), 0),
    "calibration": ("default", _cell(S.CALIBRATION, 2, 3, 0.5), 0),
    "pools_device": ("moe_rack_scale", _cell(S.POOLS, 4, _col(POOL_FIELDS, "device"), "H200-SXM"), 4),
    "finance_electricity": ("default", _plans("electricity_usd_per_kwh", 0.2), None),
    "finance_price_change": ("default", _plans("price_change_per_year", -0.3), None),
    "finance_tax": ("default", _plans("tax_rate", 0.21), None),
    "finance_facility_power": ("default", _plans("facility_power_kw", 500), None),  # one-pool sizing is a formula
    "finance_pue": ("default", _plans("pue", 1.5), None),
    "finance_years": ("default", _plans("years", 7), None),
    # a price is live where the configuration is typed; a cost-objective search picks its configuration by
    # the price, so there the edit is one only the engine can follow
    "finance_device_price": ("typed", _cell(S.DEVICES, 3, _col(DEVICE_FIELDS, "price_usd"), 41000), None),
    "finance_server_price": ("typed", _cell(S.DEVICES, 4, _col(DEVICE_FIELDS, "server_price_usd"), 99000), None),
    "searched_device_price": ("default", _cell(S.DEVICES, 3, _col(DEVICE_FIELDS, "price_usd"), 41000), 0),
    "searched_server_price": ("default", _cell(S.DEVICES, 4, _col(DEVICE_FIELDS, "server_price_usd"), 99000), 1),
    "finance_tier_price": ("hopper", _cell(S.PRICE_TIERS, 4, 3, 7.5), None),
    "finance_budget": ("budget", _plans("capex_budget_usd", 7_000_000), None),
    "finance_demand": ("demand", _plans("demand_tokens_per_day", 3e10), None),
}

# edits that break a formula (text typed into a number cell, a lookup of a device that is not there):
# the error shows where it lands, is never turned into n/a, and fails the plan's error checks
BROKEN = {
    "text_in_a_number": ("default", _plans("electricity_usd_per_kwh", "0.1 USD"), 0),
    "text_in_a_device_price": ("default", _cell(S.DEVICES, 3, _col(DEVICE_FIELDS, "price_usd"), "about 30k"), 0),
}


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("checks")
    base = default_scenario()
    sources = {"default": base, "moe_rack_scale": read_scenario(SAMPLES / "moe_rack_scale.xlsx"),
               "hopper": read_scenario(SAMPLES / "hopper_to_blackwell_power_limited.xlsx"),
               "typed": base.with_plans([p.with_(serving_search="off") for p in base.plans]),
               "budget": base.with_plans([p.with_(sizing_mode="capex_budget", capex_budget_usd=5e6) for p in base.plans]),
               "demand": base.with_plans([p.with_(sizing_mode="demand", demand_tokens_per_day=1e10) for p in base.plans])}
    paths = {}
    for name, scenario in sources.items():
        paths[name] = folder / f"{name}.xlsx"
        write_scenario(scenario, paths[name], compute_scenario(scenario))
    for name, (source, edit, _) in EDITS.items():
        wb = openpyxl.load_workbook(paths[source])
        edit(wb)
        paths[f"edit_{name}"] = folder / f"edit_{name}.xlsx"
        wb.save(paths[f"edit_{name}"])
    for name, (source, edit, _) in BROKEN.items():
        wb = openpyxl.load_workbook(paths[source])
        edit(wb)
        paths[f"broken_{name}"] = folder / f"broken_{name}.xlsx"
        wb.save(paths[f"broken_{name}"])
    wb = openpyxl.load_workbook(paths["default"])
    wb[S.PLANS].cell(ROWS["years"], 3).value = 12  # longer than the CashFlow sheet (10 years)
    paths["horizon"] = folder / "horizon.xlsx"
    wb.save(paths["horizon"])
    outputs = recalc(list(paths.values()), folder / "out")
    return dict(zip(paths, outputs))


def _master(path):
    wb = openpyxl.load_workbook(path, data_only=True)
    return wb[S.CHECKS]["B1"].value, wb


def test_fresh_exports_pass_every_check(recalculated):
    for name in ("default", "moe_rack_scale"):
        master, wb = _master(recalculated[name])
        assert master == 0, name
        assert wb[S.RESULTS].cell(2, 3).value.startswith("All checks pass")
        assert all(wb[S.RESULTS].cell(result_rows()["plan_check"], 3 + i).value == "current"
                   for i in range(3))


@pytest.mark.parametrize("name", [n for n, (_, _, stale) in EDITS.items() if stale is not None])
def test_engine_input_edits_fail_a_check_and_mark_the_plan(recalculated, name):
    master, wb = _master(recalculated[f"edit_{name}"])
    stale = EDITS[name][2]
    assert master >= 1, name
    status = wb[S.RESULTS].cell(result_rows(2)["plan_check"], 3 + stale).value
    assert status.startswith("STALE"), (name, status)
    assert wb[S.CASH_FLOW].cell(2, 3).value.startswith("STOP")


@pytest.mark.parametrize("name", [n for n, (_, _, stale) in EDITS.items() if stale is None])
def test_finance_edits_keep_the_workbook_current_and_equal_the_app(recalculated, name, tmp_path):
    """The edit is live: after recalculation every Results and CashFlow number equals what the app computes
    from the edited file itself, and every check passes."""
    master, _ = _master(recalculated[f"edit_{name}"])
    assert master == 0, name
    edited = read_scenario(recalculated[f"edit_{name}"])
    assert compare(recalculated[f"edit_{name}"], edited, compute_scenario(edited),
                   max_years=cashflow_years(p.years for p in read_scenario(recalculated[EDITS[name][0]]).plans)) == []


def test_a_horizon_longer_than_the_cashflow_sheet_fails(recalculated):
    master, wb = _master(recalculated["horizon"])
    assert master >= 1


def test_ods_is_refused_with_a_clear_message(tmp_path):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", "--out", str(tmp_path / "x.ods")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "give the file a .xlsx name" in done.stderr and "Traceback" not in done.stderr
    write_scenario(default_scenario(), tmp_path / "s.xlsx")
    ods = tmp_path / "s.ods"
    subprocess.run(["soffice", "--headless", "--convert-to", "ods", "--outdir", str(tmp_path), str(tmp_path / "s.xlsx")],
                   capture_output=True, timeout=240)
    done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(ods), "--json"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 2 and "Save As > Excel 2007-365 (.xlsx)" in done.stderr, done.stderr


def test_workbook_helpers_dropdowns_names_print_and_summary(tmp_path):
    path = tmp_path / "s.xlsx"
    write_scenario(default_scenario(), path)
    wb = openpyxl.load_workbook(path)
    assert wb.sheetnames[0] == S.SUMMARY and "in_utilization" in wb.defined_names and "master_check" in wb.defined_names
    ranges = {str(dv.sqref): dv.formula1 for dv in wb[S.PLANS].data_validations.dataValidation}
    device_row = ROWS["device"]
    assert any(str(device_row) in ref and "Constants" in formula for ref, formula in ranges.items())
    assert any(str(ROWS["weight_precision"]) in ref and "nvfp4" in formula for ref, formula in ranges.items())
    results = wb[S.RESULTS]
    assert results.page_setup.orientation == "landscape" and results.print_title_cols == "$B:$B"


def _shown(value, fmt: str) -> str:
    """Roughly the text a spreadsheet shows for a number in one of the workbook's formats."""
    if "%" in fmt:
        return f"{value:.1%}"
    if "E+" in fmt:
        return f"{value:.2E}"
    text = f"{value:,.4f}" if "0.0000" in fmt else f"{value:,.2f}" if "0.00" in fmt else f"{value:,.0f}"
    return ("$" if "$" in fmt else "") + text


def test_no_number_is_wider_than_its_column(recalculated):
    """No '###' at the default widths: every shown number fits its column (1 character of margin)."""
    for name in ("default", "moe_rack_scale", "hopper"):
        original = recalculated[name].parent.parent / recalculated[name].name  # as tcoapp wrote it
        formats = openpyxl.load_workbook(original)
        values = openpyxl.load_workbook(recalculated[name], data_only=True)
        for sheet in (S.RESULTS, S.CASH_FLOW, S.SUMMARY):
            ws, wv = formats[sheet], values[sheet]
            for row in wv.iter_rows(min_row=3):
                for cell in row:
                    if cell.column < 3 or not isinstance(cell.value, (int, float)) or isinstance(cell.value, bool):
                        continue
                    width = ws.column_dimensions[cell.column_letter].width or 8.43
                    text = _shown(cell.value, ws[cell.coordinate].number_format or "General")
                    assert len(text) <= width - 1, (name, sheet, cell.coordinate, text, width)


def test_cached_values_equal_what_libreoffice_recalculates(recalculated):
    """Formula cells carry the engine's values (pandas and previewers see numbers); a spreadsheet
    application recalculating the file gets the same numbers."""
    import math

    for name in ("default", "moe_rack_scale", "hopper"):
        original = recalculated[name].parent.parent / recalculated[name].name
        formulas = openpyxl.load_workbook(original)
        cached = openpyxl.load_workbook(original, data_only=True)
        fresh = openpyxl.load_workbook(recalculated[name], data_only=True)
        filled = 0
        for sheet in (S.RESULTS, S.CASH_FLOW, S.CHECKS, S.SUMMARY):
            for row in formulas[sheet].iter_rows():
                for cell in row:
                    if cell.data_type != "f":
                        continue
                    mine, theirs = cached[sheet][cell.coordinate].value, fresh[sheet][cell.coordinate].value
                    if mine is None:
                        continue
                    filled += 1
                    if isinstance(mine, (int, float)) and isinstance(theirs, (int, float)):
                        assert math.isclose(mine, theirs, rel_tol=1e-9, abs_tol=1e-6), (name, sheet, cell.coordinate, mine, theirs)
                    else:
                        assert mine == theirs, (name, sheet, cell.coordinate, mine, theirs)
        assert filled > 500, name


@pytest.mark.parametrize("name", list(BROKEN))
def test_a_formula_error_stays_visible_and_fails_a_check(recalculated, name):
    master, wb = _master(recalculated[f"broken_{name}"])
    plan = BROKEN[name][2]
    assert master >= 1, name
    rows = result_rows(2)
    cost = wb[S.RESULTS].cell(rows["cost_per_million_output_tokens_usd"], 3 + plan).value
    assert isinstance(cost, str) and cost.startswith("#"), (name, cost)  # an error, not "n/a" or a number
    assert wb[S.RESULTS].cell(rows["plan_check"], 3 + plan).value.startswith("STALE")
    failing = [ws_row[1].value for ws_row in wb[S.CHECKS].iter_rows(min_row=4) if ws_row[2].value == 1]
    assert any("no formula error" in str(what) for what in failing), failing


def test_formulas_propagate_n_a_explicitly_without_a_blanket_iferror(tmp_path):
    """The only IFERROR left is around IRR() (not converging from a start is an outcome, not an error);
    a formula that reads an n/a-able cell says so: IF(<cell>="n/a","n/a",...)."""
    path = tmp_path / "s.xlsx"
    write_scenario(default_scenario(), path)
    wb = openpyxl.load_workbook(path)
    guarded = 0
    for sheet in (S.RESULTS, S.CASH_FLOW, S.SUMMARY, S.CHECKS):
        for row in wb[sheet].iter_rows():
            for cell in row:
                text = cell.value
                if not (isinstance(text, str) and text.startswith("=")):
                    continue
                key = wb[sheet].cell(cell.row, 1).value
                if "IFERROR" in text:
                    assert str(key).startswith(("irr_attempt_", "equity_irr_attempt_")) and text.count("IFERROR") == 1, (
                        sheet, cell.coordinate, text)  # the project's and the equity flows' IRR() attempts
                guarded += '="n/a"' in text
    assert guarded > 100
    results = wb[S.RESULTS]
    rows = result_rows()
    revenue = results.cell(rows["pool1.revenue_usd_per_year"], 3).value
    assert revenue.startswith('=IF(OR(') and '="n/a"),"n/a",' in revenue  # its engine operands are named
    servers = results.cell(rows["pool1.servers"], 3).value
    assert "n/a" in servers  # device_count may be n/a (a sized pool)
    nameplate = results.cell(rows["pool1.server_nameplate_w"], 3).value
    assert "n/a" not in nameplate  # looked-up device fields are numbers or an error, never n/a


@pytest.mark.parametrize("name", ["finance_electricity", "finance_device_price", "finance_facility_power"])
def test_a_finance_edit_recalculated_equals_the_cli_on_the_same_file(recalculated, name):
    """The check as an analyst runs it: `tcoapp compute FILE --json` on the edited file (a subprocess of the
    real CLI) gives the numbers LibreOffice computed from the workbook's own formulas."""
    import json
    import subprocess
    import sys

    path = recalculated[f"edit_{name}"]
    done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(path), "--json"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    plans = json.loads(done.stdout)["plans"]
    wb = openpyxl.load_workbook(path, data_only=True)
    rows = result_rows(max(1, max(len(p.get("pools") or [1]) for p in plans)))
    for index, plan in enumerate(plans):
        for key in ("capex_usd", "npv_usd", "cost_per_million_output_tokens_usd", "device_count"):
            got, want = wb[S.RESULTS].cell(rows[key], 3 + index).value, plan[key]
            if want is None:
                assert got in ("n/a", "never"), (name, plan["name"], key, got)
            else:
                assert got == pytest.approx(want, rel=1e-6, abs=1e-6), (name, plan["name"], key, got, want)
