"""The KV-cache tiers a plan buys (docs/model.md, "Agentic sessions and KV tiers"): extra host memory and
NVMe per server, priced into the server, and the tiers one device of a server sees.

    server_price = catalog server_price_usd + extra_host_memory_gb x host_memory_price_usd_per_gb
                   + extra_nvme_tb x nvme_price_usd_per_tb                                    [USD/server]

The extra price is hardware of every bought server, so it enters capex exactly as the server price does:
x (1 + other_capex_fraction), at the price index of the purchase year, in maintenance, insurance and
property tax (fractions of capex), depreciation, the residual value and the NPV. A plan that buys no
extra memory keeps the catalog's server untouched.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..quantities.records import Device, Plan


def extra_tier_usd_per_server(plan: Plan) -> float:
    """extra_host_memory_gb x host_memory_price_usd_per_gb + extra_nvme_tb x nvme_price_usd_per_tb [USD/server]
    (a price left empty where nothing extra is bought counts 0; where something is, the plan's checks refuse it)."""
    host = plan.extra_host_memory_gb * (plan.host_memory_price_usd_per_gb or 0.0)
    nvme = plan.extra_nvme_tb * (plan.nvme_price_usd_per_tb or 0.0)
    return float(host + nvme)


def server_with_kv_tiers(device: Device, plan: Plan) -> Device:
    """The device as the plan buys its servers: the extra host memory and NVMe added to the server's
    memory and price (the device itself where the plan buys nothing extra)."""
    if plan.extra_host_memory_gb == 0 and plan.extra_nvme_tb == 0:
        return device
    return device.with_(server_price_usd=device.server_price_usd + extra_tier_usd_per_server(plan),
                        host_memory_gb=device.host_memory_gb + plan.extra_host_memory_gb,
                        nvme_tb=device.nvme_tb + plan.extra_nvme_tb)


@dataclass(frozen=True)
class DeviceTiers:
    """The KV tiers beyond HBM one device of a server sees: its share of the server's host memory (GB)
    and NVMe (GB), its own host link (GB/s) and its share of the NVMe read bandwidth (GB/s)."""

    host_gb: float
    host_link_gb_s: float
    nvme_gb: float
    nvme_gb_s: float


def device_tiers(server: Device) -> DeviceTiers:
    """Per device: host memory / devices_per_server, the host link, NVMe x 1000 / devices_per_server and
    the NVMe bandwidth / devices_per_server (`server`: a device with the plan's extras, server_with_kv_tiers)."""
    per = float(server.devices_per_server)
    return DeviceTiers(server.host_memory_gb / per, server.host_link_gb_s, server.nvme_tb * 1000.0 / per,
                       server.nvme_gb_s / per)
