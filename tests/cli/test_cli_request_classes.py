"""What the command line and the decision report print for a plan serving request classes (the functions
`tcoapp compute` and `tcoapp report` call; docs/cli.md): per-class lines, the JSON's `workloads`."""
from __future__ import annotations

import json

import pytest

import tcoapp
from tcoapp.cli import _anchored
from tcoapp.cli.text import compute_text
from tcoapp.engine.core.number_format import json_rounded
from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.present.report_html import report_html

THREE = [{"class": "chat", "share": 0.5, "input_tokens": 1000, "output_tokens": 300, "min_tokens_per_s_per_user": 50},
         {"class": "reasoning", "share": 0.3, "input_tokens": 2000, "output_tokens": 8000,
          "min_tokens_per_s_per_user": 30},
         {"class": "batch", "share": 0.2, "input_tokens": 4000, "output_tokens": 1000}]


@pytest.fixture(scope="module")
def computed():
    full = tcoapp.load_scenario()
    scenario = full.with_plans([full.plan("H200"), full.plan("B200")]).with_plan("H200", workloads=THREE)
    return scenario, _anchored(scenario, compute_scenario(scenario))


def test_the_text_prints_a_line_per_class(computed):
    scenario, results = computed
    text = compute_text(scenario, results)
    block = text.split("== H200 ")[1].split("== B200 ")[0]
    assert "A mix of 3 request classes (chat, reasoning, batch)" in block
    assert "Meets every class's target: chat >= 50 tokens/s per user" in " ".join(block.split())
    assert "Request classes" in block
    assert "chat (50 % of requests, 1,000 in / 300 out tokens)" in block
    assert "target >= 50 tokens/s per user, met" in " ".join(block.split())
    assert "(no target)" in " ".join(block.split())
    assert block.count("n/a (a mix of request classes") == 2   # no single-request frontier or anchor
    assert "Request classes" not in text.split("== B200 ")[1]   # a plan without classes prints as before
    assert all(len(line) <= 100 for line in text.splitlines())


def test_the_json_carries_workloads_and_the_blended_figures(computed):
    scenario, results = computed
    data = json.loads(json.dumps(json_rounded({"plans": [r.as_json() for r in results]}), allow_nan=False))
    mix, plain = data["plans"]
    assert [c["class"] for c in mix["workloads"]] == ["chat", "reasoning", "batch"]
    assert set(mix["workloads"][0]) >= {"class", "share", "tokens_per_s_per_user", "ttft_s", "requests_per_s",
                                        "achieved_prefix_hit_rate", "cost_per_million_output_tokens_usd",
                                        "revenue_usd_per_year"}
    assert mix["workloads_blended"]["output_tokens"] == pytest.approx(2750)
    assert mix["published_anchor"] is None
    assert "workloads" not in plain and "workloads_blended" not in plain


def test_the_report_lists_each_class(computed):
    scenario, results = computed
    html = report_html(scenario, results, "classes")
    assert "<h2>Request classes</h2>" in html
    assert "reasoning (30 % of requests, 2,000 in / 8,000 out tokens)" in html


def test_the_notebook_api_takes_and_returns_classes():
    full = tcoapp.load_scenario()
    scenario = full.with_plans([full.plan("H200")]).with_plan("H200", workloads=THREE)
    assert [c.class_ for c in scenario.plan("H200").workloads] == ["chat", "reasoning", "batch"]
    result = tcoapp.compute(scenario)
    frame = result.workloads
    assert list(frame["class"]) == ["chat", "reasoning", "batch"] and set(frame["plan"]) == {"H200"}
    assert frame["revenue_usd_per_year"].sum() == pytest.approx(result.plans.loc["H200", "revenue_usd_per_year"])
    cleared = scenario.with_plan("H200", workloads=[])
    assert cleared.plan("H200").workloads == ()
    assert tcoapp.compute(cleared).workloads.empty
