"""The roofline kernel: one decode step and one prefill of a replica, fully broadcast over numpy arrays.

Every configuration input (batch, tensor/expert parallel, attention-DP, bytes per weight and KV
value, math peak, draft tokens, acceptance) may be a scalar or an array; they broadcast together,
so a whole sweep is one call. Device and model are scalars. Reference: docs/model.md section 1.

A replica spans N = TP x EP devices and serves B concurrent sequences. Per device and decode step
(s = k + 1 tokens per sequence with k draft tokens, T = B x s tokens in the step):

    weight_bytes = w x (shared_params / (1 if attention-DP else N) + E_touched(T) x expert_params / N)
    kv_bytes     = B x kv_values(input + output / 2) x kv / kv_split     (sliding windows capped)
    t_mem        = weight_bytes / (mem_bw_gb_s x 1e9 x eta_mem) + kv_bytes / (mem_bw_gb_s x 1e9 x eta_kv)
    t_compute    = T x (2 x (shared + routed / moe_compute_efficiency) / peak + attn_flops x context / attention_peak)
                   / (N x eta_compute)        (shared + routed = active params)
                   (attention math runs at the KV cache's precision, never FP4: `attention_peak`)
    t_comm       = TP attention: 2 x layers ring all-reduces of T x hidden x 2 B over N devices;
                   MoE with EP > 1 or attention-DP: per layer an all-to-all dispatch and combine of
                   T / N x k_experts x hidden x 2 B per device
    t_step       = (max(t_mem, t_compute) + t_comm + step_overhead_s + layers x layer_overhead_s
                    + B x seq_overhead_s) x (1 + k x draft_cost)

Prefill of one request (n = input x (1 - prefix_cache_hit_rate) new tokens):
    t_prefill = (n x linear_flops / peak + pair_flops x n x input x (1 + hit) / 2 / attention_peak)
                / (N x eta_prefill) + its TP/EP communication     (causal attention; linear_flops as in decode)
Continuous batching: while B sequences each decode `output` tokens, B new requests are prefilled,
so one cycle of a replica lasts (output / tokens_per_step) x t_step + B x t_prefill and

    tokens_per_s_per_user   = output / cycle_s
    tokens_per_s_per_device = B x output / cycle_s / N
    ttft_s                  = max(t_prefill, weight read) + t_step (one isolated prefill, then the first step)
    power_w                 = idle_w + (tdp_w - idle_w) x u^gamma, u the busy fraction (compute time
                              + power_mem_activity x memory time, over wall time; prefill counts as busy)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .comm import allreduce_s, alltoall_s
from .memory import Architecture, experts_touched, kv_split, max_batch_by_memory, weight_bytes_per_device
from .precision import ACTIVATION_BYTES
from .spec_decode import step_cost_multiplier, tokens_per_step


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


def _link(device, factors) -> float:
    return np.maximum(device.interconnect_gb_s, 1e-9) * 1e9 * factors.eta_comm


def decode_step(device, arch: Architecture, batch, devices, expert_parallel, attention_dp, weight_bytes,
                kv_bytes, peak, attention_peak, draft_tokens, context_tokens, factors):
    """Memory, compute and communication time of one decode step per device (s), broadcast."""
    tokens = batch * (np.asarray(draft_tokens, float) + 1.0)
    touched = experts_touched(arch.n_experts, arch.experts_per_token, tokens)
    shared_ways = np.where(attention_dp, 1.0, devices)
    w_read = weight_bytes * (arch.shared_params / shared_ways + touched * arch.expert_params / devices)
    kv_read = batch * arch.kv_values(context_tokens) * kv_bytes / kv_split(arch, devices, attention_dp)
    bandwidth = device.mem_bw_gb_s * 1e9
    memory_s = w_read / (bandwidth * factors.eta_mem) + kv_read / (bandwidth * factors.eta_kv)
    attended = arch.kv_values(context_tokens) / arch.kv_values_per_token  # context, sliding windows capped
    flop_s = tokens * (_linear_flop_s(arch, peak, factors)
                       + arch.decode_attention_flops_per_context_token * attended / attention_peak)
    compute_s = flop_s / (devices * factors.eta_compute)
    comm_s = _comm_s(device, arch, tokens, devices, expert_parallel, attention_dp, factors)
    return memory_s, compute_s, comm_s


def _linear_flop_s(arch: Architecture, peak, factors):
    """Seconds x peak-efficiency of one token's weight GEMMs: 2 FLOP per active parameter, routed
    experts derated by moe_compute_efficiency (small, ragged grouped GEMMs)."""
    routed = arch.experts_per_token * arch.expert_params
    return 2.0 * (arch.active_params - routed + routed / factors.moe_compute_efficiency) / peak


def _comm_s(device, arch, tokens, devices, expert_parallel, attention_dp, factors):
    link, lat = _link(device, factors), factors.comm_latency_s
    message = tokens * arch.hidden_size * ACTIVATION_BYTES
    tp = np.where(attention_dp, 0.0, 2.0 * arch.n_layers * allreduce_s(message, devices, link, lat))
    if not arch.is_moe:
        return tp + 0.0 * message
    uses_a2a = (np.asarray(expert_parallel) > 1) | np.asarray(attention_dp, bool)
    sent = message / devices * arch.experts_per_token
    a2a = 2.0 * arch.n_layers * alltoall_s(sent, devices, link, lat)
    return tp + np.where(uses_a2a & (devices > 1), a2a, 0.0)


def prefill(device, arch: Architecture, devices, expert_parallel, attention_dp, weight_bytes, peak,
            attention_peak, input_tokens, hit_rate, factors):
    """(time of one request's prefill in a busy replica, its isolated TTFT part), both s."""
    new = input_tokens * (1.0 - hit_rate)
    pairs = new * input_tokens * (1.0 + hit_rate) / 2.0
    flop_s = new * _linear_flop_s(arch, peak, factors) + arch.prefill_attention_flops_per_token_pair * pairs / attention_peak
    compute_s = flop_s / (devices * factors.eta_prefill)
    comm_s = _comm_s(device, arch, np.asarray(new, float), devices, expert_parallel, attention_dp, factors)
    busy_s = compute_s + comm_s
    read_s = weight_bytes_per_device(arch, devices, attention_dp, weight_bytes) / (device.mem_bw_gb_s * 1e9 * factors.eta_mem)
    return busy_s, np.maximum(compute_s, read_s) + comm_s


def evaluate(device, arch: Architecture, batch, tensor_parallel, expert_parallel, attention_dp,
             weight_bytes, kv_bytes, peak, attention_peak, draft_tokens, acceptance, input_tokens, output_tokens,
             hit_rate, factors) -> RooflineArrays:
    """The generated curve for broadcast configuration arrays (see module docstring)."""
    batch = np.asarray(batch, float)
    devices = np.asarray(tensor_parallel, float) * np.asarray(expert_parallel, float)
    attention_dp = np.asarray(attention_dp, bool)
    context = input_tokens + output_tokens / 2.0
    mem_s, comp_s, comm_s = decode_step(device, arch, batch, devices, expert_parallel, attention_dp,
                                        weight_bytes, kv_bytes, peak, attention_peak, draft_tokens, context, factors)
    overhead_s = factors.step_overhead_s + arch.n_layers * factors.layer_overhead_s + batch * factors.seq_overhead_s
    step_s = (np.maximum(mem_s, comp_s) + comm_s + overhead_s) * step_cost_multiplier(
        draft_tokens, factors.spec_draft_cost_fraction)
    per_step = tokens_per_step(draft_tokens, acceptance)
    pf_busy, pf_alone = prefill(device, arch, devices, expert_parallel, attention_dp, weight_bytes, peak,
                                attention_peak, input_tokens, hit_rate, factors)
    decode_total = output_tokens / per_step * step_s
    cycle_s = decode_total + batch * pf_busy
    per_user = output_tokens / cycle_s
    per_device = batch * per_user / devices
    share = batch * pf_busy / cycle_s
    decode_busy = np.minimum(1.0, (comp_s + factors.power_mem_activity * mem_s) / np.maximum(step_s, 1e-30))
    u = share + (1.0 - share) * decode_busy
    power = device.idle_w + (device.tdp_w - device.idle_w) * u ** factors.power_gamma
    b_max = max_batch_by_memory(arch, device.memory_gb, factors.usable_memory_fraction, devices, attention_dp,
                                weight_bytes, kv_bytes, input_tokens + output_tokens)
    return RooflineArrays(per_device, per_user, pf_alone + step_s, power, b_max, step_s, mem_s, comp_s, comm_s,
                          pf_busy, share, per_step + 0.0 * batch, u)
