"""The decision block: the objective follows the revenue model, the first plan is the best on it,
'too close to call' exactly when P(first beats second) < 0.8, and the paired draws share one model
error per device family."""
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
from tcoapp.engine.decision.choice import CONFIDENT, decide, default_objective
from tcoapp.engine.decision.draws import family, share_better
from tcoapp.io.default_scenario import default_scenario
from tcoapp.io.load import load_scenario
from tcoapp.present.decision_text import decision_json, reason

SAMPLES = Path(__file__).resolve().parents[2] / "samples"


def _decided(path=None, objective=None):
    scenario = default_scenario() if path is None else load_scenario(path)
    results = compute_scenario(scenario)
    return scenario, results, decide(scenario, results, objective)


def test_device_hours_with_debt_rank_by_equity_npv_and_the_first_is_the_best():
    scenario, results, d = _decided(SAMPLES / "gpu_cloud_financed.xlsx")
    assert default_objective(scenario.plans) == d.objective == "equity_npv_usd"
    values = {r.name: r.metrics.equity_npv_usd for r in results}
    assert d.ranked[0] == max(values, key=values.get)
    assert [values[n] for n in d.ranked] == sorted(values.values(), reverse=True)
    for s in d.summaries:   # breakevens fit device-hour revenue: never "no cash flows" where there are flows
        from tcoapp.engine.decision.summary import breakeven_price_text, breakeven_utilization_text
        assert "no cash flows" not in breakeven_price_text(s) + breakeven_utilization_text(s)
        assert "device-hour" in breakeven_price_text(s)


def test_the_default_scenario_is_too_close_to_call_and_says_so():
    _, _, d = _decided()
    assert d.objective == "cost_per_million_output_tokens_usd"
    assert d.p_first_beats_second is not None and d.p_first_beats_second < CONFIDENT and d.too_close
    text = reason(d)
    assert text.startswith("Too close to call") and d.ranked[0] in text and d.ranked[1] in text
    assert "would separate" in text


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


def test_plans_on_one_family_share_its_draw():
    """Two plans on the same device family differ only by what the model makes the same: the one
    ahead stays ahead in every draw (frontier_optimizations: every plan on B200)."""
    _, _, d = _decided(SAMPLES / "frontier_optimizations.xlsx")
    assert d.p_first_beats_second == 1.0 and not d.too_close
    assert family("GB200-NVL72") == "GB200" and family("H100-SXM") == "H100"


def test_share_better_counts_a_missing_value_as_losing():
    assert share_better(np.array([1.0, np.nan]), np.array([2.0, 2.0]), "low") == 0.5
    assert share_better(np.array([3.0, np.nan]), np.array([2.0, 2.0]), "high") == 0.5


def test_compute_json_has_the_decision_and_rank_by_chooses_another():
    run = lambda *a: subprocess.run([sys.executable, "-m", "tcoapp", "compute", *a], capture_output=True,  # noqa: E731
                                    text=True, timeout=300)
    path = str(SAMPLES / "gpu_cloud_financed.xlsx")
    out = json.loads(run(path, "--json").stdout)
    block = out["decision"]
    assert set(block) == {"objective", "ranked", "p_first_beats_second", "too_close", "reason"}
    assert block["objective"] == "equity_npv_usd" and block["ranked"][0] in block["reason"]
    other = json.loads(run(path, "--json", "--rank-by", "npv_usd").stdout)["decision"]
    assert other["objective"] == "npv_usd"
    bad = run(path, "--rank-by", "npv")
    assert bad.returncode == 2 and "--rank-by" in bad.stderr and "Traceback" not in bad.stderr
    text = run(path, "--rank-by", "npv_usd").stdout
    assert "ranked by NPV" in text and all(len(line) <= 100 for line in text.splitlines())


def test_decision_json_is_plain_json():
    _, _, d = _decided(SAMPLES / "years_price_decline.xlsx")
    block = decision_json(d)
    assert json.loads(json.dumps(block, allow_nan=False)) == block
    assert block["p_first_beats_second"] is None or 0 <= block["p_first_beats_second"] <= 1
    assert not math.isnan(block["p_first_beats_second"] or 0.0)
