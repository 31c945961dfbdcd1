"""Open a scenario: a workbook path, or the built-in default."""
from __future__ import annotations

from ..engine.plan.scenario import Scenario
from .default_scenario import default_scenario
from .workbook_read import read_scenario


def load_scenario(path=None) -> Scenario:
    return default_scenario() if path is None else read_scenario(path)
