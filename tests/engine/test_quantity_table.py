"""The quantity table is one table of one row type: every row a `Row` with a key and a scope, each kind
adding only its own columns (tcoapp/engine/quantities/)."""
from collections import Counter
from dataclasses import fields

import pytest

from tcoapp.engine.quantities.factors import FACTOR_FIELDS
from tcoapp.engine.quantities.finance import FINANCE_INPUTS, PLAN_QUANTITIES, POOL_QUANTITIES, YEAR_QUANTITIES
from tcoapp.engine.quantities.inputs import FIELD_TABLES, PLAN_FIELDS, SERVING_FIELDS
from tcoapp.engine.quantities.metrics import METRICS
from tcoapp.engine.quantities.row import BASE_COLUMNS, ROW_KINDS, Field, Metric, Quantity, Row, scoped
from tcoapp.engine.quantities.table import ALL_KEYS, COLUMNS, ROWS, SCOPES, scopes_of


def test_every_row_is_a_row_with_a_key_and_a_scope():
    assert ROWS and all(isinstance(r, Row) for r in ROWS)
    assert all(isinstance(r.key, str) and r.key for r in ROWS)
    assert all(isinstance(r.scope, str) and r.scope for r in ROWS)
    assert set(SCOPES) == {r.scope for r in ROWS}


def test_a_key_is_one_row_per_scope():
    pairs = Counter((r.key, r.scope) for r in ROWS)
    assert not [pair for pair, n in pairs.items() if n > 1]


def test_every_kind_has_the_base_columns():
    assert BASE_COLUMNS == ("key", "scope", "unit", "label", "help")
    for kind in ROW_KINDS:
        assert issubclass(kind, Row)
        assert tuple(f.name for f in fields(kind))[:len(BASE_COLUMNS)] == BASE_COLUMNS, kind


def test_columns_are_the_union_of_the_kinds_columns():
    names = [column for column, _ in COLUMNS]
    assert len(names) == len(set(names))
    assert tuple(names[:len(BASE_COLUMNS)]) == BASE_COLUMNS
    assert all(kinds == ("Field", "Factor", "Quantity", "Metric") for column, kinds in COLUMNS if column in BASE_COLUMNS)
    assert set(names) == {f.name for kind in ROW_KINDS for f in fields(kind)}
    by_column = dict(COLUMNS)
    assert by_column["type"] == ("Field", "Factor") and by_column["fit"] == ("Factor",) and by_column["axis"] == ("Quantity",) and by_column["better"] == ("Metric",)


def test_the_scopes_are_the_tables():
    for scope, rows in FIELD_TABLES.items():
        assert {r.scope for r in rows} == {scope}
    for scope, rows in (("factor", FACTOR_FIELDS), ("finance input", FINANCE_INPUTS), ("pool quantity", POOL_QUANTITIES),
                        ("plan quantity", PLAN_QUANTITIES), ("year", YEAR_QUANTITIES), ("metric", METRICS)):
        assert {r.scope for r in rows} == {scope}
    assert {type(r) for r in ROWS} == set(ROW_KINDS)
    assert set(SERVING_FIELDS) <= set(PLAN_FIELDS)  # a plan sub-table's rows are the plan table's rows


def test_all_keys_and_scopes_come_from_the_rows():
    assert ALL_KEYS == {r.key for r in ROWS}
    assert scopes_of("capex_usd") == ("pool quantity", "plan quantity", "year", "metric")
    assert scopes_of("price_usd") == ("device", "finance input")
    assert scopes_of("eta_mem") == ("factor",)
    assert scopes_of("not a key") == ()


def test_a_field_is_known_by_its_key_and_its_name():
    field = FIELD_TABLES["device"][0]
    assert field.name == field.key == "name"
    with pytest.raises(AttributeError):
        field.name = "other"


def test_a_row_is_built_by_keyword_and_scoped_once():
    q = Quantity(key="k", unit="USD", axis="plan", help="h")
    m = Metric(key="k", unit="USD", label="K", help="h", better="low")
    with pytest.raises(TypeError):
        Field("x", "float", "kW", 1.0, 0, 10, "g", "X", "help")  # noqa (positional construction is refused)
    (scoped_q,) = scoped("plan quantity", (q,))
    assert (scoped_q.scope, q.scope, scoped("plan quantity", (scoped_q,))[0] is scoped_q) == ("plan quantity", "", True)
    with pytest.raises(ValueError, match="another table"):
        scoped("metric", (scoped_q, m))
