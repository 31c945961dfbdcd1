"""Disaggregated pools: prefill pools feeding decode pools, each with its own device and serving
configuration (docs/model.md, "Fleet plans").

Per device of a prefill pool p (replica of n_p = TP x EP devices, compute-bound prefill of
input x (1 - prefix_cache_hit_rate) new tokens):  r_p = 1 / (t_prefill_p x n_p)      requests/s
Per device of a decode pool d at batch B (decode steps only):
    r_d(B) = B x tokens_per_step / t_step / output_tokens / n_d                     requests/s
KV cache of one request: kv_bytes = kv_values(input_tokens) x bytes(kv_precision of the prefill pool)
(+ the linear layers' fixed state),
moved over the scale-out network (`scale_out_gb_s` per device, unidirectional), or over the scale-up
fabric (`interconnect_gb_s`) when both pools are the same device whose scale-up domain spans at
least two servers (a prefill and a decode server then sit in one domain):
    t_kv = kv_bytes / (min(n_p x link_p, n_d x link_d) x 1e9)   (the prefill replica's n_p devices send
        their shards in parallel, the decode replica's n_d devices receive them: the slower side limits)
    link cap = min(sum_p N_p x link_p, sum_d N_d x link_d) x 1e9 / kv_bytes       requests/s
    (link_p, link_d: each side's own device's scale_out_gb_s, or interconnect_gb_s over the scale-up fabric)
TTFT = isolated prefill + t_kv + one decode step. The plan's request rate is the smallest of the
prefill capacity sum_p N_p r_p, the decode capacity sum_d N_d r_d and the link cap; the pool (or the
link) that sets it is reported, the others wait. Each pool's busy fraction is the rate over its
capacity (decode: times its step's busy fraction), and power_w = idle + (tdp - idle) x busy^gamma.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..quantities.records import Device, ModelSpec, ServingConfig, Workload
from .device_power import busy_power_w  # noqa: F401 (read through this module too)
from .factors import EfficiencyFactors
from .frontier import row_kernel, serving_columns
from .generated import config_problems, run_roofline
from .memory import architecture
from .precision import bytes_per_value


@dataclass(frozen=True)
class PrefillCapacity:
    requests_per_s_per_device: float
    ttft_part_s: float        # isolated prefill of one request (weights read or compute, + its comm)
    kv_bytes: float           # KV cache of one request after prefill
    replica_devices: int
    problems: tuple[str, ...]


@dataclass(frozen=True)
class DecodeCurve:
    batch: np.ndarray
    tokens_per_s_per_user: np.ndarray
    requests_per_s_per_device: np.ndarray
    step_s: np.ndarray
    busy: np.ndarray           # busy fraction of a decode step (power model)
    max_batch_by_memory: float
    problems: tuple[str, ...]


def prefill_capacity(device: Device, model: ModelSpec, serving: ServingConfig, workload: Workload,
                     factors: EfficiencyFactors) -> PrefillCapacity:
    """A prefill pool's capacity per device: requests/s, the isolated TTFT part [s] and the KV
    cache of one request [bytes] (formulas in the module docstring)."""
    pre = run_roofline(device, model, serving, workload, 1.0, factors)
    n = serving.tensor_parallel * serving.expert_parallel
    kv_bytes = kv_bytes_per_request(model, serving, workload)
    busy_s = float(np.ravel(pre.prefill_s)[0])
    alone_s = float(np.ravel(pre.ttft_s - pre.step_s - pre.queue_s)[0])
    return PrefillCapacity(1.0 / (busy_s * n), alone_s, kv_bytes, n, tuple(config_problems(device, model, serving)))


def prefill_rates(device: Device, model: ModelSpec, servings, workload: Workload,
                  factors: EfficiencyFactors) -> tuple[list[float], np.ndarray]:
    """(`prefill_capacity(...).requests_per_s_per_device` of each configuration, its memory limit [sequences])
    of configurations of one acceptance and mixed precision (a search space's), in one kernel call: the values
    each computed alone gives."""
    columns, acceptance, mixed = serving_columns(servings)
    n = len(servings)
    pre = row_kernel(device, model, workload, columns, np.ones((n, 1)), spec_decode_acceptance=acceptance,
                     attention_weight_precision=mixed, factors=factors)
    busy_s = np.broadcast_to(pre.prefill_s, (n, 1))[:, 0]
    rates = [1.0 / (float(busy_s[i]) * (s.tensor_parallel * s.expert_parallel)) for i, s in enumerate(servings)]
    return rates, np.broadcast_to(pre.max_batch_by_memory, (n, 1))[:, 0]


def decode_curve(device: Device, model: ModelSpec, serving: ServingConfig, workload: Workload, batch,
                 factors: EfficiencyFactors) -> DecodeCurve:
    """A decode pool's curve at `batch` [sequences]: per-user tokens/s, step time [s], requests/s per
    device and busy fraction (module docstring)."""
    b = np.atleast_1d(np.asarray(batch, float))
    dec = run_roofline(device, model, serving, workload, b, factors)
    per_user, requests, busy = decode_terms(dec, b, serving.tensor_parallel * serving.expert_parallel, workload, factors)
    return DecodeCurve(b, per_user * np.ones_like(b), requests, dec.step_s * np.ones_like(b),
                       busy * np.ones_like(b), float(dec.max_batch_by_memory),
                       tuple(config_problems(device, model, serving)))


def decode_terms(dec, batch, replica_devices, workload: Workload, factors: EfficiencyFactors):
    """(tokens/s per user, requests/s per device, busy fraction of a step) of a decode replica of
    `replica_devices` (TP x EP) devices from its roofline result `dec` at `batch` [sequences]: per user =
    tokens_per_step / t_step, requests per device = B x per user / output_tokens / n_d, busy = min(1,
    (t_compute + power_mem_activity x t_memory) / t_step). Any shape (a batch grid, a draw axis in Monte
    Carlo, or one row per configuration with `replica_devices` a column)."""
    n = replica_devices
    per_user = dec.tokens_per_step / dec.step_s
    busy = np.minimum(1.0, (dec.compute_s + factors.power_mem_activity * dec.memory_s) / dec.step_s)
    return per_user, batch * per_user / workload.output_tokens / n, busy


def kv_bytes_per_request(model: ModelSpec, serving: ServingConfig, workload: Workload) -> float:
    """The KV cache one request carries from prefill to decode [bytes]: kv_values(input_tokens) x bytes
    per value of the prefill pool's kv_precision, plus the linear layers' fixed state (state_bytes; 0
    without linear-attention layers)."""
    arch = architecture(model)
    kv = float(arch.kv_values(workload.input_tokens)) * bytes_per_value(serving.kv_precision)
    return kv + arch.state_bytes if arch.linear_layers > 0 else kv


def kv_fabric(prefill: Device, decode: Device) -> str:
    """Which fabric carries the KV cache: "scale-up" when both pools are the same device whose scale-up
    domain spans at least two servers (and has a bandwidth), else "scale-out"."""
    if prefill.name == decode.name and prefill.scale_up_domain >= 2 * prefill.devices_per_server \
            and prefill.interconnect_gb_s > 0:
        return "scale-up"
    return "scale-out"


KV_FABRIC_FIELD = {"scale-up": "interconnect_gb_s", "scale-out": "scale_out_gb_s"}  # the device field per fabric


def kv_link_gb_s(prefill: Device, decode: Device) -> tuple[float, float, str]:
    """(per-device bandwidth the prefill side sends the KV cache at, the decode side receives it at, which
    fabric). Over the scale-out network each side uses its own network card (`scale_out_gb_s` of its own
    device): the link is limited by the slower of sender and receiver, each with its own device count."""
    fabric = kv_fabric(prefill, decode)
    field = KV_FABRIC_FIELD[fabric]
    return float(getattr(prefill, field)), float(getattr(decode, field)), fabric


def kv_transfer_s(kv_bytes: float, replica_devices: int, link_gb_s: float) -> float:
    """t_kv = kv_bytes / (replica devices x link x 1e9); inf where there is no link."""
    return kv_bytes / (replica_devices * link_gb_s * 1e9) if link_gb_s > 0 else float("inf")


def pair_rate(prefill, decode, kv_bytes: float):
    """(the plan's request rate, prefill capacity, decode capacity, KV link cap) [requests/s] of a
    prefill/decode fleet: `prefill` and `decode` list each pool's (requests/s per device, devices,
    per-device link [GB/s]); rate = min(sum_p N_p r_p, sum_d N_d r_d, min(sum_p N_p link_p,
    sum_d N_d link_d) x 1e9 / kv_bytes). Numbers, or arrays over a draw axis (Monte Carlo)."""
    pre_cap = sum(r * n for r, n, _ in prefill)
    dec_cap = sum(r * n for r, n, _ in decode)
    egress = sum(n * link for _, n, link in prefill) * 1e9
    ingress = sum(n * link for _, n, link in decode) * 1e9
    link_cap = np.minimum(egress, ingress) / kv_bytes if kv_bytes > 0 else np.inf
    return np.minimum(np.minimum(pre_cap, dec_cap), link_cap), pre_cap, dec_cap, link_cap


