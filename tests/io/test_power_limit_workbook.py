"""A user device held below its TDP (`power_limit_w`) in a workbook: the Devices sheet keeps it through a
save and a read, and LibreOffice recalculates the plan's nameplate, rack fit and finance as the engine."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.load import load_scenario
from tcoapp.io.workbook_write import write_scenario

sys.path.insert(0, str(Path(__file__).resolve().parent))


def capped_scenario():
    """The default scenario with its MI355X plan on 'MI355X-1000W', the catalog MI355X held to 1,000 W."""
    scenario = default_scenario()
    plan = next(p for p in scenario.plans if p.device == "MI355X")
    capped = replace(scenario.device(plan.device), name="MI355X-1000W", power_limit_w=1000.0)
    scenario = replace(scenario, devices={**scenario.devices, capped.name: capped})
    return scenario.with_plan(plan.name, device=capped.name), plan.name


def test_the_limit_survives_a_save_and_a_read_and_lowers_the_nameplate(tmp_path):
    scenario, name = capped_scenario()
    results = compute_scenario(scenario)
    path = tmp_path / "capped.xlsx"
    write_scenario(scenario, path, results)
    back = load_scenario(str(path))
    assert back.device("MI355X-1000W").power_limit_w == 1000.0
    assert back.device("MI355X").power_limit_w == 0.0
    result = next(r for p, r in zip(scenario.plans, results) if p.name == name)
    pool = result.finance.pools
    assert float(pool.server_nameplate_w[0]) == 8 * 1000.0 + scenario.device("MI355X-1000W").server_overhead_w


@pytest.mark.libreoffice
@pytest.mark.slow
def test_a_capped_plan_recalculates_in_libreoffice_as_the_engine(tmp_path):
    from workbook_recalc import SOFFICE, compare, recalc
    if SOFFICE is None:
        pytest.skip("LibreOffice Calc (soffice) is not installed")
    scenario, _ = capped_scenario()
    results = compute_scenario(scenario)
    path = tmp_path / "capped.xlsx"
    write_scenario(scenario, path, results)
    (out,) = recalc([path], tmp_path / "recalculated")
    assert compare(out, scenario, results) == []
