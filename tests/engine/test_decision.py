"""engine.decision: ranking, ratios against a reference, reasons in words, breakevens, size and
name warnings, the upper frontier."""
import math

import numpy as np
import pytest

from tcoapp.engine.decision import summary as decision
from tcoapp.engine.pipeline.compute import compute_plan, compute_scenario
from tcoapp.engine.decision.summary import months_text
from tcoapp.engine.finance.sensitivity import breakeven_output_price
from tcoapp.io.default_scenario import default_scenario


@pytest.fixture(scope="module")
def computed():
    scenario = default_scenario()
    return scenario, compute_scenario(scenario)


def test_pareto_upper_keeps_only_undominated_points():
    x, y = decision.pareto_upper([1, 2, 3, 4, np.nan, 2.5], [4, 3, 3.5, 1, 9, 1])
    assert x.tolist() == [1, 3, 4] and y.tolist() == [4, 3.5, 1]


@pytest.mark.parametrize("objective", list(decision.OBJECTIVES))
def test_ranked_best_first_missing_last(computed, objective):
    scenario, results = computed
    rows = decision.ranked(decision.summarize(scenario.plans, results, objective), objective)
    values = [r.value for r in rows if r.exists]
    low = decision.OBJECTIVES[objective][2] == "low"
    assert values == sorted(values, reverse=not low)
    seen_missing = False
    for r in rows:
        seen_missing |= not r.exists
        assert not (seen_missing and r.exists)


def test_unknown_objective_is_refused(computed):
    scenario, results = computed
    with pytest.raises(ValueError, match="objective"):
        decision.summarize(scenario.plans, results, "irr_usd")


def test_per_mw_figures_follow_facility_power(computed):
    scenario, results = computed
    rows = decision.summarize(scenario.plans, results, "revenue_usd_per_mw_per_year")
    for plan, r, s in zip(scenario.plans, results, rows):
        mw = r.metrics.it_provisioned_kw * plan.pue / 1000
        assert s.facility_mw == pytest.approx(mw)
        # nan_ok: a plan without an operating point (its target not met) has neither figure
        assert s.value == pytest.approx(r.metrics.revenue_usd_per_year / mw, nan_ok=True)
        assert s.tokens_per_s_per_mw == pytest.approx(
            r.metrics.tokens_per_s_per_device * r.metrics.device_count / mw, nan_ok=True)


def test_ratios_text_states_ratios_and_paybacks(computed):
    scenario, results = computed
    rows = decision.summarize(scenario.plans, results, "npv_usd")
    ref, other = rows[1], rows[2]           # H200 and B200 in the default scenario: both pay back
    text = decision.ratios_text(other, ref, results)
    ratio = other.tokens_per_s_per_mw / ref.tokens_per_s_per_mw
    assert f"{ratio:.2g}x tokens per MW" in text
    assert f"payback {months_text(f'{other.payback_months:.0f}')} vs {months_text(f'{ref.payback_months:.0f}')}" in text
    assert decision.ratios_text(ref, ref, results) == "reference plan"


def test_reason_names_target_configuration_and_limit(computed):
    scenario, results = computed
    plan, result = scenario.plans[0], results[0]
    text = decision.reason(plan, result)
    assert ">= 50 tokens/s per user" in text
    assert f"batch {result.metrics.batch:g}" in text and "TP2" in text and "FP8 weights" in text
    assert "the target caps the batch" in text


def test_reason_of_a_plan_without_operating_point(computed):
    scenario, _ = computed
    plan = scenario.plans[0].with_(min_tokens_per_s_per_user=100000.0)
    result = compute_scenario(scenario.with_plans([plan]))[0]
    assert decision.reason(plan, result).startswith("No operating point: ")
    s = decision.summarize([plan], [result], "npv_usd")[0]
    assert not s.exists and decision.breakeven_price_text(s).startswith("n/a")


def test_breakevens_are_the_engine_roots(computed):
    scenario, _ = computed
    # H100 FP8 TP4 (TP2, as typed, meets 50 tokens/s per user at no batch with the 2026-12-07 factors), output and
    # input tokens at $0.10: it does not pay back
    typed = scenario.plans[0].with_(serving_search="off", tensor_parallel=4, price_usd_per_million_output_tokens=0.1,
                                    price_usd_per_million_input_tokens=0.1)
    results = [compute_plan(scenario, typed)]
    s = decision.summarize([typed], results, "npv_usd")[0]
    assert s.breakeven_price_usd_per_million == pytest.approx(breakeven_output_price(results[0].inputs))
    from tcoapp.engine.core.number_format import money
    assert decision.breakeven_price_text(s).startswith(money(s.breakeven_price_usd_per_million))
    assert math.isnan(s.breakeven_utilization) and decision.breakeven_utilization_text(s).startswith("never")


def test_size_warnings_for_implausible_fleets(computed):
    scenario, _ = computed
    huge = scenario.plans[0].with_(sizing_mode="devices", device_count=100_000_000)
    result = compute_scenario(scenario.with_plans([huge]))[0]
    notes = decision.size_warnings(result)
    assert any("100,000,000 devices" in n for n in notes)
    assert any("GW of facility power" in n for n in notes)
    assert decision.size_warnings(compute_scenario(scenario)[0]) == []


@pytest.mark.parametrize("name, device, flagged", [
    ("H100 FP8 TP2", "H200-SXM", "H100"), ("H100 FP8 TP2", "H100-SXM", None),
    ("GB200 NVL72", "B200", "GB200"), ("B200 NVFP4", "GB200-NVL72", "B200"), ("My plan", "B200", None),
])
def test_name_naming_another_device_is_flagged(computed, name, device, flagged):
    scenario, _ = computed
    plan = scenario.plans[0].with_(name=name, device=device)
    note = decision.name_mismatch(plan, scenario.all_device_names())
    if flagged is None:
        assert note is None
    else:
        assert note and f"says {flagged}" in note and device in note


def test_prefill_decode_plan_shows_the_price_it_charges():
    """A prefill pool sells no output tokens: its price (0) is not averaged into the price shown
    (Decision's breakeven text, the years' output price), which is the decode pool's $0.40."""
    from tcoapp.io.load import load_scenario
    scenario = load_scenario("samples/heterogeneous_disaggregated.xlsx")
    results = compute_scenario(scenario)
    split = [(p, r) for p, r in zip(scenario.plans, results) if {q.role for q in r.pools} == {"prefill", "decode"}]
    assert split
    rows = decision.summarize([p for p, _ in split], [r for _, r in split], "npv_usd")
    for (plan, r), s in zip(split, rows):
        assert s.price_usd_per_million == pytest.approx(0.40)
        assert "price $0.40)" in decision.breakeven_price_text(s)
        years = r.year_rows()
        assert [y["price_usd_per_million_output_tokens"] for y in years[1:]] == pytest.approx([0.40] * (len(years) - 1))
        # the breakeven is still the engine's root: NPV at the breakeven price is 0
        assert np.isfinite(s.breakeven_price_usd_per_million)


def test_ranking_says_plainly_when_plans_serve_different_work(computed):
    import dataclasses
    scenario, results = computed
    assert decision.comparability_note(scenario.plans) is None          # the default: one model, one workload
    plans = list(scenario.plans)
    plans[1] = dataclasses.replace(plans[1], model="Llama-3.1-8B")
    plans[2] = dataclasses.replace(plans[2], output_tokens=256)
    note = decision.comparability_note(plans)
    assert note.startswith("Not like with like") and "Llama-3.1-8B 1,024 in / 1,024 out" in note
    assert "1,024 in / 256 out" in note and plans[2].name in note
    rows = decision.summarize(plans, results, "npv_usd")
    assert decision.ratios_text(rows[1], rows[0], results).startswith("different work (Llama-3.1-8B")
    assert not decision.ratios_text(rows[3], rows[0], results).startswith("different work")
