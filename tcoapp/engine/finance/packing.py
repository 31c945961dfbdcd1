"""Rack packing under the rack power cap (docs/model.md section 3). Vectorized over numpy arrays."""
from __future__ import annotations

import numpy as np


def servers_needed(device_count, devices_per_server):
    """servers = ceil(device_count / devices_per_server)."""
    return np.ceil(np.asarray(device_count, float) / np.asarray(devices_per_server, float))


def server_nameplate_w(devices_per_server, tdp_w, server_overhead_w):
    """server_nameplate_w = devices_per_server * tdp_w + server_overhead_w  [W]."""
    return np.asarray(devices_per_server, float) * tdp_w + server_overhead_w


def servers_per_rack(rack_power_cap_kw, nameplate_w, servers_per_rack_max):
    """min(servers_per_rack_max, floor(rack_power_cap_kw * 1000 / server_nameplate_w)); 0 = does not fit."""
    by_power = np.floor(np.asarray(rack_power_cap_kw, float) * 1000.0 / nameplate_w)
    return np.minimum(np.asarray(servers_per_rack_max, float), by_power)


def racks_needed(servers, per_rack):
    """racks = ceil(servers / servers_per_rack); NaN where a server does not fit a rack (per_rack = 0)."""
    per_rack = np.asarray(per_rack, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        racks = np.ceil(np.asarray(servers, float) / per_rack)
    return np.where(per_rack > 0, racks, np.nan)
