"""A row written as an expression becomes its formula (io/xlsx_na.compiled): a gate decides first and only the
value is guarded against n/a; an outflow reads negative."""
from tcoapp.engine.quantities.expr import K, compare, gated, when
from tcoapp.io import sheets as S
from tcoapp.io.xlsx_na import NaGuard, compiled

ROWS = {5: "pool1.active", 6: "pool1.capex_usd", 7: "cost_index"}
GUARD = NaGuard(S.RESULTS, lambda sheet, row: ROWS.get(row))  # Results rows may be n/a but for the listed ones
REF = {"active": "C5", "capex": "C6", "rate": "C7"}.__getitem__


def test_a_gate_decides_first_and_guards_only_its_value():
    row = gated(compare(K("active"), "=", 1), K("capex") * K("rate"))
    assert compiled(row, REF, GUARD) == '=IF(C5=1,IF(OR(C6="n/a",C7="n/a"),"n/a",C6*C7),0)'


def test_an_outflow_reads_negative():
    row = gated(compare(K("active"), "=", 1), K("capex"))
    assert compiled(row, REF, GUARD, outflow=True) == '=IF(C5=1,IF(C6="n/a","n/a",-C6),0)'


def test_a_plain_if_is_guarded_as_a_whole():
    row = when(compare(K("rate"), ">", 0), K("capex"), 0)
    assert compiled(row, REF, GUARD) == '=IF(OR(C7="n/a",C6="n/a"),"n/a",IF(C7>0,C6,0))'


def test_a_sum_over_pools_of_gated_terms_reads_na_only_where_a_pool_serves_with_an_unknown_value():
    """pools_total(gated(...)): each pool's term decides by its own gate; n/a where a serving pool's value is n/a
    (the engine: NaN there, 0 where a pool does not serve)."""
    from tcoapp.engine.quantities.expr import Y, pools_total
    rows = {84: "pool1.active", 86: "pool1.output_tokens", 184: "pool2.active", 186: "pool2.output_tokens"}
    guard = NaGuard(S.CASH_FLOW, lambda sheet, row: rows.get(row))
    names = {"pool_count": "2", "in_pool.1.year.active": "D84", "in_pool.2.year.active": "D184",
             "in_pool.1.year.tokens": "D86", "in_pool.2.year.tokens": "D186", "in_pool.1.rate": "R",
             "in_pool.2.rate": "R"}
    row = pools_total(gated(compare(Y("active"), "=", 1), Y("tokens") * K("rate")))
    assert compiled(row, names.__getitem__, guard) == (
        '=IF(OR(AND(D84=1,D86="n/a"),AND(D184=1,D186="n/a")),"n/a",IF(D84=1,D86*R,0)+IF(D184=1,D186*R,0))')


def test_an_outflow_sum_is_negated_whole():
    from tcoapp.engine.quantities.expr import Y
    names = {"year.a": "D15", "year.b": "D16"}.__getitem__
    rows = {15: "energy_usd", 16: "colocation_usd"}
    guard = NaGuard(S.CASH_FLOW, lambda sheet, row: rows.get(row))
    assert compiled(Y("a") + Y("b"), names, guard, outflow=True) == '=IF(OR(D15="n/a",D16="n/a"),"n/a",-(D15+D16))'
