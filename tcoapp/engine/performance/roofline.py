"""The roofline kernel: one decode step and one prefill of a replica, fully broadcast over numpy arrays.

Every configuration input (batch, tensor/expert parallel, attention-DP, bytes per weight and KV
value, math peak, draft tokens, acceptance) may be a scalar or an array; they broadcast together,
so a whole sweep is one call (`roofline_inputs.ServingArrays`, `WorkloadArrays`). Device and model
are scalars. Reference: docs/model.md ("Performance: one plan's efficiency curve"). Sources: the
roofline bound (Williams, Waterman and Patterson, "Roofline: an insightful visual performance
model", CACM 2009); continuous
batching (Yu et al., "Orca", OSDI 2022) and chunked prefill (Agrawal et al., "Sarathi-Serve", OSDI
2024); the paged KV cache (Kwon et al., "PagedAttention", SOSP 2023); the ring all-reduce (Patarasuk
and Yuan, "Bandwidth optimal all-reduce algorithms for clusters of workstations", JPDC 2009);
speculative decoding's tokens per step (Leviathan et al., "Fast Inference from Transformers via
Speculative Decoding", ICML 2023); the M/D/1 admission wait (Pollaczek-Khinchine formula).

A replica spans N = TP x EP devices and serves B concurrent sequences. Per device and decode step
(s = k + 1 tokens per sequence with k draft tokens, T = B x s tokens in the step):

    weight_bytes = w x (shared_params / (1 if attention-DP else N) + E_touched(T) x expert_params / N)
    kv_bytes     = B x kv_values(input + output / 2) x kv / kv_split     (sliding windows capped; sparse
                   layers read top-k tokens plus their indexer keys, linear layers read and write their
                   fixed state: memory.kv_device_bytes)
    t_mem        = weight_bytes x s_w / eta_mem + kv_bytes x s_kv / eta_kv, s = seconds per byte of the
                   memory tiers: share / fast_mem_bw + (1 - share) / mem_bw, the fast tier (SRAM,
                   fast_memory_gb) holding the weights first, then the KV cache (one tier: 1 / mem_bw)
    t_compute    = T x (2 x (shared + routed / eta_moe(T)) / peak + attn_flops x context / attention_peak)
                   / (N x eta_compute)        (shared + routed = active params; eta_compute times the
                   device architecture's ratio arch_compute_<architecture> (Hopper, Blackwell Ultra,
                   CDNA 3, CDNA 4), at most 1; prefill's eta_prefill scaled by the same factor)
    eta_moe(T)   = moe_compute_efficiency x m / (m + moe_gemm_half_tokens), m = T x k / E_touched(T)
                   tokens per touched expert (grouped-GEMM efficiency; prefill: m at a chunk of
                   PREFILL_CHUNK_TOKENS tokens)
                   (attention math runs at the KV cache's precision, never FP4: `attention_peak`)
    t_permute    = MoE token permutation (routing): 4 x layers x T x k_experts / N x hidden x 2 B
                   / (mem_bw_gb_s x 1e9 x eta_mem)    (gather into expert order and scatter back,
                   each read and written; part of t_mem)
    t_comm       = without attention-DP: 2 x layers ring all-reduces of T x hidden x 2 B over N devices
                   (TP attention; an MoE layer's experts, sharded by TP or placed by EP, see every token
                   already and are combined by the same all-reduce: no all-to-all); a replica beyond
                   its scale-up domain runs that ring at min(scale-up link, D x scale-out link);
                   under attention-DP (MoE): per layer an all-to-all dispatch and combine of
                   T / N x k_experts x hidden x 2 B per device
    t_core       = max(t_mem, t_compute) + mem_compute_overlap_loss x min(t_mem, t_compute)
                   (imperfect overlap: the smaller time is hidden only in part)
    t_seq        = B / (N if attention-DP else 1) x seq_overhead_s   (per device: under attention-DP
                   each device schedules and samples only its own sequences)
    t_step       = (t_core + t_comm + step_overhead_s + layers x layer_overhead_s + (k + 1) x t_seq + t_sched
                    + t_draft)            (the kernels, t_core + t_comm and the drafter's, times the stack's
                   step factor: stack_step_rocm on AMD, else 1; the fixed overheads, per step, layer and
                   sequence and the drafter's, times its overhead factor: stack_overhead_rocm on AMD,
                   else 1; the device's own step / layer overheads where its catalog row states them, else
                   layer_overhead_s x the architecture's ratio arch_layer_<architecture>: Hopper, Blackwell
                   Ultra, CDNA 3; 1 for any other)
    t_draft      = k x (t_core + t_comm of the drafter at B tokens + layer_overhead_s
                   + spec_draft_cost_fraction x step_overhead_s + t_seq)   (spec_decode.py: an MTP head is
                   one more layer of the target, an EAGLE-3 drafter one dense layer of its width; 0 at k = 0)
    t_serial     = the sequences of one scheduler x spec_serial_seq_overhead_s where k > 0 on a stack that
                   drafts without its overlap scheduler (a measurement of SGLang), else 0; part of the
                   step's fixed overheads
    imbalance and fixed costs: expert load imbalance on routed GEMMs and all-to-all bytes (the
    balls-into-bins maximum load, Raab and Steger, "Balls into Bins: A Simple and Tight Analysis",
    RANDOM 1998, plus expert_load_skew: real routers are not uniform, deepseek-ai/EPLB), attention-DP
    imbalance ceil(B / N) / (B / N) on KV reads and attention, per-peer all-to-all messages
    (deepseek-ai/DeepEP), scale-out beyond the domain, t_sched = sched_overhead_s x the sequences of
    one scheduler (ceil(B / N) per attention-DP rank, each rank runs its own; B without attention-DP)
    latency and software: the latency percentile of the per-user rate and TTFT (latency_tail.py), the
    software date (software_maturity.py: step and prefill times / speed), weight-only 4-bit routed
    GEMMs in narrow tiles (W4A16_TILE_ROWS: IST-DASLab/marlin), sliding-window layers in prefill attention

Prefill of one request (n = input x (1 - prefix_cache_hit_rate) new tokens):
    t_prefill = (n x linear_flops / peak + pair_flops x n x input x (1 + hit) / 2 / attention_peak)
                / (N x eta_prefill) + its TP/EP communication     (causal attention; linear_flops as in decode)
    in a busy replica requests are prefilled in chunks of PREFILL_CHUNK_TOKENS tokens (per device
    under attention-DP, each device prefilling its own requests in the same step), so each
    collective's latency counts min(1, n / (PREFILL_CHUNK_TOKENS x (N if attention-DP else 1)))
    times per request
Continuous batching: while B sequences each decode `output` tokens, B new requests are prefilled,
so one cycle of a replica lasts (output / tokens_per_step) x t_step + B x t_prefill and

    tokens_per_s_per_user   = output / cycle_s
    tokens_per_s_per_device = B x output / cycle_s / N
    ttft_s                  = W + max(t_prefill, weight read) + t_step (the wait for admission under Poisson
                              arrivals, M/D/1: W = rho t_prefill / (2 (1 - rho)), rho = prefill share;
                              then one isolated prefill and the first step)
    power_w                 = idle_w + (full_w - idle_w) x u^gamma, u the busy fraction (compute time
                              + power_mem_activity x memory time, over wall time; prefill counts as busy;
                              full_w the TDP, or the power limit: device_power.py, which also slows the math)
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .comm import allreduce_s
from .device_power import busy_power_w, clock_ratio
from .factors import compute_efficiency, layer_ratio
from .latency_tail import seconds_per_token, wait_quantile_s
from .memory import (
    Architecture, capacity_gb, experts_touched, fast_tier_shares, kv_device_bytes, max_batch_by_memory,
    tier_seconds_per_byte, weight_bytes_per_device,
)
from .precision import ACTIVATION_BYTES
from .roofline_inputs import ServingArrays, WorkloadArrays
from .spec_decode import tokens_per_step


@dataclass(frozen=True)
class RooflineArrays:
    """Broadcast results; times in s, rates in tokens/s, power in W."""

    tokens_per_s_per_device: np.ndarray
    tokens_per_s_per_user: np.ndarray
    ttft_s: np.ndarray
    power_w: np.ndarray
    max_batch_by_memory: np.ndarray
    step_s: np.ndarray
    memory_s: np.ndarray
    compute_s: np.ndarray
    comm_s: np.ndarray
    prefill_s: np.ndarray
    prefill_share: np.ndarray      # fraction of replica time spent prefilling
    tokens_per_step: np.ndarray    # per sequence, speculative decoding included
    utilization: np.ndarray        # busy fraction u of the power model
    queue_s: np.ndarray | float = 0.0  # mean admission wait under Poisson arrivals (M/D/1), part of ttft_s


def _link(device, factors) -> float:
    return np.maximum(device.interconnect_gb_s, 1e-9) * 1e9 * factors.eta_comm


def _scale_out_link(device, factors):
    """One device's scale-out port, bytes/s at eta_comm."""
    return np.maximum(np.asarray(device.scale_out_gb_s, float), 1e-9) * 1e9 * factors.eta_comm


def decode_step(device, arch: Architecture, serving: ServingArrays, context_tokens, factors, adp=None):
    """Memory, compute and communication time of one decode step per device (s), broadcast. The
    non-expert weights are read at `shared_weight_bytes_per_value` and multiply at `shared_peak_flop_s`
    (None: as the experts). `adp`: `attention_dp_imbalance` of the serving's batch, already computed (the
    target model's and its drafter's steps share it)."""
    batch, devices, expert_parallel, attention_dp = (serving.batch_sequences, serving.devices, serving.expert_parallel,
                                                     serving.attention_dp)
    weight_bytes, kv_bytes, shared_weight_bytes = (serving.weight_bytes_per_value, serving.kv_bytes_per_value,
                                                   serving.shared_weight_bytes_per_value)
    peak, attention_peak, draft_tokens = serving.peak_flop_s, serving.attention_peak_flop_s, serving.draft_tokens
    shared_bytes = weight_bytes if shared_weight_bytes is None else shared_weight_bytes
    tokens = batch * (np.asarray(draft_tokens, float) + 1.0)
    touched = _experts_touched(arch, batch, draft_tokens, tokens)
    shared_ways = np.where(attention_dp, 1.0, devices)
    w_read = shared_bytes * arch.shared_params / shared_ways + weight_bytes * touched * arch.expert_params / devices
    kv_read = kv_device_bytes(arch, batch, context_tokens, kv_bytes, devices, attention_dp, read=True)
    stored = weight_bytes_per_device(arch, devices, attention_dp, weight_bytes, shared_weight_bytes)
    w_fast, kv_fast = fast_tier_shares(device, stored, kv_read, factors.usable_memory_fraction)
    memory_s = ((w_read * tier_seconds_per_byte(device, w_fast)
                 + moe_permute_bytes(arch, tokens, devices) * tier_seconds_per_byte(device, 0.0)) / factors.eta_mem
                + kv_read * tier_seconds_per_byte(device, kv_fast) / factors.eta_kv)
    adp = attention_dp_imbalance(batch, devices, attention_dp) if adp is None else adp
    kv_extra = kv_read * (adp - 1.0) * tier_seconds_per_byte(device, kv_fast) / factors.eta_kv
    memory_s = memory_s + kv_extra
    experts = expert_load_imbalance(arch, tokens, expert_parallel, factors.expert_load_skew)
    flop_s = tokens * (_linear_flop_s(arch, peak, factors, tokens, serving.shared_peak_flop_s, experts, serving.weight_only,
                                      touched=touched)
                       + arch.decode_attention_flops(context_tokens) / attention_peak * adp)
    compute_s = flop_s / (devices * factors.eta_compute)
    comm_s = _comm_s(device, arch, tokens, devices, attention_dp, factors, experts)
    return memory_s, compute_s, comm_s


def _experts_touched(arch: Architecture, batch, draft_tokens, tokens):
    """`experts_touched` at `tokens` = batch x (draft_tokens + 1). Where every configuration (a row) shares one row
    of batches, as in a sweep's chunk (hundreds of rows, a handful of draft counts), it is computed once per
    distinct draft count and each row takes its count's: the same numbers (the same product, then elementwise),
    its exponential over a few rows instead of every one."""
    b, k = np.asarray(batch, float), np.asarray(draft_tokens, float)
    if arch.n_experts > 0 and b.ndim == 2 and b.shape[0] == 1 and k.ndim == 2 and k.shape[1] == 1 \
            and np.shape(tokens) == (k.shape[0], b.shape[1]):
        distinct, which = np.unique(k[:, 0], return_inverse=True)
        if distinct.size < k.shape[0]:
            rows = np.concatenate([b * (d + 1.0) for d in distinct])
            return experts_touched(arch.n_experts, arch.experts_per_token, rows)[which]
    return experts_touched(arch.n_experts, arch.experts_per_token, tokens)


def max_over_mean_load(balls, bins):
    """Expected max over mean load of `balls` thrown uniformly into `bins` (balls-into-bins): the
    Gaussian approximation of the multinomial maximum 1 + sqrt(2 ln(bins) / m), m = balls / bins the
    mean load; with fewer balls than bins the busiest bin still holds one ball (ratio >= 1 / m);
    at most `bins` (all balls in one bin); 1 for one bin."""
    bins = np.asarray(bins, float)
    mean = np.maximum(np.asarray(balls, float) / np.maximum(bins, 1.0), 1e-12)
    ratio = np.maximum(1.0 + np.sqrt(2.0 * np.log(np.maximum(bins, 1.0)) / mean), 1.0 / mean)
    return np.where(bins > 1, np.minimum(ratio, np.maximum(bins, 1.0)), 1.0)


def expert_load_imbalance(arch: Architecture, tokens, expert_parallel, skew):
    """Busiest / mean routed tokens per expert-parallel device in a step of `tokens` tokens: the
    balls-into-bins expectation for tokens x k routed copies over EP devices, plus the routing skew
    (`expert_load_skew`) where EP > 1; 1 for a dense model or EP = 1 (every device holds a shard of
    every expert)."""
    ep = np.asarray(expert_parallel, float)
    if not arch.is_moe:
        return np.ones_like(np.asarray(tokens, float) * ep)
    balls = np.asarray(tokens, float) * arch.experts_per_token
    return np.where(ep > 1, max_over_mean_load(balls, ep) + skew, 1.0)


def attention_dp_imbalance(batch, devices, attention_dp):
    """Busiest / mean sequences per attention-DP rank: the scheduler spreads B sequences over N ranks
    as evenly as whole sequences allow, ceil(B / N) / (B / N) (N / B where B < N: idle ranks);
    1 without attention-DP."""
    b = np.maximum(np.asarray(batch, float), 1e-12)
    n = np.asarray(devices, float)
    spread = np.asarray(attention_dp, bool) & (n > 1)
    if not np.any(spread):   # the value np.where takes everywhere, without computing the other
        return np.ones(np.broadcast_shapes(spread.shape, b.shape))
    return np.where(spread, np.ceil(b / n - 1e-9) / (b / n), 1.0)


# Tokens of one batched prefill step per device (assumption: TensorRT-LLM's default max_num_tokens,
# 8192): in a busy replica requests are prefilled together, so each collective's latency is shared
# by the requests of one chunk (of every device's chunk under attention-DP); an isolated request
# (its TTFT) pays it whole.
PREFILL_CHUNK_TOKENS = 8192.0
MOE_PERMUTE_PASSES = 4.0  # permute (read + write) and unpermute (read + write) of every routed token copy


def moe_permute_bytes(arch: Architecture, tokens, devices):
    """Bytes one device moves per decode step to put routed tokens in expert order and back (B):
    4 x layers x tokens x k / N x hidden x 2 B (0 for a dense model)."""
    if not arch.is_moe:
        return 0.0 * np.asarray(tokens, float)
    return (MOE_PERMUTE_PASSES * arch.n_layers * np.asarray(tokens, float) * arch.experts_per_token
            / np.asarray(devices, float) * arch.hidden_size * ACTIVATION_BYTES)


def device_overhead(device, name: str, factors):
    """The device's own step or layer overhead where its catalog row states one, else the factor's; the
    factor's layer overhead times the device architecture's ratio (`layer_ratio`: 1 for Blackwell and
    any architecture without one)."""
    value = getattr(device, name, None)
    if value is not None:
        return float(value)
    if name == "layer_overhead_s":
        return float(factors.layer_overhead_s) * layer_ratio(factors, getattr(device, "architecture", ""))
    return float(getattr(factors, name))


def core_s(memory_s, compute_s, overlap_loss):
    """max(t_mem, t_compute) + overlap_loss x min(t_mem, t_compute): 0 = perfect overlap, 1 = none."""
    return np.maximum(memory_s, compute_s) + overlap_loss * np.minimum(memory_s, compute_s)


def busiest_sequences(batch, devices, attention_dp):
    """The sequences of the busiest device's rank: B without attention-DP, ceil(B / N) under it."""
    b = np.asarray(batch, float)
    devices = np.asarray(devices, float)
    if not np.any(attention_dp):   # the value np.where takes everywhere, without computing the other
        return np.broadcast_to(b, np.broadcast_shapes(np.shape(attention_dp), b.shape, devices.shape))
    return np.where(attention_dp, np.ceil(b / devices - 1e-9), b)


def sequence_overhead_s(batch, devices, attention_dp, seq_overhead_s, busiest=None):
    """Per-sequence step overhead of the busiest device: its sequences x seq_overhead_s, B without
    attention-DP, ceil(B / N) under it (each rank samples its own, the busiest waits longest).
    `busiest`: `busiest_sequences`, already computed."""
    per_device = busiest_sequences(batch, devices, attention_dp) if busiest is None else busiest
    return per_device * seq_overhead_s


def scheduler_overhead_s(batch, devices, attention_dp, sched_overhead_s, busiest=None):
    """Scheduling and request-routing work of one step (s): each attention-DP rank runs its own
    scheduler for its own sequences, so the step waits for the busiest rank's ceil(B / N) x
    sched_overhead_s; without attention-DP the replica's one scheduler handles all B sequences.
    `busiest`: `busiest_sequences`, already computed."""
    per_rank = busiest_sequences(batch, devices, attention_dp) if busiest is None else busiest
    return per_rank * sched_overhead_s


def stack_step_scale(device, factors):
    """The serving stack's multiplier of the decode step's kernels: `stack_step_rocm` on AMD devices
    (ROCm stacks), 1 elsewhere (TensorRT-LLM, the reference). Measurements of SGLang / vLLM on
    NVIDIA pass their own `stack_step_ratio` to `evaluate` (tcoapp/engine/performance/accuracy.py)."""
    return np.asarray(factors.stack_step_rocm, float) if getattr(device, "vendor", "") == "AMD" else 1.0


def stack_overhead_scale(device, factors):
    """The serving stack's multiplier of the decode step's fixed overheads (per step, per layer, per
    sequence, the drafter's launches): `stack_overhead_rocm` on AMD devices, 1 elsewhere; measurements
    of SGLang / vLLM on NVIDIA pass their own `stack_overhead_ratio`."""
    return np.asarray(factors.stack_overhead_rocm, float) if getattr(device, "vendor", "") == "AMD" else 1.0


# Token rows of the tile of a weight-only 4-bit grouped GEMM (W4A16, the weights dequantized in the
# kernel): mixed-input kernels built for decode keep the token dimension in 16-row tiles (Marlin's
# 16 x 64 tiles, IST-DASLab/marlin README; vLLM's fused MoE Marlin kernel; TensorRT-LLM's Triton MoE on
# H200), where FP8 / FP4 grouped GEMMs pad it to moe_gemm_half_tokens.
W4A16_TILE_ROWS = 16.0


def grouped_gemm_efficiency(arch: Architecture, tokens, factors, weight_only=False, prefill=False, touched=None):
    """Achieved / dense efficiency of the routed-expert (grouped) GEMMs when `tokens` tokens are
    routed in one step: moe_compute_efficiency x m / (m + h), m = tokens x k / E_touched(tokens) the
    tokens each touched expert multiplies (small GEMMs of tens of rows waste their tensor-core tiles;
    a wide-EP replica gives every expert more tokens); h = moe_gemm_half_tokens, or, where
    `weight_only` (4-bit weights dequantized in a kernel built for small batches), the waste of a
    16-row tile paid once, not per routing overhead: time per touched expert ~ (m /
    moe_compute_efficiency + W4A16_TILE_ROWS) / w4a16_gemm_efficiency (the dequantization in the main
    loop, on the general-purpose cores), i.e. h = W4A16_TILE_ROWS x moe_compute_efficiency. A prefill chunk's grouped GEMMs (hundreds of tokens
    per expert, large tiles) run without moe_compute_efficiency, the decode-step routing and gather
    overheads it stands for: their efficiency is eta_prefill x m / (m + h). `touched`: `experts_touched` at
    `tokens`, already computed (the decode step's weight read)."""
    if not arch.is_moe:
        return np.ones_like(np.asarray(tokens, float))
    tokens = np.asarray(tokens, float)
    touched = np.maximum(experts_touched(arch.n_experts, arch.experts_per_token, tokens) if touched is None else touched,
                         1e-30)
    m = tokens * arch.experts_per_token / touched
    moe = 1.0 if prefill else factors.moe_compute_efficiency
    # W4A16: the routing overheads (moe) scale with the real tokens, the 16-row tile's waste does not:
    # time per expert ~ (m / moe + W4A16_TILE_ROWS) / dequant, i.e. half = W4A16_TILE_ROWS x moe
    half = np.where(weight_only, W4A16_TILE_ROWS * moe, factors.moe_gemm_half_tokens)
    dequant = np.where(weight_only, factors.w4a16_gemm_efficiency, 1.0)
    return moe * dequant * m / (m + half)


def _linear_flop_s(arch: Architecture, peak, factors, tokens, shared_peak=None, expert_imbalance=1.0,
                   weight_only=False, prefill=False, touched=None):
    """Seconds x peak-efficiency of one token's weight GEMMs: 2 FLOP per active parameter, the
    non-expert ones at `shared_peak` (None: `peak`), routed experts at `peak` derated by their
    grouped-GEMM efficiency at `tokens` tokens per step and stretched by the busiest device's
    `expert_imbalance` (the step waits for it); `touched`: as `grouped_gemm_efficiency`'s."""
    routed = arch.experts_per_token * arch.expert_params
    shared_peak = peak if shared_peak is None else shared_peak
    return 2.0 * ((arch.active_params - routed) / shared_peak
                  + routed * expert_imbalance / grouped_gemm_efficiency(arch, tokens, factors, weight_only, prefill,
                                                                        touched) / peak)


def _comm_s(device, arch, tokens, devices, attention_dp, factors, expert_imbalance=1.0,
            fixed_share=1.0):
    """TP all-reduces and MoE all-to-alls of one step per device (s); `fixed_share` of each
    collective's fixed costs (latencies, per-peer messages) is counted (a batched prefill shares them
    among the requests of a chunk, `prefill`)."""
    message = tokens * arch.hidden_size * ACTIVATION_BYTES
    tp = np.where(attention_dp, 0.0, 2.0 * arch.n_layers * allreduce_with_scale_out_s(device, message, devices,
                                                                                      factors, fixed_share))
    if not arch.is_moe:
        return tp + 0.0 * message
    # Without attention-DP every device holds every token after the attention all-reduce: the MoE
    # layer's experts (TP-sharded, or whole under EP) multiply the tokens routed to them and the
    # next all-reduce combines them (SGLang / TensorRT-LLM EP without DP attention). Only
    # attention-DP, where each rank holds its own tokens, dispatches and combines them all-to-all.
    sent = message / devices * arch.experts_per_token * expert_imbalance
    a2a = 2.0 * arch.n_layers * alltoall_with_scale_out_s(device, sent, devices, factors, fixed_share)
    return tp + np.where(np.asarray(attention_dp, bool) & (devices > 1), a2a, 0.0)


def allreduce_with_scale_out_s(device, message_bytes, devices, factors, fixed_share=1.0):
    """One ring all-reduce of `message_bytes` over a replica of `devices` (s): at the scale-up link
    with `comm_latency_s` inside one domain. A replica beyond its domain D (expert parallelism over
    whole domains without attention-DP) runs D rings side by side, one through each device's
    scale-out port (NCCL's rings over every NIC of a node), so its ring moves at min(scale-up link,
    D x scale_out_gb_s) and adds `scale_out_latency_s`. `fixed_share` of the latencies is counted."""
    n = np.asarray(devices, float)
    domain = float(max(int(device.scale_up_domain), 1))
    beyond = n > domain
    up = _link(device, factors)
    link = np.where(beyond, np.minimum(up, domain * _scale_out_link(device, factors)), up)
    lat = (factors.comm_latency_s + np.where(beyond, factors.scale_out_latency_s, 0.0)) * fixed_share
    return allreduce_s(message_bytes, n, link, lat)


def alltoall_with_scale_out_s(device, sent_bytes, devices, factors, fixed_share=1.0):
    """One all-to-all (dispatch or combine) per device: within one scale-up domain D, the share
    (n - 1) / n of the bytes at the scale-up link plus `comm_latency_s`; beyond it (n > D, expert
    parallelism across domains) the share (n - D) / n leaves the domain over the scale-out link
    (`scale_out_gb_s` x eta_comm) with `scale_out_latency_s`; plus `a2a_peer_overhead_s` for each
    of the n - 1 peer messages. `fixed_share` of the latencies and messages is counted (a batched
    prefill's chunk shares them)."""
    n = np.asarray(devices, float)
    domain = float(max(int(device.scale_up_domain), 1))
    inside = np.minimum(n, domain)
    lat = factors.comm_latency_s * fixed_share
    up = (inside - 1.0) / n * sent_bytes / _link(device, factors) + lat
    out = np.where(n > domain, (n - domain) / n * sent_bytes / _scale_out_link(device, factors) + factors.scale_out_latency_s * fixed_share, 0.0)
    return np.where(n > 1, np.maximum(up, out) + (n - 1.0) * factors.a2a_peer_overhead_s * fixed_share, 0.0)


def prefill(device, arch: Architecture, serving: ServingArrays, workload: WorkloadArrays, factors):
    """(time of one request's prefill in a busy replica, its isolated TTFT part), both s; `serving`'s
    peaks are the prefill's (at eta_prefill)."""
    devices, attention_dp, weight_bytes = serving.devices, serving.attention_dp, serving.weight_bytes_per_value
    peak, attention_peak, shared_weight_bytes = (serving.peak_flop_s, serving.attention_peak_flop_s,
                                                 serving.shared_weight_bytes_per_value)
    input_tokens, hit_rate = workload.input_tokens, workload.prefix_cache_hit_fraction
    new = input_tokens * (1.0 - hit_rate)
    # sliding windows and sparse top-k capped, the indexer and linear layers' work added
    attention_flops = arch.prefill_attention_flops(new, input_tokens * (1.0 + hit_rate) / 2.0)
    flop_s = (new * _linear_flop_s(arch, peak, factors, PREFILL_CHUNK_TOKENS, serving.shared_peak_flop_s,
                                   weight_only=serving.weight_only, prefill=True)
              + attention_flops / attention_peak)
    compute_s = flop_s / (devices * factors.eta_prefill)
    new = np.asarray(new, float)
    comm_s = _comm_s(device, arch, new, devices, attention_dp, factors)
    chunk_share = np.minimum(1.0, new / (PREFILL_CHUNK_TOKENS * np.where(attention_dp, devices, 1.0)))
    busy_s = compute_s + _comm_s(device, arch, new, devices, attention_dp, factors,
                                 fixed_share=chunk_share)
    stored = weight_bytes_per_device(arch, devices, attention_dp, weight_bytes, shared_weight_bytes)
    w_fast, _ = fast_tier_shares(device, stored, 0.0, factors.usable_memory_fraction)
    read_s = stored * tier_seconds_per_byte(device, w_fast) / factors.eta_mem
    return busy_s, np.maximum(compute_s, read_s) + comm_s


def evaluate(device, arch: Architecture, serving: ServingArrays, workload: WorkloadArrays,
             factors) -> RooflineArrays:
    """The generated curve of `device` serving the model `arch` in the broadcast configuration `serving`
    for the requests `workload` (see module docstring). A mixed checkpoint stores and multiplies its
    non-expert weights at `serving.shared_weight_bytes_per_value` / `shared_peak_flop_s` (None: as the
    experts); `serving.weight_only`: 4-bit weights dequantized in the GEMM (W4A16). The per-user rate
    and TTFT are at `workload.latency_percentile` (latency_tail.py; tokens/s per device is always the
    mean); `workload.software_speed_ratio` (software_maturity.py) divides every step and prefill time.
    A device with a power limit (device_power.py) runs its math at `clock_ratio` and draws at most the limit."""
    peaks = (serving.peak_flop_s, serving.attention_peak_flop_s, serving.shared_peak_flop_s)
    prefill_peaks = architecture_peaks(device, factors, *peaks, factors.eta_prefill)
    peak, attention_peak, shared_peak = architecture_peaks(device, factors, *peaks)
    serving = replace(serving, batch_sequences=np.asarray(serving.batch_sequences, float),
                      attention_dp=np.asarray(serving.attention_dp, bool), peak_flop_s=peak,
                      attention_peak_flop_s=attention_peak, shared_peak_flop_s=shared_peak)
    batch, devices, attention_dp, draft_tokens = (serving.batch_sequences, serving.devices, serving.attention_dp,
                                                  serving.draft_tokens)
    input_tokens, output_tokens = workload.input_tokens, workload.output_tokens
    context = input_tokens + output_tokens / 2.0
    adp = attention_dp_imbalance(batch, devices, attention_dp)   # the model's and its drafter's steps alike
    mem_s, comp_s, comm_s = decode_step(device, arch, serving, context, factors, adp)
    busiest = busiest_sequences(batch, devices, attention_dp)     # per-sequence and scheduling work alike
    seq_s = sequence_overhead_s(batch, devices, attention_dp, factors.seq_overhead_s, busiest)
    overhead_s = (device_overhead(device, "step_overhead_s", factors)
                  + arch.n_layers * device_overhead(device, "layer_overhead_s", factors)
                  + seq_s * (np.asarray(draft_tokens, float) + 1.0)   # sampling / acceptance of k + 1 positions
                  + scheduler_overhead_s(batch, devices, attention_dp, factors.sched_overhead_s, busiest)
                  + serial_speculation_s(serving, factors, busiest))
    draft = draft_pass(device, arch, serving, context, factors, seq_s, adp)
    software_speed = workload.software_speed_ratio
    kernels_s = core_s(mem_s, comp_s, factors.mem_compute_overlap_loss) + comm_s + draft.kernel_s
    fixed_s = overhead_s + draft.fixed_s
    step_s = (kernels_s * stack_step_scale(device, factors) * serving.stack_step_ratio
              + fixed_s * stack_overhead_scale(device, factors) * serving.stack_overhead_ratio) / (factors.model_error * software_speed)
    realised = np.minimum(np.asarray(serving.acceptance_fraction, float) * factors.spec_acceptance_realised, 1.0)
    per_step = tokens_per_step(draft_tokens, realised, arch.draft_later_ratio)
    prefill_serving = replace(serving, peak_flop_s=prefill_peaks[0], attention_peak_flop_s=prefill_peaks[1],
                              shared_peak_flop_s=prefill_peaks[2])
    pf_busy, pf_alone = prefill(device, arch, prefill_serving, workload, factors)
    speed = factors.model_error * software_speed  # the model's own error, the software's date
    pf_busy, pf_alone = pf_busy / speed, pf_alone / speed
    decode_total = output_tokens / per_step * step_s
    cycle_s = decode_total + batch * pf_busy
    per_user = 1.0 / seconds_per_token(step_s, per_step, pf_busy, batch, output_tokens, workload.latency_percentile)
    per_device = batch * output_tokens / cycle_s / devices
    share = batch * pf_busy / cycle_s
    decode_busy = np.minimum(1.0, (comp_s + draft.compute_s + factors.power_mem_activity * (mem_s + draft.memory_s)) / speed
                             / np.maximum(step_s, 1e-30))
    u = share + (1.0 - share) * decode_busy
    power = busy_power_w(device, u, factors)
    b_max = max_batch_by_memory(arch, capacity_gb(device), factors.usable_memory_fraction, devices, attention_dp,
                                serving.weight_bytes_per_value, serving.kv_bytes_per_value, input_tokens + output_tokens,
                                serving.shared_weight_bytes_per_value)
    queue_s = wait_quantile_s(admission_wait_s(share, pf_busy), share, workload.latency_percentile)
    return RooflineArrays(per_device, per_user, pf_alone + step_s + queue_s, power, b_max, step_s, mem_s, comp_s,
                          comm_s, pf_busy, share, per_step + 0.0 * batch, u, queue_s)


def serial_speculation_s(serving: ServingArrays, factors, busiest=None):
    """Host time a speculative step leaves exposed where the stack drafts without its overlap scheduler
    (`serving.spec_host_serial`: SGLang sets disable_overlap_schedule for EAGLE / MTP drafting, so the
    scheduling and acceptance bookkeeping of each step run between device steps instead of under the
    previous one): the sequences of one scheduler (ceil(B / N) per attention-DP rank, B without) x
    `spec_serial_seq_overhead_s`; 0 without draft tokens or on a stack that overlaps it (plans). `busiest`:
    `busiest_sequences`, already computed."""
    serial = np.asarray(serving.spec_host_serial, bool) & (np.asarray(serving.draft_tokens, float) > 0)
    per_step = scheduler_overhead_s(serving.batch_sequences, serving.devices, serving.attention_dp,
                                    factors.spec_serial_seq_overhead_s, busiest)
    return np.where(serial, per_step, 0.0)


@dataclass(frozen=True)
class DraftPass:
    """The drafter's share of one speculative step per device (s): its k forward passes' kernels
    (`kernel_s`: t_core + t_comm) and fixed overheads (`fixed_s`: launches, sampling), and their memory
    and compute time (for the power model); 0 where k = 0."""

    kernel_s: object
    fixed_s: object
    memory_s: object
    compute_s: object

    @property
    def step_s(self):
        """The k passes in all (s)."""
        return self.kernel_s + self.fixed_s


def draft_pass(device, arch: Architecture, serving: ServingArrays, context_tokens, factors, seq_s, adp=None) -> DraftPass:
    """The drafter's k forward passes of one step (spec_decode.py): each a decode step of the drafter
    (`arch.drafter`, one layer) at B tokens on the replica's devices and precisions, plus one layer's
    overhead, `spec_draft_cost_fraction` of the fixed step overhead (its launches) and its per-sequence
    sampling `seq_s`: k x (t_core + t_comm + layer_overhead + spec_draft_cost_fraction x step_overhead + t_seq).
    `adp`: the target model's `attention_dp_imbalance` (`decode_step`), already computed."""
    k = np.asarray(serving.draft_tokens, float)
    if arch.drafter is None or not np.any(k > 0):
        return DraftPass(0.0, 0.0, 0.0, 0.0)
    mem_s, comp_s, comm_s = decode_step(device, arch.drafter, replace(serving, draft_tokens=0.0), context_tokens, factors,
                                        adp)   # `adp`: the target model's (the same batch on the same devices)
    fixed = (device_overhead(device, "layer_overhead_s", factors)
             + factors.spec_draft_cost_fraction * device_overhead(device, "step_overhead_s", factors))
    kernels = core_s(mem_s, comp_s, factors.mem_compute_overlap_loss) + comm_s
    return DraftPass(k * kernels, k * (fixed + seq_s), k * mem_s, k * comp_s)


def architecture_peaks(device, factors, peak, attention_peak, shared_peak=None, efficiency=None):
    """(peak, attention_peak, shared_peak) scaled so that math at `efficiency` (eta_compute for decode,
    eta_prefill for prefill) runs at the device architecture's achieved fraction instead:
    x compute_efficiency(architecture) / eta_compute, capped so that efficiency x scale <= 1 (no device
    computes above its peak), times the clock a power limit leaves (device_power.clock_ratio). 1 for Blackwell
    and any architecture without its own ratio, without a limit. Arrays broadcast (Monte Carlo draws of the
    factors)."""
    eta = np.asarray(factors.eta_compute, float)
    scale = np.asarray(compute_efficiency(factors, getattr(device, "architecture", "")), float) / eta
    if efficiency is not None:
        scale = np.minimum(scale, 1.0 / np.asarray(efficiency, float))
    scale = scale * np.asarray(clock_ratio(device), float)   # a power limit's clock (device_power.py)
    if scale.ndim == 0 and float(scale) == 1.0:
        return peak, attention_peak, shared_peak
    return peak * scale, attention_peak * scale, None if shared_peak is None else shared_peak * scale


def admission_wait_s(prefill_share, prefill_s):
    """Mean wait of an arriving request before its prefill starts (server load): the replica prefills
    one request at a time for `prefill_s` and spends `prefill_share` of its time doing so, so with
    Poisson arrivals its prefill work is an M/D/1 queue of utilization rho = prefill_share:
    W = rho x prefill_s / (2 (1 - rho)) (Pollaczek-Khinchine with deterministic service); infinite
    at rho >= 1. TTFT = W + the isolated prefill + the first step."""
    rho = np.asarray(prefill_share, float)
    return np.where(rho < 1.0, rho * np.asarray(prefill_s, float) / (2.0 * np.maximum(1.0 - rho, 1e-12)), np.inf)
