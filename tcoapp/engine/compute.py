"""Compute a scenario: operating point, sizing and finance for every plan (the one orchestrator
the CLI, the GUI and the workbook export all call)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .economics import plan_device_economics
from .finance import sizing
from .finance.metrics import finance_metrics
from .metric_table import METRICS
from .operating import operating_point
from .performance.curve import OperatingPoint
from .records import Plan
from .scenario import Scenario

METRIC_KEYS = tuple(metric.key for metric in METRICS)  # DESIGN section 7, in the metric table's order
PERFORMANCE_KEYS = ("batch", "tokens_per_s_per_device", "tokens_per_s_per_user", "ttft_s", "power_w",
                    "tokens_per_joule", "max_batch_by_memory")  # from the operating point
FINANCE_KEYS = tuple(key for key in METRIC_KEYS if key not in PERFORMANCE_KEYS)  # from the finance layer


@dataclass(frozen=True)
class PlanResult:
    name: str
    point: OperatingPoint
    metrics: dict[str, float]          # METRIC_KEYS; NaN = does not exist
    details: dict[str, Any]            # cost components, cash flows, effective prices, inputs
    warnings: tuple[str, ...] = field(default=())

    def metric_or_none(self, key: str) -> float | None:
        value = self.metrics[key]
        return None if value is None or not np.isfinite(value) else float(value)

    def as_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"name": self.name}
        data.update({key: self.metric_or_none(key) for key in METRIC_KEYS})
        data["curve_source"] = self.point.source
        data["extrapolated"] = self.point.extrapolated
        data["queued"] = self.point.queued
        data["warnings"] = list(self.warnings)
        return data


def finance_inputs(plan: Plan, economics: dict[str, float], point: OperatingPoint, device_count: float,
                   output_price: float) -> dict[str, float]:
    """The finance layer's inputs for one plan (scalars)."""
    x = dict(economics)
    for key in ("rack_power_cap_kw", "servers_per_rack_max", "other_capex_fraction", "pue",
                "electricity_usd_per_kwh", "colocation_usd_per_kw_month", "maintenance_fraction_per_year",
                "software_usd_per_device_year", "staff_usd_per_year", "utilization", "years",
                "discount_rate", "residual_value_fraction", "price_usd_per_million_input_tokens",
                "input_tokens", "output_tokens"):
        x[key] = float(getattr(plan, key))
    x.update(device_count=float(device_count), tokens_per_s_per_device=point.tokens_per_s_per_device,
             power_w=point.power_w, price_usd_per_million_output_tokens=output_price)
    return x


def sized_device_count(plan: Plan, economics: dict[str, float], point: OperatingPoint) -> float:
    """device_count from the plan's sizing mode (whole servers)."""
    mode, dps = plan.sizing_mode, economics["devices_per_server"]
    if mode == "devices":
        return float(plan.device_count)
    if mode == "facility_power":
        return float(sizing.devices_for_facility_power(plan.facility_power_kw, plan.pue, dps,
                                                       economics["tdp_w"], economics["server_overhead_w"]))
    if mode == "capex_budget":
        return float(sizing.devices_for_budget(plan.capex_budget_usd, plan.other_capex_fraction, dps,
                                               economics["price_usd"], economics["server_price_usd"]))
    return float(sizing.devices_for_demand(plan.demand_tokens_per_day, point.tokens_per_s_per_device,
                                           plan.utilization, dps))


def output_price(scenario: Scenario, plan: Plan, point: OperatingPoint) -> tuple[float, tuple[str, ...]]:
    """The output price revenue uses: the plan's, or the tier its interactivity reaches. Below the
    slowest tier the plan sells no output tokens (price 0, said in a warning); input tokens still pay."""
    if not plan.price_tiers:
        return plan.price_usd_per_million_output_tokens, ()
    tiers = scenario.price_tiers[plan.price_tiers]
    if not np.isfinite(point.tokens_per_s_per_user):
        return float("nan"), ()
    price = tiers.price_at(point.tokens_per_s_per_user)
    if not np.isfinite(price):
        return 0.0, (f"{point.tokens_per_s_per_user:.3g} tokens/s per user is below every tier of price table "
                     f"{tiers.name!r} (slowest from {min(tiers.min_tokens_per_s_per_user):g}): no output revenue",)
    return price, ()


def curve_device_notes(scenario: Scenario, plan: Plan) -> tuple[str, ...]:
    """A measured curve recorded on another device or model than the plan's is used, and said."""
    if not plan.curve:
        return ()
    curve = scenario.curves[plan.curve]
    notes = []
    for what, recorded, planned in (("device", curve.device, plan.device), ("model", curve.model, plan.model)):
        if recorded and recorded != planned:
            notes.append(f"curve {curve.name!r} was measured on {what} {recorded!r}, the plan uses {planned!r}: "
                         f"its throughput is applied to the plan's {what}")
    return tuple(notes)


def compute_plan(scenario: Scenario, plan: Plan) -> PlanResult:
    point, prefill_share = operating_point(scenario, plan)
    economics, notes = plan_device_economics(scenario, plan, prefill_share)
    warnings = list(point.warnings) + list(notes) + list(curve_device_notes(scenario, plan))
    count = sized_device_count(plan, economics, point)
    if not (count >= 1):
        warnings.append(f"sizing mode {plan.sizing_mode!r} buys no whole server")
    price, price_notes = output_price(scenario, plan, point)
    warnings.extend(price_notes)
    x = finance_inputs(plan, economics, point, count, price)
    out = finance_metrics(x)
    if not np.isfinite(out["racks"]):
        warnings.append(f"a server draws {out['server_nameplate_w'] / 1000:.3g} kW at nameplate, more than the "
                        f"rack power cap of {plan.rack_power_cap_kw:g} kW: the plan cannot be racked")
    metrics = {key: float(out[key]) for key in FINANCE_KEYS}
    metrics.update(batch=point.batch, tokens_per_s_per_device=point.tokens_per_s_per_device,
                   tokens_per_s_per_user=point.tokens_per_s_per_user, ttft_s=point.ttft_s,
                   power_w=point.power_w, tokens_per_joule=point.tokens_per_joule,
                   max_batch_by_memory=point.max_batch_by_memory)
    details = {key: np.asarray(value) for key, value in out.items()}
    details["inputs"] = x
    details["prefill_share"] = prefill_share
    return PlanResult(plan.name, point, {k: metrics[k] for k in METRIC_KEYS}, details, tuple(warnings))


def compute_scenario(scenario: Scenario) -> tuple[PlanResult, ...]:
    return tuple(compute_plan(scenario, plan) for plan in scenario.plans)
