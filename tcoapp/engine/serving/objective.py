"""What a serving search maximizes or minimizes (docs/model.md, "Serving search").

`search_objective`:
- `tokens_per_s_per_device`: the pool's output tokens/s per device at its operating point (highest).
- `cost_per_million_output_tokens_usd` (default): the pool's own levelized cost per million output
  tokens at its operating point, by the finance layer itself (`finance_metrics`'s number, by its cost-only
  path `cost_per_million_output_tokens_usd`) with the pool as
  the whole plan: its device's price, servers, racks under its cap, energy at the point's power,
  and the plan's finance keys (lowest). Only the operating point's tokens/s per device and power
  change between configurations, so this ranks them by (fixed cost per device + energy at
  power_w) / tokens_per_s_per_device.
Both are returned as a score to maximize (the cost negated); NaN where a point does not exist.
"""
from __future__ import annotations

import functools
from types import MappingProxyType
from typing import Mapping

import numpy as np

from ..finance.metrics import cost_per_million_output_tokens_usd
from ..quantities.constants import CONSTANT_VALUES
from ..plan.kv_tiers import server_with_kv_tiers
from ..plan.pool_inputs import pool_finance_inputs
from ..quantities.finance import PLAN_INPUT_KEYS, finance_inputs
from ..quantities.inputs import PLAN_FIELD_BY_NAME
from ..plan.pools import ResolvedPool
from ..quantities.records import Device, Plan
from ..quantities.result_types import FinanceInputs

COST = "cost_per_million_output_tokens_usd"
DAYS_PER_YEAR = CONSTANT_VALUES["SECONDS_PER_YEAR"] / CONSTANT_VALUES["SECONDS_PER_DAY"]


def plan_finance_inputs(plan: Plan) -> Mapping[str, float]:
    """The plan's finance keys as numbers: a choice key as the index of its value in the field's choices
    (read-only: kept per plan, as a search prices its candidates with them several times)."""
    try:
        return _kept_plan_finance_inputs(plan)
    except TypeError:   # a plan holding a value that cannot be hashed (none the workbook or the editor makes)
        return _plan_finance_inputs(plan)


def _plan_finance_inputs(plan: Plan) -> Mapping[str, float]:
    def value(key):
        if key == "demand_tokens_per_year":  # the cap on a demand-sized plan's output tokens (none otherwise)
            return plan.demand_tokens_per_day * DAYS_PER_YEAR if plan.sizing_mode == "demand" else None
        v = getattr(plan, key)
        field = PLAN_FIELD_BY_NAME[key]
        return float(field.choices.index(v)) if field.type == "choice" else v
    return MappingProxyType({key: float("nan") if value(key) is None else float(value(key)) for key in PLAN_INPUT_KEYS})


_kept_plan_finance_inputs = functools.lru_cache(maxsize=64)(_plan_finance_inputs)


def pool_cost_inputs(plan: Plan, pool: ResolvedPool, device: Device, tokens_per_s_per_device, power_w) -> FinanceInputs:
    """The finance inputs of the pool as the whole plan, one variant per operating point (arrays)."""
    tps = np.atleast_1d(np.asarray(tokens_per_s_per_device, float))
    power = np.broadcast_to(np.asarray(power_w, float), tps.shape)
    count = pool.device_count if plan.sizing_mode == "devices" else float(device.devices_per_server)
    pool_inputs = pool_finance_inputs((pool,), (server_with_kv_tiers(device, plan),), [count], tps[..., None], power[..., None],
                                      [plan.price_usd_per_million_output_tokens], ones=np.ones(tps.shape + (1,)),
                                      whole_plan=True)
    values = plan_finance_inputs(plan)   # each key's value in every variant: the rows of one block (np.full's values)
    block = np.repeat(np.array(list(values.values()), float)[:, None], tps.size, axis=1)
    plan_inputs = dict(zip(values, block.reshape((len(values),) + tps.shape)))
    return finance_inputs(pool_inputs, plan_inputs)


def pool_cost_per_million_output_tokens_usd(plan: Plan, pool: ResolvedPool, device: Device,
                                            tokens_per_s_per_device, power_w) -> np.ndarray:
    """The pool's cost per million output tokens (USD/Mtok) for arrays of operating points: the finance layer's
    own number (`finance_metrics`), computed by its cost-only path (`cost_per_million_output_tokens_usd`: what
    the cost reads, not the tax, debt or returns)."""
    inputs = pool_cost_inputs(plan, pool, device, tokens_per_s_per_device, power_w)
    return np.asarray(cost_per_million_output_tokens_usd(inputs), float)


def objective_score(plan: Plan, pool: ResolvedPool, device: Device, tokens_per_s_per_device, power_w) -> np.ndarray:
    """Higher is better: tokens/s per device, or minus the pool's cost per million output tokens."""
    tps = np.atleast_1d(np.asarray(tokens_per_s_per_device, float))
    exists = np.isfinite(tps) & (tps > 0)
    if plan.search_objective == COST:
        with np.errstate(invalid="ignore", divide="ignore"):
            score = -pool_cost_per_million_output_tokens_usd(plan, pool, device, np.where(exists, tps, np.nan), power_w)
    else:
        score = tps.copy()
    return np.where(exists & np.isfinite(score), score, np.nan)


def objective_value(plan: Plan, score: float) -> float:
    """The objective in its own unit from a score (the cost un-negated)."""
    return -score if plan.search_objective == COST else score
