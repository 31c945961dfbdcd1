"""Agentic sessions on one replica: the hit rate, tokens/s per device and the turn's TTFT against the
number of concurrent sessions, with the KV tiers a buyer chooses (docs/model.md, "Agentic sessions
and KV tiers").

Each count N of concurrent sessions per replica is solved as a fixed point:

    B       = min(N x turn_s / (turn_s + gap_s), max batch by memory)   active sequences (at least 1)
    HBM_idle = usable memory - weights - B x KV(mean context)             per device, for idle sessions
    h_k     = kv_residency.residency(...)                                 prompt share read from tier k
    reload  = prefix bytes from tier k / its link (host: the device's host link; NVMe: the server's
              drives shared by its devices), or recomputed where the prefill would be faster
    turn_s  = TTFT(B, hit) + reload + output_tokens / tokens per s per user(B, hit)

with the roofline (`run_roofline`) at batch B for the session's mean prompt and the achieved hit
rate. Throughput is the roofline's tokens/s per device at B: a closed loop of N sessions keeps B of
them in service on average; where fewer than one is (N x turn_s / (turn_s + gap_s) < 1), the batch-1
rate times that share of the time.
"""
from __future__ import annotations

from dataclasses import dataclass

import functools

import numpy as np

from ..performance.generated import memory_limit, run_roofline, shared_weight_args
from ..performance.kv_residency import SessionShape, residency
from ..performance.memory import architecture, capacity_gb, kv_device_bytes, weight_bytes_per_device
from ..performance.precision import bytes_per_value
from ..plan.kv_tiers import device_tiers
from ..quantities.factors import DEFAULT_FACTORS, EfficiencyFactors
from ..quantities.inputs import KV_OFFLOADS
from ..quantities.records import Device, ModelSpec, ServingConfig, Workload

KV_OFFLOAD = KV_OFFLOADS
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
    hbm_idle_bytes: np.ndarray | None = None   # per count: HBM per device left for idle sessions' KV
    footprint_bytes: float = float("nan")      # the mean KV per device an idle session holds
    reload_s: np.ndarray | None = None         # per count: a turn's mean reload of its prefix from host and NVMe (s)


def _per_device_kv_bytes(arch, serving: ServingConfig, devices: float, tokens) -> np.ndarray:
    """KV bytes (and linear state) one sequence of `tokens` of context holds per device of its replica."""
    return kv_device_bytes(arch, 1.0, tokens, bytes_per_value(serving.kv_precision), devices, bool(serving.attention_dp))


def session_curve(device: Device, model: ModelSpec, serving: ServingConfig, shape: SessionShape,
                  tiers: KvTiers, sessions_per_replica, routing: str = "session_affinity", replicas: int = 1,
                  factors: EfficiencyFactors = DEFAULT_FACTORS) -> SessionCurve:
    """The replica's agentic operating points at each count of concurrent sessions (see the module). The
    same inputs give the same curve, kept for the next call (a plan with an agentic class is computed twice,
    pipeline/compute.py; every input is a frozen record): callers read it, never change it."""
    counts = tuple(float(c) for c in np.atleast_1d(np.asarray(sessions_per_replica, float)))
    return _session_curve(device, model, serving, shape, tiers, counts, routing, int(replicas), factors)


def clear_session_curves() -> None:
    """Forget the kept session curves (a benchmark times the computation, not the lookup)."""
    _session_curve.cache_clear()


@functools.lru_cache(maxsize=128)
def _session_curve(device: Device, model: ModelSpec, serving: ServingConfig, shape: SessionShape,
                   tiers: KvTiers, sessions_per_replica: tuple[float, ...], routing: str, replicas: int,
                   factors: EfficiencyFactors) -> SessionCurve:
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
        in_service = sessions * turn_s / (turn_s + shape.gap_s)      # Little's law: sessions in a turn
        batch = np.clip(in_service, 1.0, max(b_max, 1.0))
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
    # below one session in service the replica idles part of the time: its tokens/s is the batch-1 rate x the
    # share of time a turn is in service (above max batch by memory the extra sessions queue: the rate at it)
    busy = np.minimum(in_service, batch) / batch
    return SessionCurve(sessions, hit, used, batch, r.tokens_per_s_per_device * busy, r.ttft_s + reload_s, turn_s, knee,
                        hbm_idle, footprint, np.broadcast_to(reload_s, sessions.shape).astype(float))


def loaded_knee(curve: SessionCurve) -> float:
    """The sessions whose idle contexts fill the HBM left after the weights and the active batch at that
    count: where N x footprint crosses the HBM left (log-interpolated between the curve's counts); the
    curve's last count where it never crosses, the first where it crosses before it."""
    n = curve.sessions_per_replica
    if curve.hbm_idle_bytes is None:                                # a curve built without its memory
        return curve.hbm_knee_sessions_per_replica
    over = n * curve.footprint_bytes - curve.hbm_idle_bytes        # rises with N: the demand grows, the room shrinks
    k = int(np.argmax(over > 0)) if np.any(over > 0) else len(n) - 1
    if k == 0 or over[k] <= 0:
        return float(n[k])
    w = -over[k - 1] / (over[k] - over[k - 1])
    return float(np.exp(np.log(n[k - 1]) + w * (np.log(n[k]) - np.log(n[k - 1]))))


def session_shape(request_class) -> SessionShape:
    """An agentic request class (a RequestClass with session_turns) as a session: its turns, shared
    system prompt, new input per turn, output per turn (its output_tokens) and gap between turns."""
    if request_class.session_turns is None:
        raise ValueError(f"request class {request_class.class_!r} is not agentic: session_turns is empty")
    return SessionShape(turns=int(request_class.session_turns),
                        system_prompt_tokens=float(request_class.system_prompt_tokens),
                        turn_input_tokens=float(request_class.turn_input_tokens),
                        turn_output_tokens=float(request_class.output_tokens), gap_s=float(request_class.turn_gap_s))


def device_kv_tiers(server: Device, offload: str) -> KvTiers:
    """The tiers one device of `server` (the plan's server, extras included: plan/kv_tiers.py) uses under
    `offload`: its share of the host memory and NVMe, its host link, its share of the NVMe bandwidth."""
    t = device_tiers(server)
    return KvTiers(offload, host_gb=t.host_gb, host_link_gb_s=t.host_link_gb_s, nvme_gb=t.nvme_gb, nvme_gb_s=t.nvme_gb_s)


_CURVE_POINTS = 24


def _sessions_for_batch(curve: SessionCurve, batch: float) -> float:
    """The concurrent sessions whose active batch is `batch` (interpolated on the curve, whose active batch
    never falls as sessions are added)."""
    return float(np.interp(batch, curve.active_batch, curve.sessions_per_replica))


def agentic_answer(server: Device, model: ModelSpec, serving: ServingConfig, request_class, offload: str = "none",
                   routing: str = "session_affinity", replicas: int = 1, sessions_per_replica: float | None = None,
                   operating_batch: float | None = None, cost_per_device_hour_usd: float = float("nan"),
                   utilization: float = 1.0, facility_w_per_device: float = float("nan"),
                   factors: EfficiencyFactors = DEFAULT_FACTORS) -> dict:
    """A plan's answer for one agentic request class (docs/model.md, "Agentic sessions and KV tiers"):

    - `sessions_per_replica` (or, empty, the sessions that keep `operating_batch` in service, else the
      HBM knee) sets the operating point N;
    - achieved_prefix_hit_rate and its split by tier at N; tokens/s per device and the turn's TTFT at N;
    - turn_reload_s: a turn's mean time reloading its prefix from host memory and NVMe at N (in its TTFT; the
      plan's next pass adds it to the class's prefill, pipeline/agentic_passes.py);
    - concurrent_sessions_per_device = N / devices per replica (TP x EP);
    - agents_per_mw = sessions per device / (facility_w_per_device / 1e6);
    - cost_per_agent_hour_usd = cost_per_device_hour_usd / (sessions per device x utilization): a device-hour
      serves that many agent-hours (the fleet is busy `utilization` of the hours);
    - hbm_knee_sessions_per_replica: the sessions whose idle contexts fill the HBM left after the weights and
      the active batch at that count (`loaded_knee`), and session_curve from 1 session to at least 4x it.
    Values that do not exist (no cost, no power) are None."""
    shape = session_shape(request_class)
    tiers = device_kv_tiers(server, offload)
    devices = float(serving.tensor_parallel * serving.expert_parallel)
    # the knee at batch 1 bounds the knee under load from above: the curve reaches 4x it
    idle_knee = session_curve(server, model, serving, shape, tiers, [1.0], routing, replicas, factors).hbm_knee_sessions_per_replica
    top = max(4.0 * idle_knee, 8.0, 2.0 * (sessions_per_replica or 0.0))
    counts = np.unique(np.geomspace(1.0, top, _CURVE_POINTS))
    curve = session_curve(server, model, serving, shape, tiers, counts, routing, replicas, factors)
    contrast = _contrast(offload, server)
    knee = loaded_knee(curve)
    if sessions_per_replica is not None:
        n, basis = float(sessions_per_replica), "sessions_per_replica"
    elif operating_batch is not None and np.isfinite(operating_batch):
        n, basis = _sessions_for_batch(curve, float(operating_batch)), "operating_batch"
    else:
        n, basis = max(knee, 1.0), "hbm_knee"
    at = session_curve(server, model, serving, shape, tiers, [n], routing, replicas, factors)
    per_device = n / devices
    return {
        "class": request_class.class_, "kv_offload": offload, "kv_routing": routing, "replicas": int(replicas),
        "sessions_basis": basis, "sessions_per_replica": n,
        "achieved_prefix_hit_rate": float(at.achieved_prefix_hit_rate[0]),
        "hit_rate_by_tier": {tier: float(at.hit_by_tier[k, 0]) for k, tier in enumerate(("hbm", "host", "nvme"))},
        "concurrent_sessions_per_device": per_device,
        "tokens_per_s_per_device": float(at.tokens_per_s_per_device[0]), "ttft_s": float(at.ttft_s[0]),
        "turn_reload_s": float(at.reload_s[0]) if at.reload_s is not None else float("nan"),
        "agents_per_mw": _ratio(per_device * 1e6, facility_w_per_device),
        "cost_per_agent_hour_usd": _ratio(cost_per_device_hour_usd, per_device * utilization),
        "hbm_knee_sessions_per_replica": float(knee),
        "session_curve": _curve_rows(curve),
        # the same counts with the KV offload the other way (HBM only, or the server's host memory): the chart's
        # "with and without offload"; None where the server has no host tier to compare with
        "contrast": None if contrast is None else {"kv_offload": contrast, "session_curve": _curve_rows(session_curve(
            server, model, serving, shape, device_kv_tiers(server, contrast), counts, routing, replicas, factors))},
    }


def _contrast(offload: str, server: Device) -> str | None:
    """The offload the chart compares the plan's with: none for a plan that offloads; host for one that does
    not, where its server has host memory and a link to it."""
    if offload != "none":
        return "none"
    return "host" if server.host_memory_gb > 0 and server.host_link_gb_s > 0 else None


def _curve_rows(curve: SessionCurve) -> list[dict]:
    return [{"sessions_per_replica": float(s), "achieved_prefix_hit_rate": float(h),
             "tokens_per_s_per_device": float(t), "ttft_s": float(f)}
            for s, h, t, f in zip(curve.sessions_per_replica, curve.achieved_prefix_hit_rate,
                                  curve.tokens_per_s_per_device, curve.ttft_s)]


def _ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator; None where it does not exist (a denominator that is 0 or not a number)."""
    value = float(numerator) / float(denominator) if denominator and np.isfinite(denominator) else float("nan")
    return value if np.isfinite(value) else None
