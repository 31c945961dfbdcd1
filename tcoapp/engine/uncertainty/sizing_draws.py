"""The sizing modes over a draw axis: `engine/finance/sizing.py`'s whole-server rules, vectorized for
one pool (facility power, capex budget) and for serve pools (demand). Exactly the deterministic
rule: for one pool, `pool_servers_within` takes the largest whole-server count k among its candidate
scales whose cost k x c fits limit x (1 + 1e-9); the candidates are floor(limit / c + 1e-9) and the
whole counts between limit / c and limit / c + 1, so three candidates per draw decide it.
"""
from __future__ import annotations

import numpy as np

from ..finance import sizing

TOLERANCE = 1e-9


def servers_within(limit, cost_per_server, devices_per_server) -> np.ndarray:
    """Whole servers of one pool whose summed cost fits `limit`, per draw (NaN: the pool costs nothing)."""
    limit, c, dps = (np.asarray(v, float) for v in (limit, cost_per_server, devices_per_server))
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = c / dps
        lo, hi = limit / rate, (limit + c) / rate
    first, last = np.ceil(lo / dps), np.floor(hi / dps)
    best = np.zeros(np.broadcast(limit, c, dps).shape)
    for scale, allowed in ((lo, True), (first * dps, first <= last), ((first + 1.0) * dps, first + 1.0 <= last)):
        servers = np.floor(scale / dps + TOLERANCE)
        fits = allowed & (servers * c <= limit * (1 + TOLERANCE))
        best = np.where(fits & (scale > best), scale, best)
    return np.where(rate > 0, np.floor(best / dps + TOLERANCE), np.nan)


def facility_servers(facility_power_kw, pue, devices_per_server, tdp_w, server_overhead_w):
    cost_kw = (devices_per_server * np.asarray(tdp_w, float) + server_overhead_w) * pue / 1000.0
    return servers_within(facility_power_kw, cost_kw, devices_per_server)


def budget_servers(capex_budget_usd, other_capex_fraction, devices_per_server, price_usd, server_price_usd, owned):
    cost = owned * (devices_per_server * np.asarray(price_usd, float) + server_price_usd) * (1.0 + np.asarray(other_capex_fraction, float))
    return servers_within(capex_budget_usd, cost, devices_per_server)


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
