"""The year rows written as expressions in the quantity table (quantities/finance.py, `pool_expr=` and `expr=`),
evaluated over a plan's years: the names an expression reads (expr.py) resolved to the engine's arrays.

Arrays: a pool's year row [..., P, T] (pools on axis -2, years last), a plan's year row [..., T], a pool's
quantity or input [..., P], a plan's input [...]. In a pool's expression `K(key)` is the pool's quantity or
input where the pool has one, else the plan's input, and `Y(key)` the pool's own year row where it has one,
else the plan's; in a plan's expression `K(key)` is the plan's input and `Y(key)` the plan's year row, and
`pools_sum(Y(key))` the pools' rows summed.
"""
from __future__ import annotations

from typing import Callable, Mapping

import numpy as np

from ..quantities.expr import POOLS, YEAR, YEAR_NUMBER
from ..quantities.finance import POOL_INPUT_KEYS, YEAR_QUANTITIES

Value = Callable[[str], np.ndarray]

# the year rows each pool computes by its expression, and the plan rows by theirs, in table order
POOL_YEAR_EXPRESSIONS = tuple((q.key, q.pool_expr) for q in YEAR_QUANTITIES if q.pool_expr is not None)
PLAN_YEAR_EXPRESSIONS = tuple((q.key, q.expr) for q in YEAR_QUANTITIES if q.expr is not None)
OUTFLOW_ROWS = frozenset(q.key for q in YEAR_QUANTITIES if q.outflow)  # shown negative on the CashFlow sheet


def pool_values(a, pool: Mapping[str, np.ndarray], plan_rows: Mapping[str, np.ndarray],
                pool_rows: Mapping[str, np.ndarray], t: np.ndarray) -> Value:
    """The names a pool's year expression reads, as arrays broadcasting to [..., P, T]."""
    def value(name: str) -> np.ndarray:
        if name == YEAR_NUMBER:
            return t
        if name.startswith(YEAR):
            key = name[len(YEAR):]
            return pool_rows[key] if key in pool_rows else np.asarray(plan_rows[key])[..., None, :]
        if name in pool:
            return np.asarray(pool[name], float)[..., None]
        if name in POOL_INPUT_KEYS:
            return np.asarray(a[name], float)[..., None]
        return np.asarray(a[name], float)[..., None, None]
    return value


def plan_values(a, plan_rows: Mapping[str, np.ndarray], pool_rows: Mapping[str, np.ndarray],
                t: np.ndarray) -> Value:
    """The names a plan's year expression reads, as arrays broadcasting to [..., T]."""
    def value(name: str) -> np.ndarray:
        if name == YEAR_NUMBER:
            return t
        if name.startswith(POOLS + YEAR):
            return np.sum(pool_rows[name[len(POOLS + YEAR):]], axis=-2)
        if name.startswith(YEAR):
            return plan_rows[name[len(YEAR):]]
        return np.asarray(a[name], float)[..., None]
    return value


def evaluate(a, pool: Mapping[str, np.ndarray], plan_rows: Mapping[str, np.ndarray],
             pool_rows: Mapping[str, np.ndarray], t: np.ndarray) -> tuple[dict, dict]:
    """The year rows written as expressions, in table order: (each pool's [..., P, T]; the plan's [..., T]: its
    pools' sum, or its own expression). `plan_rows` and `pool_rows`: the
    year rows they read (the indices, the utilization, the pools' `active` and depreciation)."""
    known_by_pool = dict(pool_rows)   # a row may read the rows before it
    values = pool_values(a, pool, plan_rows, known_by_pool, t)
    ones = np.ones(np.shape(pool_rows["active"]))  # every row over every pool and year
    by_pool = {}
    for key, expr in POOL_YEAR_EXPRESSIONS:
        by_pool[key] = known_by_pool[key] = expr.numpy(values) * ones
    rows = {key: np.sum(v, axis=-2) for key, v in by_pool.items()}
    known = {**plan_rows, **rows}
    plan = plan_values(a, known, by_pool, t)
    for key, expr in PLAN_YEAR_EXPRESSIONS:
        rows[key] = known[key] = expr.numpy(plan)
    return by_pool, rows
