"""Monte Carlo equity and DSCR summaries (docs/model.md, "Uncertainty: Monte Carlo"): each draw's equity NPV,
equity IRR and min DSCR are the engine's for that draw's inputs (an Uncertainty row may name a financing key or
a finance-over-time key), the summaries are the statistics of those draws, and the streamed summaries of a run
longer than the kept draws equal the exact ones."""
import dataclasses

import numpy as np
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.quantities.records import make_pool
from tcoapp.engine.uncertainty import simulate as simulate_module
from tcoapp.engine.uncertainty.inputs import UncertainInput
from tcoapp.engine.uncertainty.simulate import simulate
from tcoapp.engine.uncertainty.statistics import summary
from tcoapp.io.default_scenario import default_scenario

KEYS = ("equity_npv_usd", "equity_irr", "min_dscr", "npv_usd")


def _scenario():
    base = default_scenario().plans[2].with_(serving_search="off", min_tokens_per_s_per_user=None, batch=64,
                                             sizing_mode="devices", device_count=64, tax_rate=0.21, years=5,
                                             debt_fraction=0.6, debt_rate=0.08, debt_years=7,
                                             price_usd_per_million_output_tokens=0.3)
    pools = tuple(make_pool({"plan": base.name, "pool": n, "device": base.device, "device_count": c,
                             "purchase_year": y}) for n, c, y in (("first", 64, 0), ("second", 32, 2)))
    rows = (UncertainInput("*", "utilization", "triangular", low=0.4, mode=0.7, high=0.9),
            UncertainInput("*", "debt_rate", "triangular", low=0.05, mode=0.08, high=0.12),
            UncertainInput("*", "hardware_price_change_per_year", "uniform", low=-0.3, high=0.0),
            UncertainInput("*", "throughput_change_per_year", "uniform", low=0.0, high=0.5))
    return dataclasses.replace(default_scenario().with_plans([base.with_(pools=pools)]), uncertainty=rows)


def test_each_draw_is_the_engine_at_its_inputs_and_the_summaries_are_their_statistics():
    scenario = _scenario()
    sim = simulate(scenario, draws=60, seed=2, model_error=False)
    plan = sim.plans[0]
    for k in (0, 17, 59):
        changes = {d.row.key: float(d.values[k]) for d in plan.inputs}
        one = dataclasses.replace(scenario.with_plans([scenario.plans[0].with_(**changes)]), uncertainty=())
        want = compute_scenario(one)[0].metrics
        for key in KEYS:
            assert getattr(plan.metrics, key)[k] == pytest.approx(getattr(want, key), rel=1e-12), (k, key)
    for key in KEYS:
        assert dict(sim.summary(plan.name, key)) == summary(getattr(plan.metrics, key), key), key
    assert sim.summary(plan.name, "min_dscr")["share_defined"] == 1.0


def test_streamed_summaries_equal_the_exact_ones(monkeypatch):
    scenario = _scenario()
    exact = simulate(scenario, draws=900, seed=5, model_error=False)
    monkeypatch.setattr(simulate_module, "KEEP_DRAWS", 200)   # the rest streamed (a run longer than the kept draws)
    streamed = simulate(scenario, draws=900, seed=5, model_error=False)
    name = scenario.plans[0].name
    for key in KEYS:
        a, b = streamed.summary(name, key), exact.summary(name, key)
        for stat in a:
            assert a[stat] == pytest.approx(b[stat], rel=1e-12), (key, stat)
