"""Every finance metric of a plan at its operating point, in one vectorized pass (docs/model.md,
"Finance layer" and "Fleet plans").

`finance_metrics(x)` takes `FinanceInputs` (pool-scope arrays with a trailing pool axis, plan-scope
arrays of the leading variant shape) or one flat mapping of a one-pool plan, and returns a
`FinanceResult`: the plan's metrics, cost components and cash flows, with the per-pool quantities in
`.pools`. Each pool is packed, priced and powered on its own (whole servers of its device, its own
racks under its own cap, pools never share a rack); the plan sums its pools. Sensitivity, breakeven
and sizing call it with arrays of variants.
"""
from __future__ import annotations

import numpy as np

from . import cashflow, costs, packing, recovery
from .quantities import (
    COST_COMPONENTS, OPEX_PARTS, POOL_QUANTITIES, FinanceResult, PoolFinance, as_inputs,
)
from .quantities import DEVICE_ECONOMICS_KEYS  # noqa: F401  (re-exported for callers)

SUMMED = ("device_count", "servers", "racks", "hardware_capex_usd", "capex_usd", "it_avg_kw", "it_provisioned_kw",
          "energy_usd_per_year", "colocation_usd_per_year", "maintenance_usd_per_year", "software_usd_per_year",
          "rent_usd_per_year", "output_tokens_per_year", "input_tokens_per_year", "revenue_usd_per_year")


def finance_metrics(x, with_irr: bool = True) -> FinanceResult:
    """All finance metrics; NaN marks a value that does not exist (infeasible packing, never paid back).

    `with_irr=False` leaves "irr" NaN (a root search per row: the one costly metric) for callers
    that evaluate many variants of another metric.
    """
    a = as_inputs(x)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # NaN in, NaN out: by design
        plan = {k: np.asarray(a[k], float)[..., None] for k in ("other_capex_fraction", "pue", "electricity_usd_per_kwh",
                                                              "colocation_usd_per_kw_month", "maintenance_fraction_per_year",
                                                              "software_usd_per_device_year", "utilization",
                                                              "price_usd_per_million_input_tokens", "input_tokens",
                                                              "output_tokens")}
        pool = _pool_quantities(a, plan)
        out = _plan_totals(a, pool)
        out.update(_costs_and_returns(a, out, with_irr))
    return FinanceResult(**out, pools=PoolFinance(**{q.key: pool[q.key] for q in POOL_QUANTITIES}))


def _pool_quantities(a, p) -> dict[str, np.ndarray]:
    """Section 6 applied to each pool alone (arrays with the pool axis last)."""
    count, owned = a.device_count * np.ones_like(a.price_usd), a.owned
    servers = packing.servers_needed(count, a.devices_per_server)
    nameplate = packing.server_nameplate_w(a.devices_per_server, a.tdp_w, a.server_overhead_w)
    per_rack = packing.servers_per_rack(a.rack_power_cap_kw, nameplate, a.servers_per_rack_max)
    racks = packing.racks_needed(servers, per_rack)
    hardware = owned * costs.hardware_capex_usd(count, a.price_usd, servers, a.server_price_usd)
    buildable = np.isfinite(racks) & (count >= 1)
    avg_w = costs.device_avg_w(p["utilization"], a.power_w, a.idle_w)
    avg_kw = costs.it_avg_kw(count, avg_w, servers, a.server_overhead_w)
    prov_kw = costs.it_provisioned_kw(servers, nameplate)
    out_tok = costs.output_tokens_per_year(a.tokens_per_s_per_device, count, p["utilization"])
    in_tok = costs.input_tokens_per_year(out_tok, p["input_tokens"], p["output_tokens"])
    return {
        "device_count": count, "servers": servers, "server_nameplate_w": nameplate, "servers_per_rack": per_rack,
        "racks": racks, "hardware_capex_usd": hardware,
        # a pool that cannot be racked (servers_per_rack = 0) or holds no device is infeasible: no capex,
        # hence the plan has no cost per token, NPV, IRR, payback or ROI (NaN, shown as n/a / "never")
        "capex_usd": np.where(buildable, costs.capex_usd(hardware, p["other_capex_fraction"]), np.nan),
        "device_avg_w": avg_w, "it_avg_kw": avg_kw, "it_provisioned_kw": prov_kw,
        "energy_usd_per_year": owned * costs.energy_usd_per_year(avg_kw, p["pue"], p["electricity_usd_per_kwh"]),
        "colocation_usd_per_year": owned * costs.colocation_usd_per_year(prov_kw, p["colocation_usd_per_kw_month"]),
        "maintenance_usd_per_year": costs.maintenance_usd_per_year(hardware, p["maintenance_fraction_per_year"]),
        "software_usd_per_year": costs.software_usd_per_year(count, p["software_usd_per_device_year"]),
        "rent_usd_per_year": (1.0 - owned) * costs.rent_usd_per_year(count, a.rent_usd_per_device_hour),
        "output_tokens_per_year": out_tok, "input_tokens_per_year": in_tok,
        "revenue_usd_per_year": (out_tok * a.price_usd_per_million_output_tokens / 1e6
                                 + in_tok * p["price_usd_per_million_input_tokens"] / 1e6),
    }


def _plan_totals(a, pool) -> dict[str, np.ndarray]:
    out = {key: np.sum(pool[key], axis=-1) for key in SUMMED}
    per_rack = pool["servers_per_rack"]
    same = np.all(per_rack == per_rack[..., :1], axis=-1)
    out["servers_per_rack"] = np.where(same, per_rack[..., 0], np.nan)
    out["staff_usd_per_year"] = np.asarray(a.staff_usd_per_year, float) * np.ones_like(out["servers"])
    out["opex_usd_per_year"] = sum(out[f"{part}_usd_per_year"] for part in OPEX_PARTS)
    return out


def _costs_and_returns(a, o, with_irr: bool) -> dict[str, np.ndarray]:
    crf = recovery.crf(a.discount_rate, a.years)
    capex_year = recovery.capex_usd_per_year(o["capex_usd"], a.residual_value_fraction, a.discount_rate, a.years)
    out_tok, in_tok = o["output_tokens_per_year"], o["input_tokens_per_year"]
    annual = capex_year + o["opex_usd_per_year"]
    revenue = o["revenue_usd_per_year"]
    result = {
        "capital_recovery_factor": crf * np.ones_like(annual),
        "capex_usd_per_year": capex_year,
        "cost_per_million_output_tokens_usd": costs.per_million(annual, out_tok),
        "cost_per_million_total_tokens_usd": costs.per_million(annual, out_tok + in_tok),
        "revenue_usd_per_rack_per_year": np.where(o["racks"] > 0, revenue / o["racks"], np.nan),
    }
    for part in COST_COMPONENTS:
        annual_part = capex_year if part == "capex" else o[f"{part}_usd_per_year"]
        result[f"cost_per_million_output_tokens_{part}_usd"] = costs.per_million(annual_part, out_tok)
    net = revenue - o["opex_usd_per_year"]
    flows = cashflow.cash_flows(o["capex_usd"], net, a.residual_value_fraction, a.years)
    result.update(
        net_usd_per_year=net, cash_flows_usd=flows,
        npv_usd=cashflow.npv_usd(a.discount_rate, flows),
        payback_months=cashflow.payback_months(flows),
        roi=cashflow.roi(flows, o["capex_usd"]),
        irr=cashflow.irr(flows) if with_irr else np.full(np.shape(o["capex_usd"]), np.nan),
    )
    return result
