"""The year rows written as expressions in the quantity table (quantities/finance.py, `pool_expr=` and `expr=`),
evaluated over a plan's years: the names an expression reads (expr.py) resolved to the engine's arrays.

Arrays: a pool's year row [..., P, T] (pools on axis -2, years last), a plan's year row [..., T], a pool's
quantity or input [..., P], a plan's input [...]. In a pool's expression `K(key)` is the pool's quantity or
input where the pool has one, else the plan's input, and `Y(key)` the pool's own year row where the pool has
that row (POOL_YEAR_KEYS), else the plan's; in a plan's expression `K(key)` is the plan's input and `Y(key)`
the plan's year row, and `pools_sum(Y(key))` the pools' rows summed. A pool row without a plan expression of
its own is summed over the pools into the plan's row.

`YearRows` evaluates each row as soon as the rows it reads exist: the engine gives it the rows written by hand
(the named exceptions of expr.py: the tranche ramp, depreciation, tax, debt) as it computes them, and every
table row is evaluated once, in table order among those ready; a new row needs no engine code.
"""
from __future__ import annotations

import functools
from typing import Callable, Mapping

import numpy as np

from ..quantities.expr import IN_POOL, PLAN_YEAR, POOL_AXIS, POOLS, YEAR, YEAR_NUMBER, Expr
from ..quantities.expr_compiled import numpy_function
from ..quantities.finance import POOL_INPUT_KEYS, POOL_YEAR_KEYS, POOL_YEAR_ROWS, YEAR_QUANTITIES
from ..quantities.short_sum import short_sum
from ..quantities.wide_ops import fortran, wide_shape

Value = Callable[[str], np.ndarray]

# the year rows each pool computes by its expression, and the plan rows by theirs (the pools' `active` first)
POOL_YEAR_EXPRESSIONS = (("active", POOL_YEAR_ROWS["active"].pool_expr),) + tuple(
    (q.key, q.pool_expr) for q in YEAR_QUANTITIES if q.pool_expr is not None)
PLAN_YEAR_EXPRESSIONS = tuple((q.key, q.expr) for q in YEAR_QUANTITIES if q.expr is not None)
OUTFLOW_ROWS = frozenset(q.key for q in YEAR_QUANTITIES if q.outflow)  # shown negative on the CashFlow sheet
# a pool row without a plan expression of its own is summed into the plan's row
_SUMMED = frozenset(q.key for q in YEAR_QUANTITIES if q.pool_expr is not None and q.expr is None)


def pool_values(a, pool: Mapping[str, np.ndarray], plan_rows: Mapping[str, np.ndarray],
                pool_rows: Mapping[str, np.ndarray], t: np.ndarray, kept: dict | None = None,
                rows_kept: dict | None = None) -> Value:
    """The names a pool's year expression reads, as arrays broadcasting to [..., P, T]. `kept`: the arrays read
    from `a` and `pool` so far, by name (neither changes while a plan's rows are computed: `YearRows` keeps one);
    `rows_kept`: those read from the rows (`YearRows` empties it whenever rows are given by hand)."""
    kept = {} if kept is None else kept
    rows_kept = {} if rows_kept is None else rows_kept

    def value(name: str) -> np.ndarray:
        kind, key = _pool_name(name)
        if kind == "pool row":
            return pool_rows[key]
        if kind == "plan row":
            found = rows_kept.get(name)
            if found is None:
                found = rows_kept[name] = np.asarray(plan_rows[key])[..., None, :]
            return found
        if kind == "t":
            return t
        found = kept.get(name)
        if found is None:
            if name in pool:
                found = np.asarray(pool[name], float)[..., None]
            elif name in POOL_INPUT_KEYS:
                found = np.asarray(a[name], float)[..., None]
            else:
                found = np.asarray(a[name], float)[..., None, None]
            kept[name] = found
        return found
    return value


@functools.lru_cache(maxsize=None)
def _pool_name(name: str) -> tuple[str, str]:
    """What a name in a pool's year expression reads: ("t", ""), ("plan row", key), ("pool row", key) (the pool's
    own row where the pool has that row, else the plan's), or ("input", name) (a pool quantity or input, a plan
    input)."""
    if name == YEAR_NUMBER:
        return "t", ""
    if name.startswith(PLAN_YEAR):
        return "plan row", name[len(PLAN_YEAR):]
    if name.startswith(YEAR):
        key = name[len(YEAR):]
        return ("pool row", key) if key in POOL_YEAR_KEYS else ("plan row", key)
    return "input", name


def plan_values(a, pool: Mapping[str, np.ndarray], plan_rows: Mapping[str, np.ndarray],
                pool_rows: Mapping[str, np.ndarray], t: np.ndarray, kept: dict | None = None,
                rows_kept: dict | None = None) -> Value:
    """The names a plan's year expression reads, as arrays broadcasting to [..., T] (a pools_total's terms, read
    in each pool: [..., P, T]). `kept`, `rows_kept`: as `pool_values`' (the plan's own inputs kept under "plan." +
    name)."""
    kept = {} if kept is None else kept
    rows_kept = {} if rows_kept is None else rows_kept
    in_pool = pool_values(a, pool, plan_rows, pool_rows, t, kept, rows_kept)

    def value(name: str) -> np.ndarray:
        if name == YEAR_NUMBER:
            return t
        if name == POOL_AXIS:
            return np.asarray(-2)
        if name.startswith(IN_POOL):
            return in_pool(name[len(IN_POOL):])
        if name.startswith(POOLS + YEAR):
            found = rows_kept.get(name)
            if found is None:
                found = rows_kept[name] = short_sum(pool_rows[name[len(POOLS + YEAR):]], axis=-2)
            return found
        if name.startswith(YEAR):
            return plan_rows[name[len(YEAR):]]
        found = kept.get("plan." + name)
        if found is None:
            found = kept["plan." + name] = np.asarray(a[name], float)[..., None]
        return found
    return value


def _needed(scope: str, name: str) -> tuple[str, str]:
    """The row (scope, key) an expression of `scope` reading year row `name` needs."""
    if name.startswith(IN_POOL):
        scope, name = "pool", name[len(IN_POOL):]
    if name.startswith(POOLS):
        return "pool", name[len(POOLS + YEAR):]
    if name.startswith(PLAN_YEAR):
        return "plan", name[len(PLAN_YEAR):]
    key = name[len(YEAR):]
    return ("pool", key) if scope == "pool" and key in POOL_YEAR_KEYS else ("plan", key)


class YearRows:
    """A plan's year rows as they are computed: `plan` [..., T] and `pools` [..., P, T] by key. `give` adds rows
    computed by hand and evaluates every table row that has become ready; `finish` checks none is left."""

    def __init__(self, a, pool: Mapping[str, np.ndarray], t: np.ndarray, table: tuple | None = None):
        """`table`: the table rows to evaluate (`rows_for`'s; default every row). Over many draws
        (`wide_ops.wide_shape` of the pools' rows) the expressions run `wide`: the same numbers, the draws
        innermost in memory."""
        self.a, self.pool, self.t = a, pool, t
        self.plan: dict[str, np.ndarray] = {}
        self.pools: dict[str, np.ndarray] = {}
        self._pending: tuple = _ROWS if table is None else tuple(table)
        self._ones: np.ndarray | None = None
        self._wide = wide_shape(np.broadcast_shapes(*(np.shape(v) for v in pool.values())) + (len(t),))
        kept: dict = {}               # the arrays read from `a` and `pool` (pool_values, plan_values)
        self._rows_kept: dict = {}    # ... and from the rows, until rows are given by hand
        self._pool_value = pool_values(a, pool, self.plan, self.pools, t, kept, self._rows_kept)
        self._plan_value = plan_values(a, pool, self.plan, self.pools, t, kept, self._rows_kept)
        self.give()

    def give(self, plan: Mapping[str, np.ndarray] | None = None, pools: Mapping[str, np.ndarray] | None = None):
        """Add rows computed by hand, then evaluate every table row whose rows exist."""
        self._rows_kept.clear()   # a row given again is read again
        if self._wide:   # rows written by hand in numpy's order: read with the draws innermost like the table's
            plan = {k: fortran(v) for k, v in (plan or {}).items()}
            pools = {k: fortran(v) for k, v in (pools or {}).items()}
        self.plan.update(plan or {})
        self.pools.update(pools or {})
        state = (id(self._pending), frozenset(self.plan), frozenset(self.pools))
        found = _SCHEDULES.get(state)
        if found is None:   # (the pending rows kept in the value: their id is not reused while it is kept)
            if len(_SCHEDULES) >= MAX_SCHEDULES:   # tables made on the fly (none of the engine's) would fill it
                _SCHEDULES.clear()
            found = _SCHEDULES[state] = (*_schedule(self._pending, state[1], state[2]), self._pending)
        order, self._pending, _ = found
        for scope, key, expr in order:
            self._evaluate(scope, key, expr)
        return self

    def finish(self) -> None:
        """Every table row has been evaluated (else: the rows none computes, named)."""
        if self._pending:
            raise KeyError(f"year rows that read rows nothing computes: {[row[1] for row in self._pending]}")

    def _evaluate(self, scope: str, key: str, expr: Expr) -> None:
        if scope == "plan":
            self.plan[key] = numpy_function(expr, self._wide)(self._plan_value)
            return
        value = numpy_function(expr, self._wide)(self._pool_value)
        if self._ones is None:  # the first pool row (`active`) has the shape of every pool row: [..., P, T]
            self._ones = np.ones(np.shape(value))
        self.pools[key] = value * self._ones
        if key in _SUMMED:
            self.plan[key] = short_sum(self.pools[key], axis=-2)


# every table row in table order (the pools' first): (scope, key, expression, the rows (scope, key) it reads),
# what it reads found once here rather than on every evaluation
_ROWS = tuple((scope, key, expr, tuple(dict.fromkeys(_needed(scope, name) for name in expr.year_rows())))
              for scope, rows in (("pool", POOL_YEAR_EXPRESSIONS), ("plan", PLAN_YEAR_EXPRESSIONS))
              for key, expr in rows)


def _schedule(pending: tuple, plan_keys: frozenset, pool_keys: frozenset) -> tuple[tuple, tuple]:
    """(the rows `YearRows.give` evaluates, in order, as (scope, key, expression); the rows still pending after):
    round after round, every pending row whose rows exist and none of which is pending, in table order. It
    depends only on the pending rows and the keys of the rows that exist, so `give` finds it in _SCHEDULES
    after the first plan (a plan's finance gives the same rows in the same order every time)."""
    have = {"plan": set(plan_keys), "pool": set(pool_keys)}
    waiting = {row[:2] for row in pending}
    order: list[tuple] = []
    while True:
        ready = [row for row in pending if all(key in have[scope] and (scope, key) not in waiting for scope, key in row[3])]
        if not ready:
            return tuple(order), pending
        for scope, key, expr, _ in ready:
            order.append((scope, key, expr))
            waiting.discard((scope, key))
            have[scope].add(key)
            if scope == "pool" and key in _SUMMED:   # `_evaluate` sums it into the plan's row
                have["plan"].add(key)
        pending = tuple(row for row in pending if row[:2] in waiting)


# (id of the pending rows, plan row keys, pool row keys) -> (`_schedule`'s, the pending rows): a handful of call paths
_SCHEDULES: dict = {}
MAX_SCHEDULES = 256


def rows_for(plan_keys) -> tuple:
    """The table rows (in table order, the pools' `active` first) that plan rows `plan_keys` read, themselves
    included: what `YearRows` evaluates for a caller that reads only those rows. A plan row without a plan
    expression is its pools' row summed; a row no expression computes (written by hand) is left to `give`."""
    by_row = {row[:2]: row for row in _ROWS}
    wanted: set[tuple[str, str]] = set()
    stack = [("pool", "active")] + [("plan", key) for key in plan_keys]
    while stack:
        scope, key = stack.pop()
        if scope == "plan" and key in _SUMMED:  # the pools' row, summed
            scope = "pool"
        if (scope, key) in wanted or (scope, key) not in by_row:
            continue
        wanted.add((scope, key))
        stack.extend(by_row[(scope, key)][3])
    return tuple(row for row in _ROWS if row[:2] in wanted)
