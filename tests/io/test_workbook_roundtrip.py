"""Round trip: read_scenario(write_scenario(s)) == s, for the default and for generated scenarios."""
import random
from dataclasses import replace

from hypothesis import given, settings, strategies as st

from tcoapp.engine.performance.factors import DEFAULT_FACTORS
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.workbook_read import read_scenario
from tcoapp.io.workbook_write import write_scenario

from .workbook_scenarios import random_scenario, seeded_scenarios


def roundtrip(scenario, folder, name="s.xlsx"):
    path = folder / name
    write_scenario(scenario, path)
    return read_scenario(path)


def test_default_scenario_roundtrips(tmp_path):
    scenario = default_scenario()
    assert roundtrip(scenario, tmp_path) == scenario


@given(st.randoms(use_true_random=False))
@settings(max_examples=40)
def test_generated_scenarios_roundtrip(tmp_path_factory, rnd):
    scenario = random_scenario(rnd)
    back = roundtrip(scenario, tmp_path_factory.mktemp("rt"))
    assert back.plans == scenario.plans
    assert dict(back.devices) == dict(scenario.devices)
    assert dict(back.models) == dict(scenario.models)
    assert dict(back.curves) == dict(scenario.curves)
    assert dict(back.price_tiers) == dict(scenario.price_tiers)
    assert back.factors == scenario.factors
    assert back == scenario


@given(st.floats(0.001, 1), st.floats(0, 10), st.floats(1e-300, 1e15, exclude_min=True), st.floats(0.01, 1))
def test_every_float_digit_survives(tmp_path_factory, utilization, other, budget, eta):
    """openpyxl writes 16 significant digits; the export writes repr() so every double comes back."""
    base = seeded_scenarios(1, seed=3)[0]
    plan = base.plans[0].with_(utilization=utilization, other_capex_fraction=other, capex_budget_usd=budget)
    scenario = replace(base, plans=(plan,), factors=DEFAULT_FACTORS.with_(eta_mem=eta))
    back = roundtrip(scenario, tmp_path_factory.mktemp("fl"))
    assert back.plans[0].utilization == utilization
    assert back.plans[0].other_capex_fraction == other
    assert back.plans[0].capex_budget_usd == budget
    assert back.factors.eta_mem == eta


def test_seeded_batch_roundtrips(tmp_path):
    rnd = random.Random(4)
    for i in range(15):
        scenario = random_scenario(rnd, max_plans=6)
        assert roundtrip(scenario, tmp_path, f"s{i}.xlsx") == scenario
