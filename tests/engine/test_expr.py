"""A quantity's equation written once (tcoapp/engine/quantities/expr.py): the same tree gives the engine's
numpy value and the Results formula, operation for operation."""
import numpy as np
import pytest

from tcoapp.engine.finance.metrics import finance_metrics
from tcoapp.engine.quantities.constants import CONSTANT_VALUES, CONSTANTS
from tcoapp.engine.quantities.expr import C, K, maximum, minimum, per_million, when_positive
from tcoapp.engine.quantities.finance import PLAN_EXPRESSIONS, PLAN_INPUT_KEYS, POOL_EXPRESSIONS, POOL_INPUT_KEYS, as_inputs
from tcoapp.engine.quantities.table import ALL_KEYS
from tcoapp.io.xlsx_constants import CONSTANTS as SHEET_CONSTANTS
from tests.engine.test_finance_reference import CASE_B


def test_the_formula_keeps_the_trees_grouping():
    e = K("a") * (K("b") * K("c")) - (K("d") - K("e")) / (K("f") / K("g"))
    assert e.excel(str, "NA") == "a*(b*c)-(d-e)/(f/g)"
    assert (K("a") + K("b") * K("c")).excel(str, "NA") == "a+b*c"
    assert (-(K("a") + K("b"))).excel(str, "NA") == "-(a+b)"
    assert when_positive(K("t"), minimum(K("a"), 1) + maximum(K("b"), C("W_PER_KW"))).excel(str, '"n/a"') == \
        'IF(t>0,MIN(a,1)+MAX(b,W_PER_KW),"n/a")'


def test_numpy_follows_the_same_tree():
    values = {"a": np.array([1.0, 2.0]), "b": np.array([3.0, -1.0]), "t": np.array([1.0, 0.0])}
    e = when_positive(K("t"), (K("a") + K("b")) / K("a") * C("TOKENS_PER_MILLION"))
    got = e.numpy(values.__getitem__)
    assert got[0] == (1.0 + 3.0) / 1.0 * 1e6 and np.isnan(got[1])
    assert minimum(K("a"), K("b")).numpy(values.__getitem__).tolist() == [1.0, -1.0]
    assert e.keys() == ("t", "a", "b")


def test_an_unknown_constant_is_refused():
    with pytest.raises(KeyError, match="unknown constant"):
        C("NOT_A_CONSTANT")


def test_every_expression_reads_table_keys_and_named_constants():
    for key, expr in PLAN_EXPRESSIONS + POOL_EXPRESSIONS:
        assert key in ALL_KEYS and set(expr.keys()) <= ALL_KEYS, key


def test_the_workbook_constants_are_the_engines():
    assert [c[0] for c in SHEET_CONSTANTS[:len(CONSTANTS)]] == [c[0] for c in CONSTANTS]
    assert CONSTANT_VALUES["SECONDS_PER_YEAR"] == 8760.0 * 3600.0
    assert SHEET_CONSTANTS[2][2] == "=HOURS_PER_YEAR*SECONDS_PER_HOUR"


def test_the_engine_value_is_the_expression_over_the_result():
    out, inputs = finance_metrics(CASE_B[0]), as_inputs(CASE_B[0])
    for key, expr in PLAN_EXPRESSIONS:   # an expression reads results, the plan's inputs, or the pools' sums
        value = expr.numpy(lambda k: out[k] if k in out else inputs[k] if k in PLAN_INPUT_KEYS else out.pools[k].sum(axis=-1))
        np.testing.assert_array_equal(value, out[key], err_msg=key)


# --- expressions over years and pools (the CashFlow rows and the pool's capex) ---
from tcoapp.engine.finance.year_rows import PLAN_YEAR_EXPRESSIONS, POOL_YEAR_EXPRESSIONS  # noqa: E402
from tcoapp.engine.quantities.expr import (  # noqa: E402
    Y, Year, all_of, compare, gated, is_blank, is_choice, is_number, negation, not_available, pools_sum, round_down,
    round_up, to_date, when,
)
from tcoapp.engine.quantities.finance import SERVER_CAPEX  # noqa: E402


def test_the_year_functions_render_as_the_cashflow_writes_them():
    ref = {"year.active": "D84", "year.t": "D$1", "to_date.dep": "$C95:D95", "year.dep": "D95",
           "pools.year.x": "D10+D20"}.get
    row = gated(all_of(compare(Y("active"), "=", 1), compare(K("rate"), ">", 0)),
                K("capex") - (to_date("dep") - Y("dep")))
    assert row.excel(lambda k: ref(k) or k, "NA") == "IF(AND(D84=1,rate>0),capex-(SUM($C95:D95)-D95),0)"
    assert (pools_sum(Y("x")) * 2).excel(lambda k: ref(k) or k, "NA") == "(D10+D20)*2"
    assert (compare(Year(), ">=", 1)).excel(lambda k: ref(k) or k, "NA") == "D$1>=1"
    assert ((1 + K("g")) ** K("y") * K("a")).excel(str, "NA") == "(1+g)^y*a"
    assert when(negation(is_blank("colocation_contracted_kw")), round_up(K("a") / K("b")),
                round_down(K("c"))).excel(str, "NA") == \
        "IF(NOT(ISBLANK(colocation_contracted_kw)),ROUNDUP(a/b,0),ROUNDDOWN(c,0))"
    assert when(is_number(K("r")), K("r"), not_available()).excel(str, '"n/a"') == 'IF(ISNUMBER(r),r,"n/a")'
    assert is_choice("revenue_mode", "device_hours").excel(str, "NA") == 'revenue_mode="device_hours"'


def test_the_year_functions_compute_in_numpy():
    values = {"year.dep": np.array([[0.0, 1.0, 2.0, 4.0]]), "year.t": np.arange(4.0), "years": np.array([[2.0]]),
              "revenue_mode": np.array([1.0, 0.0]), "a": np.array([2.5, np.nan]), "g": np.array(0.5),
              "y": np.array(2.0)}
    value = values.__getitem__
    assert to_date("dep").numpy(value).tolist() == [[0.0, 1.0, 3.0, 7.0]]
    serving = all_of(compare(Year(), ">=", 1), compare(Year(), "<=", K("years")))
    assert gated(serving, Y("dep") * 10).numpy(value).tolist() == [[0.0, 10.0, 20.0, 0.0]]
    assert is_choice("revenue_mode", "device_hours").numpy(value).tolist() == [True, False]
    assert round_up(K("a")).numpy(value)[0] == 3.0 and round_down(K("a")).numpy(value)[0] == 2.0
    got = when(is_number(K("a")), K("a"), not_available()).numpy(value)
    assert got[0] == 2.5 and np.isnan(got[1])
    assert ((1 + K("g")) ** K("y")).numpy(value) == 2.25


def test_a_wrong_test_is_refused_by_name():
    with pytest.raises(KeyError, match="unknown comparison"):
        compare(K("a"), "==", 1)
    with pytest.raises(KeyError, match="not a choice of revenue_mode"):
        is_choice("revenue_mode", "hours")


def test_every_year_expression_reads_table_keys():
    for key, expr in POOL_YEAR_EXPRESSIONS + PLAN_YEAR_EXPRESSIONS + (("server capex", SERVER_CAPEX),):
        assert set(expr.keys()) <= ALL_KEYS, key


def test_the_engines_year_rows_are_the_expressions_over_its_inputs():
    """Each pool's opex, tokens, revenue and capex by year, recomputed from the table's expressions over the
    engine's own year rows and inputs, is the engine's row exactly."""
    inputs = as_inputs(CASE_B[0])
    out = finance_metrics(inputs)
    y, pools = out.years, out.pools
    t = np.arange(y.price_index.shape[-1], dtype=float)
    plan_rows = {k: y[k] for k in ("price_index", "electricity_index", "cost_index", "utilization",
                                   "throughput_index", "hardware_price_index")}
    pool_rows = {"active": y.pool_active, "utilization": y.pool_utilization, "depreciation_usd": y.pool_depreciation_usd,
                 **{key: y[f"pool_{key}"] for key, _ in POOL_YEAR_EXPRESSIONS}}

    def value(name):
        if name == "year.t":
            return t
        if name.startswith("year."):
            key = name[5:]
            return pool_rows[key] if key in pool_rows else plan_rows[key][..., None, :]
        return pools[name][..., None] if name in pools.keys() else (
            np.asarray(inputs[name], float)[..., None] if name in POOL_INPUT_KEYS else np.asarray(inputs[name], float))
    for key, expr in POOL_YEAR_EXPRESSIONS:
        np.testing.assert_array_equal(expr.numpy(value) * np.ones_like(y.pool_active), y[f"pool_{key}"], err_msg=key)
