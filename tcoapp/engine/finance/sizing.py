"""Sizing modes: derive each pool's device count (whole servers) so plans compare iso-power,
iso-budget or iso-demand (docs/model.md section 3, "Fleet plans").

One implementation for the deterministic compute and Monte Carlo: every array has a leading draw
axis (length 1 for the deterministic run), pool quantities a trailing pool axis, and numpy
broadcasting does the rest. `pool_servers` is the rule; `SIZING_READS` says which finance inputs it
reads under each mode (Monte Carlo re-sizes a draw only when one of them moved).
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from ..quantities.inputs import DEVICE_FIELDS, PLAN_FIELDS, SIZING_INPUTS
from ..quantities.finance import DEVICE_NAMEPLATE_W, ITEMIZED_CAPEX_KEYS as ITEMIZED, OPTIONAL_INPUTS, POOL_INPUT_KEYS, SERVER_CAPEX  # noqa: F401 (ITEMIZED read through this module too)

SECONDS_PER_DAY = 86400.0
TOLERANCE = 1e-9           # whole-server rounding slack (a float just below a whole number is that number)
MAX_SCALE_CANDIDATES = 1_000_000

# each sizing mode's own input (a plan key): the first plan field the quantity table marks as read by it
SIZING_INPUT = {mode: keys[0] for mode, keys in SIZING_INPUTS.items()}
# what `pool_servers` reads under each mode besides the pools' weights: the plan and device fields whose
# `sizing` column names the mode (device fields by their finance-input name), and a budget also reads
# whether a pool is bought (`owned`); demand also reads the fleet's throughput
SIZING_READS = {mode: frozenset(f.name for f in PLAN_FIELDS + DEVICE_FIELDS if mode in f.sizing)
                | ({"owned"} if mode == "capex_budget" else set()) for mode in SIZING_INPUTS}


def pool_servers(mode: str, limit, inputs: Mapping[str, np.ndarray], weights,
                 fleet_tokens_per_s_per_device=None) -> np.ndarray:
    """Whole servers per pool under sizing mode `mode`, per draw: shape (draws, pools).

    limit: the mode's input (`SIZING_INPUT`: kW of facility power, USD of capex budget, output
    tokens per day of demand), shape (draws,) or scalar. inputs: finance inputs with a leading draw
    axis: pool keys (draws, pools) (devices_per_server, tdp_w [W], power_limit_w [W], server_overhead_w [W], price_usd,
    server_price_usd [USD], owned [0/1]), plan keys (draws,) (pue, other_capex_fraction, the itemized
    capex, utilization [fraction]). weights: the pools' device_count read as a ratio (pools,).
    fleet_tokens_per_s_per_device (demand only, (draws,)): the fleet's output tokens/s per device
    with its pools in that ratio. NaN where the limit does not bound the fleet.
    """
    dps = np.asarray(inputs["devices_per_server"], float)
    column = lambda key: np.asarray(inputs[key], float).reshape(-1, 1)  # noqa: E731 - a plan key per draw
    if mode == "facility_power":
        nameplate = DEVICE_NAMEPLATE_W.numpy(lambda key: np.asarray(inputs[key] if key in inputs else OPTIONAL_INPUTS[key],
                                                                    float))
        cost_kw = (dps * nameplate + inputs["server_overhead_w"]) * column("pue") / 1000.0
        return servers_within(limit, cost_kw, dps[0], weights)
    if mode == "capex_budget":
        cost = inputs["owned"] * SERVER_CAPEX.numpy(  # pool keys (draws, pools), plan keys (draws, 1)
            lambda key: np.asarray(inputs[key], float) if key in POOL_INPUT_KEYS else column(key))
        return servers_within(limit, cost, dps[0], weights)
    if mode == "demand":
        return demand_servers(limit, fleet_tokens_per_s_per_device, inputs["utilization"], weights, dps)
    raise ValueError(f"sizing mode {mode!r} derives no device count")


def servers_within(limit, cost_per_server, devices_per_server, weights=None) -> np.ndarray:
    """Whole servers per pool (last axis) whose summed cost fits `limit`, the pools' device ratio kept as
    close as whole servers allow, per draw (the largest fleet of the form servers_i = floor(s x w_i / dps_i),
    s a scale). limit (draws,) in the cost's unit; cost_per_server (draws, pools); devices_per_server and
    weights (pools,).

    cost(s) = sum_i cost_per_server_i x floor(s x w_i / dps_i) rises in steps; the largest scale whose
    cost fits is at a step, and every step lies in [limit / rate, (limit + sum_i c_i) / rate] with
    rate = sum_i w_i c_i / dps_i (cost(s) is within sum_i c_i below s x rate). One pool: floor(limit / c).
    Each draw's candidate scales are padded to the longest draw's and masked. NaN where no pool costs
    anything (the limit does not bound the fleet).
    """
    c = np.atleast_2d(np.asarray(cost_per_server, float))
    limit = np.asarray(limit, float).reshape(-1, 1) * np.ones((c.shape[0], 1))
    dps = np.asarray(devices_per_server, float).reshape(-1)[-c.shape[1]:] * np.ones(c.shape[1])
    w = np.ones(c.shape[1]) if weights is None else np.asarray(weights, float)
    w = w / np.sum(w)
    rate = np.sum(w * c / dps, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        lo, hi = limit / rate, (limit + np.sum(c, axis=-1, keepdims=True)) / rate
    scales, valid = [lo], [np.isfinite(lo)]
    for wi, di in zip(w, dps):
        if wi <= 0:
            continue
        first, last = np.ceil(lo * wi / di), np.floor(hi * wi / di)
        count = np.clip(np.nan_to_num(last - first + 1, nan=0.0), 0, MAX_SCALE_CANDIDATES)
        k = np.arange(int(count.max()) if count.size else 0, dtype=float)
        scales.append(np.nan_to_num(first + k) * di / wi)
        valid.append(k < count)
    scale, feasible = np.concatenate(scales, axis=-1), np.concatenate(valid, axis=-1)
    servers = np.floor(scale[..., None] * w / dps + TOLERANCE)
    fits = feasible & (np.einsum("dkp,dp->dk", servers, c) <= limit * (1 + TOLERANCE))
    best = np.max(np.where(fits, scale, 0.0), axis=-1, keepdims=True)
    return np.where(rate > 0, np.floor(best * w / dps + TOLERANCE), np.nan)


def demand_servers(demand_tokens_per_day, fleet_tokens_per_s_per_device, utilization, weights, devices_per_server):
    """Servers per pool (last axis) serving the daily output-token demand, per draw: total devices =
    demand / (the fleet's tokens/s per device x utilization x 86400 s/day), each pool
    ceil(total x share / dps - 1e-9). NaN where the fleet serves nothing."""
    w = np.asarray(weights, float) / np.sum(weights)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        per_device_day = np.asarray(fleet_tokens_per_s_per_device, float) * np.asarray(utilization, float) * SECONDS_PER_DAY
        total = np.asarray(demand_tokens_per_day, float) / per_device_day
        servers = np.ceil(total[..., None] * w / np.asarray(devices_per_server, float) - TOLERANCE)
    return np.where(((per_device_day > 0) & np.isfinite(total))[..., None], servers, np.nan)
