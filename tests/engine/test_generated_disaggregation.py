"""Prefill/decode disaggregation: pool sizing, starvation, both pools in throughput and power."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.engine.performance.disaggregation import generate_disaggregated
from tcoapp.engine.performance.generated import generate_curve
from tcoapp.engine.quantities.records import ServingConfig, Workload

from tests.engine.catalog_data import DEVICES, MODELS

H200, B200, CORSAIR = DEVICES["H200-SXM"], DEVICES["B200"], DEVICES["Corsair"]
LLAMA70, LLAMA8 = MODELS["Llama-3.3-70B"], MODELS["Llama-3.1-8B"]
RAG = Workload(input_tokens=8000, output_tokens=500)
BATCHES = np.array([1, 8, 64, 256])


def test_balanced_share_starves_neither_pool():
    d = generate_disaggregated(H200, H200, LLAMA70, ServingConfig(tensor_parallel=2), RAG, BATCHES)
    p = d.balanced_prefill_share
    np.testing.assert_allclose(p * d.prefill_requests_per_s_per_device, (1 - p) * d.decode_requests_per_s_per_device)
    assert d.user_prefill_share is None and np.all(d.prefill_share == p) and np.all(d.starved_pool == "")
    np.testing.assert_allclose(d.curve.tokens_per_s_per_device, 500 * (1 - p) * d.decode_requests_per_s_per_device)
    assert np.all(np.diff(p) > 0)  # bigger decode batches need more prefill capacity


def test_user_ratio_that_starves_a_pool_is_reported_and_costs_throughput():
    balanced = generate_disaggregated(H200, H200, LLAMA70, ServingConfig(tensor_parallel=2), RAG, BATCHES)
    few_prefill = ServingConfig(tensor_parallel=2, prefill_devices=1, decode_devices=50)
    d = generate_disaggregated(H200, H200, LLAMA70, few_prefill, RAG, BATCHES)
    assert d.user_prefill_share == pytest.approx(1 / 51) and d.prefill_share == pytest.approx(1 / 51)
    assert isinstance(d.prefill_share, float) and d.share_at(2) == d.prefill_share
    big = BATCHES >= 64
    assert np.all(d.starved_pool[big] == "decode")
    assert np.all(d.curve.tokens_per_s_per_device[big] < balanced.curve.tokens_per_s_per_device[big])
    assert any("starves the decode pool" in n for n in d.curve.notes)


def test_disaggregated_decode_is_not_interrupted_by_prefill():
    serving = ServingConfig(tensor_parallel=2)
    agg = generate_curve(H200, LLAMA70, serving, RAG, BATCHES)
    dis = generate_disaggregated(H200, H200, LLAMA70, serving, RAG, BATCHES).curve
    assert np.all(dis.tokens_per_s_per_user > agg.tokens_per_s_per_user)


def test_heterogeneous_pools_use_each_device_where_it_is_good():
    gpu_only = generate_disaggregated(B200, B200, LLAMA70, ServingConfig(), RAG, [1])
    fast_decode = B200.with_(name="fast-decode", mem_bw_gb_s=4 * B200.mem_bw_gb_s, peak_tflops_fp8=200, peak_tflops_bf16=100)
    mixed = generate_disaggregated(B200, fast_decode, LLAMA70, ServingConfig(), RAG, [1])
    assert mixed.curve.tokens_per_s_per_user[0] > 2.0 * gpu_only.curve.tokens_per_s_per_user[0]
    assert mixed.prefill_requests_per_s_per_device[0] == pytest.approx(gpu_only.prefill_requests_per_s_per_device[0])
    assert "prefill on B200, decode on fast-decode" in mixed.curve.notes[0]
    assert isinstance(mixed.prefill_share, float) and mixed.share_at(0) == mixed.prefill_share


def test_power_covers_both_pools():
    d = generate_disaggregated(B200, CORSAIR, LLAMA8, ServingConfig(), RAG, BATCHES).curve
    low, high = min(B200.idle_w, CORSAIR.idle_w), max(B200.tdp_w, CORSAIR.tdp_w)
    assert np.all(d.power_w >= low) and np.all(d.power_w <= high)
    assert d.source == "generated:disaggregated" and np.all(d.ttft_s > 0)
