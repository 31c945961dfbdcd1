"""Every formula row of the CashFlow and Results sheets comes from the quantity table or is a named exception
(engine/quantities/hand_written.py, with its reason): a table row's formula is its expression compiled (checked
character for character here), a rule row is its pools' sum or a levelized year row; any other formula row fails.
The written workbooks: samples with several pools, tranches, debt and request classes."""
import pytest

from tcoapp.engine.finance.year_rows import OUTFLOW_ROWS, PLAN_YEAR_EXPRESSIONS, POOL_YEAR_EXPRESSIONS
from tcoapp.engine.quantities import hand_written
from tcoapp.engine.quantities.finance import LEVELIZED_YEAR_ROWS, SUMMED_KEYS
from tcoapp.io import sheets as S
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import build_workbook, usable_results
from tcoapp.io.xlsx_cashflow import FINANCING_POOL_ROWS, POOL_SUMMED, _BlockFormulas
from tcoapp.io.xlsx_layout import CF_YEAR_ROW, PlanRefs, base_key
from tcoapp.io.xlsx_na import NA, NaGuard, compiled
from tcoapp.io.xlsx_results import (
    EXPRESSIONS, LEVELIZED, PASS_THROUGH, POOL_EXPRESSION_BY_KEY, POOL_VALUE_ROWS, PoolRefs, plan_ref,
)

SAMPLES = ["heterogeneous_disaggregated", "gpu_cloud_financed", "agentic_coding", "years_price_decline"]
POOL_INPUT_ROWS = frozenset(key for key, source in POOL_VALUE_ROWS if source == "live")
_BUILT: dict = {}


def _built(sample):
    if sample not in _BUILT:
        scenario = read_scenario(f"samples/{sample}.xlsx")
        results = usable_results(scenario)
        workbook, _, layout, _ = build_workbook(scenario, results)
        _BUILT[sample] = scenario, results, workbook, layout
    return _BUILT[sample]


def _cashflow_sources(layout, index):
    """(key, source) of every formula cell of plan `index`'s CashFlow block in years 0..2 and its summary cells;
    a table row's text is checked against its expression compiled."""
    block = _BlockFormulas(layout, index, layout.cf_pools(index))
    plan_expr, pool_expr = dict(PLAN_YEAR_EXPRESSIONS), dict(POOL_YEAR_EXPRESSIONS)
    found = []
    for year in range(3):
        col = layout.year_col(year)
        here = lambda key: f"{col}{block.row(key)}"  # noqa: E731
        year_ref = f"{col}${CF_YEAR_ROW}"
        for key, text in block.year_cells(year).items():
            base, pool = base_key(key), key != base_key(key)
            if pool and base in pool_expr:
                k = int(key[len("pool"):key.index(".")])
                want = compiled(pool_expr[base], block._pool_ref(k, year_ref, here), block._na, base in OUTFLOW_ROWS)
                assert text == want, key
                found.append((key, "table"))
            elif not pool and key in plan_expr:
                want = compiled(plan_expr[key], block._plan_ref(year_ref, here), block._na, key in OUTFLOW_ROWS)
                assert text == want, key
                found.append((key, "table"))
            elif not pool and key in POOL_SUMMED + FINANCING_POOL_ROWS:   # the pools' sum: a rule of the table
                pools = "+".join(here(f"pool{k}.{key}") for k in range(1, block.pools + 1))
                assert text == block._na(pools), key
                found.append((key, "pools' sum"))
            else:
                found.append((key, hand_written.cashflow_reason(base, pool)))
    found += [(key, hand_written.cashflow_reason(key, False)) for key in block.summary_cells()]
    return found


def _results_sources(scenario, results, workbook, layout):
    """(key, source) of every formula cell of the Results sheet; a table row's text checked against its expression."""
    ws = workbook[S.RESULTS]
    found = []
    for row in ws.iter_rows(min_row=2):
        key = row[0].value
        for index in range(len(scenario.plans)):
            cell = row[S.FIRST_PLAN_COLUMN - 1 + index] if len(row) >= S.FIRST_PLAN_COLUMN + index else None
            if not isinstance(key, str) or cell is None or not str(cell.value).startswith("="):
                continue
            found.append((key, _results_source(key, cell.value, index, scenario, results, layout)))
    return found


def _results_source(key, text, index, scenario, results, layout):
    base, pool = base_key(key), key != base_key(key)
    guard = NaGuard(S.RESULTS, layout.row_key)
    if pool and base in POOL_EXPRESSION_BY_KEY:
        k = int(key[len("pool"):key.index(".")])
        refs = PoolRefs(layout, index, k, scenario.plans[index], results[index])
        assert text == compiled(POOL_EXPRESSION_BY_KEY[base], refs.ref, refs.guard), key
        return "table"
    if not pool and key in EXPRESSIONS:
        x = PlanRefs(layout, index)
        core = EXPRESSIONS[key].excel(plan_ref(x), NA)
        assert text == (f"={core}" if key in PASS_THROUGH else guard(core)), key
        return "table"
    if not pool and key in SUMMED_KEYS:
        return "pools' sum"
    if not pool and key in LEVELIZED and LEVELIZED[key][0] in LEVELIZED_YEAR_ROWS:
        return "levelized year row"
    if key.startswith("served_"):
        return hand_written.INPUTS
    return hand_written.results_reason(base, pool, POOL_INPUT_ROWS)


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_cashflow_formula_row_is_the_tables_or_named(sample):
    scenario, _, _, layout = _built(sample)
    for index in range(len(scenario.plans)):
        sources = _cashflow_sources(layout, index)
        unnamed = sorted({key for key, source in sources if source is None})
        assert unnamed == [], f"CashFlow rows written by hand outside the named exceptions: {unnamed}"


@pytest.mark.parametrize("sample", SAMPLES)
def test_every_results_formula_row_is_the_tables_or_named(sample):
    scenario, results, workbook, layout = _built(sample)
    sources = _results_sources(scenario, results, workbook, layout)
    unnamed = sorted({key for key, source in sources if source is None})
    assert unnamed == [], f"Results rows written by hand outside the named exceptions: {unnamed}"


def test_every_named_exception_is_a_row_written_and_has_its_reason():
    """No stale name: each named CashFlow and Results row is written in some sample, with a reason in words."""
    cashflow, results = set(), set()
    for sample in SAMPLES:
        scenario, results_, workbook, layout = _built(sample)
        for index in range(len(scenario.plans)):
            cashflow |= {base_key(key) for key, source in _cashflow_sources(layout, index)
                         if source not in ("table", "pools' sum")}
        results |= {base_key(key) for key, source in _results_sources(scenario, results_, workbook, layout)}
    assert set(hand_written.CASHFLOW) <= cashflow
    assert set(hand_written.RESULTS) <= results
    for reason in list(hand_written.CASHFLOW.values()) + list(hand_written.RESULTS.values()):
        assert len(reason.split()) >= 8


def test_the_named_rows_are_documented():
    text = open("docs/workbook_format.md", encoding="utf-8").read()
    for key in list(hand_written.CASHFLOW) + list(hand_written.RESULTS):
        assert f"`{key}`" in text, key


def test_a_row_written_by_hand_without_a_name_fails(monkeypatch):
    """The check can fail: a CashFlow row the table computes, written by hand instead, is not a named exception."""
    scenario, _, _, layout = _built("years_price_decline")
    original = _BlockFormulas.year_cells

    def by_hand(self, year, col="", prev=""):
        cells = original(self, year, col, prev)
        cells["staff_usd"] = "=0"
        return cells
    monkeypatch.setattr(_BlockFormulas, "year_cells", by_hand)
    with pytest.raises(AssertionError):
        _cashflow_sources(layout, 0)


def test_counts(capsys):
    """The rows by source in one multi-pool workbook (printed with -s: the measured counts)."""
    scenario, results, workbook, layout = _built("heterogeneous_disaggregated")
    cashflow = {(base_key(key), key != base_key(key), source) for index in range(len(scenario.plans))
                for key, source in _cashflow_sources(layout, index)}
    result = {(base_key(key), key != base_key(key), source)
              for key, source in _results_sources(scenario, results, workbook, layout)}
    for sheet, found in (("CashFlow", cashflow), ("Results", result)):
        table = sum(1 for _, _, s in found if s in ("table", "pools' sum", "levelized year row"))
        named = sum(1 for _, _, s in found if s not in ("table", "pools' sum", "levelized year row"))
        print(f"{sheet}: {table} rows from the table, {named} named exceptions")
        assert table > 0 and all(s is not None for _, _, s in found)
