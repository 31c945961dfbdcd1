"""Normalization: re-size every plan to the same facility power, capex or token demand, so plans
compare iso-power, iso-budget or iso-demand (docs/model.md section 3 sizing modes).

The common value defaults to the reference plan's own figure as entered (facility power =
provisioned IT kW x PUE; capex; output tokens per day), so the reference plan keeps its size.
"""
from __future__ import annotations

from ..finance.costs import HOURS_PER_YEAR
from ..plan.scenario import Scenario

DAYS_PER_YEAR = HOURS_PER_YEAR / 24.0

NORMALIZATIONS: dict[str, tuple[str, str] | None] = {
    "as_entered": None,
    "iso_power": ("facility_power", "facility_power_kw"),
    "iso_budget": ("capex_budget", "capex_budget_usd"),
    "iso_demand": ("demand", "demand_tokens_per_day"),
}
LABELS = {"as_entered": "As entered", "iso_power": "Iso-power", "iso_budget": "Iso-budget", "iso_demand": "Iso-demand"}


def reference_value(scenario: Scenario, mode: str, reference_index: int = 0) -> float:
    """The reference plan's facility power [kW], capex [USD] or output demand [tokens/day], as entered."""
    from .compute import compute_plan   # the modes above are read by views built before anything computes
    plan = scenario.plans[reference_index]
    m = compute_plan(scenario, plan).metrics
    if mode == "iso_power":
        return m.it_provisioned_kw * plan.pue
    if mode == "iso_budget":
        return m.capex_usd
    if mode == "iso_demand":
        return m.output_tokens_per_year / DAYS_PER_YEAR
    raise ValueError(f"normalization {mode!r}: must be one of {', '.join(NORMALIZATIONS)}")


def normalize(scenario: Scenario, mode: str, value: float | None = None, reference_index: int = 0) -> Scenario:
    """Every plan sized by the same facility power / capex budget / demand (None: the reference plan's)."""
    if mode not in NORMALIZATIONS:
        raise ValueError(f"normalization {mode!r}: must be one of {', '.join(NORMALIZATIONS)}")
    normalization = NORMALIZATIONS[mode]
    if normalization is None or not scenario.plans:
        return scenario
    sizing_mode, key = normalization
    if value is None:
        value = reference_value(scenario, mode, reference_index)
    if not value > 0:
        raise ValueError(f"cannot normalize {LABELS[mode].lower()}: the reference plan's value is {value!r}")
    return scenario.with_plans(p.with_(sizing_mode=sizing_mode, **{key: float(value)}) for p in scenario.plans)
