"""The exported workbook as a model an analyst trusts: sheets, live formulas, FAST habits."""
import re
import zipfile

import openpyxl
import pytest

from tcoapp import SCHEMA_VERSION, __version__
from tcoapp.engine.pipeline.compute import METRIC_KEYS, compute_scenario
from tcoapp.engine.quantities.inputs import PLAN_FIELDS
from tcoapp.engine.quantities.finance import COST_COMPONENTS
from tcoapp.io import sheets as S
from tcoapp.engine.quantities.records import make_plan
from tcoapp.engine.plan.scenario import Scenario, check_scenario
from tcoapp.io.catalog import load_catalog
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_write import SHEET_ORDER, write_scenario
from tcoapp.io.xlsx_results import ENGINE_ROWS, POOL_VALUE_ROWS, result_rows

from .workbook_scenarios import seeded_scenarios

NUMBER_LITERAL = re.compile(r"(?<![A-Za-z_$\d.])(\d+\.?\d*(?:[eE][+-]?\d+)?)(?![\d(A-Za-z_])")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    scenario = seeded_scenarios(1, seed=11, max_plans=4)[0]
    path = tmp_path_factory.mktemp("export") / "out.xlsx"
    write_scenario(scenario, path)
    return scenario, path, openpyxl.load_workbook(path)


def test_sheets_and_order(exported):
    _, _, wb = exported
    assert tuple(wb.sheetnames) == SHEET_ORDER


def test_plans_layout(exported):
    scenario, _, wb = exported
    ws = wb[S.PLANS]
    assert [ws.cell(1, c).value for c in range(1, 3 + len(scenario.plans))] == ["key", "label (unit)", *[p.name for p in scenario.plans]]
    keys = [ws.cell(r, 1).value for r in range(2, 2 + len(PLAN_FIELDS))]
    assert keys == [f.name for f in PLAN_FIELDS]
    assert [ws.cell(r, 2).value for r in range(2, 2 + len(PLAN_FIELDS))] == [
        f"{f.label} ({f.unit})" if f.unit else f.label for f in PLAN_FIELDS]  # a readable label beside every key
    assert ws.freeze_panes == "C2"
    assert all(ws.cell(r, 1).comment is not None for r in range(2, 2 + len(PLAN_FIELDS)))


def test_results_has_every_metric_and_cost_component(exported):
    _, _, wb = exported
    ws = wb[S.RESULTS]
    keys = {ws.cell(r, 1).value for r in range(1, ws.max_row + 1)}
    assert set(METRIC_KEYS) <= keys
    assert {f"cost_per_million_output_tokens_{p}_usd" for p in COST_COMPONENTS} <= keys
    assert {f"{p}_usd_per_year" for p in ("energy", "colocation", "maintenance", "software", "staff")} <= keys
    assert ws.freeze_panes == "C2"


def test_finance_rows_are_live_formulas_and_engine_rows_are_values(exported):
    scenario, _, wb = exported
    ws = wb[S.RESULTS]
    rows = result_rows(1)
    engine = {k for k, _ in ENGINE_ROWS}
    pool_sources = dict(POOL_VALUE_ROWS)
    for key, row in rows.items():
        if key in ("warnings", "serving", "prediction_interval", "frontier_share"):  # engine text rows and the frontier share (a value)
            continue
        base = key.split(".", 1)[1] if key.startswith("pool1.") else None
        for index, plan in enumerate(scenario.plans):
            value = ws.cell(row, S.FIRST_PLAN_COLUMN + index).value
            is_formula = isinstance(value, str) and value.startswith("=")
            if key in engine or pool_sources.get(base) in ("engine", "text"):
                assert not is_formula, (key, value)
            elif pool_sources.get(base) == "live":
                copies_an_input = base in ("rack_power_cap_kw", "servers_per_rack_max", "price_usd",
                                           "devices_per_server", "server_price_usd", "tdp_w", "idle_w",
                                           "server_overhead_w", "power_limit_w", "device_count",
                                           "price_usd_per_million_output_tokens")  # one serve pool per plan
                assert is_formula == copies_an_input, (key, value)
            else:
                assert is_formula, (key, value)


def test_every_finance_quantity_has_its_results_formula():
    """The writer keeps key -> formula; every plan and pool quantity of the engine's table has one."""
    from tcoapp.engine.quantities.finance import PLAN_QUANTITIES, POOL_QUANTITIES
    from tcoapp.io.xlsx_results import FORMULA_SECTIONS, POOL_FORMULAS

    plan_formulas = {key for _, entries in FORMULA_SECTIONS for key, _ in entries}
    assert {q.key for q in PLAN_QUANTITIES} - {"cash_flows_usd"} <= plan_formulas | {k for k, _ in ENGINE_ROWS}
    assert {q.key for q in POOL_QUANTITIES} <= {k for k, _ in POOL_FORMULAS} | {"device_count"}


def _formulas(wb):
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "f":
                    yield ws.title, cell.coordinate, cell.value


def test_no_literal_numbers_in_formulas(exported):
    """FAST: fixed numbers live on the Constants sheet as named cells; only 0 and 1 appear inline."""
    _, _, wb = exported
    count = 0
    for sheet, where, formula in _formulas(wb):
        count += 1
        text = re.sub(r'"[^"]*"', '""', formula)           # string literals ("n/a", ">0")
        text = re.sub(r"\$?[A-Z]{1,3}\$?\d+", "REF", text)  # cell references
        literals = {m for m in NUMBER_LITERAL.findall(text)} - {"0", "1"}
        assert not literals, f"{sheet}!{where}: {formula} holds {literals}"
    assert count > 100


def test_constants_are_named_cells(exported):
    _, _, wb = exported
    for name in ("HOURS_PER_YEAR", "SECONDS_PER_YEAR", "MONTHS_PER_YEAR", "W_PER_KW", "TOKENS_PER_MILLION"):
        assert name in wb.defined_names
    ws = wb[S.CONSTANTS]
    values = {ws.cell(r, 1).value: ws.cell(r, 3).value for r in range(2, ws.max_row + 1)}
    assert values["HOURS_PER_YEAR"] == 8760 and values["W_PER_KW"] == 1000


def test_inputs_styled_apart_from_formulas_and_engine_values(exported):
    scenario, _, wb = exported
    plans, results = wb[S.PLANS], wb[S.RESULTS]
    rows = result_rows()
    input_cell = plans.cell(2, 3)
    formula_cell = results.cell(rows["capex_usd"], 3)
    engine_cell = results.cell(rows["tokens_per_s_per_device"], 3)
    styles = {(c.font.color.rgb if c.font.color else None, c.fill.fgColor.rgb) for c in (input_cell, formula_cell, engine_cell)}
    assert len(styles) == 3


def test_number_formats(exported):
    _, _, wb = exported
    ws = wb[S.RESULTS]
    rows = result_rows()
    assert "$" in ws.cell(rows["capex_usd"], 3).number_format
    assert "%" in ws.cell(rows["irr"], 3).number_format
    assert "#,##0" in ws.cell(rows["output_tokens_per_year"], 3).number_format
    plans = wb[S.PLANS]
    discount_row = [f.name for f in PLAN_FIELDS].index("discount_rate") + 2
    assert "%" in plans.cell(discount_row, 3).number_format
    assert ws.column_dimensions["A"].width >= 30


def test_cashflow_blocks_npv_irr_payback_and_charts(exported):
    scenario, _, wb = exported
    ws = wb[S.CASH_FLOW]
    formulas = [f for sheet, _, f in _formulas(wb) if sheet == S.CASH_FLOW]
    assert sum("+NPV(" in f for f in formulas) == 2 * len(scenario.plans)  # the project's and the equity's
    # one IRR() per starting point (helper cells): 6 for the project, 3 for the equity flows
    assert sum("IRR(" in f for f in formulas) == 9 * len(scenario.plans)
    # the last crossing: of the cumulative flow (payback) and of the cumulative discounted flow (discounted payback)
    assert sum("MONTHS_PER_YEAR*MAX(" in f for f in formulas) == 2 * len(scenario.plans)
    assert ws.freeze_panes == "C2"
    kinds = sorted(type(chart).__name__ for chart in ws._charts)
    assert kinds == ["BarChart", "LineChart"]


def test_about_sheet(exported):
    _, _, wb = exported
    ws = wb[S.ABOUT]
    values = {ws.cell(r, 1).value: ws.cell(r, 2).value for r in range(1, 8)}
    assert values["app_version"] == __version__
    assert values["schema_version"] == SCHEMA_VERSION
    assert re.match(r"\d{4}-\d\d-\d\d", values["written_utc"])


def test_formula_like_text_is_written_as_strings(tmp_path):
    """Text from user input starting with =, +, - or @ is a string cell, never a formula."""
    scenario = default_scenario()
    tricky = ["=1+1", "+SUM(A1)", "-2", "@cmd", "=HYPERLINK(\"http://evil\")"]
    plans = [p.with_(name=name) for p, name in zip(scenario.plans, tricky)]
    scenario = scenario.with_plans(plans)
    path = tmp_path / "tricky.xlsx"
    write_scenario(scenario, path)
    with zipfile.ZipFile(path) as z:
        xml = z.read("xl/worksheets/sheet1.xml").decode()
    for name in tricky:
        assert f"<f>{name[1:]}" not in xml
    wb = openpyxl.load_workbook(path)
    for col, name in enumerate(tricky, start=3):
        cell = wb[S.PLANS].cell(1, col)
        assert cell.value == name and cell.data_type == "s"
        # the output headers read the name from Plans (a renamed plan renames its outputs), never evaluate it
        assert wb[S.RESULTS].cell(1, col).value == f"={S.PLANS}!{openpyxl.utils.get_column_letter(col)}$1"
    cached = openpyxl.load_workbook(path, data_only=True)
    assert [cached[S.RESULTS].cell(1, col).value for col in range(3, 3 + len(tricky))] == tricky


def test_default_scenario_exports(tmp_path):
    scenario = default_scenario()
    path = tmp_path / "default.xlsx"
    write_scenario(scenario, path, compute_scenario(scenario))
    assert openpyxl.load_workbook(path, data_only=True)[S.RESULTS].cell(1, 3).value == scenario.plans[0].name


def test_results_count_must_match_plans(tmp_path):
    scenario = default_scenario()
    with pytest.raises(ValueError):
        write_scenario(scenario, tmp_path / "x.xlsx", compute_scenario(scenario)[:1])


def test_cli_compute_out_writes_the_workbook(tmp_path):
    """`tcoapp compute FILE --out RESULT.xlsx` in a subprocess: the result imports back identically."""
    import subprocess
    import sys

    from tcoapp.io.workbook_read import read_scenario

    scenario = seeded_scenarios(1, seed=21)[0]
    src, out = tmp_path / "in.xlsx", tmp_path / "out.xlsx"
    write_scenario(scenario, src)
    done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(src), "--out", str(out), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert read_scenario(out) == scenario
    assert openpyxl.load_workbook(out, data_only=True)[S.RESULTS].cell(1, 3).value == scenario.plans[0].name


def test_every_calibration_factor_has_a_unit_and_help():
    """The Calibration sheet (and the generated docs) describe every efficiency factor of the engine."""
    from tcoapp.engine.quantities.factors import FACTOR_FIELD_BY_NAME
    from tcoapp.engine.performance.factors import FACTOR_NAMES

    assert set(FACTOR_FIELD_BY_NAME) == set(FACTOR_NAMES)
    assert all(f.unit and f.help and f.label for f in FACTOR_FIELD_BY_NAME.values())


def test_about_notes_are_text(tmp_path):
    scenario = seeded_scenarios(1, seed=2)[0]
    path = tmp_path / "notes.xlsx"
    write_scenario(scenario, path, about_notes=[("sample", "Which GPU?"), ("source / assumption", "=A1 is text")])
    ws = openpyxl.load_workbook(path)[S.ABOUT]
    cells = {ws.cell(r, 1).value: ws.cell(r, 2) for r in range(1, ws.max_row + 1)}
    assert cells["sample"].value == "Which GPU?"
    assert cells["source / assumption"].value == "=A1 is text" and cells["source / assumption"].data_type == "s"


def test_a_plan_the_engine_cannot_compute_still_saves(tmp_path, monkeypatch):
    """Saving the inputs never fails because of one plan's numbers: its Results read "n/a" with the reason."""
    import tcoapp.io.workbook_write as ww
    from tcoapp.io.workbook_read import read_scenario

    scenario = seeded_scenarios(1, seed=8, max_plans=3)[0]
    real = ww.compute_plan

    def flaky(scen, plan):
        if plan is scenario.plans[0]:
            raise RuntimeError("engine bug")
        return real(scen, plan)

    monkeypatch.setattr(ww, "compute_plan", flaky)
    path = tmp_path / "partial.xlsx"
    write_scenario(scenario, path)
    assert read_scenario(path) == scenario
    ws = openpyxl.load_workbook(path)[S.RESULTS]
    rows = result_rows()
    assert ws.cell(rows["tokens_per_s_per_device"], 3).value == "n/a"
    assert "engine bug" in ws.cell(rows["warnings"], 3).value


def test_every_cashflow_row_has_a_unit_and_help():
    from tcoapp.engine.quantities.finance import YEAR_QUANTITY_BY_KEY
    from tcoapp.io.xlsx_cashflow import CF_UNITS, cf_help, cf_unit
    from tcoapp.io.xlsx_layout import CF_POOL_ROWS, CF_ROWS

    for key in CF_ROWS + tuple(f"pool1.{k}" for k in CF_POOL_ROWS):
        assert cf_unit(key) and cf_help(key), key
    # every year row of the engine has its CashFlow row, and its unit where it is not USD
    assert set(YEAR_QUANTITY_BY_KEY) <= set(CF_ROWS)
    assert set(CF_UNITS) <= set(CF_ROWS) | set(CF_POOL_ROWS)


def test_the_results_sheet_names_what_the_serving_search_chose(tmp_path):
    catalog = load_catalog()
    plans = (make_plan("searched", {"device": "B200", "model": "DeepSeek-R1", "serving_search": "auto",
                                    "min_tokens_per_s_per_user": 36}),
             make_plan("typed", {"device": "B200", "model": "DeepSeek-R1"}))
    scenario = check_scenario(Scenario(plans, catalog_devices=catalog.devices, catalog_models=catalog.models))
    path = tmp_path / "s.xlsx"
    write_scenario(scenario, path)
    ws = openpyxl.load_workbook(path)[S.RESULTS]
    row = result_rows(1)["serving"]
    assert ws.cell(row, 1).value == "serving"
    assert ws.cell(row, S.FIRST_PLAN_COLUMN).value == compute_scenario(scenario)[0].serving_text()
    assert ws.cell(row, S.FIRST_PLAN_COLUMN).value.startswith("TP")
    assert ws.cell(row, S.FIRST_PLAN_COLUMN + 1).value is None


def test_the_results_sheet_gives_the_prediction_interval_of_a_generated_plan(tmp_path):
    catalog = load_catalog()
    plans = (make_plan("generated", {"device": "B200", "model": "Llama-3.3-70B", "batch": 64}),)
    scenario = check_scenario(Scenario(plans, catalog_devices=catalog.devices, catalog_models=catalog.models))
    path = tmp_path / "s.xlsx"
    write_scenario(scenario, path)
    ws = openpyxl.load_workbook(path)[S.RESULTS]
    row = result_rows(1)["prediction_interval"]
    band = compute_scenario(scenario)[0].prediction_interval
    assert ws.cell(row, 1).value == "prediction_interval"
    text = ws.cell(row, S.FIRST_PLAN_COLUMN).value
    assert text.startswith("80 %: ") and f"{band['tokens_per_s_per_device'][0]:,.0f}" in text and "held-out" in text


def test_results_and_cashflow_have_a_readable_label_beside_every_key(exported):
    from tcoapp.io.xlsx_layout import CF_POOL_ROWS, CF_ROWS
    from tcoapp.io.xlsx_results import result_rows

    _, _, wb = exported
    for sheet in (S.RESULTS, S.CASH_FLOW):
        ws = wb[sheet]
        assert ws.cell(1, 2).value == "label (unit)"
        known = set(result_rows(4)) if sheet == S.RESULTS else set(CF_ROWS) | {f"pool{k}.{b}" for k in range(1, 5)
                                                                               for b in CF_POOL_ROWS}
        keyed = [(ws.cell(r, 1).value, ws.cell(r, 2).value) for r in range(3, ws.max_row + 1)
                 if ws.cell(r, 1).value in known]
        assert len(keyed) > 50, sheet
        for key, label in keyed:
            assert label and "_" not in label and label[0].isupper(), (sheet, key, label)
    rows = {ws_row[0].value: ws_row[1].value for ws_row in wb[S.RESULTS].iter_rows(max_col=2)}
    assert rows["cost_per_million_output_tokens_energy_usd"] == "Cost per million output tokens: energy (USD/Mtok)"
    assert rows["pool1.tdp_w"].startswith("Pool 1: ") and rows["pool1.tdp_w"].endswith("(W)")
