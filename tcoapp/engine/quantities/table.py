"""All rows of the quantity table as one table: every key tcoapp knows, whatever its scope.

Scopes: an input of a plan, pool, device, model, curve point or price tier (inputs.py); a finance
quantity per pool, per plan or per year (finance.py); a result metric (metrics.py); an efficiency
factor (factors.py). tests/test_key_lists.py checks that no module outside this package types a
list of these keys by hand: every such list is a view of the rows' flow columns.
"""
from __future__ import annotations

from .factors import FACTOR_FIELDS
from .finance import FINANCE_INPUTS, PLAN_QUANTITIES, POOL_QUANTITIES, YEAR_QUANTITIES
from .inputs import FIELD_TABLES
from .metrics import METRICS

SCOPED_ROWS: tuple[tuple[str, tuple], ...] = (
    *((scope, rows) for scope, rows in FIELD_TABLES.items()),
    ("factor", FACTOR_FIELDS),
    ("finance input", FINANCE_INPUTS),
    ("pool", POOL_QUANTITIES),
    ("plan", PLAN_QUANTITIES),
    ("year", YEAR_QUANTITIES),
    ("metric", METRICS),
)


def row_key(row) -> str:
    """The key a table row is known by: a quantity's key, or a field's name."""
    return getattr(row, "key", None) or row.name


ALL_KEYS: frozenset[str] = frozenset(row_key(r) for _, rows in SCOPED_ROWS for r in rows)


def scopes_of(key: str) -> tuple[str, ...]:
    """Every scope a key is a row of (a key such as `capex_usd` is a pool, plan and year quantity)."""
    return tuple(scope for scope, rows in SCOPED_ROWS if any(row_key(r) == key for r in rows))
