"""Agentic sessions and KV tiers: the prefix hit rate as an outcome of memory (kv_residency.py) and the
replica's session curve (serving/agentic.py); docs/model.md, "Agentic sessions and KV tiers"."""
import math

import numpy as np
import pytest

from tcoapp.engine.performance.kv_residency import SessionShape, residency
from tcoapp.engine.quantities.records import ServingConfig
from tcoapp.engine.serving.agentic import KvTiers, session_curve
from tcoapp.io.catalog import load_catalog

SHAPE = SessionShape(turns=30, system_prompt_tokens=8000, turn_input_tokens=2000, turn_output_tokens=300, gap_s=5.0)
COUNTS = np.array([1, 2, 4, 8, 16, 32, 64, 96, 128, 160, 192, 256, 320, 400])


@pytest.fixture(scope="module")
def replica():
    catalog = load_catalog()
    serving = ServingConfig(tensor_parallel=8, expert_parallel=1, weight_precision="fp8", kv_precision="fp8")
    return catalog.devices["B200"], catalog.models["Qwen3-Coder-480B"], serving


def test_contexts_grow_turn_by_turn_and_the_prefix_is_the_previous_context():
    shape = SessionShape(turns=3, system_prompt_tokens=100, turn_input_tokens=10, turn_output_tokens=5, gap_s=1.0)
    assert shape.prompt_tokens().tolist() == [110, 125, 140]
    assert shape.cached_prefix_tokens().tolist() == [100, 115, 130]      # turn 1: the shared system prompt
    assert shape.held_tokens().tolist() == [115, 130, 145]


def test_cyclic_turns_fall_off_the_lru_cliff_exactly_where_the_contexts_outgrow_the_memory():
    """gap 0: every session returns after exactly turn_s, so LRU keeps every copy while they all fit
    and none once they do not (its classic cyclic-access cliff); the shared system prompt still hits."""
    shape = SessionShape(turns=10, system_prompt_tokens=1000, turn_input_tokens=500, turn_output_tokens=100, gap_s=0.0)
    prompts, prefixes = shape.prompt_tokens(), shape.cached_prefix_tokens()
    full = (prefixes[1:].sum() + 1000) / prompts.sum()
    floor = 1000 * 10 / prompts.sum()
    found = residency(shape, [9, 10, 11], 1.0, [10.0, 0.0, 0.0], turn_s=2.0)
    assert found.hit_rate == pytest.approx([full, full, floor])


def test_the_characteristic_time_solves_the_capacity_equation_by_hand():
    """Exponential gaps: occupancy(T) = (min(T, tau) + g (1 - exp(-(T - tau)/g))) / (tau + g); a turn
    hits iff its copy's age tau + Exp(g) is under T."""
    shape = SessionShape(turns=5, system_prompt_tokens=0, turn_input_tokens=100, turn_output_tokens=100, gap_s=4.0)
    tau, g, sessions, capacity = 1.0, 4.0, 10.0, 6.0
    found = residency(shape, sessions, 1.0, [capacity, 0.0, 0.0], turn_s=tau)
    t = found.characteristic_s[0, 0]
    assert sessions * (tau + g * (1 - math.exp(-(t - tau) / g))) / (tau + g) == pytest.approx(capacity, rel=1e-6)
    hit_turn = 1 - math.exp(-(t - tau) / g)
    prompts, prefixes = shape.prompt_tokens(), shape.cached_prefix_tokens()
    assert found.hit_rate[0] == pytest.approx(hit_turn * prefixes[1:].sum() / prompts.sum(), rel=1e-6)


@pytest.mark.parametrize("capacity,expected", [
    (1.0, 1.0 * 5.0 / 10.0),   # T under tau: occupancy T / (tau + g) = capacity / sessions
    (10.0, math.inf),          # every copy fits however old: no characteristic time
    (0.0, 0.0),                # no tier: nothing is resident
])
def test_the_affinity_characteristic_time_in_each_regime(capacity, expected):
    """Closed form on both sides of tau, where everything fits and where the tier is empty."""
    shape = SessionShape(turns=3, system_prompt_tokens=0, turn_input_tokens=10, turn_output_tokens=10, gap_s=4.0)
    found = residency(shape, 10.0, 1.0, [capacity, 0.0, 0.0], turn_s=1.0)
    assert found.characteristic_s[0, 0] == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("routing", ["session_affinity", "random"])
def test_a_tier_of_a_few_bytes_holds_no_negative_share(routing):
    """Hypothesis's case: host memory of 0.002 bytes after 402,848 of HBM. Its cumulative capacity is HBM's to
    the last digits, and each tier's time is solved on its own: the host's may not come out below the HBM's."""
    shape = SessionShape(turns=2, system_prompt_tokens=0.0, turn_input_tokens=1.0, turn_output_tokens=1.0, gap_s=28.0)
    counts = np.geomspace(1, 2000, 30)
    found = residency(shape, counts, 1.0e3, [402848.0, 0.001953125, 0.0], 14.0, routing=routing, replicas=13)
    times = found.characteristic_s
    assert np.all(times[1:] >= times[:-1])    # inf where a tier holds every copy
    assert np.all(found.hit_by_tier >= 0.0) and np.all(found.hit_rate <= 1 + 1e-12)


@pytest.mark.parametrize("replicas", [2, 8, 64])
def test_the_random_routing_characteristic_time_solves_its_capacity_equation(replicas):
    """T found by the root finder meets N R footprint P(age < T) = C to the stated precision."""
    from tcoapp.engine.performance.kv_residency import _copy_cdf

    tau, footprint = 3.0, 1.0e4
    found = residency(SHAPE, COUNTS, footprint, [5e5, 2e6, 0], turn_s=tau, routing="random", replicas=replicas)
    cumulative = np.array([5e5, 2.5e6])
    for tier, capacity in enumerate(cumulative):
        t = found.characteristic_s[tier]
        solved = np.isfinite(t)
        assert solved.any()
        demand = COUNTS[solved] * replicas * footprint * _copy_cdf(t[solved], tau, SHAPE.gap_s, replicas)
        assert demand == pytest.approx(np.full(solved.sum(), capacity), rel=1e-7)


@pytest.mark.parametrize("routing,replicas", [("session_affinity", 1), ("random", 2), ("random", 8)])
def test_the_hit_rate_never_rises_as_sessions_are_added(routing, replicas):
    for capacities in ([5e5, 0, 0], [5e5, 2e6, 0], [5e5, 1e6, 4e6]):
        found = residency(SHAPE, COUNTS, 1.0e4, capacities, turn_s=3.0, routing=routing, replicas=replicas)
        assert np.all(np.diff(found.hit_rate) <= 1e-9), found.hit_rate
        assert np.all(found.hit_by_tier >= -1e-12) and np.all(found.hit_rate <= 1 + 1e-12)


@pytest.mark.parametrize("replicas", [2, 4, 8])
def test_random_routing_never_beats_session_affinity(replicas):
    for capacities in ([5e5, 0, 0], [5e5, 2e6, 0], [2e7, 0, 0]):
        affinity = residency(SHAPE, COUNTS, 1.0e4, capacities, turn_s=3.0)
        spread = residency(SHAPE, COUNTS, 1.0e4, capacities, turn_s=3.0, routing="random", replicas=replicas)
        assert np.all(spread.hit_rate <= affinity.hit_rate + 1e-9)


def test_past_the_knee_offload_keeps_the_hit_rate_and_the_throughput(replica):
    """At the session count whose idle contexts need twice the HBM left for KV: without offload the
    hit rate is below 0.5; with host memory for every session it is above 0.8, and tokens/s per
    device at least 2x."""
    device, model, serving = replica
    bare = session_curve(device, model, serving, SHAPE, KvTiers("none"), [1.0])
    n = 2.0 * bare.hbm_knee_sessions_per_replica
    # 2 TB of host memory per 8-GPU server, 250 GB per device, over PCIe Gen5 x16 (about 64 GB/s)
    host = KvTiers("host", host_gb=250.0, host_link_gb_s=64.0)
    without = session_curve(device, model, serving, SHAPE, KvTiers("none"), [n])
    with_host = session_curve(device, model, serving, SHAPE, host, [n])
    assert without.achieved_prefix_hit_rate[0] < 0.5
    assert with_host.achieved_prefix_hit_rate[0] > 0.8
    assert with_host.tokens_per_s_per_device[0] >= 2.0 * without.tokens_per_s_per_device[0]
    assert with_host.hit_by_tier[1, 0] > 0 and with_host.ttft_s[0] < without.ttft_s[0]


def test_a_reload_slower_than_recomputing_is_a_recompute(replica):
    device, model, serving = replica
    n = [400.0]
    slow = session_curve(device, model, serving, SHAPE, KvTiers("host", host_gb=1e4, host_link_gb_s=1e-6), n)
    none = session_curve(device, model, serving, SHAPE, KvTiers("none"), n)
    assert slow.hit_by_tier[1, 0] == 0 and slow.achieved_prefix_hit_rate[0] == pytest.approx(
        none.achieved_prefix_hit_rate[0], rel=1e-6)


def test_refusals_name_the_allowed_values(replica):
    device, model, serving = replica
    with pytest.raises(ValueError, match="kv_offload 'dram': must be one of none, host, host_nvme"):
        session_curve(device, model, serving, SHAPE, KvTiers("dram"), [1.0])
    with pytest.raises(ValueError, match="kv_routing 'round_robin': must be one of session_affinity, random"):
        residency(SHAPE, [1.0], 1.0, [1.0, 0, 0], turn_s=1.0, routing="round_robin")
    with pytest.raises(ValueError, match="turn_s and footprint_bytes must be > 0"):
        residency(SHAPE, [1.0], 0.0, [1.0, 0, 0], turn_s=1.0)
