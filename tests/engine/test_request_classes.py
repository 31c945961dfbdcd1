"""Request classes in the engine (docs/model.md, "Request classes"): a plan serving a mix, each class's
target at the operating point, the batch's memory at the tail of its contexts, the p99 TTFT of the long
prompts, per-class cost and revenue (three prices), and the errors of bad classes."""
from __future__ import annotations

import math

import numpy as np
import pytest

import tcoapp
from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.performance.generated import generate_curve
from tcoapp.engine.performance.length_mix import (
    MAX_P90_OVER_MEAN, Z90, LengthLaw, batch_context_moments, lognormal_sigma, tail_batch_limit,
)
from tcoapp.engine.performance.request_mix import ClassLoad, mix_curve
from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.plan.request_classes import agentic_mean_prompt, class_as_plan
from tcoapp.engine.quantities.records import RequestClass, ServingConfig, Workload

CHAT = {"class": "chat", "share": 0.5, "input_tokens": 1000, "output_tokens": 300, "min_tokens_per_s_per_user": 50}
REASONING = {"class": "reasoning", "share": 0.3, "input_tokens": 2000, "output_tokens": 8000,
             "min_tokens_per_s_per_user": 30}
BATCH = {"class": "batch", "share": 0.2, "input_tokens": 4000, "output_tokens": 1000}
THREE = [CHAT, REASONING, BATCH]


@pytest.fixture(scope="module")
def scenario():
    full = tcoapp.load_scenario()
    return full.with_plans([full.plan("H200")])


@pytest.fixture(scope="module")
def h200():
    catalog = tcoapp.load_scenario()
    return catalog.device("H200-SXM"), catalog.model("Llama-3.3-70B")


@pytest.fixture(scope="module")
def three(scenario):
    s = scenario.with_plan("H200", workloads=THREE)
    return s, compute_plan(s, s.plan("H200"))


# ---- length distributions ---------------------------------------------------------------------------------

def test_lognormal_passes_through_mean_and_p90():
    law = LengthLaw.through(1000, 2000)
    mu = math.log(1000) - law.sigma ** 2 / 2
    assert math.exp(mu + Z90 * law.sigma) == pytest.approx(2000, rel=1e-12)
    assert law.quantile(0.9) == pytest.approx(2000, rel=1e-12)
    draws = np.random.default_rng(1).lognormal(mu, law.sigma, 2_000_000)
    assert draws.mean() == pytest.approx(1000, rel=0.01)
    assert np.quantile(draws, 0.9) == pytest.approx(2000, rel=0.01)
    assert np.quantile(draws, 0.99) == pytest.approx(law.quantile(0.99), rel=0.02)
    assert LengthLaw.through(1000, None).quantile(0.99) == 1000   # empty p90: fixed length


def test_no_lognormal_has_its_p90_beyond_2_27_times_its_mean():
    assert MAX_P90_OVER_MEAN == pytest.approx(2.2732, abs=1e-4)
    assert lognormal_sigma(1000, 2273) == pytest.approx(Z90, rel=0.02)   # near the top: sigma -> z90
    for p90 in (1000, 900, 2274, 4000):
        with pytest.raises(ValueError, match="at most 2.273 x it"):
            lognormal_sigma(1000, p90)


def test_the_batch_limit_of_fixed_lengths_is_the_floor_and_a_tail_lowers_it():
    assert float(tail_batch_limit(1000.0, 7.0, 7.0)) == 142.0
    assert float(tail_batch_limit(1000.0, 7.0, 8.0)) < 142.0
    # the mean reserved context of the running batch: outputs length-biased, m e^{sigma^2}
    law = LengthLaw.through(1000, 2000)
    mean, sd = batch_context_moments([1.0], [LengthLaw(4000)], [law])
    assert mean == pytest.approx(4000 + 1000 * math.exp(law.sigma ** 2))
    assert batch_context_moments([1.0], [LengthLaw(4000)], [LengthLaw(1000)]) == (5000.0, 0.0)


# ---- the mix on one configuration -------------------------------------------------------------------------

@pytest.mark.parametrize("percentile", ["mean", "p99"])
def test_one_fixed_length_class_is_the_kernel_itself(h200, percentile):
    device, model = h200
    serving = ServingConfig(tensor_parallel=4, batch=64)
    b = np.arange(1, 400, dtype=float)
    curve = generate_curve(device, model, serving, Workload(input_tokens=2000, output_tokens=500,
                                                            prefix_cache_hit_rate=0.3, latency_percentile=percentile), b)
    mix = mix_curve(device, model, serving, [ClassLoad("one", 1.0, LengthLaw(2000), LengthLaw(500), 0.3, percentile)], b)
    np.testing.assert_allclose(mix.tokens_per_s_per_device, curve.tokens_per_s_per_device, rtol=1e-12)
    np.testing.assert_allclose(mix.power_w, curve.power_w, rtol=1e-12)
    np.testing.assert_allclose(mix.tokens_per_s_per_user[0], curve.tokens_per_s_per_user, rtol=1e-12)
    np.testing.assert_allclose(mix.ttft_s[0], curve.ttft_s, rtol=1e-9)
    assert mix.max_batch_by_memory == curve.max_batch_by_memory
    assert (mix.feasible == curve.feasible).all()


def test_a_prefix_reload_is_prefill_time_of_the_replica(h200):
    """A class whose requests reload r seconds of prefix (an agentic class's host tier): each request's prefill
    is pf + r, so the cycle of B requests lengthens by B r exactly, tokens/s per device falls to B O / cycle / N,
    the prefill share rises and the TTFT grows by at least r; r = 0 is the class as before, bit for bit."""
    from dataclasses import replace

    device, model = h200
    serving = ServingConfig(tensor_parallel=4, batch=64)
    b = np.array([1.0, 8.0, 64.0])
    load = ClassLoad("agent", 1.0, LengthLaw(20000), LengthLaw(300), 0.9)
    base, zero = mix_curve(device, model, serving, [load], b), mix_curve(device, model, serving, [replace(load, reload_s=0.0)], b)
    assert (base.tokens_per_s_per_device == zero.tokens_per_s_per_device).all() and (base.ttft_s == zero.ttft_s).all()
    r, n = 0.02, 4.0
    slow = mix_curve(device, model, serving, [replace(load, reload_s=r)], b)
    cycle = b * 300 / (base.tokens_per_s_per_device * n) + b * r
    np.testing.assert_allclose(slow.tokens_per_s_per_device, b * 300 / cycle / n, rtol=1e-12)
    assert (slow.prefill_share > base.prefill_share).all()
    assert (slow.ttft_s[0] >= base.ttft_s[0] + r - 1e-12).all()


def test_a_long_tail_lowers_the_batch_by_memory_and_raises_the_p99_ttft(h200):
    """Same means, p90 = 2.2 x the mean (near the lognormal's largest, 2.27 x) against fixed lengths."""
    device, model = h200
    serving = ServingConfig(tensor_parallel=2, batch=64)
    fixed = [ClassLoad("batch", 1.0, LengthLaw(4000), LengthLaw(1000), 0.0, "p99")]
    tail = [ClassLoad("batch", 1.0, LengthLaw.through(4000, 8800), LengthLaw.through(1000, 2200), 0.0, "p99")]
    b = np.array([1.0, 16.0, 32.0])
    a, t = mix_curve(device, model, serving, fixed, b), mix_curve(device, model, serving, tail, b)
    assert t.max_batch_by_memory < 0.7 * a.max_batch_by_memory
    assert (t.ttft_s[0] > 1.5 * a.ttft_s[0]).all()
    # the batch holds the long outputs longer: each step reads more KV cache, at the same means
    assert (t.tokens_per_s_per_device < a.tokens_per_s_per_device).all()


def test_classes_share_the_steps_and_the_short_outputs_pay_the_prefills(h200):
    device, model = h200
    serving = ServingConfig(tensor_parallel=2, batch=64)
    loads = [ClassLoad("chat", 0.5, LengthLaw(1000), LengthLaw(300), 0.0, "p99"),
             ClassLoad("reasoning", 0.5, LengthLaw(2000), LengthLaw(8000), 0.0, "p99")]
    mix = mix_curve(device, model, serving, loads, np.array([32.0]))
    # at the mean every class decodes at the same rate (the same steps, the same prefill stalls per token);
    # at p99 the short outputs meet relatively more of the stalls
    assert mix.tokens_per_s_per_user[0, 0] < mix.tokens_per_s_per_user[1, 0]
    assert mix.device_time_share[:, 0].sum() == pytest.approx(1.0)
    assert mix.requests_per_s_per_device[0] * (0.5 * 300 + 0.5 * 8000) == pytest.approx(mix.tokens_per_s_per_device[0])


# ---- a plan of three classes ------------------------------------------------------------------------------

def test_three_classes_compute_per_class_and_plan_figures(three):
    _, result = three
    data = result.as_json()
    rows = {c["class"]: c for c in data["workloads"]}
    assert list(rows) == ["chat", "reasoning", "batch"]
    for row in rows.values():
        for key in ("share", "tokens_per_s_per_user", "ttft_s", "requests_per_s", "achieved_prefix_hit_rate",
                    "cost_per_million_output_tokens_usd", "revenue_usd_per_year"):
            assert row[key] is not None and row[key] >= 0, key
    assert rows["chat"]["tokens_per_s_per_user"] >= 50 and rows["chat"]["meets_target"] is True
    assert rows["reasoning"]["tokens_per_s_per_user"] >= 30 and rows["reasoning"]["meets_target"] is True
    assert rows["batch"]["meets_target"] is None
    blended = data["workloads_blended"]
    assert blended["output_tokens"] == pytest.approx(0.5 * 300 + 0.3 * 8000 + 0.2 * 1000)
    assert blended["input_tokens"] == pytest.approx(0.5 * 1000 + 0.3 * 2000 + 0.2 * 4000)
    total = sum(r["requests_per_s"] for r in rows.values())
    assert total == pytest.approx(blended["requests_per_s"])
    assert rows["chat"]["requests_per_s"] == pytest.approx(0.5 * total)
    # the plan's revenue is the sum of its classes'; its cost per output token their output-weighted mean
    assert sum(r["revenue_usd_per_year"] for r in rows.values()) == pytest.approx(data["revenue_usd_per_year"])
    out = {k: r["share"] * r["output_tokens"] for k, r in rows.items()}
    weighted = sum(out[k] * rows[k]["cost_per_million_output_tokens_usd"] for k in rows) / sum(out.values())
    assert weighted == pytest.approx(data["cost_per_million_output_tokens_usd"])
    # output tokens per year follow the mix's output tokens per request
    assert data["tokens_per_s_per_device"] == pytest.approx(result.point.tokens_per_s_per_device)


def test_the_serving_search_meets_every_class(three):
    scenario, result = three
    assert result.searches[0] is not None
    assert result.point.batch <= result.point.max_batch_by_memory
    # a class's tighter target moves the chosen point: chat at 80 tokens/s per user
    strict = scenario.with_plan("H200", workloads=[dict(CHAT, min_tokens_per_s_per_user=80), REASONING, BATCH])
    again = compute_plan(strict, strict.plan("H200"))
    chat = again.workloads[0]
    assert chat.tokens_per_s_per_user >= 80 and chat.meets_target
    assert again.point.tokens_per_s_per_device < result.point.tokens_per_s_per_device


def test_one_class_of_the_plans_own_keys_computes_as_the_plan(scenario):
    plan = scenario.plan("H200")
    typed = scenario.with_plan("H200", serving_search="off")
    own = {"class": "all", "share": 1.0, "input_tokens": plan.input_tokens, "output_tokens": plan.output_tokens,
           "min_tokens_per_s_per_user": plan.min_tokens_per_s_per_user, "max_ttft_s": plan.max_ttft_s}
    classed = typed.with_plan("H200", workloads=[own])
    a = compute_plan(typed, typed.plan("H200"))
    b = compute_plan(classed, classed.plan("H200"))
    assert b.point.batch == a.point.batch
    for key in ("tokens_per_s_per_device", "tokens_per_s_per_user", "ttft_s", "power_w"):
        assert getattr(b.point, key) == pytest.approx(getattr(a.point, key), rel=1e-9), key
    for key in ("cost_per_million_output_tokens_usd", "revenue_usd_per_year", "npv_usd"):
        assert getattr(b.metrics, key) == pytest.approx(getattr(a.metrics, key), rel=1e-9), key
    assert b.workloads[0].cost_per_million_output_tokens_usd == pytest.approx(a.metrics.cost_per_million_output_tokens_usd)


def test_cached_input_at_a_tenth_moves_revenue_as_the_three_price_equation_says(scenario):
    p_out, p_in = 2.0, 0.5
    base = scenario.with_plan("H200", price_usd_per_million_output_tokens=p_out, price_usd_per_million_input_tokens=p_in,
                              price_change_per_year=0.0)
    classes = [dict(c, prefix_cache_hit_rate=0.9) for c in THREE]
    full = base.with_plan("H200", workloads=classes)
    tenth = base.with_plan("H200", workloads=[dict(c, price_usd_per_million_cached_input_tokens=p_in / 10)
                                              for c in classes])
    a, b = (compute_plan(s, s.plan("H200")) for s in (full, tenth))
    assert b.point.tokens_per_s_per_device == a.point.tokens_per_s_per_device   # prices do not move the physics
    out_per_year = float(np.asarray(a.finance["output_tokens_per_year"]))
    o = sum(c["share"] * c["output_tokens"] for c in THREE)
    i = sum(c["share"] * c["input_tokens"] for c in THREE)
    # revenue = output tokens x (p_out + I / O x ((1 - h) p_in + h p_cached)) / 1e6
    for result, cached in ((a, p_in), (b, p_in / 10)):
        expected = out_per_year * (p_out + i / o * (0.1 * p_in + 0.9 * cached)) / 1e6
        assert result.metrics.revenue_usd_per_year == pytest.approx(expected, rel=1e-9)
    # per class, the same equation on its own tokens
    rows = b.workloads
    per_request = [c["output_tokens"] * p_out + c["input_tokens"] * (0.1 * p_in + 0.9 * p_in / 10) for c in THREE]
    weights = np.array([c["share"] * r for c, r in zip(THREE, per_request)])
    np.testing.assert_allclose([r.revenue_usd_per_year for r in rows],
                               b.metrics.revenue_usd_per_year * weights / weights.sum(), rtol=1e-12)
    assert [r.achieved_prefix_hit_rate for r in rows] == [0.9, 0.9, 0.9]


def test_an_agentic_class_is_its_mean_context_for_now(scenario):
    rc = RequestClass(plan="H200", class_="agent", share=1.0, output_tokens=300, session_turns=10,
                      system_prompt_tokens=20000, turn_input_tokens=2000, turn_gap_s=5.0, prefix_cache_hit_rate=0.9)
    assert agentic_mean_prompt(rc) == 20000 + 2000 * 5.5 + 300 * 4.5
    s = scenario.with_plan("H200", workloads=[rc])
    result = compute_plan(s, s.plan("H200"))
    assert result.workloads[0].input_tokens == 20000 + 2000 * 5.5 + 300 * 4.5
    assert result.point.exists


def test_a_class_alone_as_a_plan_for_its_frontier(three):
    scenario, _ = three
    alone = class_as_plan(scenario.plan("H200"), "reasoning")
    assert (alone.input_tokens, alone.output_tokens, alone.min_tokens_per_s_per_user) == (2000, 8000, 30)
    assert alone.workloads == ()
    with pytest.raises(KeyError, match="no request class 'nope'"):
        class_as_plan(scenario.plan("H200"), "nope")


def test_a_prefill_decode_pair_with_classes_says_why_it_is_not_computed(scenario):
    s = scenario.with_plan("H200", prefill_devices=4, decode_devices=4, workloads=THREE)
    result = compute_plan(s, s.plan("H200"))
    assert not result.point.exists
    assert any("request classes are served by serve pools" in w for w in result.warnings)


# ---- bad classes ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("classes, message", [
    ([CHAT, REASONING], "the classes' shares add to 0.8 (0.5 + 0.3); they must add to 1"),
    ([CHAT, dict(REASONING, share=0.5, **{"class": "chat"})], "chat: a class name is used twice"),
    ([dict(BATCH, share=1.0, input_tokens_p90=4000)], "a p90 above the mean"),
    ([dict(BATCH, share=1.0, output_tokens_p90=4000)], "a lognormal's p90 is at most 2.273 x its mean"),
    ([dict(BATCH, share=1.0, color="red")], "unknown Workloads column 'color'"),
    (["chat"], "a request class is a dict of Workloads columns"),
    ([dict(BATCH, share=1.5)], "share"),
    ([dict(BATCH, share=1.0, latency_percentile="p50")], "latency_percentile"),
    ([dict(BATCH, share=1.0, plan="B200")], "a class given to plan 'H200' names another plan"),
    ([dict(BATCH, share=1.0, output_tokens=None)], "output_tokens"),
])
def test_bad_classes_give_clear_errors(scenario, classes, message):
    with pytest.raises(ValidationError) as caught:
        scenario.with_plan("H200", workloads=classes)
    text = str(caught.value)
    assert message in text and "H200" in text
    assert "RequestClass(" not in text


def test_monte_carlo_holds_a_mix_point_and_says_so(scenario):
    from dataclasses import replace
    from tcoapp.engine.uncertainty.inputs import UncertainInput
    from tcoapp.engine.uncertainty.simulate import simulate
    rows = (UncertainInput(plan="H200", key="factor.eta_mem", distribution="triangular", low=0.6, mode=0.7, high=0.8),)
    s = replace(scenario.with_plan("H200", workloads=THREE), uncertainty=rows)
    draws = simulate(s, draws=200, seed=1, model_error=False).plan("H200")   # (the model's error moves it: off)
    assert any("held at its computed value" in n for n in draws.notes)
    np.testing.assert_allclose(draws.metric("cost_per_million_output_tokens_usd"),
                               draws.deterministic.cost_per_million_output_tokens_usd, rtol=1e-9)


def test_a_plans_long_tail_lowers_its_batch_limit_and_raises_the_classes_p99_ttft(scenario):
    typed = scenario.with_plan("H200", serving_search="off", latency_percentile="p99")
    fixed = typed.with_plan("H200", workloads=THREE)
    tail = typed.with_plan("H200", workloads=[CHAT, REASONING, dict(BATCH, input_tokens_p90=8800,
                                                                    output_tokens_p90=2200)])
    a, b = (compute_plan(s, s.plan("H200")) for s in (fixed, tail))
    limit = lambda r: r.workloads_blended["pools"][0]["max_batch_by_memory"]  # noqa: E731
    assert limit(b) < limit(a)
    assert b.workloads[2].ttft_s > 1.5 * a.workloads[2].ttft_s       # the batch class's p99 prompt
    assert b.workloads[0].ttft_s > a.workloads[0].ttft_s             # chat waits behind the long prompts
    assert b.workloads[2].input_tokens == a.workloads[2].input_tokens == 4000   # the same means


def test_price_tiers_price_each_class_at_its_own_rate(scenario):
    """chat and reasoning decode at the same rate at the mean; at p99 chat (short outputs) is slower, so
    with a tier boundary between them each class pays its own tier."""
    from dataclasses import replace
    from tcoapp.engine.plan.scenario import PriceTiers
    typed = scenario.with_plan("H200", serving_search="off", latency_percentile="p99")
    probe = compute_plan(typed.with_plan("H200", workloads=THREE), typed.with_plan("H200", workloads=THREE).plan("H200"))
    chat, reasoning = probe.workloads[0].tokens_per_s_per_user, probe.workloads[1].tokens_per_s_per_user
    assert chat < reasoning
    tiers = PriceTiers("t", (1.0, (chat + reasoning) / 2), (1.0, 3.0))
    s = replace(typed, price_tiers={"t": tiers}).with_plan("H200", price_tiers="t",
                                                             workloads=[CHAT, REASONING, dict(BATCH, price_usd_per_million_output_tokens=0.5)])
    result = compute_plan(s, s.plan("H200"))
    assert [c.price_usd_per_million_output_tokens for c in result.workloads] == [1.0, 3.0, 0.5]


def test_two_serve_pools_each_meet_every_class(scenario):
    from dataclasses import replace
    from tcoapp.engine.quantities.records import make_pool
    pools = tuple(make_pool({"plan": "H200", "pool": name, "role": "serve", "device": device, "device_count": 64})
                  for name, device in (("hopper", "H200-SXM"), ("blackwell", "B200")))
    s = scenario.with_plan("H200", sizing_mode="devices", workloads=THREE)
    s = s.replace_plan(0, replace(s.plan("H200"), pools=pools))
    result = compute_plan(s, s.plan("H200"))
    assert [p["pool"] for p in result.workloads_blended["pools"]] == ["hopper", "blackwell"]
    chat = result.workloads[0]
    assert chat.tokens_per_s_per_user >= 50 and chat.meets_target
    total = sum(r for r in result.fleet.requests_per_s)
    assert sum(c.requests_per_s for c in result.workloads) == pytest.approx(total)


def test_one_class_frontier_is_the_best_over_the_space_at_each_rate(three):
    from tcoapp.engine.serving.class_frontier import class_frontier
    scenario, result = three
    chat = class_frontier(scenario, scenario.plan("H200"), "chat")
    assert chat.swept_configurations > 10 and len(chat.tokens_per_s_per_user) > 5
    assert np.all(np.diff(chat.tokens_per_s_per_user) > 0)
    assert np.all(np.diff(chat.tokens_per_s_per_device) < 0)          # faster users, fewer tokens per device
    # a fixed-length class's frontier at its target is the single-request search's best (same space)
    from tcoapp.engine.plan.pools import resolve_pools
    from tcoapp.engine.serving.search import search_serve_pool
    alone = class_as_plan(scenario.plan("H200"), "chat").with_(search_objective="tokens_per_s_per_device")
    _, outcome = search_serve_pool(scenario.for_plan(alone), alone, resolve_pools(alone)[0])
    best = chat.tokens_per_s_per_device[chat.tokens_per_s_per_user >= 50].max()
    assert best == pytest.approx(outcome.objective_value, rel=1e-9)
    batch = class_frontier(scenario, scenario.plan("H200"), "batch")
    assert batch.tokens_per_s_per_device.max() > chat.tokens_per_s_per_device.max() * 0.5
    with pytest.raises(KeyError):
        class_frontier(scenario, scenario.plan("H200"), "nope")


def test_a_target_no_batch_meets_is_said_per_class(scenario):
    s = scenario.with_plan("H200", serving_search="off", workloads=[dict(CHAT, min_tokens_per_s_per_user=5000),
                                                                     REASONING, BATCH])
    result = compute_plan(s, s.plan("H200"))
    assert not result.point.exists
    said = " ".join(result.warnings)
    assert "no batch meets every class's target: chat reaches at most" in said and "(target 5000)" in said
    assert all(c.tokens_per_s_per_user is None for c in result.workloads)


def test_a_plan_selling_device_hours_has_no_class_revenue(scenario):
    s = scenario.with_plan("H200", revenue_mode="device_hours", price_usd_per_device_hour=3.0, workloads=THREE)
    result = compute_plan(s, s.plan("H200"))
    assert all(c.revenue_usd_per_year is None for c in result.workloads)
    assert all(c.cost_per_million_output_tokens_usd > 0 for c in result.workloads)


# ---- a tail longer than a lognormal's: p90 = 4 x the mean -----------------------------------------------

def test_a_p90_of_4x_the_mean_is_refused_with_the_two_classes_that_type_it(scenario):
    """No lognormal has its p90 at 4 x its mean (at most 2.273 x): such a tail is two populations, and the
    error gives the two classes of the same mean and p90."""
    with pytest.raises(ValidationError) as caught:
        scenario.with_plan("H200", workloads=[dict(BATCH, share=1.0, input_tokens_p90=16000)])
    text = str(caught.value)
    assert "'batch body' at share 0.85 with input_tokens 1,882" in text
    assert "'batch tail' at share 0.15 with input_tokens 16,000" in text
    body, tail = 0.85 * 1882.35, 0.15 * 16000
    assert body + tail == pytest.approx(4000, rel=1e-4)          # the same mean; the p90 falls in the tail
    with pytest.raises(ValidationError, match="no distribution of lengths has its p90 at 10 x its mean"):
        scenario.with_plan("H200", workloads=[dict(BATCH, share=1.0, input_tokens_p90=40000)])


def test_the_same_mean_with_a_p90_of_4x_lowers_the_batch_by_memory_and_raises_the_p99_ttft(scenario):
    """The issue's case: the batch class at its means (4k in / 1k out), against the same means with p90 = 4 x
    the mean, typed as the two classes the error names (85 % body, 15 % tail at the p90)."""
    typed = scenario.with_plan("H200", serving_search="off", latency_percentile="p99")
    fixed = typed.with_plan("H200", workloads=[dict(BATCH, share=1.0)])
    body = dict(BATCH, share=0.85, input_tokens=1882, output_tokens=471, **{"class": "batch body"})
    tail = dict(BATCH, share=0.15, input_tokens=16000, output_tokens=4000, **{"class": "batch tail"})
    long = typed.with_plan("H200", workloads=[body, tail])
    a, b = (compute_plan(s, s.plan("H200")) for s in (fixed, long))
    for key in ("input_tokens", "output_tokens"):     # the same means, within a token of rounding
        mean = sum(c[key] * c["share"] for c in (body, tail))
        assert mean == pytest.approx(dict(BATCH)[key], abs=1.0)
    limit = lambda r: r.workloads_blended["pools"][0]["max_batch_by_memory"]  # noqa: E731
    assert limit(b) < limit(a)
    assert max(c.ttft_s for c in b.workloads) > 1.5 * a.workloads[0].ttft_s
