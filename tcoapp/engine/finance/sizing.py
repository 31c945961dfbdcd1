"""Sizing modes: derive the device count (whole servers) so plans compare iso-power, iso-budget
or iso-demand (DESIGN section 6). Vectorized; 0 devices means the input buys not one server.
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
