"""Store calibrated factors for one device on a workbook's Calibration sheet (its device column),
through the atomic save: `tcoapp calibrate BOOK.xlsx --curve NAME --write`."""
from __future__ import annotations

from dataclasses import replace

from ..engine.performance.factors import EfficiencyFactors
from ..engine.scenario import Scenario
from .workbook_write import write_scenario


def with_device_factors(scenario: Scenario, device: str, factors: EfficiencyFactors) -> Scenario:
    merged = dict(scenario.device_factors)
    merged[device] = factors
    return replace(scenario, device_factors=merged)


def write_device_factors(scenario: Scenario, book, device: str, factors: EfficiencyFactors) -> Scenario:
    """The scenario with `factors` for plans on `device`, written to `book` (atomically)."""
    updated = with_device_factors(scenario, device, factors)
    write_scenario(updated, book)
    return updated
