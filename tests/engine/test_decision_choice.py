"""The decision block: the objective follows the revenue model, the first plan is the best on it,
'too close to call' exactly when P(first beats second) < 0.8, and the paired draws share one model
error shared per architecture and stack and per configuration."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.decision.summary import OBJECTIVES
from tcoapp.engine.decision.choice import CONFIDENT, TOKEN_OBJECTIVE as TOKEN, decide, default_objective, objective_key
from tcoapp.engine.decision.draws import share_better
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.load import load_scenario
from tcoapp.present.decision_text import decision_json, reason

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _decided(path=None, objective=None):
    scenario = default_scenario() if path is None else load_scenario(path)
    results = compute_scenario(scenario)
    return scenario, results, decide(scenario, results, objective)


def _npv(rate, flows, discounting):
    """Independent of the engine: sum_t flow_t / (1 + rate)^t, t - 0.5 for t >= 1 with mid-year discounting."""
    t = np.arange(len(flows), dtype=float)
    if discounting == 1:
        t = np.where(t >= 1, t - 0.5, t)
    return float(sum(f / (1.0 + rate) ** k for f, k in zip(flows, t)))


def test_financed_plans_rank_by_equity_npv_at_one_hurdle_rate():
    """gpu_cloud_financed: the unfinanced plans' own equity rate is 10 %, the financed ones' 15 %; ranked
    at one rate (15 %, the highest of the plans that borrow), every plan's equity flows are discounted
    alike, and the unfinanced plan is no longer first on its cheaper rate."""
    scenario, results, d = _decided(SAMPLES / "gpu_cloud_financed.xlsx")
    assert default_objective(scenario.plans) == d.objective == "equity_npv_usd"
    rates = {p.name: (p.equity_discount_rate if p.equity_discount_rate is not None else p.discount_rate)
             for p in scenario.plans if p.debt_fraction > 0}
    assert d.hurdle_rate == max(rates.values()) == pytest.approx(0.15)
    values = {r.name: _npv(0.15, np.asarray(r.finance.years.equity_cash_flow_usd, float),
                           float(r.inputs.discounting)) for r in results}
    assert d.ranked[0] == max(values, key=values.get)
    assert [values[n] for n in d.ranked] == pytest.approx(sorted(values.values(), reverse=True), rel=1e-9)
    assert [s.value for s in d.summaries] == pytest.approx([values[n] for n in d.ranked], rel=1e-9)
    own = {r.name: r.metrics.equity_npv_usd for r in results}    # each at its own rate: another order
    assert max(own, key=own.get) != d.ranked[0]
    assert "at one hurdle rate of 15 %" in reason(d)
    for s in d.summaries:   # breakevens fit device-hour revenue: never "no cash flows" where there are flows
        from tcoapp.engine.decision.summary import breakeven_price_text, breakeven_utilization_text
        assert "no cash flows" not in breakeven_price_text(s) + breakeven_utilization_text(s)
        assert "device-hour" in breakeven_price_text(s)


def test_the_default_scenario_ranks_by_npv_on_its_one_megawatt_site_and_says_both_views():
    """Sized by the same facility power: NPV ranks, the headline shows NPV per MW, and where the cheapest
    tokens are another plan's, one sentence says both."""
    scenario, results, d = _decided()
    assert {p.sizing_mode for p in scenario.plans} == {"facility_power"}
    assert d.objective == "npv_usd" and d.by_site and d.site == "1 MW site"
    npv = {r.name: r.metrics.npv_usd for r in results}
    cost = {r.name: r.metrics.cost_per_million_output_tokens_usd for r in results}
    assert list(d.ranked) == sorted(npv, key=npv.get, reverse=True)
    cheapest, richest = min(cost, key=cost.get), max(npv, key=npv.get)
    assert cheapest != richest and (d.other_first, d.other_objective) == (cheapest, TOKEN)
    text = reason(d)
    assert text.startswith(f"{cheapest} makes the cheapest tokens; {richest} earns the most on this 1 MW site.")
    first = d.summaries[0]
    per_mw = decision_json(d)["first_value_per_mw"]
    assert per_mw == pytest.approx(npv[richest] / first.facility_mw)
    assert "per MW of facility power" in text
    assert d.p_first_beats_second is not None and d.too_close == (d.p_first_beats_second < CONFIDENT)
    assert ("Too close to call" in text) == d.too_close and d.ranked[1] in text


def test_plans_sized_by_the_same_demand_rank_by_cost_per_token():
    scenario = default_scenario()
    demand = scenario.with_plans(p.with_(sizing_mode="demand", demand_tokens_per_day=2e10) for p in scenario.plans)
    results = compute_scenario(demand)
    d = decide(demand, results)
    assert d.objective == TOKEN and "same demand" in d.basis
    cost = {r.name: r.metrics.cost_per_million_output_tokens_usd for r in results}
    assert d.ranked[0] == min(cost, key=cost.get)
    devices = scenario.with_plans(p.with_(sizing_mode="devices", device_count=72) for p in scenario.plans)
    assert default_objective(devices.plans) == TOKEN     # no common site or demand: the scale-free figure


def test_every_headline_states_the_market_and_warns_where_returns_are_extreme():
    """Every plan's returns state their share of capacity sold and price; a payback under 12 months or an
    IRR over 100 % carries the warning that demand and price, not hardware, drive the result."""
    for path in [None, *sorted(SAMPLES.glob("*.xlsx"))]:
        scenario, results, d = _decided(path)
        text = reason(d)
        assert "Returns assume" in text and ("of capacity sold" in text or "device-hour" in text), path
        extreme = [r.name for r in results
                   if (r.metrics.payback_months < 12 and r.metrics.capex_usd > 0) or r.metrics.irr > 1.0]
        assert ("demand and price, not hardware, drive these returns" in text) == bool(extreme), path
        for name in extreme:
            assert f"{name}: payback" in text or f"{name}: IRR" in text, (path, name)


def test_a_modest_plan_carries_no_market_warning():
    scenario = default_scenario()
    plain = scenario.with_plans([scenario.plans[0].with_(price_usd_per_million_output_tokens=0.3,
                                                         price_usd_per_million_input_tokens=0.0)])
    results = compute_scenario(plain)
    m = results[0].metrics
    assert m.payback_months >= 12 or not np.isfinite(m.payback_months)
    text = reason(decide(plain, results))
    assert "Returns assume 70 % of capacity sold at $0.30 per Mtok output." in text and "Warning" not in text


@pytest.mark.parametrize("objective", sorted(OBJECTIVES))
def test_rank_by_any_objective_puts_the_best_first_and_too_close_follows_p(objective):
    _, results, d = _decided(SAMPLES / "batch_tradeoff.xlsx", objective)
    assert d.objective == objective
    values = [s.value for s in d.summaries if s.exists]
    better = OBJECTIVES[objective][2]
    assert values == sorted(values, reverse=better == "high")
    if d.p_first_beats_second is not None:
        assert d.too_close == (d.p_first_beats_second < CONFIDENT)
        assert ("Too close to call" in reason(d)) == d.too_close


def test_share_better_counts_a_missing_value_as_losing():
    assert share_better(np.array([1.0, np.nan]), np.array([2.0, 2.0]), "low") == 0.5
    assert share_better(np.array([3.0, np.nan]), np.array([2.0, 2.0]), "high") == 0.5


def test_compute_json_has_the_decision_and_rank_by_chooses_another():
    run = lambda *a: subprocess.run([sys.executable, "-m", "tcoapp", "compute", *a], capture_output=True,  # noqa: E731
                                    text=True, timeout=300)
    path = str(SAMPLES / "gpu_cloud_financed.xlsx")
    out = json.loads(run(path, "--json").stdout)
    block = out["decision"]
    assert set(block) == {"objective", "ranked", "p_first_beats_second", "too_close", "reason", "basis",
                          "hurdle_rate", "first_value_per_mw", "other_view"}
    assert block["objective"] == "equity_npv_usd" and block["ranked"][0] in block["reason"]
    assert block["hurdle_rate"] == 0.15
    for name in ("npv_usd", "npv", "NPV"):     # the key, a short name, the label
        other = json.loads(run(path, "--json", "--rank-by", name).stdout)["decision"]
        assert other["objective"] == "npv_usd" and other["hurdle_rate"] is None
    bad = run(path, "--rank-by", "rev")     # two revenue objectives start so
    assert bad.returncode == 2 and "--rank-by" in bad.stderr and "revenue_usd_per_rack_per_year" in bad.stderr
    assert "Traceback" not in bad.stderr
    nothing = run(path, "--rank-by", "speed")
    assert nothing.returncode == 2 and "names no objective" in nothing.stderr
    text = run(path, "--rank-by", "npv_usd").stdout
    assert "ranked by NPV" in text and all(len(line) <= 100 for line in text.splitlines())


@pytest.mark.parametrize("text, key", [("npv", "npv_usd"), ("Equity NPV", "equity_npv_usd"), ("equity", "equity_npv_usd"),
                                       ("cost", TOKEN), ("Cost per million output tokens", TOKEN),
                                       ("revenue per MW", "revenue_usd_per_mw_per_year"),
                                       ("revenue_usd_per_rack_per_year", "revenue_usd_per_rack_per_year")])
def test_objective_key_takes_labels_and_unambiguous_short_names(text, key):
    assert objective_key(text) == key


@pytest.mark.parametrize("text", ["rev", "", "irr"])
def test_objective_key_refuses_what_names_none_or_several(text):
    with pytest.raises(ValueError, match="choices: cost_per_million_output_tokens_usd"):
        objective_key(text)


def test_an_unknown_command_says_so_and_exits_2():
    done = subprocess.run([sys.executable, "-m", "tcoapp", "compte"], capture_output=True, text=True, timeout=60,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 2 and "unknown command 'compte'" in done.stderr
    assert "Did you mean 'tcoapp compute'?" in done.stderr and "Traceback" not in done.stderr


def test_the_notebook_api_returns_the_same_decision_as_the_cli():
    import tcoapp
    path = SAMPLES / "gpu_cloud_financed.xlsx"
    api = tcoapp.compute(str(path)).decision()
    cli = json.loads(subprocess.run([sys.executable, "-m", "tcoapp", "compute", str(path), "--json"],
                                    capture_output=True, text=True, timeout=300).stdout)["decision"]
    assert api["ranked"] == cli["ranked"] and api["reason"] == cli["reason"] and api["too_close"] == cli["too_close"]
    assert api["p_first_beats_second"] == cli["p_first_beats_second"]
    assert tcoapp.compute(str(path)).decision("npv")["objective"] == "npv_usd"


def test_decision_json_is_plain_json():
    _, _, d = _decided(SAMPLES / "years_price_decline.xlsx")
    block = decision_json(d)
    assert json.loads(json.dumps(block, allow_nan=False)) == block
    assert block["p_first_beats_second"] is None or 0 <= block["p_first_beats_second"] <= 1
    assert not math.isnan(block["p_first_beats_second"] or 0.0)
