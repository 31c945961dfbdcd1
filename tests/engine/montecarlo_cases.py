"""Scenarios for the Monte Carlo tests: the default scenario with Uncertainty rows."""
from dataclasses import replace

from tcoapp.engine.uncertainty.inputs import UncertainInput
from tcoapp.io.default_scenario import default_scenario


def row(plan, key, distribution, **params) -> UncertainInput:
    return UncertainInput(plan, key, distribution, **params)


def scenario_with(*rows, plans=None):
    base = default_scenario()
    if plans is not None:
        base = base.with_plans(plans)
    return replace(base, uncertainty=tuple(rows))


def fixed_batch_plan(**changes):
    """The default B200 plan at a fixed batch of 64 and 64 devices (no target, no sizing)."""
    plan = default_scenario().plans[2]
    return plan.with_(min_tokens_per_s_per_user=None, batch=64, sizing_mode="devices", device_count=64,
                      price_usd_per_million_input_tokens=0.0, **changes)
