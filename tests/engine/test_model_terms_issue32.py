"""Direction tests of the terms issue 32 adds or corrects (docs/model.md section 1, "Latency
percentiles", "Software date"): each moves the numbers the way the physics says, and its equation
holds by hand."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tcoapp.engine.core.errors import ValidationError
from tcoapp.engine.performance.factors import DEFAULT_FACTORS
from tcoapp.engine.performance.generated import run_roofline
from tcoapp.engine.performance.latency_tail import prefills_sat_through, seconds_per_token, wait_quantile_s
from tcoapp.engine.performance.memory import architecture
from tcoapp.engine.performance.precision import is_weight_only, supported_kv_precisions
from tcoapp.engine.performance.roofline import grouped_gemm_efficiency, scheduler_overhead_s
from tcoapp.engine.performance.software_maturity import (
    FACTORS_DATE, date_note, date_problem, month_text, months, software_speed,
)
from tcoapp.engine.quantities.records import ServingConfig, Workload, make_plan

from .catalog_data import DEVICES, MODELS

R1, GPT_OSS, LLAMA70 = MODELS["DeepSeek-R1"], MODELS["gpt-oss-120b"], MODELS["Llama-3.3-70B"]
NVL72, H200, B200 = DEVICES["GB200-NVL72"], DEVICES["H200-SXM"], DEVICES["B200"]
CHAT = Workload(input_tokens=1000, output_tokens=1000)


# --- scheduler work per attention-DP rank -------------------------------------------------------------

def test_each_attention_dp_rank_schedules_its_own_sequences():
    assert scheduler_overhead_s(4096.0, 8.0, True, 1e-5) == pytest.approx(512 * 1e-5)
    assert scheduler_overhead_s(4096.0, 8.0, False, 1e-5) == pytest.approx(4096 * 1e-5)
    assert scheduler_overhead_s(65.0, 8.0, True, 1e-5) == pytest.approx(9 * 1e-5)   # the busiest rank


def test_more_attention_dp_ranks_mean_less_scheduler_time_per_token():
    """At the same sequences per device, the scheduler's share of a step no longer grows with the
    replica: the time per token it adds falls as ranks are added (it grew with EP under issue 21)."""
    f = DEFAULT_FACTORS.with_(sched_overhead_s=1e-5)
    per_token = []
    for ep in (8, 16, 48):
        serving = ServingConfig(tensor_parallel=1, expert_parallel=ep, attention_dp=True, weight_precision="nvfp4")
        with_sched = run_roofline(NVL72, R1, serving, CHAT, 512.0 * 8, f)
        without = run_roofline(NVL72, R1, serving, CHAT, 512.0 * 8, f.with_(sched_overhead_s=0.0))
        per_token.append(float(with_sched.step_s[0] - without.step_s[0]) / (512 * 8))
    assert per_token[0] > per_token[1] > per_token[2]


def test_wide_ep_under_attention_dp_is_no_longer_capped_near_4000_tokens_per_gpu():
    """Issue 32: B x sched_overhead_s per replica capped EP48 at <= 4,000 tokens/s per GPU."""
    serving = ServingConfig(tensor_parallel=1, expert_parallel=48, attention_dp=True, weight_precision="nvfp4")
    r = run_roofline(NVL72, R1, serving, CHAT, np.array([48.0 * 256, 48.0 * 512]))
    assert float(np.max(r.tokens_per_s_per_device)) > 4000.0


# --- latency percentile -------------------------------------------------------------------------------

def test_expert_parallelism_without_attention_dp_is_combined_by_the_all_reduce_not_an_all_to_all():
    """Without attention-DP every device holds every token after the attention all-reduce, so the
    experts (whole under EP, sharded under TP) are combined by the next all-reduce: EP8 pays the same
    collectives as TP8, 2 x layers ring all-reduces by hand, and no all-to-all. Attention-DP pays the
    all-to-all instead (SGLang / TensorRT-LLM EP without DP attention; InferenceX's tp 8 ep 8 rows)."""
    f = DEFAULT_FACTORS
    ep8 = run_roofline(B200, R1, ServingConfig(expert_parallel=8), CHAT, 32)
    tp8 = run_roofline(B200, R1, ServingConfig(tensor_parallel=8), CHAT, 32)
    assert ep8.comm_s[0] == pytest.approx(tp8.comm_s[0], rel=1e-12)
    arch = architecture(R1)
    message = 32 * arch.hidden_size * 2.0
    link = B200.interconnect_gb_s * 1e9 * f.eta_comm
    by_hand = 2 * arch.n_layers * (2 * 7 / 8 * message / link + f.comm_latency_s)
    assert ep8.comm_s[0] == pytest.approx(by_hand, rel=1e-9)
    adp = run_roofline(B200, R1, ServingConfig(expert_parallel=8, attention_dp=True), CHAT, 32)
    no_a2a = dataclasses.replace(f, a2a_peer_overhead_s=0.0, comm_latency_s=0.0)
    assert run_roofline(B200, R1, ServingConfig(expert_parallel=8, attention_dp=True), CHAT, 32,
                        factors=no_a2a).comm_s[0] < adp.comm_s[0]
    # the per-peer messages of an all-to-all no longer slow a non-DP EP replica
    assert run_roofline(B200, R1, ServingConfig(expert_parallel=8), CHAT, 32, factors=no_a2a).comm_s[0] \
        == pytest.approx(run_roofline(B200, R1, ServingConfig(expert_parallel=8), CHAT, 32,
                                      factors=dataclasses.replace(f, comm_latency_s=0.0)).comm_s[0])


def test_an_all_reduce_beyond_the_scale_up_domain_runs_its_rings_through_every_scale_out_port():
    """A replica of 2 domains without attention-DP runs D rings side by side, one per device's
    scale-out port: min(scale-up link, D x scale_out_gb_s), plus the scale-out latency; its step
    pays those all-reduces and no all-to-all."""
    from tcoapp.engine.performance.roofline import allreduce_with_scale_out_s
    f = DEFAULT_FACTORS
    h200 = dataclasses.replace(H200, scale_out_gb_s=50.0)          # 8 x 400 Gb/s ports: 400 GB/s < NVLink 450
    message = 1e6
    inside = float(allreduce_with_scale_out_s(h200, message, 8.0, f))
    beyond = float(allreduce_with_scale_out_s(h200, message, 16.0, f))
    assert inside == pytest.approx(2 * 7 / 8 * message / (h200.interconnect_gb_s * 1e9 * f.eta_comm)
                                   + f.comm_latency_s, rel=1e-12)
    assert beyond == pytest.approx(2 * 15 / 16 * message / (8 * 50.0 * 1e9 * f.eta_comm) + f.comm_latency_s
                                   + f.scale_out_latency_s, rel=1e-9)
    # NVL72: 72 ports outrun the NVLink link, so the ring stays at the scale-up rate (+ the latency)
    nvl = float(allreduce_with_scale_out_s(NVL72, message, 144.0, f))
    assert nvl == pytest.approx(2 * 143 / 144 * message / (NVL72.interconnect_gb_s * 1e9 * f.eta_comm)
                                + f.comm_latency_s + f.scale_out_latency_s, rel=1e-9)
    arch = architecture(R1)
    wide = run_roofline(h200, R1, ServingConfig(expert_parallel=16), CHAT, 64)
    by_hand = 2 * arch.n_layers * float(allreduce_with_scale_out_s(h200, 64 * arch.hidden_size * 2.0, 16.0, f))
    assert wide.comm_s[0] == pytest.approx(by_hand, rel=1e-9)


def test_a_request_sits_through_a_poisson_count_of_prefills():
    assert prefills_sat_through(100.0, "mean") == 100.0
    assert prefills_sat_through(100.0, "p99") == pytest.approx(100 + 2.3263478740408408 * 10)
    assert prefills_sat_through(100.0, "p90") == pytest.approx(100 + 1.2815515655446004 * 10)


def test_the_p99_time_per_token_by_hand_and_the_mean_is_the_cycle():
    # 100 sequences, 1,000 output tokens, a step 20 ms, a prefill 50 ms
    mean = seconds_per_token(0.02, 1.0, 0.05, 100.0, 1000.0, "mean")
    p99 = seconds_per_token(0.02, 1.0, 0.05, 100.0, 1000.0, "p99")
    assert mean == pytest.approx((1000 * 0.02 + 100 * 0.05) / 1000)
    assert p99 == pytest.approx((1000 * 0.02 + (100 + 2.3263478740408408 * 10) * 0.05) / 1000)
    # the tail matters relatively more at small batch: sqrt(B) / B
    small = seconds_per_token(0.02, 1.0, 0.05, 4.0, 1000.0, "p99") / seconds_per_token(0.02, 1.0, 0.05, 4.0, 1000.0)
    large = seconds_per_token(0.02, 1.0, 0.05, 400.0, 1000.0, "p99") / seconds_per_token(0.02, 1.0, 0.05, 400.0, 1000.0)
    assert small > 1.0 and large > 1.0


def test_a_percentile_target_allows_a_batch_no_larger_than_the_mean():
    batches = np.arange(1.0, 257.0)
    work = Workload(input_tokens=8000, output_tokens=300)
    curves = {p: run_roofline(H200, LLAMA70, ServingConfig(tensor_parallel=4), work.with_(latency_percentile=p), batches)
              for p in ("mean", "p90", "p99")}
    users = {p: c.tokens_per_s_per_user for p, c in curves.items()}
    assert np.all(users["p99"] <= users["p90"] + 1e-9) and np.all(users["p90"] <= users["mean"] + 1e-9)
    np.testing.assert_allclose(curves["p99"].tokens_per_s_per_device, curves["mean"].tokens_per_s_per_device)
    target = 20.0
    largest = {p: batches[u >= target].max() for p, u in users.items()}
    assert largest["p99"] < largest["mean"]     # long prompts, short outputs: the tail binds
    assert np.all(curves["p99"].ttft_s >= curves["mean"].ttft_s - 1e-12)


def test_the_admission_wait_tail_by_hand():
    assert wait_quantile_s(0.3, 0.5, "mean") == 0.3
    assert wait_quantile_s(0.3, 0.5, "p99") == pytest.approx(0.3 / 0.5 * np.log(0.5 / 0.01))
    assert wait_quantile_s(0.3, 0.005, "p99") == 0.0          # 99.5 % of requests are admitted at once
    assert np.isinf(wait_quantile_s(np.inf, 1.0, "p99"))


def test_latency_percentile_is_a_validated_plan_key():
    plan = make_plan("p", {"device": "H200-SXM", "model": "Llama-3.3-70B", "latency_percentile": "P99"})
    assert plan.latency_percentile == "p99" and plan.workload.latency_percentile == "p99"
    with pytest.raises(ValidationError, match="latency_percentile.*one of mean, p90, p99"):
        make_plan("p", {"device": "H200-SXM", "model": "Llama-3.3-70B", "latency_percentile": "p95"})


# --- software date ------------------------------------------------------------------------------------

def test_dates_of_measurements_and_plans():
    assert month_text("2025-09 (v5.1 publication)") == "2025-09"
    assert month_text("2026 (v6.0 publication)") == "2026-04"
    assert month_text("2026-05-22") == "2026-05"
    assert month_text("TRT-LLM docs commit 03e27c7d (post-v1.0; exact date not recorded)") == ""
    assert months("2025-13") is None
    assert date_problem("") is None and date_problem("2025-06") is None
    assert "YYYY-MM" in date_problem("June 2025") and "YYYY-MM" in date_problem("2025-13")


def test_older_software_is_slower_for_moe_and_dense_models_show_no_effect():
    # shipped: no calendar rate (it made the leave-one-era-out split worse; docs/model.md, "Software
    # date"); the term stays for a rate set by hand (a user's own factors)
    assert DEFAULT_FACTORS.software_maturity_moe_per_year == 0.0
    assert software_speed("2025-06", True, DEFAULT_FACTORS) == 1.0
    f = DEFAULT_FACTORS.with_(software_maturity_moe_per_year=0.5)
    assert software_speed("", True, f) == 1.0 and software_speed(FACTORS_DATE, True, f) == 1.0
    older, old = software_speed("2025-06", True, f), software_speed("2025-12", True, f)
    assert older < old < 1.0
    assert old == pytest.approx(np.exp(-f.software_maturity_moe_per_year * 0.5))
    assert software_speed("2027-01", True, f) == 1.0 and "after the shipped factors' date" in date_note("2027-01")
    early = run_roofline(B200, R1, ServingConfig(tensor_parallel=8, weight_precision="nvfp4"),
                         CHAT.with_(software_date="2025-06"), 256.0, f)
    now = run_roofline(B200, R1, ServingConfig(tensor_parallel=8, weight_precision="nvfp4"), CHAT, 256.0, f)
    assert float(early.tokens_per_s_per_device[0]) < float(now.tokens_per_s_per_device[0])
    with pytest.raises(ValidationError, match="software_date"):
        make_plan("p", {"device": "H200-SXM", "model": "Llama-3.3-70B", "software_date": "2025/06"})


# --- 4-bit weights on Hopper, small experts -------------------------------------------------------------

def test_mxfp4_experts_on_hopper_run_in_narrow_tiles_and_are_no_longer_compute_bound_at_small_batch():
    assert is_weight_only(H200, "mxfp4") and not is_weight_only(B200, "mxfp4") and not is_weight_only(H200, "fp8")
    arch = architecture(GPT_OSS)
    narrow = grouped_gemm_efficiency(arch, 8.0, DEFAULT_FACTORS, weight_only=True)
    padded = grouped_gemm_efficiency(arch, 8.0, DEFAULT_FACTORS, weight_only=False)
    assert narrow / DEFAULT_FACTORS.w4a16_gemm_efficiency > 4.0 * padded    # one 16-row tile, not the padding
    r = run_roofline(H200, GPT_OSS, ServingConfig(tensor_parallel=1, weight_precision="mxfp4"), CHAT, 8.0)
    assert float(r.compute_s[0]) < 1.5 * float(r.memory_s[0])      # issue 32: it was 40 ms compute vs 7 ms memory


def test_a_long_prompt_prefill_of_an_moe_model_runs_its_expert_gemms_near_dense_efficiency():
    """A prefill chunk gives every expert hundreds of tokens: its grouped GEMMs do not pay the decode
    step's routing overheads (moe_compute_efficiency); issue 32: 32k-token prefills were ~1.9x slow."""
    arch = architecture(R1)
    decode = grouped_gemm_efficiency(arch, 8192.0, DEFAULT_FACTORS)
    prefill = grouped_gemm_efficiency(arch, 8192.0, DEFAULT_FACTORS, prefill=True)
    assert prefill == pytest.approx(decode / DEFAULT_FACTORS.moe_compute_efficiency)


# --- FP4 per format on Blackwell --------------------------------------------------------------------

def test_mxfp4_weights_on_blackwell_run_at_the_fp8_rate_and_nvfp4_at_the_fp4_rate():
    from tcoapp.engine.performance.precision import peak_flops
    assert peak_flops(B200, "mxfp4") == B200.peak_tflops_fp8 * 1e12
    assert peak_flops(B200, "nvfp4", 1.0) == B200.peak_tflops_fp4 * 1e12
    assert not is_weight_only(B200, "mxfp4")                       # W4A8: no W4A16 narrow tiles
    mx = run_roofline(B200, LLAMA70, ServingConfig(weight_precision="mxfp4"), CHAT, 512.0)
    nv = run_roofline(B200, LLAMA70, ServingConfig(weight_precision="nvfp4"), CHAT, 512.0)
    assert float(mx.compute_s[0]) > float(nv.compute_s[0])
    assert peak_flops(B200.with_(fp4_w4a8_formats=""), "mxfp4", 1.0) == B200.peak_tflops_fp4 * 1e12


# --- sliding-window attention and long prompts ---------------------------------------------------------

def test_sliding_window_layers_attend_to_their_window_in_prefill():
    arch = architecture(GPT_OSS)
    assert arch.prefill_pairs(32000.0, 16000.0) == pytest.approx(32000 * (18 * 16000 + 18 * 128) / 36)
    assert architecture(LLAMA70).prefill_pairs(32000.0, 16000.0) == pytest.approx(32000 * 16000)
    windowed = run_roofline(H200, GPT_OSS, ServingConfig(tensor_parallel=1, weight_precision="mxfp4"),
                            Workload(input_tokens=32000, output_tokens=100), 1.0)
    full = run_roofline(H200, GPT_OSS.with_(sliding_window_layers=0, sliding_window_tokens=0),
                        ServingConfig(tensor_parallel=1, weight_precision="mxfp4"),
                        Workload(input_tokens=32000, output_tokens=100), 1.0)
    assert float(np.ravel(windowed.prefill_s)[0]) < 0.95 * float(np.ravel(full.prefill_s)[0])


# --- the search space that ships ------------------------------------------------------------------------

def test_an_fp4_kv_cache_only_where_a_named_stack_runs_it():
    assert supported_kv_precisions(B200) == ("bf16", "fp8", "nvfp4")      # TensorRT-LLM's NVFP4 KV cache
    assert supported_kv_precisions(H200) == ("bf16", "fp8")
    assert "mxfp4" not in supported_kv_precisions(DEVICES["MI355X"])
    assert supported_kv_precisions(B200.with_(fp4_kv_formats="")) == ("bf16", "fp8")


def test_draft_tokens_only_for_a_model_with_a_published_draft_or_mtp_head():
    from tcoapp.engine.serving.space import search_space
    plan = make_plan("p", {"device": "B200", "model": "Llama-2-70B", "serving_search": "auto",
                           "search_max_draft_tokens": 3, "search_precisions": "fp8;nvfp4;mxfp4"})
    dense = search_space(plan, B200, MODELS["Llama-2-70B"], 8, "fp8", "fp8")
    assert dense.spec_decode_draft_tokens == (0,)
    assert any("no published draft model or MTP head" in d for d in dense.dropped_precisions)
    assert "mxfp4 KV" in dense.dropped_precisions and "nvfp4" in dense.kv_precisions
    moe = search_space(plan.with_(model="DeepSeek-R1"), B200, R1, 8, "fp8", "fp8")
    assert moe.spec_decode_draft_tokens == (0, 1, 2, 3) and R1.spec_decode_draft.startswith("MTP")


# --- achieved compute per architecture ---------------------------------------------------------------

def test_an_architecture_computes_at_its_own_achieved_fraction_of_peak():
    """arch_compute_<architecture> scales eta_compute on that architecture's devices (compute time
    inversely proportional to it), never above the peak, and leaves every other architecture at
    eta_compute; calibrating eta_compute moves every architecture."""
    from tcoapp.engine.performance.factors import ARCHITECTURE_COMPUTE, compute_efficiency
    assert H200.architecture == "Hopper" and B200.architecture == "Blackwell"
    assert {DEVICES[n].architecture for n in ("H100-SXM", "H200-SXM", "B300", "GB300-NVL72", "MI300X", "MI325X",
                                               "MI355X")} == set(ARCHITECTURE_COMPUTE)
    base = DEFAULT_FACTORS.with_(eta_compute=0.6, arch_compute_hopper=1.0)
    slow = base.with_(arch_compute_hopper=0.5)
    assert compute_efficiency(slow, "Hopper") == pytest.approx(0.3) and compute_efficiency(slow, "Blackwell") == 0.6
    assert compute_efficiency(slow, "") == 0.6 and compute_efficiency(slow, "an architecture of my own") == 0.6
    assert compute_efficiency(base.with_(arch_compute_hopper=3.0), "Hopper") == 1.0     # never above the peak
    assert compute_efficiency(slow.with_(eta_compute=0.3), "Hopper") == pytest.approx(0.15)
    serving = ServingConfig(tensor_parallel=1)
    h_base, h_slow = (run_roofline(H200, LLAMA70, serving, CHAT, 256.0, f) for f in (base, slow))
    assert _first(h_slow.compute_s) == pytest.approx(2.0 * _first(h_base.compute_s))
    assert _first(h_slow.prefill_s) > _first(h_base.prefill_s)          # prefill by the same factor
    assert _first(h_slow.tokens_per_s_per_device) < _first(h_base.tokens_per_s_per_device)
    b_base, b_slow = (run_roofline(B200, LLAMA70, serving, CHAT, 256.0, f) for f in (base, slow))
    assert _first(b_slow.tokens_per_s_per_device) == _first(b_base.tokens_per_s_per_device)


def test_the_fit_holds_an_architecture_no_fitted_row_runs_on_at_the_reference():
    from tcoapp.engine.performance import factor_fit
    start = DEFAULT_FACTORS.with_(eta_compute=0.6, arch_compute_cdna4=1.5)
    assert factor_fit.neutral("arch_compute_cdna4", start) == 1.0
    assert factor_fit.neutral("stack_step_sglang", start) == 1.0
    assert factor_fit.neutral("eta_kv", start) == start.eta_kv


def _first(values) -> float:
    return float(np.ravel(values)[0])


def test_prefill_is_capped_at_the_peak_and_names_are_read_loosely():
    """Prefill at eta_prefill x the ratio never exceeds the peak; "cdna3" is "CDNA 3"; an architecture
    without a ratio computes at eta_compute and its curve says so."""
    from tcoapp.engine.performance.factors import compute_efficiency, known_architecture
    from tcoapp.engine.performance.generated import generate_curve
    from tcoapp.engine.performance.roofline import architecture_peaks
    f = DEFAULT_FACTORS.with_(eta_compute=0.5, eta_prefill=0.7, arch_compute_hopper=1.8)
    decode_peak, _, _ = architecture_peaks(H200, f, 1.0, 1.0)
    prefill_peak, _, _ = architecture_peaks(H200, f, 1.0, 1.0, None, f.eta_prefill)
    assert decode_peak == pytest.approx(1.8) and prefill_peak == pytest.approx(1 / 0.7)   # 0.7 x 1/0.7 = the peak
    assert compute_efficiency(f, "hopper") == compute_efficiency(f, " Hopper ") == pytest.approx(0.9)
    assert known_architecture("cdna3") and known_architecture("Blackwell") and not known_architecture("Rubin")
    mine = dataclasses.replace(H200, name="XPU", architecture="Rubin")
    notes = generate_curve(mine, LLAMA70, ServingConfig(tensor_parallel=1), CHAT, np.array([8.0])).notes
    assert any("architecture Rubin has no fitted compute ratio" in n for n in notes)
    assert not any("compute ratio" in n for n in generate_curve(H200, LLAMA70, ServingConfig(tensor_parallel=1),
                                                                 CHAT, np.array([8.0])).notes)
