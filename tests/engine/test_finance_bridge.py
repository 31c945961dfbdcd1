"""The cost bridge between two plans (docs/model.md, "Cost bridge"): the steps from A's cost per million
output tokens to B's add up to B - A, each listed part is the difference of that part, computed here
from the plans' own annual amounts over their own tokens (not from the engine's part keys)."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.finance.bridge import BRIDGE_PARTS, cost_bridge
from tcoapp.io.default_scenario import default_scenario


@pytest.fixture(scope="module")
def results():
    return compute_scenario(default_scenario())


def test_the_steps_add_up_to_the_difference(results):
    for a in results:
        for b in results:
            bridge = cost_bridge(a.name, a.finance, b.name, b.finance)
            steps = [p["difference"] for p in bridge["parts"]]
            assert [p["part"] for p in bridge["parts"]] == list(BRIDGE_PARTS)
            assert math.fsum([bridge["a_usd_per_million"], *steps]) == pytest.approx(bridge["b_usd_per_million"],
                                                                                     rel=1e-14, abs=1e-15)


def test_each_part_is_its_annual_amount_over_the_tokens(results):
    a, b = results[0], results[2]
    bridge = {p["part"]: p for p in cost_bridge(a.name, a.finance, b.name, b.finance)["parts"]}
    for result, side in ((a, "a"), (b, "b")):
        f = result.finance
        tokens = float(f.output_tokens_per_year)
        assert bridge["capex"][side] == pytest.approx(float(f.capex_usd_per_year) / tokens * 1e6, rel=1e-12)
        assert bridge["energy"][side] == pytest.approx(float(f.energy_usd_per_year) / tokens * 1e6, rel=1e-12)
        assert abs(bridge["other"][side]) < 1e-12 * float(f.cost_per_million_output_tokens_usd)  # nothing unlisted
    assert bridge["capex"]["difference"] == pytest.approx(bridge["capex"]["b"] - bridge["capex"]["a"], rel=1e-15)


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 0.5), st.floats(0, 500), st.floats(0, 0.1), st.floats(0, 5000), st.floats(0, 1e6))
def test_every_opex_line_lands_in_its_own_part(electricity, colocation, maintenance, software, staff):
    base = default_scenario()
    plans = [p.with_(electricity_usd_per_kwh=electricity, colocation_usd_per_kw_month=colocation,
                     maintenance_fraction_per_year=maintenance, software_usd_per_device_year=software,
                     staff_usd_per_year=staff) for p in base.plans[:2]]
    a, b = compute_scenario(base.with_plans(plans))
    bridge = cost_bridge(a.name, a.finance, b.name, b.finance)
    steps = {p["part"]: p["difference"] for p in bridge["parts"]}
    for part in ("colocation", "maintenance", "software", "staff"):
        want = (float(b.finance[f"{part}_usd_per_year"]) / float(b.finance.output_tokens_per_year)
                - float(a.finance[f"{part}_usd_per_year"]) / float(a.finance.output_tokens_per_year)) * 1e6
        assert steps[part] == pytest.approx(want, rel=1e-9, abs=1e-12)
    assert math.fsum([bridge["a_usd_per_million"], *steps.values()]) == pytest.approx(bridge["b_usd_per_million"],
                                                                                     rel=1e-14)


def test_a_plan_without_a_cost_has_no_bridge(results):
    a = results[0]
    broken = {k: (np.nan if k.startswith("cost_per_million") else v) for k, v in
              ((k, a.finance[k]) for k in a.finance.keys() if k.startswith("cost_per_million"))}
    assert cost_bridge(a.name, a.finance, "none", broken) is None
