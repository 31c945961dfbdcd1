"""The Uncertainty sheet: read, validated (one error per bad row, naming sheet and cell), round trip."""
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

from .uncertainty_factory import GOOD_ROWS, write_uncertain_workbook

BAD_ROWS = [  # (row, the cell and words its error must name)
    ({"plan": "*", "key": "utilization", "distribution": "uniform", "low": 0.9, "high": 0.5}, "Uncertainty!F3 high = 0.5: must be greater than low"),
    ({"plan": "*", "key": "utilization", "distribution": "triangular", "low": 0.5, "mode": 0.95, "high": 0.9}, "Uncertainty!E4 mode = 0.95: must be between low"),
    ({"plan": "*", "key": "pue", "distribution": "normal", "mean": 1.3, "sd": 0}, "Uncertainty!H5 sd = 0: must be greater than 0"),
    ({"plan": "*", "key": "utilization", "distribution": "uniform", "low": 0.5, "high": 1.2}, "Uncertainty!F6 high = 1.2: utilization must be a number between 0.001 and 1"),
    ({"plan": "*", "key": "utilization", "distribution": "normal", "mean": 0.7, "sd": 0.1}, "Uncertainty!H7 sd = 0.1: a normal of mean 0.7 reaches"),
    ({"plan": "*", "key": "years", "distribution": "uniform", "low": 3, "high": 5}, "Uncertainty!B8 key = 'years': a int field cannot be uncertain"),
    ({"plan": "*", "key": "device.bogus", "distribution": "uniform", "low": 3, "high": 5}, "Uncertainty!B9 key = 'device.bogus': unknown key"),
    ({"plan": "*", "key": "pue", "distribution": "uniform", "low": 1.1}, "Uncertainty!F10 high: is required by a uniform distribution"),
    ({"plan": "*", "key": "pue", "distribution": "beta", "low": 1.1, "high": 1.5}, "Uncertainty!C11 distribution = 'beta': must be one of uniform"),
    ({"plan": "*", "key": "pue", "distribution": "uniform", "low": 1.1, "mode": 1.2, "high": 1.5}, "Uncertainty!E12 mode = 1.2: a uniform distribution does not take mode"),
    ({"plan": "*", "key": "factor.eta_mem", "distribution": "lognormal", "mean": -1, "sd": 0.1}, "Uncertainty!G13 mean = -1: a lognormal's mean must be greater than 0"),
]


def test_good_rows_read_and_round_trip(tmp_path):
    scenario = read_scenario(write_uncertain_workbook(tmp_path / "u.xlsx"))
    assert [r.key for r in scenario.uncertainty] == [r["key"] for r in GOOD_ROWS]
    assert scenario.uncertainty[1].stream == "market" and scenario.uncertainty[0].stream == "utilization"
    assert scenario.uncertainty[0].where("high") == "Uncertainty!F3"
    write_scenario(scenario, tmp_path / "out.xlsx")
    assert read_scenario(tmp_path / "out.xlsx") == scenario


def test_each_bad_row_gives_one_error_naming_sheet_and_cell(tmp_path):
    path = write_uncertain_workbook(tmp_path / "bad.xlsx", [r for r, _ in BAD_ROWS])
    with pytest.raises(ValidationError) as info:
        read_scenario(path)
    lines = str(info.value).splitlines()
    assert len(lines) == len(BAD_ROWS), lines
    for (_, expected), line in zip(BAD_ROWS, lines):
        assert line.startswith(expected), (expected, line)


def test_rows_must_name_a_plan_once_and_device_rows_one_device(tmp_path):
    rows = [{"plan": "Nope", "key": "pue", "distribution": "uniform", "low": 1.1, "high": 1.5},
            {"plan": "Acme big", "key": "pue", "distribution": "uniform", "low": 1.1, "high": 1.5},
            {"plan": "Acme big", "key": "pue", "distribution": "uniform", "low": 1.2, "high": 1.5}]
    with pytest.raises(ValidationError) as info:
        read_scenario(write_uncertain_workbook(tmp_path / "refs.xlsx", rows))
    text = str(info.value)
    assert "Uncertainty!A3 plan = 'Nope': no plan of that name" in text
    assert "Uncertainty!B5 key = 'pue': plan 'Acme big' already has a row for this key (Uncertainty!B4)" in text


def test_a_scenario_that_cannot_be_simulated_still_saves_and_reads_back_as_that_error(tmp_path):
    from dataclasses import replace

    import openpyxl

    from tcoapp.engine.uncertainty.inputs import UncertainInput
    from tcoapp.io.default_scenario import default_scenario

    bad = UncertainInput("*", "device.price_usd", "uniform", 20000.0, high=30000.0)  # plans on several devices
    scenario = replace(default_scenario(), uncertainty=(bad,))
    write_scenario(scenario, tmp_path / "kept.xlsx")   # the inputs are saved as entered
    with pytest.raises(ValidationError, match=r"Uncertainty!A3 plan = '\*' with 'device.price_usd': the plans run "
                                              "different devices"):
        read_scenario(tmp_path / "kept.xlsx")   # one validation: compute refuses what simulate refuses
    sheet = openpyxl.load_workbook(tmp_path / "kept.xlsx")["MonteCarlo"]
    assert sheet["A1"].value == "Monte Carlo: not simulated"
    assert "the plans run different devices" in sheet["A3"].value
