"""The notebook API validates every way a plan comes in: `Scenario.replace_plan`, `Scenario.with_plans`
(field by field) and `tcoapp.compute` / `tcoapp.simulate` of a scenario built in Python (fields and the
devices, models and curves named) give the workbook's errors (plan, field, allowed range), never a bare
ValueError from inside the engine."""
from __future__ import annotations

import dataclasses

import pytest

import tcoapp
from tcoapp.engine.core.errors import ValidationError

SCENARIO = tcoapp.load_scenario()
BAD = {"utilization 1.7": ({"utilization": 1.7}, "Plan 'H100' utilization = 1.7: must be a number between 0.001 and 1"),
       "years 0": ({"years": 0}, "Plan 'H100' years = 0: must be a whole number between 1 and 50"),
       "text": ({"utilization": "abc"}, "Plan 'H100' utilization = 'abc' is not a number"),
       "a bool": ({"years": True}, "Plan 'H100' years = TRUE"),
       "unknown device": ({"device": "Nope"}, "Plan 'H100' device = 'Nope': no device of that name")}
WAYS = {
    "replace_plan": lambda bad: SCENARIO.replace_plan(0, bad),
    "with_plans": lambda bad: SCENARIO.with_plans([bad, *SCENARIO.plans[1:]]),
    "compute": lambda bad: tcoapp.compute(dataclasses.replace(SCENARIO, plans=(bad, *SCENARIO.plans[1:]))),
    "simulate": lambda bad: tcoapp.simulate(dataclasses.replace(SCENARIO, plans=(bad, *SCENARIO.plans[1:])), draws=10),
}


@pytest.mark.parametrize("way", sorted(WAYS))
@pytest.mark.parametrize("case", sorted(BAD))
def test_every_way_in_gives_the_workbook_error(way, case):
    changes, said = BAD[case]
    if case == "unknown device" and way in ("replace_plan", "with_plans"):
        pytest.skip("references are checked when the scenario is computed (a curve may be added after its plan)")
    bad = dataclasses.replace(SCENARIO.plans[0], **changes)
    with pytest.raises(ValidationError) as err:
        WAYS[way](bad)
    assert str(err.value).startswith(said), str(err.value)


def test_a_bad_pool_built_in_python_is_named():
    scenario = tcoapp.load_scenario("samples/heterogeneous_disaggregated.xlsx")
    index, plan = next((i, p) for i, p in enumerate(scenario.plans) if p.pools)
    pool = dataclasses.replace(plan.pools[0], device_count=-3)
    with pytest.raises(ValidationError) as err:
        scenario.replace_plan(index, dataclasses.replace(plan, pools=(pool, *plan.pools[1:])))
    assert str(err.value).startswith(f"Plan '{plan.name}' pool '{pool.pool}' device_count = -3: must be a number > 0")


def test_not_a_plan_is_refused_in_words():
    with pytest.raises(ValidationError, match=r"plans\[1\] = 'H200': not a plan"):
        SCENARIO.with_plans([SCENARIO.plans[0], "H200"])


def test_references_are_checked_when_computed_so_a_curve_may_follow_its_plan():
    plan = SCENARIO.plans[0].with_(curve="mine")
    scenario = SCENARIO.with_plans([plan])          # the curve is not there yet: no error
    with pytest.raises(ValidationError, match="Plan 'H100' curve = 'mine'"):
        tcoapp.compute(scenario)


def test_a_valid_scenario_computes_as_before():
    scenario = tcoapp.load_scenario("samples/heterogeneous_disaggregated.xlsx")
    assert scenario.with_plans(scenario.plans).plans == scenario.plans
    before = tcoapp.compute(scenario).plans
    assert tcoapp.compute(scenario.replace_plan(0, scenario.plans[0])).plans.equals(before)
