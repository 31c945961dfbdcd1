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
