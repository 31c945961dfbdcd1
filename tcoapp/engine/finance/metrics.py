"""Every finance metric of a plan at its operating point, in one vectorized pass (DESIGN section 6).

`finance_metrics(x)` takes a mapping of named inputs (scalars or broadcastable numpy arrays) and
returns a dict of arrays keyed by the metric names of DESIGN section 7, plus the cost components
and the cash flows. Sensitivity, breakeven and sizing call it with arrays of variants.

Inputs (FINANCE_INPUT_KEYS): the plan's finance keys, the device's economics (price_usd,
devices_per_server, server_price_usd, tdp_w, idle_w, server_overhead_w), the workload lengths and
the operating point (tokens_per_s_per_device, power_w) and the effective output price.
"""
from __future__ import annotations

from typing import Mapping

import numpy as np

from . import cashflow, costs, packing, recovery

DEVICE_ECONOMICS_KEYS = (
    "price_usd", "devices_per_server", "server_price_usd", "tdp_w", "idle_w", "server_overhead_w",
)
FINANCE_INPUT_KEYS = DEVICE_ECONOMICS_KEYS + (
    "device_count", "rack_power_cap_kw", "servers_per_rack_max", "other_capex_fraction", "pue",
    "electricity_usd_per_kwh", "colocation_usd_per_kw_month", "maintenance_fraction_per_year",
    "software_usd_per_device_year", "staff_usd_per_year", "utilization", "years", "discount_rate",
    "residual_value_fraction", "price_usd_per_million_output_tokens",
    "price_usd_per_million_input_tokens", "input_tokens", "output_tokens",
    "tokens_per_s_per_device", "power_w",
)

COST_COMPONENTS = ("capex", "energy", "colocation", "maintenance", "software", "staff")


def finance_metrics(x: Mapping[str, object], with_irr: bool = True) -> dict[str, np.ndarray]:
    """All finance metrics; NaN marks a value that does not exist (infeasible packing, never paid back).

    `with_irr=False` leaves out "irr" (a root search per row: the one costly metric) for callers
    that evaluate many variants of another metric.
    """
    missing = [k for k in FINANCE_INPUT_KEYS if k not in x]
    if missing:
        raise KeyError(f"finance inputs missing: {', '.join(missing)}")
    a = {k: np.asarray(x[k], float) for k in FINANCE_INPUT_KEYS}
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # NaN in, NaN out: by design
        out = _hardware(a)
        out.update(_opex(a, out))
        out.update(_tokens_and_costs(a, out))
        out.update(_returns(a, out, with_irr))
    return out


def _hardware(a) -> dict[str, np.ndarray]:
    servers = packing.servers_needed(a["device_count"], a["devices_per_server"])
    nameplate = packing.server_nameplate_w(a["devices_per_server"], a["tdp_w"], a["server_overhead_w"])
    per_rack = packing.servers_per_rack(a["rack_power_cap_kw"], nameplate, a["servers_per_rack_max"])
    racks = packing.racks_needed(servers, per_rack)
    hardware = costs.hardware_capex_usd(a["device_count"], a["price_usd"], servers, a["server_price_usd"])
    buildable = np.isfinite(racks) & (a["device_count"] >= 1)
    return {
        "device_count": a["device_count"] * np.ones_like(servers),
        "servers": servers,
        "server_nameplate_w": nameplate,
        "servers_per_rack": per_rack,
        "racks": racks,
        "hardware_capex_usd": hardware,
        # a plan that cannot be racked (servers_per_rack = 0) or buys no device is infeasible:
        # no capex, hence no cost per token, NPV, IRR, payback or ROI (NaN, shown as null / "never")
        "capex_usd": np.where(buildable, costs.capex_usd(hardware, a["other_capex_fraction"]), np.nan),
    }


def _opex(a, h) -> dict[str, np.ndarray]:
    avg_w = costs.device_avg_w(a["utilization"], a["power_w"], a["idle_w"])
    avg_kw = costs.it_avg_kw(a["device_count"], avg_w, h["servers"], a["server_overhead_w"])
    prov_kw = costs.it_provisioned_kw(h["servers"], h["server_nameplate_w"])
    energy = costs.energy_usd_per_year(avg_kw, a["pue"], a["electricity_usd_per_kwh"])
    coloc = costs.colocation_usd_per_year(prov_kw, a["colocation_usd_per_kw_month"])
    maint = costs.maintenance_usd_per_year(h["hardware_capex_usd"], a["maintenance_fraction_per_year"])
    software = costs.software_usd_per_year(a["device_count"], a["software_usd_per_device_year"])
    staff = a["staff_usd_per_year"] * np.ones_like(energy)
    return {
        "device_avg_w": avg_w,
        "it_avg_kw": avg_kw,
        "it_provisioned_kw": prov_kw,
        "energy_usd_per_year": energy,
        "colocation_usd_per_year": coloc,
        "maintenance_usd_per_year": maint,
        "software_usd_per_year": software,
        "staff_usd_per_year": staff,
        "opex_usd_per_year": energy + coloc + maint + software + staff,
    }


def _tokens_and_costs(a, o) -> dict[str, np.ndarray]:
    out_tok = costs.output_tokens_per_year(a["tokens_per_s_per_device"], a["device_count"], a["utilization"])
    in_tok = costs.input_tokens_per_year(out_tok, a["input_tokens"], a["output_tokens"])
    capex_year = recovery.capex_usd_per_year(o["capex_usd"], a["residual_value_fraction"], a["discount_rate"], a["years"])
    annual = capex_year + o["opex_usd_per_year"]
    revenue = out_tok * a["price_usd_per_million_output_tokens"] / 1e6 + in_tok * a["price_usd_per_million_input_tokens"] / 1e6
    with np.errstate(divide="ignore", invalid="ignore"):
        per_rack = np.where(o["racks"] > 0, revenue / o["racks"], np.nan)
    result = {
        "output_tokens_per_year": out_tok,
        "input_tokens_per_year": in_tok,
        "capex_usd_per_year": capex_year,
        "cost_per_million_output_tokens_usd": costs.per_million(annual, out_tok),
        "cost_per_million_total_tokens_usd": costs.per_million(annual, out_tok + in_tok),
        "revenue_usd_per_year": revenue,
        "revenue_usd_per_rack_per_year": per_rack,
    }
    for part in COST_COMPONENTS:
        annual_part = capex_year if part == "capex" else o[f"{part}_usd_per_year"]
        result[f"cost_per_million_output_tokens_{part}_usd"] = costs.per_million(annual_part, out_tok)
    return result


def _returns(a, o, with_irr: bool) -> dict[str, np.ndarray]:
    net = o["revenue_usd_per_year"] - o["opex_usd_per_year"]
    flows = cashflow.cash_flows(o["capex_usd"], net, a["residual_value_fraction"], a["years"])
    out = {
        "net_usd_per_year": net,
        "cash_flows_usd": flows,
        "npv_usd": cashflow.npv_usd(a["discount_rate"], flows),
        "payback_months": cashflow.payback_months(flows),
        "roi": cashflow.roi(flows, o["capex_usd"]),
    }
    if with_irr:
        out["irr"] = cashflow.irr(flows)
    return out
