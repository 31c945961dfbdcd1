"""LibreOffice Calc (a real spreadsheet engine, headless) recalculates the exported workbooks and
must reproduce every Results and CashFlow number of the engine to 1e-9 relative.

All files go through one soffice launch (each start costs seconds)."""
import pathlib

import openpyxl
import pytest

from tcoapp.engine.compute import compute_scenario
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

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
    outputs = recalc([path for _, _, path in cases.values()], folder / "recalculated")
    return {name: (s, r, out) for (name, (s, r, _)), out in zip(cases.items(), outputs)}


def _golden(path):
    hand_made_golden(path)
    wb = openpyxl.load_workbook(path)
    wb["Devices"]["G3"].data_type = "s"
    wb.save(path)
    return path


def test_libreoffice_reproduces_every_engine_number(recalculated):
    mismatches = []
    for scenario, results, path in recalculated.values():
        mismatches.extend(compare(path, scenario, results))
    assert mismatches == [], "\n".join(mismatches[:40])


def test_no_spreadsheet_errors_anywhere(recalculated):
    """Every Results/CashFlow cell is a number, a label, blank, or the agreed "n/a"/"never"."""
    for _, _, path in recalculated.values():
        wb = openpyxl.load_workbook(path, data_only=True)
        for sheet in (S.RESULTS, S.CASH_FLOW):
            for row in wb[sheet].iter_rows(values_only=True):
                for value in row:
                    assert not (isinstance(value, str) and (value.startswith("#") or value.startswith("Err:"))), \
                        (path.name, sheet, value)


def test_libreoffice_does_not_evaluate_formula_like_text(recalculated):
    """Plan, device and curve names such as "=1+1" or "@cmd" stay text after a real spreadsheet saved them."""
    seen_tricky = 0
    for scenario, _, path in recalculated.values():
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
    assert npv == pytest.approx(results[0].metrics["npv_usd"], rel=1e-9) or npv == "n/a"
