"""The decision on the default scenario and every sample: the ranking objective is the one the rule names
(restated here: any plan borrows -> equity NPV at one hurdle rate; every plan sized by the same facility power
or capex budget -> NPV; by demand -> cost per million output tokens; otherwise cost per token where every plan
sells tokens, NPV where any sells device-hours), the plans are in its order, the headline shows the other view
(cost per token beside NPV) exactly where the two disagree, and `tcoapp compute --json`, the notebook API and
the engine give the same decision (docs/user_guide.md, "Decision")."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tcoapp
from tcoapp.engine.core.number_format import json_rounded
from tcoapp.engine.decision.choice import decide
from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.load import load_scenario
from tcoapp.present.decision_text import decision_json, reason

SAMPLES = Path(__file__).resolve().parent.parent / "samples"
CASES = [None] + sorted(p.name for p in SAMPLES.glob("*.xlsx"))
TOKEN, NPV, EQUITY = "cost_per_million_output_tokens_usd", "npv_usd", "equity_npv_usd"


def _rule(plans) -> str:
    if any(p.debt_fraction > 0 for p in plans):
        return EQUITY
    modes = {p.sizing_mode for p in plans}
    if modes in ({"facility_power"}, {"capex_budget"}):
        return NPV
    if modes == {"demand"}:
        return TOKEN
    return NPV if any(p.revenue_mode == "device_hours" for p in plans) else TOKEN


def _first(results, key, better):
    values = [(getattr(r.metrics, key), i) for i, r in enumerate(results) if np.isfinite(getattr(r.metrics, key))]
    return results[(min(values) if better == "low" else max(values))[1]].name if len(values) > 1 else None


@pytest.mark.parametrize("sample", CASES, ids=[c or "default" for c in CASES])
def test_the_objective_is_the_rules_and_every_interface_agrees(sample):
    scenario = default_scenario() if sample is None else load_scenario(SAMPLES / sample)
    results = compute_scenario(scenario)
    d = decide(scenario, results)
    assert d.objective == _rule(scenario.plans), sample
    values = [s.value for s in d.summaries if s.exists]
    assert values == sorted(values, reverse=d.objective != TOKEN)
    text = reason(d)
    sells_hours = any(p.revenue_mode == "device_hours" for p in scenario.plans)
    cheapest, richest = _first(results, TOKEN, "low"), _first(results, NPV, "high")
    if d.objective in (NPV, EQUITY) and not sells_hours and cheapest not in (None, d.ranked[0]):
        assert f"{cheapest} makes the cheapest tokens; {d.ranked[0]} earns the most" in text, sample
    elif d.objective == TOKEN and richest not in (None, d.ranked[0]):
        assert f"{d.ranked[0]} makes the cheapest tokens; {richest} earns the most" in text, sample
    else:
        assert "makes the cheapest tokens;" not in text, sample
    # JSON (the command line), the notebook API and the engine: the same decision
    args = [] if sample is None else [str(SAMPLES / sample)]
    done = subprocess.run([sys.executable, "-m", "tcoapp", "compute", *args, "--json"], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)["decision"]
    assert cli == json.loads(json.dumps(json_rounded(decision_json(d))))
    if sample is not None:
        api = tcoapp.compute(str(SAMPLES / sample)).decision()
        for key in ("objective", "ranked", "p_first_beats_second", "too_close", "reason"):
            assert api[key] == cli[key], (sample, key)


@pytest.mark.parametrize("sample", CASES, ids=[c or "default" for c in CASES])
def test_per_unit_metrics_are_over_the_fleet_that_exists(sample):
    """Revenue per rack = PV revenue / PV rack-years in service and cost per device-hour = PV cost / PV
    device-hours in service (a pool from the year after its purchase to the horizon), recomputed from the
    years table and the pools of every plan, in every sample (the levelized form: the capital recovery factor
    cancels)."""
    scenario = default_scenario() if sample is None else load_scenario(SAMPLES / sample)
    checked = 0
    for plan, r in zip(scenario.plans, compute_scenario(scenario)):
        if r.finance is None or not np.isfinite(r.metrics.revenue_usd_per_rack_per_year):
            continue
        n = int(plan.years)
        y = r.finance.years
        row = lambda name: np.asarray(getattr(y, name), float).reshape(-1)[:n + 1]  # noqa: E731
        df = row("discount_factor")
        t = np.arange(n + 1)
        pools = r.pool_rows()
        racks = sum(p["racks"] * (t > q.purchase_year) for p, q in zip(pools, r.pools))
        devices = sum(p["device_count"] * (t > q.purchase_year) for p, q in zip(pools, r.pools))
        revenue = np.sum(row("revenue_usd")[1:] * df[1:])
        assert r.metrics.revenue_usd_per_rack_per_year == pytest.approx(revenue / np.sum(racks[1:] * df[1:]),
                                                                        rel=1e-9), (sample, plan.name)
        cost = (np.sum((row("capex_usd") - row("residual_value_usd") + row("replacement_capex_usd")) * df)
                + np.sum(row("opex_usd")[1:] * df[1:]))
        assert r.metrics.cost_per_device_hour_usd == pytest.approx(cost / (np.sum(devices[1:] * df[1:]) * 8760),
                                                                   rel=1e-9), (sample, plan.name)
        checked += 1
    assert checked
