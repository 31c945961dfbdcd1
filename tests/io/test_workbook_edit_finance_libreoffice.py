"""An analyst edits the finance inputs of an exported workbook (docs/workbook_format.md, "Checks"): every plan
field the finance layer reads is followed by the workbook's own formulas, so after LibreOffice Calc recalculates,
master_check stays 0 (no false STOP) and every Results and CashFlow number equals the engine's for the edited
inputs. The financing fields (debt_fraction, debt_rate, debt_years, equity_discount_rate) used to be missing
from the live list and raised a false STOP."""
import openpyxl
import pytest

from tcoapp.engine.compute import compute_scenario
from tcoapp.engine.records import make_pool
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_checks import LIVE_PLAN_KEYS
from tcoapp.io.xlsx_inputs import plan_rows

from .workbook_recalc import SOFFICE, compare, recalc

pytestmark = [
    pytest.mark.libreoffice,
    pytest.mark.slow,
    pytest.mark.skipif(SOFFICE is None, reason="LibreOffice Calc (soffice) is not installed"),
]

# (field, value typed in the workbook): the financing fields first
EDITS = {"debt_fraction": 0.55, "debt_rate": 0.09, "debt_years": 3, "equity_discount_rate": 0.18}


def financed():
    """A financed plan with tax, a later tranche and a loan shorter than the horizon."""
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64,
                                             sizing_mode="devices", device_count=64, tax_rate=0.21, years=5,
                                             debt_fraction=0.4, debt_rate=0.06, residual_value_fraction=0.1)
    pools = tuple(make_pool({"plan": base.name, "pool": name, "device": base.device, "device_count": count,
                             "purchase_year": year}) for name, count, year in (("first", 64, 0), ("second", 32, 2)))
    return default_scenario().with_plans([base.with_(pools=pools)])


def test_the_edited_fields_are_live():
    assert set(EDITS) <= LIVE_PLAN_KEYS


@pytest.fixture(scope="module")
def edited(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lo_edit_finance")
    scenario = financed()
    path = folder / "financed.xlsx"
    write_scenario(scenario, path, compute_scenario(scenario))
    wb = openpyxl.load_workbook(path)
    rows = plan_rows()
    for key, value in EDITS.items():
        wb[S.PLANS].cell(rows[key], S.FIRST_PLAN_COLUMN).value = value
    wb.save(path)
    want = scenario.with_plans([scenario.plans[0].with_(**EDITS)])
    return want, compute_scenario(want), recalc([path], folder / "recalculated")[0]


def test_a_financing_edit_keeps_master_check_0_and_the_engines_numbers(edited):
    scenario, results, path = edited
    assert compare(path, scenario, results) == []
    # the edit moved the numbers (the engine at the old inputs would not match)
    old = compute_scenario(financed())[0].metrics
    assert results[0].metrics.equity_npv_usd != pytest.approx(old.equity_npv_usd, rel=1e-3)
