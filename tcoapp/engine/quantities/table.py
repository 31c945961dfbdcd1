"""All rows of the quantity table as one table: every key tcoapp knows, whatever its scope.

Every row is a `Row` (row.py) with the base columns key, scope, unit, label and help; its kind
(`Field`, `Quantity`, `Metric`) adds the columns only that kind has. A row's scope is the table it
is a row of: an input of a plan, pool, device, model, curve point or price tier (inputs.py); an
efficiency factor (factors.py); a finance input, a pool or plan quantity or a year row (finance.py);
a result metric (metrics.py). A key is one row per scope it is in (`capex_usd` is a pool quantity,
a plan quantity, a year row and a metric). tests/test_key_lists.py checks that no module outside
this package types a list of these keys by hand: every such list is a view of the rows' flow columns.
"""
from __future__ import annotations

from dataclasses import fields

from .factors import FACTOR_FIELDS
from .finance import FINANCE_INPUTS, PLAN_QUANTITIES, POOL_QUANTITIES, YEAR_QUANTITIES
from .inputs import FIELD_TABLES
from .metrics import AGENTIC_ROWS, DECISION_ROWS, METRICS
from .row import BASE_COLUMNS, ROW_KINDS, Row

ROWS: tuple[Row, ...] = tuple(row for rows in (
    *FIELD_TABLES.values(), FACTOR_FIELDS, FINANCE_INPUTS, POOL_QUANTITIES, PLAN_QUANTITIES, YEAR_QUANTITIES, METRICS,
    DECISION_ROWS, AGENTIC_ROWS,
) for row in rows)

SCOPES: tuple[str, ...] = tuple(dict.fromkeys(r.scope for r in ROWS))  # in table order

ALL_KEYS: frozenset[str] = frozenset(r.key for r in ROWS)

# the table's columns: (column, the row kinds that have it), the base columns first, then each kind's own
COLUMNS: tuple[tuple[str, tuple[str, ...]], ...] = tuple(
    (column, tuple(kind.__name__ for kind in ROW_KINDS if column in {f.name for f in fields(kind)}))
    for column in dict.fromkeys((*BASE_COLUMNS, *(f.name for kind in ROW_KINDS for f in fields(kind))))
)


def scopes_of(key: str) -> tuple[str, ...]:
    """Every scope a key is a row of (a key such as `capex_usd` is a pool, plan and year quantity)."""
    return tuple(r.scope for r in ROWS if r.key == key)
