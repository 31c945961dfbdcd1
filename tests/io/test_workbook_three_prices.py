"""The cached input price in the workbook (docs/workbook_format.md, "Plans" and "Results"): it round-trips,
bad input is refused naming the sheet, cell and range, and LibreOffice recalculates the revenue by token type
exactly as the engine computes it (one soffice launch)."""
import math

import openpyxl
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.quantities.records import make_pool
from tcoapp.io import sheets as S
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.load import load_scenario
from tcoapp.io.workbook_write import write_scenario
from tcoapp.io.xlsx_inputs import plan_rows

from .workbook_recalc import SOFFICE, compare, recalc

KEY = "price_usd_per_million_cached_input_tokens"


def cached_cases():
    """The B200 plan typed (search off) with a cached price at a tenth of the input price and hit rate 0.9, the
    same with the price empty, with prices falling by year and two tranches, and sold by device-hours."""
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64,
                                             sizing_mode="devices", device_count=64, prefix_cache_hit_rate=0.9)
    tenth = base.price_usd_per_million_input_tokens / 10
    plans = [base.with_(name="cached at a tenth", **{KEY: tenth}),
             base.with_(name="cached price empty"),
             base.with_(name="falling prices, two tranches", price_change_per_year=-0.3, years=5, tax_rate=0.21,
                        **{KEY: tenth}),
             base.with_(name="device hours", revenue_mode="device_hours", price_usd_per_device_hour=7.0, **{KEY: tenth})]
    two = plans[2]
    plans[2] = two.with_(pools=(make_pool({"plan": two.name, "pool": "first", "device": two.device, "device_count": 64}),
                                make_pool({"plan": two.name, "pool": "second", "device": two.device, "device_count": 32,
                                           "purchase_year": 2})))
    return default_scenario().with_plans(plans)


def _written(tmp_path):
    scenario = cached_cases()
    results = compute_scenario(scenario)
    path = tmp_path / "cached.xlsx"
    write_scenario(scenario, path, results)
    return scenario, results, path


def test_the_cached_price_round_trips_and_an_empty_one_stays_empty(tmp_path):
    scenario, _, path = _written(tmp_path)
    read = load_scenario(str(path))
    assert [getattr(p, KEY) for p in read.plans] == [getattr(p, KEY) for p in scenario.plans]
    assert getattr(read.plans[1], KEY) is None


@pytest.mark.parametrize("value, said", [(-0.01, "must be a number between 0 and 1,000,000"), ("ten cents", "must be a number between 0 and 1,000,000")])
def test_a_bad_cached_price_is_refused_naming_sheet_cell_and_range(tmp_path, value, said):
    _, _, path = _written(tmp_path)
    wb = openpyxl.load_workbook(path)
    cell = f"C{plan_rows()[KEY]}"
    wb[S.PLANS][cell].value = value
    wb.save(path)
    with pytest.raises(ValidationError) as err:
        load_scenario(str(path))
    lines = [str(p) for p in err.value.problems]
    assert len(lines) == 1 and lines[0].startswith(f"Plans!{cell} {KEY}"), lines
    assert said in lines[0] and "Error" not in lines[0], lines


@pytest.mark.libreoffice
@pytest.mark.slow
@pytest.mark.skipif(SOFFICE is None, reason="LibreOffice Calc (soffice) is not installed")
def test_libreoffice_recalculates_the_three_prices_as_the_engine(tmp_path):
    scenario, results, path = _written(tmp_path)
    out = recalc([path], tmp_path / "recalculated")[0]
    assert compare(out, scenario, results) == []
    ws = openpyxl.load_workbook(out, data_only=True)[S.RESULTS]
    rows = {ws.cell(r, 1).value: r for r in range(1, ws.max_row + 1)}
    tenth = scenario.plans[0].price_usd_per_million_input_tokens / 10
    cached = ws.cell(rows["revenue_per_million_cached_input_tokens_usd"], S.FIRST_PLAN_COLUMN).value
    empty = ws.cell(rows["revenue_per_million_cached_input_tokens_usd"], S.FIRST_PLAN_COLUMN + 1).value
    assert math.isclose(cached, tenth, rel_tol=1e-12)
    assert math.isclose(empty, scenario.plans[1].price_usd_per_million_input_tokens, rel_tol=1e-12)
    # the recalculated workbook follows an edit of the cached price: type a new one and recalculate again
    wb = openpyxl.load_workbook(path)
    wb[S.PLANS][f"C{plan_rows()[KEY]}"].value = 2 * tenth
    edited = tmp_path / "edited" / "cached.xlsx"
    edited.parent.mkdir()
    wb.save(edited)
    again = openpyxl.load_workbook(recalc([edited], tmp_path / "again")[0], data_only=True)[S.RESULTS]
    assert math.isclose(again.cell(rows["revenue_per_million_cached_input_tokens_usd"], S.FIRST_PLAN_COLUMN).value,
                        2 * tenth, rel_tol=1e-12)
