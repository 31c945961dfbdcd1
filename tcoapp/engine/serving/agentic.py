"""Agentic sessions on one replica: the hit rate, tokens/s per device and the turn's TTFT against the
number of concurrent sessions, with the KV tiers a buyer chooses (docs/model.md, "Agentic sessions
and KV tiers").

Each count N of concurrent sessions per replica is solved as a fixed point:

    B       = min(N x turn_s / (turn_s + gap_s), max batch by memory)   active sequences
    HBM_idle = usable memory - weights - B x KV(mean context)             per device, for idle sessions
    h_k     = kv_residency.residency(...)                                 prompt share read from tier k
    reload  = prefix bytes from tier k / its link (host: the device's host link; NVMe: the server's
              drives shared by its devices), or recomputed where the prefill would be faster
    turn_s  = TTFT(B, hit) + reload + output_tokens / tokens per s per user(B, hit)

with the roofline (`run_roofline`) at batch B for the session's mean prompt and the achieved hit
rate. Throughput is the roofline's tokens/s per device at B: a closed loop of N sessions keeps B of
them in service on average.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..performance.generated import memory_limit, run_roofline, shared_weight_args
from ..performance.kv_residency import SessionShape, residency
from ..performance.memory import architecture, capacity_gb, kv_device_bytes, weight_bytes_per_device
from ..performance.precision import bytes_per_value
from ..quantities.factors import DEFAULT_FACTORS, EfficiencyFactors
from ..quantities.records import Device, ModelSpec, ServingConfig, Workload

KV_OFFLOAD = ("none", "host", "host_nvme")
_ITERATIONS = 60          # at most; the fixed point stops when the turn time moves less than _TOLERANCE
_TOLERANCE = 1e-5


@dataclass(frozen=True)
class KvTiers:
    """The KV tiers beyond HBM, per device: host memory (GB) and its link (GB/s, one direction; PCIe
    Gen5 x16 about 64, GB200's NVLink-C2C 900 to Grace memory), NVMe capacity (GB) and bandwidth
    (GB/s, the server's drives shared by its devices). `offload`: none | host | host_nvme."""

    offload: str = "none"
    host_gb: float = 0.0
    host_link_gb_s: float = 0.0
    nvme_gb: float = 0.0
    nvme_gb_s: float = 0.0

    def capacities_bytes(self) -> tuple[float, float]:
        """(host, NVMe) bytes per device the offload mode uses."""
        if self.offload not in KV_OFFLOAD:
            raise ValueError(f"kv_offload {self.offload!r}: must be one of {', '.join(KV_OFFLOAD)}")
        host = self.host_gb * 1e9 if self.offload in ("host", "host_nvme") else 0.0
        nvme = self.nvme_gb * 1e9 if self.offload == "host_nvme" else 0.0
        return host, nvme


@dataclass(frozen=True)
class SessionCurve:
    """Per count of concurrent sessions per replica (arrays of one length)."""

    sessions_per_replica: np.ndarray
    achieved_prefix_hit_rate: np.ndarray
    hit_by_tier: np.ndarray            # (3, counts): HBM, host, NVMe shares of prompt tokens
    active_batch: np.ndarray           # sequences in service per replica
    tokens_per_s_per_device: np.ndarray
    ttft_s: np.ndarray                 # the turn's time to first token, reloads included
    turn_s: np.ndarray
    hbm_knee_sessions_per_replica: float   # sessions whose idle contexts fill the HBM left at batch 1


def _per_device_kv_bytes(arch, serving: ServingConfig, devices: float, tokens) -> np.ndarray:
    """KV bytes (and linear state) one sequence of `tokens` of context holds per device of its replica."""
    return kv_device_bytes(arch, 1.0, tokens, bytes_per_value(serving.kv_precision), devices, bool(serving.attention_dp))


def session_curve(device: Device, model: ModelSpec, serving: ServingConfig, shape: SessionShape,
                  tiers: KvTiers, sessions_per_replica, routing: str = "session_affinity", replicas: int = 1,
                  factors: EfficiencyFactors = DEFAULT_FACTORS) -> SessionCurve:
    """The replica's agentic operating points at each count of concurrent sessions (see the module)."""
    arch = architecture(model)
    devices = float(serving.tensor_parallel * serving.expert_parallel)
    sessions = np.atleast_1d(np.asarray(sessions_per_replica, float))
    prompt = float(shape.prompt_tokens().mean())
    workload = Workload(input_tokens=max(1, round(prompt)), output_tokens=max(1, round(shape.turn_output_tokens)))
    shared = shared_weight_args(device, serving.attention_weight_precision, factors).get("shared_weight_bytes_per_value")
    hbm_free = capacity_gb(device) * 1e9 * factors.usable_memory_fraction - float(weight_bytes_per_device(
        arch, devices, bool(serving.attention_dp), bytes_per_value(serving.weight_precision), shared))
    footprint = float(np.mean(_per_device_kv_bytes(arch, serving, devices, shape.held_tokens())))
    active_kv = float(_per_device_kv_bytes(arch, serving, devices, prompt + shape.turn_output_tokens))
    system_kv = float(_per_device_kv_bytes(arch, serving, devices, shape.system_prompt_tokens))
    b_max = memory_limit(device, model, serving, workload, factors)
    host, nvme = tiers.capacities_bytes()
    bytes_per_token = footprint / float(shape.held_tokens().mean())
    # a prefill of the whole prompt (nothing cached), its time per token: the price of recomputing
    cold = run_roofline(device, model, serving, workload, np.ones(1), factors)
    recompute_s_per_token = float(np.ravel(cold.prefill_s)[0]) / prompt
    links = np.array([np.inf, tiers.host_link_gb_s * 1e9, tiers.nvme_gb_s * 1e9])
    reload_s_per_token = np.where(links > 0, bytes_per_token / np.maximum(links, 1e-300), np.inf)
    reloads = reload_s_per_token < recompute_s_per_token      # else the prefix is recomputed: not a hit
    reloads[0] = True

    turn_s = np.full(sessions.shape, float(np.ravel(cold.ttft_s)[0]) + shape.turn_output_tokens / float(np.ravel(cold.tokens_per_s_per_user)[0]))
    for _ in range(_ITERATIONS):
        batch = np.clip(sessions * turn_s / (turn_s + shape.gap_s), 1.0, max(b_max, 1.0))
        hbm_idle = np.maximum(hbm_free - batch * active_kv - system_kv, 0.0)
        found = residency(shape, sessions, footprint, [hbm_idle, np.full_like(hbm_idle, host),
                                                      np.full_like(hbm_idle, nvme)], turn_s, routing,
                          replicas)
        used = found.hit_by_tier * reloads[:, None]
        hit = np.clip(used.sum(axis=0), 0.0, 1.0)
        reload_s = (found.prefix_tokens_by_tier * reloads[:, None] * np.where(np.isfinite(reload_s_per_token),
                                                                               reload_s_per_token, 0.0)[:, None])[1:].sum(axis=0)
        r = run_roofline(device, model, serving, workload.with_(prefix_cache_hit_rate=hit), batch, factors)
        new_turn = r.ttft_s + reload_s + shape.turn_output_tokens / r.tokens_per_s_per_user
        moved = np.max(np.abs(new_turn - turn_s) / turn_s)
        turn_s = 0.5 * turn_s + 0.5 * new_turn
        if moved < _TOLERANCE:
            break
    knee = max(hbm_free - active_kv - system_kv, 0.0) / footprint
    return SessionCurve(sessions, hit, used, batch, r.tokens_per_s_per_device, r.ttft_s + reload_s, turn_s, knee)
