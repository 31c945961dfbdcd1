"""Sizing modes: derive the device count (whole servers) so plans compare iso-power, iso-budget
or iso-demand (docs/model.md section 3). Vectorized; 0 devices means the input buys not one server.
"""
from __future__ import annotations

import numpy as np

SECONDS_PER_DAY = 86400.0


def devices_for_facility_power(facility_power_kw, pue, devices_per_server, tdp_w, server_overhead_w):
    """Whole servers whose nameplate IT power x PUE fits the facility power, in devices."""
    nameplate_w = np.asarray(devices_per_server, float) * tdp_w + server_overhead_w
    servers = np.floor(np.asarray(facility_power_kw, float) * 1000.0 / (nameplate_w * pue) + 1e-9)
    return servers * devices_per_server


def devices_for_budget(capex_budget_usd, other_capex_fraction, devices_per_server, price_usd, server_price_usd):
    """Whole servers whose capex (hardware x (1 + other)) fits the budget, in devices."""
    server_capex = (np.asarray(devices_per_server, float) * price_usd + server_price_usd) * (1.0 + np.asarray(other_capex_fraction, float))
    servers = np.floor(np.asarray(capex_budget_usd, float) / server_capex + 1e-9)
    return servers * devices_per_server


def devices_for_demand(demand_tokens_per_day, tokens_per_s_per_device, utilization, devices_per_server):
    """Whole servers that serve the daily output-token demand at the operating point, in devices.

    Capacity per device = tokens_per_s_per_device x utilization x 86400 tokens/day.
    """
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        per_device_day = np.asarray(tokens_per_s_per_device, float) * utilization * SECONDS_PER_DAY
        devices = np.asarray(demand_tokens_per_day, float) / per_device_day
        servers = np.ceil(devices / devices_per_server - 1e-9)
    return np.where(per_device_day > 0, servers * devices_per_server, np.nan)


MAX_SCALE_CANDIDATES = 1_000_000


def pool_servers_within(limit, weights, devices_per_server, cost_per_server):
    """Whole servers per pool whose summed cost fits `limit`, the pools' device ratio kept as close as
    whole servers allow (the largest fleet of the form servers_i = floor(s x w_i / dps_i), s a scale).

    cost(s) = sum_i cost_per_server_i x floor(s x w_i / dps_i) rises in steps; the largest scale whose
    cost fits is at a step, and every step lies in [limit / rate, (limit + sum_i c_i) / rate] with
    rate = sum_i w_i c_i / dps_i (cost(s) is within sum_i c_i below s x rate). One pool: floor(limit / c).
    None where no pool costs anything (the limit does not bound the fleet).
    """
    w = np.asarray(weights, float) / np.sum(weights)
    dps, c = np.asarray(devices_per_server, float), np.asarray(cost_per_server, float)
    rate = float(np.sum(w * c / dps))
    if not rate > 0:
        return None
    lo, hi = float(limit) / rate, (float(limit) + float(np.sum(c))) / rate
    candidates = [np.array([lo])]
    for wi, di in zip(w, dps):
        if wi <= 0:
            continue
        first, last = np.ceil(lo * wi / di), np.floor(hi * wi / di)
        count = min(max(last - first + 1, 0), MAX_SCALE_CANDIDATES)
        candidates.append((first + np.arange(count)) * di / wi)
    scales = np.concatenate(candidates)
    servers = np.floor(scales[:, None] * w / dps + 1e-9)
    fits = servers @ c <= float(limit) * (1 + 1e-9)
    best = scales[fits].max() if fits.any() else 0.0
    return np.floor(best * w / dps + 1e-9)


def pool_servers_for_devices(total_devices, weights, devices_per_server):
    """Whole servers per pool holding at least `total_devices` x w_i devices each (demand sizing)."""
    w = np.asarray(weights, float) / np.sum(weights)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.ceil(float(total_devices) * w / np.asarray(devices_per_server, float) - 1e-9)
