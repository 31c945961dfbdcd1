"""Checks of the Uncertainty rows against the scenario (plan names, repeated rows, device rows)."""
from __future__ import annotations

from ..core.errors import Problem
from .fields import ALL_PLANS
from .inputs import DEVICE_PREFIX, make_uncertain_input


def uncertainty_problems(scenario) -> list[Problem]:
    """Every row is valid and names an existing plan (or `*`), no (plan, key) comes twice, and a `*`
    row of a device field has every plan on one device: one validation, when a workbook is read
    (`tcoapp compute`), before a simulation and at every GUI edit of the rows or of a plan's device."""
    problems: list[Problem] = []
    names = [p.name for p in scenario.plans]
    seen: dict[tuple[str, str], str] = {}
    for row in scenario.uncertainty:
        make_uncertain_input(row.as_row(), row.where, problems)  # rows built in code are checked too
        if row.plan != ALL_PLANS and row.plan not in names:
            problems.append(Problem(row.where("plan"), "plan", f"= {row.plan!r}: no plan of that name on Plans "
                                                               f"(plans: {', '.join(names) or 'none'}; or * for every plan)"))
        if (row.plan, row.key) in seen:
            problems.append(Problem(row.where("key"), "key", f"= {row.key!r}: plan {row.plan!r} already has a row for "
                                                             f"this key ({seen[(row.plan, row.key)]})"))
        seen.setdefault((row.plan, row.key), row.where("key"))
    return problems + star_device_problems(scenario)


def star_device_problems(scenario) -> list[Problem]:
    """A `*` row of a device field needs every plan on one device (a device's price is not another
    device's)."""
    problems: list[Problem] = []
    for row in scenario.uncertainty:
        if row.plan == ALL_PLANS and row.key.startswith(DEVICE_PREFIX):
            devices = sorted({p.device for p in scenario.plans})
            if len(devices) > 1:
                problems.append(Problem(row.where("plan"), "plan", f"= '*' with {row.key!r}: the plans run different "
                                                                   f"devices ({', '.join(devices)}): give one row per plan"))
    return problems
