"""The sizing modes over a draw axis: `engine/finance/sizing.py`'s whole-server rules for every draw
at once, exactly the deterministic rule: facility power and capex budget keep the pools' ratio as close
as whole servers allow (`pool_servers_within`: the largest candidate scale whose cost fits; a draw's
candidates are padded and masked), demand rounds every pool up.
"""
from __future__ import annotations

import numpy as np

from ..finance import sizing
from ..finance.costs import server_capex_usd

TOLERANCE = 1e-9


def servers_within(limit, cost_per_server, devices_per_server, weights=None) -> np.ndarray:
    """Whole servers per pool (last axis) whose summed cost fits `limit`, per draw: `pool_servers_within`
    for every draw at once. limit (draws,); cost_per_server (draws, pools); devices_per_server and
    weights (pools,). The candidate scales of each draw are padded to the longest draw's and masked.
    NaN where no pool costs anything (the limit does not bound the fleet)."""
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
        count = np.clip(np.nan_to_num(last - first + 1, nan=0.0), 0, sizing.MAX_SCALE_CANDIDATES)
        k = np.arange(int(count.max()) if count.size else 0, dtype=float)
        scales.append(np.nan_to_num(first + k) * di / wi)
        valid.append(k < count)
    scales, valid = np.concatenate(scales, axis=-1), np.concatenate(valid, axis=-1)
    servers = np.floor(scales[..., None] * w / dps + TOLERANCE)
    fits = valid & (np.einsum("dkp,dp->dk", servers, c) <= limit * (1 + TOLERANCE))
    best = np.max(np.where(fits, scales, 0.0), axis=-1, keepdims=True)
    return np.where(rate > 0, np.floor(best * w / dps + TOLERANCE), np.nan)


def facility_servers(facility_power_kw, pue, devices_per_server, tdp_w, server_overhead_w, weights):
    """Servers per pool at nameplate x PUE within the facility power (arrays (draws, pools))."""
    cost_kw = (devices_per_server * np.asarray(tdp_w, float) + server_overhead_w) * pue / 1000.0
    return servers_within(facility_power_kw, cost_kw, devices_per_server[0], weights)


def budget_servers(capex_budget_usd, other_capex_fraction, devices_per_server, price_usd, server_price_usd, owned, weights,
                   itemized=(0.0, 0.0, 0.0)):
    """Servers per pool whose capex (bought pools) fits the budget (arrays (draws, pools)); `itemized`: network
    and storage per device, installation per server."""
    cost = owned * server_capex_usd(devices_per_server, np.asarray(price_usd, float), server_price_usd,
                                    other_capex_fraction, *itemized)
    return servers_within(capex_budget_usd, cost, devices_per_server[0], weights)


def demand_servers(demand_tokens_per_day, tokens_per_s_per_device, utilization, weights, devices_per_server):
    """Servers per pool (last axis) serving the demand: total devices = demand / (tokens/s per device
    of the fleet at its shares x utilization x 86400), each pool ceil(total x share / dps - 1e-9)."""
    w = np.asarray(weights, float) / np.sum(weights)
    per_device = np.sum(np.asarray(tokens_per_s_per_device, float) * w, axis=-1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        per_device_day = per_device * np.asarray(utilization, float) * sizing.SECONDS_PER_DAY
        total = np.asarray(demand_tokens_per_day, float) / per_device_day
        servers = np.ceil(total[..., None] * w / np.asarray(devices_per_server, float) - TOLERANCE)
    return np.where((per_device_day > 0)[..., None], servers, np.nan)
