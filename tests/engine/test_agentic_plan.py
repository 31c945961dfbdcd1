"""A plan's agentic answer (docs/model.md, "Agentic sessions and KV tiers"): a plan with an agentic request
class gets the `agentic` block (sessions, hit rate per tier, agents per MW, cost per agent-hour, the knee
and the session curve) from the servers it buys; its equations checked on the real pipeline; a plan
without an agentic class computes exactly as before. Plus the issue's properties on the real replica,
drawn by hypothesis: the hit rate never rises as sessions are added, random routing never beats affinity."""
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tcoapp.engine.performance.kv_residency import SessionShape, residency
from tcoapp.engine.pipeline.compute import compute_plan
from tcoapp.engine.quantities.records import make_request_class
from tcoapp.engine.serving.agentic import KvTiers, agentic_answer, session_curve
from tcoapp.io.default_scenario import default_scenario
from tcoapp.present.agentic_text import agentic_sentence

CODING = make_request_class({"plan": "B200 agentic", "class": "coding", "share": 1.0, "output_tokens": 300,
                             "session_turns": 30, "system_prompt_tokens": 8000, "turn_input_tokens": 2000,
                             "turn_gap_s": 5.0})


@pytest.fixture(scope="module")
def scenario():
    return default_scenario()


def _plan(scenario, **keys):
    base = scenario.plans[2].with_(name="B200 agentic", model="GLM-4.6", serving_search="off", tensor_parallel=8,
                                   min_tokens_per_s_per_user=None, max_ttft_s=None, batch=64,
                                   weight_precision="fp8", kv_precision="fp8", sizing_mode="devices",
                                   device_count=64, workloads=(CODING,))
    return base.with_(**keys)


@pytest.fixture(scope="module")
def results(scenario):
    bare = compute_plan(scenario, _plan(scenario))
    host = compute_plan(scenario, _plan(scenario, kv_offload="host", extra_host_memory_gb=2048.0,
                                        host_memory_price_usd_per_gb=10.0))
    return bare, host


def test_the_agentic_block_follows_its_equations(scenario, results):
    bare, host = results
    a = bare.agentic
    assert a["class"] == "coding" and a["sessions_basis"] == "operating_batch" and a["replicas"] == 8
    assert a["concurrent_sessions_per_device"] == pytest.approx(a["sessions_per_replica"] / 8, rel=1e-12)
    facility_w = float(bare.finance["it_provisioned_kw"]) * 1000 * _plan(scenario).pue / 64
    assert a["agents_per_mw"] == pytest.approx(a["concurrent_sessions_per_device"] * 1e6 / facility_w, rel=1e-12)
    hourly = bare.metrics.cost_per_device_hour_usd
    assert a["cost_per_agent_hour_usd"] == pytest.approx(
        hourly / (a["concurrent_sessions_per_device"] * _plan(scenario).utilization), rel=1e-12)
    assert sum(a["hit_rate_by_tier"].values()) == pytest.approx(a["achieved_prefix_hit_rate"], abs=1e-12)
    curve = a["session_curve"]
    assert curve[0]["sessions_per_replica"] == 1 and curve[-1]["sessions_per_replica"] >= 4 * a["hbm_knee_sessions_per_replica"]
    # the active batch of the plan's sessions is the plan's operating batch
    assert a["sessions_per_replica"] > bare.point.batch
    json.dumps(bare.as_json())                     # the block is plain JSON
    assert bare.as_json()["agentic"]["class"] == "coding"
    assert "agents per MW" in agentic_sentence(a) and "per agent-hour" in agentic_sentence(a)


def test_host_memory_bought_shows_as_a_host_tier_and_a_dearer_server(results):
    bare, host = results
    assert bare.agentic["hit_rate_by_tier"]["host"] == 0 and host.agentic["kv_offload"] == "host"
    assert host.agentic["achieved_prefix_hit_rate"] >= bare.agentic["achieved_prefix_hit_rate"]
    assert float(host.finance["capex_usd"]) > float(bare.finance["capex_usd"])


def test_a_plan_without_an_agentic_class_has_no_block_and_the_same_numbers(scenario):
    plain = scenario.plans[2]
    result = compute_plan(scenario, plain)
    assert result.agentic is None and "agentic" not in result.as_json()
    same = compute_plan(scenario, plain.with_(kv_offload="host", kv_routing="random"))  # read only by agentic classes
    assert json.dumps(same.as_json(), sort_keys=True) == json.dumps(result.as_json(), sort_keys=True)


def test_sessions_per_replica_fixes_the_operating_point(scenario):
    fixed = compute_plan(scenario, _plan(scenario, sessions_per_replica=40.0)).agentic
    assert fixed["sessions_basis"] == "sessions_per_replica" and fixed["sessions_per_replica"] == 40.0


def test_a_class_that_is_not_agentic_is_refused_by_the_answer(scenario):
    chat = make_request_class({"plan": "p", "class": "chat", "share": 1.0, "input_tokens": 1000, "output_tokens": 200})
    plan = _plan(scenario)
    with pytest.raises(ValueError, match="request class 'chat' is not agentic: session_turns is empty"):
        agentic_answer(scenario.device("B200"), scenario.model("GLM-4.6"), compute_plan(scenario, plan).pools[0].serving,
                       chat)


def _done_when(scenario, model: str):
    """The issue's closing properties at the count whose idle contexts need twice the HBM left for KV."""
    serving = compute_plan(scenario, _plan(scenario, model=model)).pools[0].serving
    device = scenario.device("B200")
    shape = SessionShape(turns=30, system_prompt_tokens=8000, turn_input_tokens=2000, turn_output_tokens=300, gap_s=5.0)
    n = 2.0 * session_curve(device, scenario.model(model), serving, shape, KvTiers("none"), [1.0]).hbm_knee_sessions_per_replica
    host = KvTiers("host", host_gb=2048.0 / 8, host_link_gb_s=device.host_link_gb_s)   # a DGX B200's 2 TB, PCIe Gen5
    without = session_curve(device, scenario.model(model), serving, shape, KvTiers("none"), [n])
    with_host = session_curve(device, scenario.model(model), serving, shape, host, [n])
    return without, with_host


@pytest.mark.parametrize("model", ["GLM-4.6", "Kimi-K2"])
def test_done_when_twice_the_hbm_offload_keeps_the_hit_rate_and_doubles_throughput(scenario, model):
    without, with_host = _done_when(scenario, model)
    assert without.achieved_prefix_hit_rate[0] < 0.5
    assert with_host.achieved_prefix_hit_rate[0] > 0.8
    assert with_host.tokens_per_s_per_device[0] >= 2.0 * without.tokens_per_s_per_device[0]


SHAPES = st.builds(SessionShape, turns=st.integers(1, 60), system_prompt_tokens=st.floats(0, 2e4),
                   turn_input_tokens=st.floats(1, 8e3), turn_output_tokens=st.floats(1, 2e3), gap_s=st.floats(0, 60))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(shape=SHAPES, hbm=st.floats(1e4, 1e7), host=st.floats(0, 1e7), nvme=st.floats(0, 1e8),
       turn_s=st.floats(0.05, 30), replicas=st.integers(2, 16))
def test_the_hit_rate_never_rises_with_sessions_and_random_never_beats_affinity(shape, hbm, host, nvme, turn_s, replicas):
    counts = np.geomspace(1, 2000, 30)
    affinity = residency(shape, counts, 1.0e3, [hbm, host, nvme], turn_s)
    spread = residency(shape, counts, 1.0e3, [hbm, host, nvme], turn_s, routing="random", replicas=replicas)
    for found in (affinity, spread):
        assert np.all(np.diff(found.hit_rate) <= 1e-9)
        assert np.all(found.hit_rate <= 1 + 1e-12) and np.all(found.hit_by_tier >= -1e-12)
    assert np.all(spread.hit_rate <= affinity.hit_rate + 1e-9)
    assert math.isfinite(float(affinity.hit_rate[0]))


def test_the_agentic_coding_sample_builds_its_nine_plans():
    from samples.build_samples import AGENTIC_SAMPLE, SAMPLES
    scenario = AGENTIC_SAMPLE.build()
    assert AGENTIC_SAMPLE in SAMPLES
    assert len(scenario.plans) == 9 and all(p.workloads[0].session_turns == 40 for p in scenario.plans)
    assert {p.device for p in scenario.plans} == {"GB200-NVL72", "B200", "MI355X"}
    b200 = [p for p in scenario.plans if p.device == "B200"]
    assert [(p.kv_offload, p.kv_routing, p.extra_host_memory_gb) for p in b200] == [
        ("none", "session_affinity", 0.0), ("host", "session_affinity", 2048.0), ("host", "random", 2048.0)]


def test_an_offload_to_a_tier_the_server_lacks_is_said(scenario):
    """A custom server without host memory or NVMe: the offload holds nothing, and the plan's notes say so."""
    bare = scenario.device("B200").with_(name="B200 no host", host_memory_gb=0.0, nvme_tb=0.0)
    custom = scenario.with_plans((_plan(scenario, device="B200 no host", kv_offload="host_nvme"),))
    from dataclasses import replace
    custom = replace(custom, devices={**custom.devices, bare.name: bare})
    result = compute_plan(custom, custom.plans[0])
    notes = " ".join(result.warnings)
    assert "kv_offload = host_nvme but B200 no host states no host memory or host link" in notes
    assert "states no NVMe capacity or bandwidth" in notes
    assert result.agentic["hit_rate_by_tier"]["host"] == 0 and result.agentic["contrast"]["kv_offload"] == "none"


def test_the_plan_serves_its_agentic_class_at_the_sessions_hit_rate(scenario, results):
    """The hit rate is an outcome: the class is served (prefill work, throughput, cached-input revenue, NPV) at
    the rate its sessions reach on the plan's memory, and a host tier that keeps more sessions resident serves a
    higher one and earns more."""
    bare, host = results
    for result in (bare, host):
        (served,) = result.workloads
        assert any("served at its sessions' achieved prefix hit rate" in w for w in result.warnings)
        assert served.as_json()["achieved_prefix_hit_rate"] == pytest.approx(
            result.workloads_blended["achieved_prefix_hit_rate"], rel=1e-12)
    assert host.workloads_blended["achieved_prefix_hit_rate"] > bare.workloads_blended["achieved_prefix_hit_rate"]
    assert float(host.finance["cached_input_revenue_usd_per_year"]) > float(bare.finance["cached_input_revenue_usd_per_year"])
    stated = compute_plan(scenario, _plan(scenario, workloads=(CODING.with_(prefix_cache_hit_rate=0.0),)))
    assert stated.workloads_blended["achieved_prefix_hit_rate"] == pytest.approx(
        bare.workloads_blended["achieved_prefix_hit_rate"], rel=1e-12)   # a stated rate is replaced too


def test_the_report_gives_each_agentic_plans_agents_per_mw_and_cost_per_agent_hour(scenario, results):
    """The report's agentic section: the plan with an agentic class, with its agents per MW and cost per
    agent-hour as the JSON block gives them; a plan without one is not in it."""
    from tcoapp.present.report_html import report_html
    from tcoapp.present.agentic_text import agent_hour_text, agents_per_mw_text

    bare, _ = results
    plain = scenario.plans[0]
    both = scenario.with_plans((_plan(scenario), plain))
    html = report_html(both, (bare, compute_plan(scenario, plain)), "agentic")
    section = html[html.index("<h2>Agentic sessions</h2>"):]
    section = section[:section.index("<h2>", 4)]
    a = bare.agentic
    assert f"{agents_per_mw_text(a)} agents per MW" in section and f"{agent_hour_text(a)} per agent-hour" in section
    assert a["agents_per_mw"] > 0 and a["cost_per_agent_hour_usd"] > 0
    assert "<b>B200 agentic</b>" in section and plain.name not in section


def test_a_host_tier_reload_is_in_the_mix_step_time_and_a_slower_link_serves_less(scenario):
    """The second pass serves the agentic class with its sessions' prefix reload from host memory in each request's
    prefill: tokens/s per device falls and TTFT rises against the same pass without it, by more on a slower host
    link; HBM only reloads nothing (docs/model.md, "A plan's agentic answer")."""
    from dataclasses import replace
    from tcoapp.engine.pipeline.agentic_block import sessions_hit_rate
    from tcoapp.engine.pipeline.compute import _compute_plan

    def passes(scn, plan):
        classes, note, reloads = sessions_hit_rate(plan, _compute_plan(scn, plan).agentic)
        return compute_plan(scn, plan), _compute_plan(scn, plan.with_(workloads=classes), {}), reloads, note

    host = dict(kv_offload="host", extra_host_memory_gb=2048.0, host_memory_price_usd_per_gb=10.0)
    served, without, reloads, note = passes(scenario, _plan(scenario, **host))
    reload_s = served.agentic["turn_reload_s"]
    assert reloads == {"coding": pytest.approx(reload_s, rel=1e-6)} and reload_s > 0
    assert "ms reloading its prefix from host memory or NVMe" in note
    assert served.metrics.tokens_per_s_per_device < without.metrics.tokens_per_s_per_device
    assert served.metrics.ttft_s > without.metrics.ttft_s
    # a quarter of the host link: four times the reload, less served
    b200 = scenario.device("B200")
    slow = replace(scenario, devices={**scenario.devices, "B200 slow link": b200.with_(
        name="B200 slow link", host_link_gb_s=b200.host_link_gb_s / 4)})
    slower, _, _, _ = passes(slow, _plan(slow, device="B200 slow link", **host))
    assert slower.agentic["turn_reload_s"] > reload_s
    assert slower.metrics.tokens_per_s_per_device < served.metrics.tokens_per_s_per_device
    bare = _plan(scenario)
    classes, _, none = sessions_hit_rate(bare, _compute_plan(scenario, bare).agentic)
    assert none == {} and compute_plan(scenario, bare).agentic["turn_reload_s"] == 0.0


def test_at_the_knee_the_plan_is_served_at_a_rate_its_sessions_reach(scenario):
    """A target sets the batch from the hit rate: at 0.954 it allows a batch past the HBM knee, whose sessions
    reach only 0.185, and at 0.185 a batch whose sessions reach 0.954. The passes alternate; the plan is served
    at the crossing's low end: its sessions reach at least the rate served there, and a rate 0.001 higher (past
    the bracket) gives a batch whose sessions reach less than it. A plan whose passes agree stops at two."""
    from tcoapp.engine.pipeline import compute as C
    from tcoapp.engine.pipeline.agentic_block import sessions_hit_rate

    plan = _plan(scenario, workloads=(CODING.with_(min_tokens_per_s_per_user=20.0),))
    result = compute_plan(scenario, plan)
    served = result.workloads_blended["achieved_prefix_hit_rate"]
    reached = result.agentic["achieved_prefix_hit_rate"]
    assert 0.185 < served < 0.954 and reached >= served
    assert any("its sessions sit at the HBM knee, so it is served at" in w for w in result.warnings)
    classes, _, reloads = sessions_hit_rate(plan, {"achieved_prefix_hit_rate": served + 1e-3})
    above = C._compute_plan(scenario, plan.with_(workloads=classes), reloads)
    assert above.point.batch > result.point.batch and above.agentic["achieved_prefix_hit_rate"] < served + 1e-3
    calls = []
    real = C._compute_plan
    try:
        C._compute_plan = lambda *a, **k: calls.append(1) or real(*a, **k)
        settled = C.compute_plan(scenario, _plan(scenario))
    finally:
        C._compute_plan = real
    assert len(calls) == 2 and not any("HBM knee" in w for w in settled.warnings)
    assert settled.workloads_blended["achieved_prefix_hit_rate"] == pytest.approx(
        settled.agentic["achieved_prefix_hit_rate"], rel=1e-9)
