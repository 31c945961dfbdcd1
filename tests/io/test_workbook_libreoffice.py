"""LibreOffice Calc (a real spreadsheet engine, headless) recalculates the exported workbooks and
must reproduce every Results and CashFlow number of the engine to 1e-9 relative.

All files go through one soffice launch (each start costs seconds)."""
import pathlib

import numpy as np
import openpyxl
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_inputs import plan_rows
from tcoapp.io.xlsx_layout import cashflow_years

from .test_workbook_import import hand_made_golden
from .workbook_recalc import SOFFICE, compare, recalc
from .workbook_scenarios import seeded_scenarios

pytestmark = [
    pytest.mark.libreoffice,
    pytest.mark.slow,
    pytest.mark.skipif(SOFFICE is None, reason="LibreOffice Calc (soffice) is not installed: "
                                               "apt-get install libreoffice-calc-nogui"),
]
GENERATED = 12
EDITED = 6
SAMPLES = pathlib.Path(__file__).resolve().parents[2] / "samples"


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lo")
    golden = read_scenario(_golden(folder / "golden_src.xlsx"))
    scenarios = {"default": default_scenario(), "golden": golden}
    scenarios.update({f"sample_{path.stem}": read_scenario(path) for path in sorted(SAMPLES.glob("*.xlsx"))})
    scenarios.update({f"generated_{i}": s for i, s in enumerate(seeded_scenarios(GENERATED, seed=20261130))})
    cases = {}
    for name, scenario in scenarios.items():
        results = compute_scenario(scenario)
        path = folder / f"{name}.xlsx"
        write_scenario(scenario, path, results)
        cases[name] = (scenario, results, path)
    for name in [n for n in cases if n.startswith("generated_")][:EDITED]:
        cases[f"edited_{name}"] = _edited(*cases[name], folder / f"edited_{name}.xlsx")
    outputs = recalc([path for _, _, path in cases.values()], folder / "recalculated")
    return {name: (s, r, out) for (name, (s, r, _)), out in zip(cases.items(), outputs)}


EDITS = {  # what an analyst types into Plans (none of these moves the operating point or the sizing)
    "electricity_usd_per_kwh": lambda v: round(v + 0.05, 4),
    "discount_rate": lambda v: 0.07 if v != 0.07 else 0.0,
    "years": lambda v: min(v + 2, 10),   # longer than exported: the CashFlow sheet covers it
    "price_usd_per_million_input_tokens": lambda v: round(v + 0.1, 4),
    "staff_usd_per_year": lambda v: v + 250000.0,
    "price_change_per_year": lambda v: -0.3,   # the years: a price decline, cost growth, a ramp and tax
    "cost_change_per_year": lambda v: 0.04,
    "first_year_utilization": lambda v: 0.25,
    "ramp_years": lambda v: 2,
    "tax_rate": lambda v: 0.21,
}


def _edited(scenario, results, path, out):
    """Edit inputs in the exported workbook as an analyst would (openpyxl, no app); the engine computes
    the same edits; LibreOffice must agree, which proves the Results and CashFlow formulas are live."""
    wb = openpyxl.load_workbook(path)
    rows = plan_rows()
    plans = []
    for index, plan in enumerate(scenario.plans):
        changes = {key: edit(getattr(plan, key)) for key, edit in EDITS.items()}
        if plan.sizing_mode == "devices":
            changes["device_count"] = plan.device_count * 2 + 1
        if not plan.price_tiers:
            changes["price_usd_per_million_output_tokens"] = round(plan.price_usd_per_million_output_tokens * 1.5 + 0.01, 4)
        for key, value in changes.items():
            wb[S.PLANS].cell(rows[key], S.FIRST_PLAN_COLUMN + index).value = value
        plans.append(plan.with_(**changes))
    wb.save(out)
    edited = scenario.with_plans(plans)
    return _Widths(edited, cashflow_years(p.years for p in scenario.plans)), compute_scenario(edited), out


class _Widths:
    """An edited scenario that remembers the CashFlow width of the file it was typed into."""

    def __init__(self, scenario, max_years):
        self.scenario, self.max_years = scenario, max_years


def _golden(path):
    hand_made_golden(path)
    wb = openpyxl.load_workbook(path)
    wb["Devices"]["G3"].data_type = "s"
    wb.save(path)
    return path


def test_libreoffice_reproduces_every_engine_number(recalculated):
    mismatches = []
    for scenario, results, path in recalculated.values():
        if isinstance(scenario, _Widths):
            mismatches.extend(compare(path, scenario.scenario, results, scenario.max_years))
        else:
            mismatches.extend(compare(path, scenario, results))
    assert mismatches == [], "\n".join(mismatches[:40])


def test_edited_inputs_move_the_results(recalculated):
    """The edited workbooks are in the comparison above; check they really differ from the originals."""
    edited = [name for name in recalculated if name.startswith("edited_")]
    assert len(edited) == EDITED
    for name in edited:
        _, original, _ = recalculated[name.removeprefix("edited_")]
        _, changed, _ = recalculated[name]
        assert any(a.metrics.opex_usd_per_year != b.metrics.opex_usd_per_year for a, b in zip(original, changed))
        assert any(a.metrics.npv_usd != b.metrics.npv_usd for a, b in zip(original, changed))
        assert any(np.any(b.finance.years.tax_usd > 0) for b in changed)


def test_no_spreadsheet_errors_anywhere(recalculated):
    """Every Results/CashFlow cell is a number, a label, blank, or the agreed "n/a"/"never"."""
    for scenario, _, path in recalculated.values():
        names = {p.name for p in getattr(scenario, "scenario", scenario).plans}  # a plan may be named "#N/A"
        wb = openpyxl.load_workbook(path, data_only=True)
        for sheet in (S.RESULTS, S.CASH_FLOW):
            for row in wb[sheet].iter_rows(values_only=True):
                for value in row:
                    assert value in names or not (isinstance(value, str) and (
                        value.startswith("#") or value.startswith("Err:"))), (path.name, sheet, value)


def test_libreoffice_does_not_evaluate_formula_like_text(recalculated):
    """Plan, device and curve names such as "=1+1" or "@cmd" stay text after a real spreadsheet saved them."""
    seen_tricky = 0
    for scenario, _, path in recalculated.values():
        scenario = getattr(scenario, "scenario", scenario)
        back = read_scenario(path)
        assert [p.name for p in back.plans] == [p.name for p in scenario.plans]
        assert [p.device for p in back.plans] == [p.device for p in scenario.plans]
        assert set(back.curves) == set(scenario.curves)
        assert {d.source for d in back.devices.values()} == {d.source for d in scenario.devices.values()}
        seen_tricky += sum(p.name[:1] in "=+-@" for p in scenario.plans)
    assert seen_tricky > 0


def test_samples_are_in_the_batch(recalculated):
    assert sum(name.startswith("sample_") for name in recalculated) == len(list(SAMPLES.glob("*.xlsx"))) > 0


def test_default_scenario_payback_and_npv_present(recalculated):
    scenario, results, path = recalculated["default"]
    wb = openpyxl.load_workbook(path, data_only=True)
    ws = wb[S.RESULTS]
    keys = [ws.cell(r, 1).value for r in range(1, ws.max_row + 1)]
    npv = ws.cell(keys.index("npv_usd") + 1, 3).value
    assert npv == pytest.approx(results[0].metrics.npv_usd, rel=1e-9) or npv == "n/a"


def test_fresh_exports_pass_every_check_and_hold_no_error(recalculated):
    """Plans without an operating point, unrackable pools and missing costs read n/a, never an error: every
    freshly exported workbook recalculates with master_check = 0 and no error cell."""
    checked = 0
    for name, (scenario, _, path) in recalculated.items():
        if isinstance(scenario, _Widths):
            continue
        wb = openpyxl.load_workbook(path, data_only=True)
        assert wb[S.CHECKS]["B1"].value == 0, name
        for sheet in (S.RESULTS, S.CASH_FLOW, S.SUMMARY):
            errors = [c.coordinate for row in wb[sheet].iter_rows(min_row=2, min_col=2) for c in row  # not names
                      if isinstance(c.value, str) and c.value.startswith("#")]
            assert errors == [], (name, sheet, errors[:5])
        checked += 1
    assert checked >= 10
