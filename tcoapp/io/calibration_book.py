"""Store calibrated factors for one calibration scope (device x model class x serving stack, see
engine/plan/calibration_scope.py) on a workbook's Calibration sheet, with what they were fitted on and
how well, through the atomic save: `tcoapp calibrate BOOK.xlsx --curve NAME --write`."""
from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from ..engine.performance.factors import EfficiencyFactors
from ..engine.plan.scenario import Scenario
from .workbook_write import write_scenario


def with_scope_factors(scenario: Scenario, scope: str, factors: EfficiencyFactors,
                       quality: Mapping[str, object] | None = None) -> Scenario:
    """The scenario with `factors` (and their fit quality) for plans in `scope` (a scope key)."""
    merged = dict(scenario.device_factors)
    merged[scope] = factors
    qualities = {k: v for k, v in scenario.calibration_quality.items() if k != scope}
    if quality:
        qualities[scope] = dict(quality)
    return replace(scenario, device_factors=merged, calibration_quality=qualities)


def with_device_factors(scenario: Scenario, device: str, factors: EfficiencyFactors) -> Scenario:
    """The scenario with `factors` for every plan on `device` (the whole-device scope)."""
    return with_scope_factors(scenario, device, factors)


def write_scope_factors(scenario: Scenario, book, scope: str, factors: EfficiencyFactors,
                        quality: Mapping[str, object] | None = None) -> Scenario:
    """The scenario with `factors` for plans in `scope`, written to `book` (atomically)."""
    updated = with_scope_factors(scenario, scope, factors, quality)
    write_scenario(updated, book)
    return updated


def write_device_factors(scenario: Scenario, book, device: str, factors: EfficiencyFactors) -> Scenario:
    """The scenario with `factors` for plans on `device`, written to `book` (atomically)."""
    return write_scope_factors(scenario, book, device, factors)


def changed_plans(before: Scenario, after: Scenario) -> list[str]:
    """Names of the plans whose numbers differ between the two scenarios (computed in full)."""
    import json

    from ..engine.pipeline.compute import compute_scenario
    text = lambda r: json.dumps(r.as_json(), sort_keys=True, default=str)  # noqa: E731 - NaN as NaN, equal
    old = {r.name: text(r) for r in compute_scenario(before)}
    return [r.name for r in compute_scenario(after) if text(r) != old.get(r.name)]
