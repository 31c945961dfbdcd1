"""Direction tests of the named roofline terms of issue 11 (docs/model.md section 1): each term moves
the numbers the way the physics says, and its equation holds by hand."""
from __future__ import annotations

import numpy as np
import pytest

from tcoapp.engine.performance.factors import DEFAULT_FACTORS
from tcoapp.engine.performance.frontier import sweep
from tcoapp.engine.performance.generated import run_roofline
from tcoapp.engine.performance.memory import architecture, weight_bytes_per_device
from tcoapp.engine.performance.precision import math_precision, peak_flops
from tcoapp.engine.performance.roofline import core_s, moe_permute_bytes, sequence_overhead_s
from tcoapp.engine.quantities.records import ServingConfig, Workload

from .catalog_data import DEVICES, MODELS

R1, GPT_OSS, LLAMA70 = MODELS["DeepSeek-R1"], MODELS["gpt-oss-120b"], MODELS["Llama-3.3-70B"]
NVL72, H200 = DEVICES["GB200-NVL72"], DEVICES["H200-SXM"]
CHAT = Workload(input_tokens=1000, output_tokens=1000)


def wide_ep(ep: int, sequences_per_device: float):
    serving = ServingConfig(tensor_parallel=1, expert_parallel=ep, attention_dp=True, weight_precision="nvfp4")
    return run_roofline(NVL72, R1, serving, CHAT, sequences_per_device * ep)


def test_the_sequence_overhead_is_per_device_under_attention_dp():
    assert sequence_overhead_s(4096, 8, True, 1e-5) == pytest.approx(512 * 1e-5)
    assert sequence_overhead_s(4096, 8, False, 1e-5) == pytest.approx(4096 * 1e-5)
    # an EP48 + attention-DP replica of 67,584 sequences pays 1,408 sequences' worth, not 67,584
    assert sequence_overhead_s(67584, 48, True, DEFAULT_FACTORS.seq_overhead_s) < 0.05


def test_wide_ep_helps_at_few_sequences_per_device_until_its_messages_and_imbalance_cost_more():
    """A wider EP reads fewer experts per device, so at few sequences per device EP16 beats EP8; but
    every all-to-all pays a message per peer and the busiest device waits longest, so EP72 loses to
    EP16 (issue 21: measured EP>8 rows were over-predicted by +41 % before these terms)."""
    per_device = {ep: float(wide_ep(ep, 8).tokens_per_s_per_device[0]) for ep in (8, 16, 72)}
    assert per_device[16] > per_device[8] and per_device[72] < per_device[16]


def test_one_ep72_replica_of_tens_of_thousands_of_sequences_no_longer_looks_free():
    """Issue 11 made one EP72 replica beat EP8 replicas at the same sequences per GPU by dividing the
    per-sequence overhead by the devices. The per-peer messages and the busiest rank's waits (issue
    21) make 73,728 sequences in one replica cost more than 8 replicas of 9,216: EP8 replicas win at
    saturation, as aiconfigurator finds; the scheduler runs per attention-DP rank (issue 32), and
    still adds to the step."""
    for per_gpu in (256, 1024):
        wide, narrow = wide_ep(72, per_gpu), wide_ep(8, per_gpu)
        assert float(wide.tokens_per_s_per_device[0]) < float(narrow.tokens_per_s_per_device[0])
    batches = np.geomspace(64, 200000, 120)
    best = {}
    for ep in (8, 72):
        r = sweep(NVL72, R1, CHAT, batches=batches, tensor_parallel=(1,), expert_parallel=(ep,), attention_dp=(True,),
                  weight_precisions=("nvfp4",))
        best[ep] = r.tokens_per_s_per_device[r.best_throughput_index()]
    assert best[8] > best[72]
    no_sched = DEFAULT_FACTORS.with_(sched_overhead_s=0.0)
    assert float(wide_ep(72, 1024).step_s[0]) > float(run_roofline(
        NVL72, R1, ServingConfig(tensor_parallel=1, expert_parallel=72, attention_dp=True, weight_precision="nvfp4"),
        CHAT, 1024 * 72, no_sched).step_s[0])


def test_moe_token_permutation_bytes_by_hand_and_none_for_a_dense_model():
    arch = architecture(R1)
    expected = 4 * 61 * 1024 * 8 / 8 * 7168 * 2
    assert moe_permute_bytes(arch, 1024.0, 8.0) == pytest.approx(expected)
    assert moe_permute_bytes(architecture(LLAMA70), 1024.0, 8.0) == 0.0


def test_the_permutation_traffic_slows_an_moe_step():
    serving = ServingConfig(tensor_parallel=1, expert_parallel=8, attention_dp=True, weight_precision="fp8")
    r = run_roofline(H200, R1, serving, CHAT, 2048.0)
    arch = architecture(R1)
    permute_s = moe_permute_bytes(arch, 2048.0, 8.0) / (H200.mem_bw_gb_s * 1e9 * DEFAULT_FACTORS.eta_mem)
    assert permute_s > 0 and float(r.memory_s[0]) > permute_s


def test_overlap_loss_costs_most_where_memory_and_compute_times_are_equal():
    assert core_s(1.0, 0.3, 0.0) == 1.0
    assert core_s(1.0, 1.0, 0.5) == pytest.approx(1.5)
    assert core_s(1.0, 0.1, 0.5) == pytest.approx(1.05)
    f = DEFAULT_FACTORS
    serving = ServingConfig(tensor_parallel=1, weight_precision="fp8")
    slow = run_roofline(H200, LLAMA70, serving, CHAT, 256.0, f.with_(mem_compute_overlap_loss=min(1.0, 0.3 + f.mem_compute_overlap_loss)))
    fast = run_roofline(H200, LLAMA70, serving, CHAT, 256.0, f.with_(mem_compute_overlap_loss=0.0))
    assert float(slow.step_s[0]) > float(fast.step_s[0])


def test_mxfp4_on_hopper_is_dequantized_to_bf16_math():
    assert math_precision(H200, "mxfp4") == "bf16"
    assert peak_flops(H200, "mxfp4") == H200.peak_tflops_bf16 * 1e12
    assert math_precision(DEVICES["B200"], "mxfp4") == "fp8"     # W4A8 on Blackwell (issue 32)
    assert math_precision(DEVICES["B200"], "nvfp4") == "fp4"
    assert math_precision(DEVICES["MI355X"], "mxfp4") == "fp4"
    mx = run_roofline(H200, GPT_OSS, ServingConfig(weight_precision="mxfp4"), CHAT, 2048.0)
    fp8 = run_roofline(H200, GPT_OSS, ServingConfig(weight_precision="fp8"), CHAT, 2048.0)
    assert float(mx.compute_s[0]) > float(fp8.compute_s[0])  # W4A16 math is slower than FP8 math


def test_mla_prefill_attention_is_costed_at_its_192_wide_qk():
    arch = architecture(R1)
    assert arch.qk_rope_head_dim == 64
    assert arch.prefill_attention_flops_per_token_pair == pytest.approx(2 * 61 * 128 * (2 * 128 + 64))
    narrow = architecture(R1.with_(qk_rope_head_dim=0))
    assert narrow.prefill_attention_flops_per_token_pair == pytest.approx(4 * 61 * 128 * 128)
    long_prompt = Workload(input_tokens=8000, output_tokens=500)
    serving = ServingConfig(tensor_parallel=8, weight_precision="fp8")
    wide = run_roofline(H200, R1, serving, long_prompt, 8.0)
    base = run_roofline(H200, R1.with_(qk_rope_head_dim=0), serving, long_prompt, 8.0)
    assert float(np.ravel(wide.prefill_s)[0]) > float(np.ravel(base.prefill_s)[0])


def test_a_mixed_fp8_attention_nvfp4_moe_checkpoint_sits_between_all_fp4_and_all_fp8():
    b200 = DEVICES["B200"]
    base = dict(tensor_parallel=1, expert_parallel=8, attention_dp=True)
    fp4 = run_roofline(b200, R1, ServingConfig(weight_precision="nvfp4", **base), CHAT, 512.0)
    mixed = run_roofline(b200, R1, ServingConfig(weight_precision="nvfp4", attention_weight_precision="fp8", **base),
                         CHAT, 512.0)
    fp8 = run_roofline(b200, R1, ServingConfig(weight_precision="fp8", **base), CHAT, 512.0)
    speed = lambda r: float(np.ravel(r.tokens_per_s_per_device)[0])  # noqa: E731
    assert speed(fp8) < speed(mixed) < speed(fp4)
    assert float(fp8.max_batch_by_memory) < float(mixed.max_batch_by_memory) < float(fp4.max_batch_by_memory)
    arch = architecture(R1)
    stored = weight_bytes_per_device(arch, 8.0, True, 0.5625, 1.0)
    assert stored == pytest.approx(arch.shared_params * 1.0 + arch.n_experts * arch.expert_params * 0.5625 / 8)


def test_a_mixed_precision_is_refused_on_a_dense_model_and_when_unknown():
    from tcoapp.engine.core.errors import ValidationError
    from tcoapp.engine.performance.generated import config_problems
    from tcoapp.engine.quantities.records import make_plan
    problems = config_problems(H200, LLAMA70, ServingConfig(attention_weight_precision="fp8"))
    assert any("attention_weight_precision" in p and "dense" in p for p in problems)
    with pytest.raises(ValidationError, match="attention_weight_precision = 'fp6'"):
        make_plan("p", {"device": "B200", "model": "DeepSeek-R1", "attention_weight_precision": "fp6"})


def test_two_memory_tiers_fill_the_fast_one_with_weights_first():
    from tcoapp.engine.performance.memory import fast_tier_shares, tier_seconds_per_byte
    corsair = DEVICES["Corsair"]
    w, kv = fast_tier_shares(corsair, 1e9, 1e9, 0.9)      # 1.8 GB of SRAM: all weights, 0.8 of 1 GB of KV
    assert (float(w), float(kv)) == pytest.approx((1.0, 0.8))
    w, kv = fast_tier_shares(corsair, 4e9, 1e9, 0.9)      # weights larger than the SRAM: no KV in it
    assert (float(w), float(kv)) == pytest.approx((0.45, 0.0))
    per_byte = tier_seconds_per_byte(corsair, 0.5)
    assert per_byte == pytest.approx(0.5 / (corsair.fast_mem_bw_gb_s * 1e9) + 0.5 / (corsair.mem_bw_gb_s * 1e9))
    assert float(fast_tier_shares(H200, 1e9, 1e9, 0.9)[0]) == 0.0  # one tier


def test_a_model_in_sram_shows_corsairs_small_batch_story_and_its_own_overheads():
    corsair, b200, llama8 = DEVICES["Corsair"], DEVICES["B200"], MODELS["Llama-3.1-8B"]
    chat = Workload(input_tokens=1024, output_tokens=256)
    per_user = lambda device, tp: float(np.ravel(run_roofline(  # noqa: E731
        device, llama8, ServingConfig(tensor_parallel=tp, weight_precision="fp8"), chat, 1.0).tokens_per_s_per_user)[0])
    assert per_user(corsair, 8) > 2.0 * per_user(b200, 1)      # 8 cards x 2 GB of SRAM hold the 8 GB of weights
    one_tier = corsair.with_(fast_memory_gb=0.0, fast_mem_bw_gb_s=0.0)
    assert per_user(one_tier, 8) < 0.5 * per_user(corsair, 8)
    gpu_overheads = corsair.with_(step_overhead_s=None, layer_overhead_s=None)
    assert per_user(gpu_overheads, 8) < per_user(corsair, 8)
    assert capacity(corsair) == corsair.memory_gb + 2.0


def capacity(device):
    from tcoapp.engine.performance.memory import capacity_gb
    return capacity_gb(device)


def test_a_fast_tier_needs_its_bandwidth():
    from tcoapp.engine.core.errors import ValidationError
    from tcoapp.engine.quantities.records import make_device
    row = {k: v for k, v in DEVICES["H200-SXM"].as_dict().items() if v is not None}
    with pytest.raises(ValidationError, match="fast_mem_bw_gb_s = 0: a fast memory tier"):
        make_device({**row, "fast_memory_gb": 1.0, "fast_mem_bw_gb_s": 0.0})


# --- issue 21: the terms of the server-load and interactive regimes ---------------------------------

from tcoapp.engine.performance.generated import config_problems  # noqa: E402
from tcoapp.engine.performance.roofline import (  # noqa: E402
    alltoall_with_scale_out_s, attention_dp_imbalance, expert_load_imbalance, max_over_mean_load,
    stack_step_scale,
)


def test_balls_into_bins_max_over_mean_by_hand():
    assert max_over_mean_load(1000.0, 1.0) == 1.0
    assert max_over_mean_load(8000.0, 8.0) == pytest.approx(1 + np.sqrt(2 * np.log(8) / 1000))
    assert max_over_mean_load(1.0, 72.0) == pytest.approx(72.0)          # one ball: capped at the bins
    loads = [float(max_over_mean_load(b, 16.0)) for b in (16, 160, 1600, 16000)]
    assert all(later < earlier for earlier, later in zip(loads, loads[1:]))  # more tokens: flatter


def test_expert_load_imbalance_is_worst_for_wide_ep_at_small_batch_and_absent_without_ep():
    arch = architecture(R1)
    assert expert_load_imbalance(arch, 64.0, 1.0, 0.1) == 1.0
    assert expert_load_imbalance(architecture(LLAMA70), 64.0, 8.0, 0.1) == 1.0
    small_wide, small_narrow = expert_load_imbalance(arch, 64.0, 72.0, 0.0), expert_load_imbalance(arch, 64.0, 8.0, 0.0)
    large_wide = expert_load_imbalance(arch, 65536.0, 72.0, 0.0)
    assert small_wide > small_narrow > 1.0 and small_wide > large_wide > 1.0
    assert expert_load_imbalance(arch, 64.0, 8.0, 0.3) == pytest.approx(small_narrow + 0.3)


def test_expert_imbalance_slows_a_wide_ep_step():
    serving = ServingConfig(tensor_parallel=1, expert_parallel=72, attention_dp=True, weight_precision="nvfp4")
    even = run_roofline(NVL72, R1, serving, CHAT, 72 * 4, DEFAULT_FACTORS.with_(expert_load_skew=0.0))
    skewed = run_roofline(NVL72, R1, serving, CHAT, 72 * 4, DEFAULT_FACTORS.with_(expert_load_skew=0.5))
    assert float(skewed.step_s[0]) > float(even.step_s[0])


def test_attention_dp_imbalance_counts_whole_sequences_and_idle_ranks():
    assert attention_dp_imbalance(64.0, 8.0, True) == 1.0
    assert attention_dp_imbalance(65.0, 8.0, True) == pytest.approx(9 / (65 / 8))
    assert attention_dp_imbalance(4.0, 8.0, True) == pytest.approx(2.0)    # half the ranks idle
    assert attention_dp_imbalance(65.0, 8.0, False) == 1.0


def test_all_to_all_pays_a_message_per_peer():
    f = DEFAULT_FACTORS.with_(a2a_peer_overhead_s=2e-6)
    tiny = 1.0  # bytes: latency and per-peer messages only
    t8, t64 = (float(alltoall_with_scale_out_s(NVL72, tiny, n, f)) for n in (8.0, 64.0))
    assert t64 - t8 == pytest.approx((63 - 7) * 2e-6, rel=1e-3)
    assert float(alltoall_with_scale_out_s(NVL72, tiny, 1.0, f)) == 0.0


def test_the_rocm_stack_factor_scales_amd_overheads_only():
    f = DEFAULT_FACTORS.with_(stack_step_rocm=2.0)
    assert stack_step_scale(DEVICES["MI355X"], f) == 2.0
    assert stack_step_scale(H200, f) == 1.0
    serving = ServingConfig(tensor_parallel=8)
    one = run_roofline(DEVICES["MI355X"], LLAMA70, serving, CHAT, 64, f.with_(stack_step_rocm=1.0))
    two = run_roofline(DEVICES["MI355X"], LLAMA70, serving, CHAT, 64, f)
    assert float(two.step_s[0]) > float(one.step_s[0])



def test_the_stack_splits_into_kernels_and_fixed_overheads():
    """Direction: the ROCm overhead factor slows a small-batch step (overhead-bound) by a larger share
    than a large-batch one; the ROCm step factor (the kernels) the other way round; neither touches an
    NVIDIA device; both at the same value are the old single factor."""
    serving, b = ServingConfig(tensor_parallel=8), np.array([1.0, 512.0])
    base = DEFAULT_FACTORS.with_(stack_step_rocm=1.0, stack_overhead_rocm=1.0)
    step = lambda f, dev=DEVICES["MI355X"]: run_roofline(dev, LLAMA70, serving, CHAT, b, f).step_s  # noqa: E731
    fixed = step(base.with_(stack_overhead_rocm=2.0)) / step(base)
    kernels = step(base.with_(stack_step_rocm=2.0)) / step(base)
    assert fixed[0] > fixed[1] > 1.0 and kernels[1] > kernels[0] > 1.0
    assert np.array_equal(step(base.with_(stack_overhead_rocm=2.0, stack_step_rocm=2.0), H200), step(base, H200))
    assert np.allclose(step(base.with_(stack_overhead_rocm=2.0, stack_step_rocm=2.0)), 2.0 * step(base))

def test_expert_parallelism_may_span_scale_up_domains_over_the_scale_out_network():
    ep16 = ServingConfig(tensor_parallel=1, expert_parallel=16, attention_dp=True)
    assert config_problems(H200, R1, ep16) == []
    assert config_problems(H200, R1, ServingConfig(tensor_parallel=16)) != []       # TP stays in one domain
    assert config_problems(H200, LLAMA70, ServingConfig(tensor_parallel=2, expert_parallel=8)) != []
    # bytes beyond the domain cross the (slower) scale-out link: a 16-wide all-to-all of H200s takes
    # longer than the same all-to-all inside a hypothetical 16-GPU NVLink domain
    big = 64e6
    across = float(alltoall_with_scale_out_s(H200, big, 16.0, DEFAULT_FACTORS))
    inside = float(alltoall_with_scale_out_s(H200.with_(scale_up_domain=16), big, 16.0, DEFAULT_FACTORS))
    assert across > inside
    r = run_roofline(H200, R1, ep16, CHAT, 256)
    assert float(r.tokens_per_s_per_device[0]) > 0 and float(r.max_batch_by_memory) > 256


def test_ttft_includes_the_admission_wait_of_an_m_d_1_queue():
    from tcoapp.engine.performance.roofline import admission_wait_s
    assert admission_wait_s(0.0, 0.2) == 0.0
    assert admission_wait_s(0.5, 0.2) == pytest.approx(0.5 * 0.2 / (2 * 0.5))
    assert np.isinf(admission_wait_s(1.0, 0.2))
    r = run_roofline(H200, LLAMA70, ServingConfig(tensor_parallel=2), Workload(input_tokens=8000, output_tokens=200),
                     np.array([1.0, 16.0, 64.0]))
    assert np.all(np.diff(r.queue_s) > 0) and np.all(np.diff(r.prefill_share) > 0)     # busier: longer waits
    alone = r.ttft_s - r.queue_s
    assert float(r.queue_s[2]) > 0.1 * float(alone[2])        # at load, a TTFT target can bind on the wait


def test_the_per_layer_overhead_has_a_ratio_per_architecture():
    """Direction: an architecture's layer-overhead ratio above 1 slows its small-batch step (bound by
    fixed overheads) by a larger share than a large-batch one; it leaves every other architecture
    alone, and a device row that states its own layer_overhead_s keeps it."""
    from tcoapp.engine.performance.factors import ARCHITECTURE_LAYER, layer_ratio
    assert ARCHITECTURE_LAYER["Hopper"] == "arch_layer_hopper"
    base = DEFAULT_FACTORS.with_(arch_layer_hopper=1.0)
    slow = base.with_(arch_layer_hopper=2.0)
    assert layer_ratio(slow, "hopper") == 2.0 and layer_ratio(slow, "Blackwell") == 1.0
    serving, b = ServingConfig(tensor_parallel=8), np.array([1.0, 512.0])
    step = lambda f, dev: run_roofline(dev, LLAMA70, serving, CHAT, b, f).step_s  # noqa: E731
    ratio = step(slow, H200) / step(base, H200)
    assert ratio[0] > ratio[1] > 1.0
    assert np.array_equal(step(slow, NVL72), step(base, NVL72))
    own = H200.with_(layer_overhead_s=4e-5)
    assert np.array_equal(step(slow, own), step(base, own))
