"""A quantity's equation written once (tcoapp/engine/quantities/expr.py): the same tree gives the engine's
numpy value and the Results formula, operation for operation."""
import numpy as np
import pytest

from tcoapp.engine.finance.metrics import finance_metrics
from tcoapp.engine.quantities.constants import CONSTANT_VALUES, CONSTANTS
from tcoapp.engine.quantities.expr import C, K, maximum, minimum, per_million, when_positive
from tcoapp.engine.quantities.finance import PLAN_EXPRESSIONS, PLAN_INPUT_KEYS, POOL_EXPRESSIONS, as_inputs
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
