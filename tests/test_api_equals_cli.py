"""The notebook API gives the CLI's numbers: every number of `tcoapp compute --json` (plans and their
years) over every sample equals the API's frames; `Scenario.with_plan` validates as a workbook is read
(the same message for utilization = 1.7)."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import tcoapp
from tcoapp.cli import main
from tcoapp.engine.core.errors import ValidationError

from .io.broken.corpus import hand_made, plans_rows

HEAVY = {"moe_rack_scale", "hopper_to_blackwell_power_limited"}   # 10+ s each: searches over many layouts
SAMPLES = [pytest.param(p, marks=pytest.mark.slow) if p.stem in HEAVY else p
           for p in sorted((Path(__file__).resolve().parents[1] / "samples").glob("*.xlsx"))]


def same(a, b) -> bool:
    if b is None:
        return a is None or (isinstance(a, float) and math.isnan(a))
    if isinstance(b, bool) or not isinstance(b, (int, float)):
        return True
    return a == pytest.approx(b, rel=1e-11, abs=1e-9)   # JSON keeps 12 significant digits (engine/core/number_format.py)


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda p: Path(p).stem)
def test_the_api_equals_the_cli_on_every_number(sample, capsys):
    assert main(["compute", str(sample), "--json"]) == 0
    plans = json.loads(capsys.readouterr().out)["plans"]
    result = tcoapp.compute(tcoapp.load_scenario(str(sample)))
    assert list(result.plans.index) == [p["name"] for p in plans]
    compared = 0
    for p in plans:
        row = result.plans.loc[p["name"]]
        for key, value in p.items():
            if key in row.index and isinstance(value, (int, float, type(None))) and not isinstance(value, bool):
                assert same(row[key], value), (p["name"], key, row[key], value)
                compared += 1
        years = result.years[result.years.plan == p["name"]]
        for k, year in enumerate(p["years"]):
            for key, value in year.items():
                if key in years.columns:
                    assert same(years[key].iloc[k], value), (p["name"], k, key)
                    compared += 1
    assert compared > 20 * len(plans)


def test_with_plan_refuses_what_the_cli_refuses_with_the_same_message(tmp_path, capsys):
    book = hand_made(tmp_path / "u.xlsx", plans_rows(utilization=1.7))
    assert main(["compute", str(book)]) == 2
    cli = capsys.readouterr().err.strip().splitlines()
    assert len(cli) == 1 and cli[0].startswith("error: Plans!C7 utilization = 1.7: ")
    scenario = tcoapp.load_scenario()
    with pytest.raises(ValidationError) as err:
        scenario.with_plan(scenario.plans[0].name, utilization=1.7)
    api = [str(p) for p in err.value.problems]
    assert len(api) == 1 and api[0].split(" utilization ", 1)[1] == cli[0].split(" utilization ", 1)[1]
    with pytest.raises(ValidationError, match="unknown key"):
        scenario.with_plan(scenario.plans[0].name, utilisation=0.5)
    with pytest.raises(ValidationError, match="device"):
        scenario.with_plan(scenario.plans[0].name, device="No Such GPU")
    changed = scenario.with_plan(scenario.plans[0].name, utilization=0.5)
    assert changed.plans[0].utilization == 0.5 and scenario.plans[0].utilization != 0.5
    assert changed.plans[1:] == scenario.plans[1:]
