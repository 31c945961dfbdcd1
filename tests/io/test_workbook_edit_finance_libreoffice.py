"""An analyst edits the finance inputs of an exported workbook (docs/workbook_format.md, "Checks"): every plan
field the finance layer reads is followed by the workbook's own formulas, so after LibreOffice Calc recalculates,
master_check stays 0 (no false STOP) and every Results and CashFlow number equals the engine's for the edited
inputs. The financing fields (debt_fraction, debt_rate, debt_years, equity_discount_rate) used to be missing
from the live list and raised a false STOP. Also: the finance-over-time keys (docs/model.md, "Finance over
time") as live formulas, on plans that exercise each. One soffice launch for the whole file."""
import openpyxl
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.quantities.records import make_pool
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

# (field, value typed in the workbook): the financing fields, then the finance-over-time fields
FINANCING_EDITS = {"debt_fraction": 0.55, "debt_rate": 0.09, "debt_years": 3, "equity_discount_rate": 0.18}
OVER_TIME_EDITS = {"hardware_price_change_per_year": -0.15, "throughput_change_per_year": 0.25, "tax_loss_limit": 0.8,
                   "annual_failure_rate": 0.05, "held_capex_basis": "book_value", "insurance_fraction_per_year": 0.01,
                   "colocation_contracted_kw": 200.0, "colocation_usd_per_kw_month": 150.0}


def _plan(name, pools=((64, 0), (32, 2)), **keys):
    keys = {"sizing_mode": "devices", "device_count": 64, **keys}
    base = default_scenario().plans[2].with_(name=name, serving_search="off", min_tokens_per_s_per_user=None,
                                             batch=64, **keys)
    made = tuple(make_pool({"plan": name, "pool": f"p{i}", "device": base.device, "device_count": count,
                            "purchase_year": year}) for i, (count, year) in enumerate(pools))
    return base.with_(pools=made)


def financed():
    """A financed plan with tax, a later tranche and a loan shorter than the horizon."""
    return default_scenario().with_plans([_plan("financed", tax_rate=0.21, years=5, debt_fraction=0.4, debt_rate=0.06,
                                                residual_value_fraction=0.1)])


def over_time():
    """Each finance-over-time rule on a plan that exercises it (tax and a ramp make early losses)."""
    taxed = dict(tax_rate=0.21, years=5, residual_value_fraction=0.1, first_year_utilization=0.1, ramp_years=2)
    return default_scenario().with_plans([
        _plan("cheaper hardware, failures", hardware_price_change_per_year=-0.2, annual_failure_rate=0.09, **taxed),
        _plan("failures, declining resale, MACRS", annual_failure_rate=0.09, resale_curve="declining_balance",
              resale_decline_per_year=0.3, depreciation_method="macrs_5", **taxed),
        _plan("faster software", throughput_change_per_year=0.3, price_change_per_year=-0.2, **taxed),
        _plan("faster software, sized by demand", pools=(), sizing_mode="demand", demand_tokens_per_day=5e10,
              throughput_change_per_year=0.3, years=5),
        _plan("loss limit 80%", tax_loss_limit=0.8, price_usd_per_million_output_tokens=1.5, **taxed),
        _plan("balloon", debt_fraction=0.6, debt_rate=0.08, debt_years=8, **taxed),
        _plan("insurance and property tax on book value, MACRS", held_capex_basis="book_value",
              insurance_fraction_per_year=0.01, property_tax_fraction_per_year=0.015, depreciation_method="macrs_5",
              **taxed),
        _plan("colocation on contracted kW", colocation_contracted_kw=180.0, colocation_usd_per_kw_month=160.0,
              cost_change_per_year=0.03, **taxed),
    ])


def test_the_edited_fields_are_live():
    assert set(FINANCING_EDITS) | set(OVER_TIME_EDITS) <= LIVE_PLAN_KEYS


def _edited(folder, name, scenario, edits):
    path = folder / f"{name}.xlsx"
    write_scenario(scenario, path, compute_scenario(scenario))
    wb = openpyxl.load_workbook(path)
    rows = plan_rows()
    for key, value in edits.items():
        wb[S.PLANS].cell(rows[key], S.FIRST_PLAN_COLUMN).value = value
    wb.save(path)
    plans = list(scenario.plans)
    plans[0] = plans[0].with_(**edits)
    want = scenario.with_plans(plans)
    return want, compute_scenario(want), path


@pytest.fixture(scope="module")
def recalculated(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lo_edit_finance")
    cases = {"financing edit": _edited(folder, "financed", financed(), FINANCING_EDITS),
             "over time": _edited(folder, "over_time", over_time(), {}),
             "over time edit": _edited(folder, "over_time_edit", over_time(), OVER_TIME_EDITS)}
    outputs = recalc([path for _, _, path in cases.values()], folder / "recalculated")
    return {name: (s, r, out) for (name, (s, r, _)), out in zip(cases.items(), outputs)}


@pytest.mark.parametrize("name", ["financing edit", "over time", "over time edit"])
def test_libreoffice_keeps_master_check_0_and_the_engines_numbers(recalculated, name):
    scenario, results, path = recalculated[name]
    assert compare(path, scenario, results) == []


def test_the_financing_edit_moved_the_numbers(recalculated):
    scenario, results, _ = recalculated["financing edit"]
    old = compute_scenario(financed())[0].metrics
    assert results[0].metrics.equity_npv_usd != pytest.approx(old.equity_npv_usd, rel=1e-3)
