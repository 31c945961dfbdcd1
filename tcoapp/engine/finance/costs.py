"""Capex and opex by component (docs/model.md section 3). Vectorized; every name carries its unit."""
from __future__ import annotations

import numpy as np

from ..quantities.constants import HOURS_PER_YEAR, SECONDS_PER_YEAR  # noqa: F401 (read through this module too)


def hardware_capex_usd(device_count, price_usd, servers, server_price_usd):
    """hardware_capex = device_count * price_usd + servers * server_price_usd  [USD]."""
    return np.asarray(device_count, float) * price_usd + np.asarray(servers, float) * server_price_usd


def capex_usd(hardware_capex, other_capex_fraction):
    """capex = hardware_capex * (1 + other_capex_fraction)  [USD] (networking, storage, install)."""
    return hardware_capex * (1.0 + np.asarray(other_capex_fraction, float))


def itemized_capex_usd(device_count, servers, network_usd_per_device, storage_usd_per_device,
                       installation_usd_per_server):
    """devices x (network + storage per device) + servers x installation per server  [USD] (bought pools)."""
    return (np.asarray(device_count, float) * (np.asarray(network_usd_per_device, float) + storage_usd_per_device)
            + np.asarray(servers, float) * installation_usd_per_server)


def server_capex_usd(devices_per_server, price_usd, server_price_usd, other_capex_fraction, network_usd_per_device=0.0,
                     storage_usd_per_device=0.0, installation_usd_per_server=0.0):
    """Capex of one whole server of a bought pool [USD] (budget sizing): its hardware x (1 + other) + itemized."""
    dps = np.asarray(devices_per_server, float)
    return ((dps * price_usd + server_price_usd) * (1.0 + np.asarray(other_capex_fraction, float))
            + itemized_capex_usd(dps, 1.0, network_usd_per_device, storage_usd_per_device, installation_usd_per_server))


def device_avg_w(utilization, power_w, idle_w):
    """Average device power over the year: utilization * power_w(B) + (1 - utilization) * idle_w  [W]."""
    return utilization * np.asarray(power_w, float) + (1.0 - np.asarray(utilization, float)) * idle_w


def it_avg_kw(device_count, avg_w, servers, server_overhead_w):
    """(device_count * device_avg_w + servers * server_overhead_w) / 1000  [kW]."""
    return (np.asarray(device_count, float) * avg_w + np.asarray(servers, float) * server_overhead_w) / 1000.0


def it_provisioned_kw(servers, nameplate_w):
    """servers * server_nameplate_w / 1000  [kW]."""
    return np.asarray(servers, float) * nameplate_w / 1000.0


def energy_usd_per_year(avg_kw, pue, electricity_usd_per_kwh):
    """it_avg_kw * pue * 8760 * electricity_usd_per_kwh  [USD/yr]."""
    return avg_kw * np.asarray(pue, float) * HOURS_PER_YEAR * electricity_usd_per_kwh


def colocation_usd_per_year(provisioned_kw, colocation_usd_per_kw_month):
    """it_provisioned_kw * colocation_usd_per_kw_month * 12  [USD/yr]."""
    return provisioned_kw * np.asarray(colocation_usd_per_kw_month, float) * 12.0


def held_capex_cost_usd(capex_held, fraction_per_year):
    """fraction_per_year x the capex of the bought tranches held  [USD/yr] (insurance, property tax).
    A fraction of 0 costs exactly 0, also where the capex does not exist (a pool that cannot be racked)."""
    fraction = np.asarray(fraction_per_year, float)
    with np.errstate(invalid="ignore"):
        return np.where(fraction > 0, np.asarray(capex_held, float) * fraction, 0.0)


def per_device_hour(usd_per_year, device_count):
    """USD/yr over device_count x 8760 h [USD/device/h]; NaN without a device."""
    count = np.asarray(device_count, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(count > 0, np.asarray(usd_per_year, float) / (count * HOURS_PER_YEAR), np.nan)


def maintenance_usd_per_year(hardware_capex, maintenance_fraction_per_year):
    """maintenance_fraction_per_year * hardware_capex  [USD/yr]."""
    return hardware_capex * np.asarray(maintenance_fraction_per_year, float)


def software_usd_per_year(device_count, software_usd_per_device_year):
    """software_usd_per_device_year * device_count  [USD/yr]."""
    return np.asarray(device_count, float) * software_usd_per_device_year


def output_tokens_per_year(tokens_per_s_per_device, device_count, utilization):
    """tokens_per_s_per_device * device_count * utilization * 8760 * 3600  [tokens/yr]."""
    return np.asarray(tokens_per_s_per_device, float) * device_count * utilization * SECONDS_PER_YEAR


def input_tokens_per_year(output_tokens, input_tokens, output_tokens_per_request):
    """output_tokens_per_year * input_tokens / output_tokens  [tokens/yr]."""
    return output_tokens * np.asarray(input_tokens, float) / np.asarray(output_tokens_per_request, float)


def input_price_usd_per_million(input_price, cached_input_price, prefix_cache_hit_rate):
    """The price an average input token pays [USD/Mtok]: (1 - h) x input price + h x cached input price, h the
    prefix-cache hit rate; the input price itself where the cached price is empty (NaN), so a plan without a
    cached price computes exactly as one priced by input tokens alone (docs/model.md, "Three token prices")."""
    price = np.asarray(input_price, float)
    cached = np.asarray(cached_input_price, float)
    hit = np.asarray(prefix_cache_hit_rate, float)
    return np.where(np.isnan(cached), price, (1.0 - hit) * price + hit * cached)


def per_million(usd_per_year, tokens_per_year):
    """USD per million tokens; NaN where no tokens are made (a cost per nothing does not exist)."""
    tokens = np.asarray(tokens_per_year, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.asarray(usd_per_year, float) / tokens * 1e6
    return np.where(tokens > 0, value, np.nan)


def rent_usd_per_year(device_count, rent_usd_per_device_hour):
    """Reserved rent: device_count * rent_usd_per_device_hour * 8760  [USD/yr]."""
    return np.asarray(device_count, float) * rent_usd_per_device_hour * HOURS_PER_YEAR
