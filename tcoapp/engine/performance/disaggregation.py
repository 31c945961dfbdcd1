"""Prefill/decode disaggregation: a prefill pool feeding a decode pool, possibly of different devices.

Per batch B (concurrent sequences per decode replica; both pools use the serving config's
TP x EP = N devices per replica):

    decode pool:  r_dec = B x tokens_per_step / t_step / output_tokens / N     requests/s per decode device
                  (decode steps only: no prefill competes with decoding)
    prefill pool: r_pre = 1 / (t_prefill x N)                                  requests/s per prefill device
                  (compute-bound prefill of input x (1 - prefix_cache_hit_rate) tokens)
    balanced prefill share  p* = r_dec / (r_pre + r_dec)   (neither pool waits for the other)
    plan request rate per device (both pools) = min(p x r_pre, (1 - p) x r_dec)

p is the user's ratio prefill_devices / (prefill_devices + decode_devices) when given, else p*.
The returned curve counts throughput per device over BOTH pools (so capex and power cover both):
tokens_per_s_per_device = output_tokens x plan request rate; power_w is the device-weighted mean
of the two pools, each pool's busy fraction scaled by how much of its capacity the plan uses;
tokens_per_s_per_user is the decode pool's rate; ttft_s = isolated prefill on the prefill device +
one decode step (the KV-cache transfer between pools is not modelled: a note says so).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..quantities.records import Device, ModelSpec, ServingConfig, Workload
from .curve import CurveArrays
from .device_power import busy_power_w
from .factors import DEFAULT_FACTORS, EfficiencyFactors
from .generated import config_problems, run_roofline


@dataclass(frozen=True)
class DisaggregatedCurve:
    """A disaggregated plan's curve (per device over both pools) and how its pools are sized."""

    curve: CurveArrays
    prefill_share: float | np.ndarray    # share of the plan's devices in the prefill pool, as used: a float when
                                         # it is the user's ratio or one batch was evaluated, else one per batch
    balanced_prefill_share: np.ndarray   # the share at which neither pool starves
    user_prefill_share: float | None     # from prefill_devices:decode_devices (None: not given)
    starved_pool: np.ndarray             # per batch: "decode" (too few prefill devices), "prefill" or ""
    prefill_requests_per_s_per_device: np.ndarray
    decode_requests_per_s_per_device: np.ndarray

    def share_at(self, index: int) -> float:
        """The prefill share of devices at the curve's `index`-th batch."""
        if isinstance(self.prefill_share, float):
            return self.prefill_share
        return float(self.prefill_share[index])


def generate_disaggregated(prefill_device: Device, decode_device: Device, model: ModelSpec, serving: ServingConfig,
                           workload: Workload, batch, factors: EfficiencyFactors = DEFAULT_FACTORS) -> DisaggregatedCurve:
    """The disaggregated curve at `batch` (see module docstring for the formulas and units)."""
    b = np.atleast_1d(np.asarray(batch, float))
    n = serving.tensor_parallel * serving.expert_parallel
    dec = run_roofline(decode_device, model, serving, workload, b, factors)
    pre = run_roofline(prefill_device, model, serving, workload, 1.0, factors)
    r_dec = b * dec.tokens_per_step / dec.step_s / workload.output_tokens / n
    r_pre = np.full_like(b, 1.0 / (float(np.ravel(pre.prefill_s)[0]) * n))
    balanced = r_dec / (r_pre + r_dec)
    user = None
    if serving.prefill_devices > 0 and serving.decode_devices > 0:
        user = serving.prefill_devices / (serving.prefill_devices + serving.decode_devices)
    share = balanced if user is None else np.full_like(b, user)
    rate = np.minimum(share * r_pre, (1.0 - share) * r_dec)
    starved = np.where(share * r_pre < (1.0 - share) * r_dec * (1 - 1e-9), "decode",
                       np.where((1.0 - share) * r_dec < share * r_pre * (1 - 1e-9), "prefill", ""))
    decode_busy = np.minimum(1.0, (dec.compute_s + factors.power_mem_activity * dec.memory_s) / dec.step_s)
    power = (share * busy_power_w(prefill_device, rate / (share * r_pre), factors)
             + (1.0 - share) * busy_power_w(decode_device, decode_busy * rate / ((1.0 - share) * r_dec), factors))
    problems = config_problems(prefill_device, model, serving) + config_problems(decode_device, model, serving)
    b_max = float(dec.max_batch_by_memory)
    feasible = (b <= b_max) & (not problems) & (b_max >= 1)
    notes = tuple(problems) + _notes(prefill_device, decode_device, user, balanced, starved)
    curve = CurveArrays(b, workload.output_tokens * rate, dec.tokens_per_step / dec.step_s,
                        float(pre.ttft_s[0] - pre.step_s[0] - np.atleast_1d(pre.queue_s)[0]) + dec.step_s, power, feasible, max_batch_by_memory=b_max,
                        source="generated:disaggregated", notes=notes)
    used = float(share[0]) if (user is not None or share.size == 1) else share
    return DisaggregatedCurve(curve, used, balanced, user, starved, r_pre, r_dec)


def _notes(prefill_device, decode_device, user, balanced, starved) -> tuple[str, ...]:
    notes = [f"disaggregated: prefill on {prefill_device.name}, decode on {decode_device.name}; "
             "throughput and power per device over both pools; KV-cache transfer between pools not modelled",
             f"balanced prefill share of devices {float(np.min(balanced)):.3g} to {float(np.max(balanced)):.3g} over the batch range"]
    if user is not None and np.any(starved != ""):
        kinds = sorted(set(starved[starved != ""]))
        for kind in kinds:
            idle = "decode pool waits for prefill" if kind == "decode" else "prefill pool waits for decode"
            notes.append(f"the prefill:decode ratio ({user:.3g} prefill share) starves the {kind} pool at some "
                         f"batches ({idle}); balanced share shown in balanced_prefill_share")
    return tuple(notes)
