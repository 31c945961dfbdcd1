"""The frontier sweep: every point, the Pareto set, progress and cancel."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tcoapp.engine.core.errors import Cancelled
from tcoapp.engine.performance.frontier import pareto_mask, sweep
from tcoapp.engine.performance.generated import generate_curve
from tcoapp.engine.quantities.records import ServingConfig, Workload

from tests.engine.catalog_data import DEVICES, MODELS

CHAT = Workload(input_tokens=1000, output_tokens=1000)
BATCHES = np.array([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096])


def brute_force_pareto(x, y, valid):
    keep = np.zeros(len(x), bool)
    for i in range(len(x)):
        if not valid[i]:
            continue
        dominated = valid & (x >= x[i]) & (y >= y[i]) & ((x > x[i]) | (y > y[i]))
        keep[i] = not dominated.any()
    return keep


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20), st.booleans()), min_size=1, max_size=60))
def test_pareto_mask_matches_brute_force(points):
    x, y, v = (np.array(c, dtype=float if i < 2 else bool) for i, c in enumerate(zip(*points)))
    mask = pareto_mask(x, y, v)
    expected = brute_force_pareto(x, y, v)
    # duplicates of a frontier point: exactly one of them is kept
    for i in np.nonzero(expected)[0]:
        same = expected & (x == x[i]) & (y == y[i])
        assert mask[same].sum() == 1
    assert not (mask & ~expected).any()


def test_sweep_keeps_every_point_and_matches_generate_curve():
    result = sweep(DEVICES["H200-SXM"], MODELS["Llama-3.3-70B"], CHAT, batches=BATCHES, tensor_parallel=(1, 2, 4, 8, 16),
                   weight_precisions=("bf16", "fp8"), spec_decode_draft_tokens=(0, 3))
    assert result.size == len(BATCHES) * 5 * 2 * 2
    i = np.nonzero((result.tensor_parallel == 4) & (result.weight_precision == "fp8")
                   & (result.spec_decode_draft_tokens == 3))[0]
    curve = generate_curve(DEVICES["H200-SXM"], MODELS["Llama-3.3-70B"],
                           ServingConfig(tensor_parallel=4, spec_decode_draft_tokens=3), CHAT, BATCHES)
    np.testing.assert_allclose(result.tokens_per_s_per_device[i], curve.tokens_per_s_per_device, rtol=1e-12)
    np.testing.assert_array_equal(result.feasible[i], curve.feasible)
    assert not result.feasible[result.tensor_parallel == 16].any()  # beyond the NVLink domain: in the cloud, infeasible


def test_frontier_points_are_feasible_and_jagged_across_configs():
    result = sweep(DEVICES["B200"], MODELS["DeepSeek-R1"], CHAT, batches=BATCHES, tensor_parallel=(1, 8),
                   expert_parallel=(1, 8), attention_dp=(False, True), weight_precisions=("fp8", "nvfp4"),
                   spec_decode_draft_tokens=(0, 3), spec_decode_acceptance=0.7)
    idx = result.pareto_indices
    assert len(idx) > 3 and result.feasible[idx].all()
    assert np.all(np.diff(result.tokens_per_s_per_user[idx]) > 0)
    assert np.all(np.diff(result.tokens_per_s_per_device[idx]) < 0)
    configs = {(result.expert_parallel[i], result.weight_precision[i], result.spec_decode_draft_tokens[i]) for i in idx}
    assert len(configs) > 1  # the frontier switches configuration along its length
    best = result.best_throughput_index()
    assert result.tokens_per_s_per_device[best] == result.tokens_per_s_per_device[result.feasible].max()


def test_progress_reaches_one_and_cancel_raises():
    seen = []
    sweep(DEVICES["H200-SXM"], MODELS["Llama-3.1-8B"], CHAT, batches=BATCHES, progress=seen.append)
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)
    calls = []

    def cancel_on_second_check():
        calls.append(1)
        return len(calls) > 1

    with pytest.raises(Cancelled):
        sweep(DEVICES["H200-SXM"], MODELS["Llama-3.1-8B"], CHAT, batches=BATCHES, tensor_parallel=tuple(range(1, 9)),
              should_cancel=cancel_on_second_check)


def test_kv_precisions_cross_when_given():
    result = sweep(DEVICES["B200"], MODELS["Llama-3.1-8B"], CHAT, batches=BATCHES, tensor_parallel=(1,),
                   weight_precisions=("fp8", "nvfp4"), kv_precisions=("bf16", "fp8"))
    assert result.size == len(BATCHES) * 4
    assert set(zip(result.weight_precision, result.kv_precision)) == {
        ("fp8", "bf16"), ("fp8", "fp8"), ("nvfp4", "bf16"), ("nvfp4", "fp8")}
