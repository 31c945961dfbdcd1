"""The Calibration sheet's device columns: factors for plans on one device, round-tripped and checked."""
from __future__ import annotations

import openpyxl
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.core.errors import ValidationError
from tcoapp.io.calibration_book import with_device_factors
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario


def test_device_factors_round_trip_and_apply_to_that_device_only(tmp_path):
    base = default_scenario()
    fast = base.factors.with_(eta_mem=0.95, step_overhead_s=2e-4)
    scenario = with_device_factors(base, "H200-SXM", fast)
    path = tmp_path / "cal.xlsx"
    write_scenario(scenario, path)
    back = read_scenario(path)
    assert back == scenario and back.factors_for("H200-SXM") == fast and back.factors_for("B200") == base.factors
    old, new = compute_scenario(base), compute_scenario(back)
    for plan, a, b in zip(base.plans, old, new):
        x, y = a.metrics.tokens_per_s_per_device, b.metrics.tokens_per_s_per_device
        same = x == y or (x != x and y != y)  # NaN on both sides: the plan has no point either way
        assert same == (plan.device != "H200-SXM"), plan.name


def test_blank_device_cells_take_the_value_column_and_unknown_devices_are_named(tmp_path):
    path = tmp_path / "cal.xlsx"
    write_scenario(with_device_factors(default_scenario(), "H200-SXM", default_scenario().factors.with_(eta_mem=0.9)), path)
    book = openpyxl.load_workbook(path)
    sheet = book["Calibration"]
    assert sheet["D1"].value == "H200-SXM" and sheet["A2"].value == "eta_mem"
    sheet["D2"] = None          # eta_mem blank: the value column's
    sheet["E1"] = "H900"
    sheet["E3"] = 0.5
    book.save(path)
    with pytest.raises(ValidationError) as err:
        read_scenario(path)
    assert [str(p) for p in err.value.problems] == [
        "Calibration!E1 = 'H900': no device of that name (a Calibration column after 'value' names a device)"]
    sheet["E1"] = None
    sheet["E3"] = None
    book.save(path)
    assert read_scenario(path).device_factors["H200-SXM"].eta_mem == default_scenario().factors.eta_mem


def test_scope_columns_and_their_fit_quality_round_trip_and_bad_headers_are_named(tmp_path):
    from tcoapp.io.calibration_book import with_scope_factors
    base = default_scenario()
    quality = {"fit_curve": "pareto tp4", "fit_points": 14, "fit_median_abs_pct_error": 0.5,
               "heldout_points": 7, "heldout_median_abs_pct_error": 0.9, "heldout_max_abs_pct_error": 1.5}
    scenario = with_scope_factors(base, "B200 | moe | trtllm", base.factors.with_(eta_mem=0.7), quality)
    path = tmp_path / "scoped.xlsx"
    write_scenario(scenario, path)
    back = read_scenario(path)
    assert back.device_factors == scenario.device_factors and back.calibration_quality == scenario.calibration_quality
    sheet = openpyxl.load_workbook(path)["Calibration"]
    rows = {sheet.cell(r, 1).value: r for r in range(2, sheet.max_row + 1)}
    assert sheet["D1"].value == "B200 | moe | trtllm" and sheet.cell(rows["heldout_points"], 4).value == 7
    assert sheet.cell(rows["heldout_points"], 3).value is None  # the value column has no fit
    book = openpyxl.load_workbook(path)
    book["Calibration"]["D1"] = "B200 | large | trtllm"
    book["Calibration"].cell(rows["fit_points"], 4).value = -3
    book.save(path)
    with pytest.raises(ValidationError) as err:
        read_scenario(path)
    assert [str(p) for p in err.value.problems] == [
        "Calibration!D1 = 'B200 | large | trtllm': model class 'large': one of dense, moe or '*'"]
    book["Calibration"]["D1"] = "B200 | moe | trtllm"
    book.save(path)
    with pytest.raises(ValidationError) as err:
        read_scenario(path)
    assert [str(p) for p in err.value.problems] == [f"Calibration!D{rows['fit_points']} fit_points = -3: must be a "
                                                    "number >= 0"]
