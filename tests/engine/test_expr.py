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
    pools = {key: out.pools[key] for key in out.pools.keys()}
    in_pool = {"pool_axis": np.asarray(-1), **{f"in_pool.{k}": v for k, v in pools.items()},
               **{f"in_pool.{k}": np.asarray(inputs[k], float) for k in POOL_INPUT_KEYS},
               **{f"pools_min.{k}": np.min(v, axis=-1) for k, v in pools.items()},
               **{f"pools_max.{k}": np.max(v, axis=-1) for k, v in pools.items()}}

    def over_pools(name):   # a pools_total's terms, the pools' extremes; else the pools' sum
        return in_pool[name] if name in in_pool else out.pools[name].sum(axis=-1)
    for key, expr in PLAN_EXPRESSIONS:   # an expression reads results, the plan's inputs, or the pools' sums
        value = expr.numpy(lambda k: out[k] if k in out else inputs[k] if k in PLAN_INPUT_KEYS else over_pools(k))
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
    """Each pool's and each plan's year row written as an expression (utilization, tokens, revenue, opex, capex,
    residual values, taxable income, cash flow, the equity flow), recomputed from the table's expression over the
    engine's own year rows and inputs, is the engine's row exactly."""
    from tcoapp.engine.finance.year_rows import plan_values, pool_values
    from tcoapp.engine.quantities.finance import POOL_YEAR_KEYS, YEAR_QUANTITIES
    inputs = as_inputs(CASE_B[0])
    out = finance_metrics(inputs)
    y, pools = out.years, out.pools
    t = np.arange(y.price_index.shape[-1], dtype=float)
    plan_rows = {q.key: y[q.key] for q in YEAR_QUANTITIES}
    pool_rows = {key: y[f"pool_{key}"] for key in POOL_YEAR_KEYS}
    pool = {key: pools[key] for key in pools.keys()}
    in_pool = pool_values(inputs, pool, plan_rows, pool_rows, t)
    for key, expr in POOL_YEAR_EXPRESSIONS:
        np.testing.assert_array_equal(expr.numpy(in_pool) * np.ones_like(y.pool_active), y[f"pool_{key}"], err_msg=key)
    for key, expr in PLAN_YEAR_EXPRESSIONS:
        np.testing.assert_array_equal(expr.numpy(plan_values(inputs, pool, plan_rows, pool_rows, t)), y[key], err_msg=key)


# --- signs, sums over pools and years (the CashFlow rows converted last) ---
from tcoapp.engine.quantities.expr import any_of, over_years, plan_row, pools_total  # noqa: E402


def test_an_outflow_cell_is_read_negated_and_a_sum_keeps_its_order():
    """The sheet shows capex negative: revenue - capex is written revenue+cell (exact), revenue + capex revenue-cell,
    and a negated cell under * is parenthesized."""
    ref = {"year.revenue": "D12", "year.capex": "-D24", "year.tax": "D35"}.get
    flow = Y("revenue") - Y("capex") - Y("tax")
    assert flow.excel(ref, "NA") == "D12+D24-D35"
    assert (Y("revenue") + Y("capex")).excel(ref, "NA") == "D12-D24"
    assert (Y("capex") * K("f")).excel(lambda k: ref(k) or k, "NA") == "(-D24)*f"
    assert (Y("tax") + (Y("revenue") - Y("capex"))).excel(ref, "NA") == "D35+(D12+D24)"


def test_a_comparison_parenthesizes_its_arithmetic_and_or_is_any():
    row = when(any_of(compare(K("a") - K("b"), ">=", K("c")), is_blank("d")), 1, 0)
    assert row.excel(lambda k: k, "NA") == "IF(OR((a-b)>=c,ISBLANK(d)),1,0)"
    value = {"a": np.array([3.0, 1.0]), "b": np.array([1.0, 1.0]), "c": np.array([2.0, 2.0]),
             "d": np.array([1.0, np.nan])}
    np.testing.assert_array_equal(row.numpy(value.__getitem__), [1.0, 1.0])


def test_a_total_over_pools_is_a_term_per_pool_and_the_pool_axis_summed():
    term = Y("tokens") * K("price") / K("n")
    total = pools_total(term)
    names = {"pool_count": "2", "in_pool.1.year.tokens": "D86", "in_pool.2.year.tokens": "D186",
             "in_pool.1.price": "P1", "in_pool.2.price": "P2", "in_pool.1.n": "N", "in_pool.2.n": "N"}
    assert total.excel(names.__getitem__, "NA") == "D86*P1/N+D186*P2/N"
    pools = {"in_pool.year.tokens": np.array([[1.0, 2.0], [3.0, 4.0]]), "in_pool.price": np.array([[10.0], [20.0]]),
             "in_pool.n": np.array(2.0), "pool_axis": -2}
    np.testing.assert_array_equal(total.numpy(pools.__getitem__), (pools["in_pool.year.tokens"] * pools["in_pool.price"]
                                                                   / 2.0).sum(axis=-2))
    assert total.year_rows() == ("in_pool.year.tokens",)
    assert plan_row("utilization").year_rows() == ("plan_year.utilization",)


def test_the_smallest_and_largest_over_pools():
    from tcoapp.engine.quantities.expr import pools_max, pools_min
    agree = when(compare(pools_min("spr"), "=", pools_max("spr")), pools_min("spr"), not_available())
    assert agree.excel({"pools_min.spr": "MIN(C9,C19)", "pools_max.spr": "MAX(C9,C19)"}.get, "NA") == \
        "IF(MIN(C9,C19)=MAX(C9,C19),MIN(C9,C19),NA)"
    values = {"pools_min.spr": np.array([4.0, 3.0]), "pools_max.spr": np.array([4.0, 5.0])}
    np.testing.assert_array_equal(agree.numpy(values.__getitem__), [4.0, np.nan])


def test_a_sum_over_the_years_of_two_rows():
    row = over_years("repl", "fraction")
    assert row.excel({"all_years.repl": "-$C$25:$M$25", "all_years.fraction": "$C$26:$M$26"}.get, "NA") == \
        "-SUMPRODUCT($C$25:$M$25,$C$26:$M$26)"
    value = {"year.repl": np.array([1.0, 2.0, 3.0]), "year.fraction": np.array([0.5, 0.25, 0.0])}
    np.testing.assert_array_equal(row.numpy(value.__getitem__), [1.0])
