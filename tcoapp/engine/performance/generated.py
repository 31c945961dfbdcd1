"""Generated efficiency curves: the roofline model of docs/model.md section 1 for a (device, model, config).

`generate_curve` is the entry point the plan layer calls for any plan without a measured curve;
the physics lives in `roofline.py` (vectorized), architecture in `memory.py`, number formats in
`precision.py`. Results are per device: a replica spans tensor_parallel x expert_parallel devices.
"""
from __future__ import annotations

import numpy as np

from ..quantities.records import Device, ModelSpec, ServingConfig, Workload
from .curve import CurveArrays, OperatingPoint, missing_point
from .device_power import clock_ratio, nameplate_w
from .factors import ARCHITECTURE_COMPUTE, DEFAULT_FACTORS, EfficiencyFactors, known_architecture
from .memory import architecture, capacity_gb, max_batch_by_memory
from .precision import attention_peak_flops, bytes_per_value, is_weight_only, peak_flops, precision_note
from .roofline import RooflineArrays, evaluate
from .roofline_inputs import ServingArrays, WorkloadArrays
from .software_maturity import date_note, software_speed


def config_problems(device: Device, model: ModelSpec, serving: ServingConfig) -> list[str]:
    """Why a parallel configuration is impossible on this device and model (empty: possible)."""
    problems = []
    n = serving.tensor_parallel * serving.expert_parallel
    if n > device.scale_up_domain and not spans_scale_out(device, model, serving):
        problems.append(f"tensor_parallel x expert_parallel = {n} exceeds {device.name}'s scale_up_domain "
                        f"({device.scale_up_domain}); only expert parallelism of an MoE model may span several "
                        f"domains (whole domains, tensor_parallel within one, over scale_out_gb_s > 0)")
    if n > 1 and device.interconnect_gb_s <= 0:
        problems.append(f"{device.name} has no scale-up fabric (interconnect_gb_s = 0): a replica must be 1 device")
    if serving.expert_parallel > 1 and model.n_experts == 0:
        problems.append(f"expert_parallel = {serving.expert_parallel} needs an MoE model; {model.name} is dense")
    elif serving.expert_parallel > max(model.n_experts, 1):
        problems.append(f"expert_parallel = {serving.expert_parallel} exceeds {model.name}'s {model.n_experts} experts")
    if getattr(serving, "attention_weight_precision", "") and model.n_experts == 0:
        problems.append(f"attention_weight_precision = {serving.attention_weight_precision} is for MoE models (experts "
                        f"at weight_precision, the rest at this); {model.name} is dense: leave it empty")
    return problems


def spans_scale_out(device: Device, model: ModelSpec, serving: ServingConfig) -> bool:
    """True where a replica of tensor_parallel x expert_parallel devices beyond the scale-up domain is
    possible: an MoE model's expert parallelism over whole domains (a multiple of scale_up_domain
    devices), tensor parallelism within one domain, and a scale-out network (scale_out_gb_s > 0).
    Its all-to-all (under attention-DP) or all-reduce (without) then crosses the scale-out network
    (roofline.alltoall_with_scale_out_s, roofline.allreduce_with_scale_out_s)."""
    n = serving.tensor_parallel * serving.expert_parallel
    domain = max(int(device.scale_up_domain), 1)
    return (model.n_experts > 0 and serving.expert_parallel > 1 and serving.tensor_parallel <= domain
            and n % domain == 0 and float(device.scale_out_gb_s) > 0 and device.interconnect_gb_s > 0)


def run_roofline(device: Device, model: ModelSpec, serving: ServingConfig, workload: Workload, batch,
                 factors: EfficiencyFactors = DEFAULT_FACTORS, chooser: Device | None = None) -> RooflineArrays:
    """All roofline quantities (step times [s], prefill share, utilization...) of one configuration at
    `batch` [sequences per replica].

    One implementation for the deterministic compute and Monte Carlo: device fields, factors,
    `serving.spec_decode_acceptance` and `workload.prefix_cache_hit_rate` may hold arrays over a draw
    axis (broadcast with the batch), and the workload's token counts arrays over a class axis (request
    classes, performance/request_mix.py). `chooser`: the device that picks the math precision (default
    `device`; Monte Carlo passes the catalog device while `device` holds the drawn values)."""
    chooser = device if chooser is None else chooser
    hit_rate = workload.prefix_cache_hit_rate
    arrays = ServingArrays(
        batch_sequences=np.atleast_1d(np.asarray(batch, float)), tensor_parallel=serving.tensor_parallel,
        expert_parallel=serving.expert_parallel, attention_dp=bool(serving.attention_dp),
        weight_bytes_per_value=bytes_per_value(serving.weight_precision),
        kv_bytes_per_value=bytes_per_value(serving.kv_precision),
        peak_flop_s=peak_flops(chooser, serving.weight_precision, factors.fp4_math_efficiency, device),
        attention_peak_flop_s=attention_peak_flops(chooser, serving.kv_precision, device),
        draft_tokens=serving.spec_decode_draft_tokens, acceptance_fraction=acceptance_or_none(serving.spec_decode_acceptance),
        weight_only=is_weight_only(chooser, serving.weight_precision),
        **shared_weight_args(chooser, serving.attention_weight_precision, factors, device))
    requests = WorkloadArrays(
        input_tokens=as_numbers(workload.input_tokens), output_tokens=as_numbers(workload.output_tokens),
        prefix_cache_hit_fraction=as_numbers(hit_rate),
        **workload_args(model, workload, factors))
    return evaluate(device, architecture(model), arrays, requests, factors)


def as_numbers(value):
    """A scalar as a float, an array (request classes broadcast over a class axis, Monte Carlo draws) as
    a float array."""
    return float(value) if np.ndim(value) == 0 else np.asarray(value, float)


def acceptance_or_none(acceptance):
    """The acceptance a configuration computes with: an empty one (no scenario filled in the model's
    published rate, `Scenario.serving_of`) is 0, drafting that gains nothing."""
    return 0.0 if acceptance is None else acceptance


def workload_args(model: ModelSpec, workload: Workload, factors: EfficiencyFactors) -> dict:
    """Fields of the kernel's `WorkloadArrays` the plan's workload sets beside its token counts: the
    latency percentile of the targets and the software date's speed (of the MoE class where the roofline
    computes the model as MoE, `Architecture.is_moe`: a model that runs every expert computes as dense, and
    its software date is a dense one, as in the sweep's kernel)."""
    return {"latency_percentile": getattr(workload, "latency_percentile", "mean") or "mean",
            "software_speed_ratio": software_speed(getattr(workload, "software_date", ""), architecture(model).is_moe,
                                                   factors)}


def shared_weight_args(device: Device, attention_weight_precision: str, factors: EfficiencyFactors,
                       values: Device | None = None) -> dict:
    """Fields of the kernel's `ServingArrays` for a mixed checkpoint: the non-expert weights' bytes
    per value and math peak [FLOP/s] (empty precision: none, the experts' precision applies); `values`
    as in `precision.peak_flops`."""
    if not attention_weight_precision:
        return {}
    return {"shared_weight_bytes_per_value": bytes_per_value(attention_weight_precision),
            "shared_peak_flop_s": peak_flops(device, attention_weight_precision, factors.fp4_math_efficiency, values)}


def memory_limit(device: Device, model: ModelSpec, serving: ServingConfig, workload: Workload,
                 factors: EfficiencyFactors = DEFAULT_FACTORS) -> float:
    """The generated curve's max_batch_by_memory (sequences per replica), which no batch enters:
    the same call `roofline.evaluate` makes, without the rest of the kernel."""
    shared = shared_weight_args(device, serving.attention_weight_precision, factors).get("shared_weight_bytes_per_value")
    devices = np.asarray(serving.tensor_parallel, float) * np.asarray(serving.expert_parallel, float)
    return float(max_batch_by_memory(
        architecture(model), capacity_gb(device), factors.usable_memory_fraction, devices,
        np.asarray(bool(serving.attention_dp), bool), bytes_per_value(serving.weight_precision),
        bytes_per_value(serving.kv_precision), float(workload.input_tokens) + float(workload.output_tokens), shared))


def generate_curve(device: Device, model: ModelSpec, serving: ServingConfig, workload: Workload,
                   batch, factors: EfficiencyFactors = DEFAULT_FACTORS) -> CurveArrays:
    """The generated efficiency curve at `batch` (scalar or 1-D array of sequences per replica).

    Per batch B: output tokens/s per device and per user, TTFT (s), power per device (W), and
    `feasible` False where B > max_batch_by_memory or the configuration is impossible (notes say
    why). Formulas: `roofline.py` (docs/model.md section 1). Vectorized over B.
    """
    b = np.atleast_1d(np.asarray(batch, float))
    if b.ndim != 1 or not np.all(np.isfinite(b) & (b > 0)):
        raise ValueError("batch must be a positive number or a 1-D array of positive numbers (sequences per replica)")
    return curve_of(device, model, serving, workload, b, run_roofline(device, model, serving, workload, b, factors))


def curve_of(device: Device, model: ModelSpec, serving: ServingConfig, workload: Workload, b: np.ndarray, r) -> CurveArrays:
    """`generate_curve`'s curve at the batches `b` (1-D) from the kernel's values there, `r` (its tokens/s per
    device and per user, TTFT, power, memory limit and prefill share: `run_roofline`'s, or the same values of
    one configuration's row of a kernel call over several, `frontier.rows`)."""
    b_max = float(r.max_batch_by_memory)
    date = date_note(getattr(workload, "software_date", ""))
    notes = _notes(device, model, serving, b, b_max) + ([date] if date else [])
    possible = not config_problems(device, model, serving) and b_max >= 1
    feasible = (b <= b_max) & possible
    return CurveArrays(b, r.tokens_per_s_per_device, r.tokens_per_s_per_user, r.ttft_s, r.power_w,
                       feasible, max_batch_by_memory=b_max, source="generated", notes=tuple(notes),
                       prefill_share=r.prefill_share * np.ones_like(b))


def _notes(device, model, serving, b, b_max) -> list[str]:
    notes = config_problems(device, model, serving)
    note = precision_note(device, serving.weight_precision)
    if note:
        notes.append(note)
    if b_max < 1:
        notes.append(f"{model.name} weights ({serving.weight_precision}) plus one sequence's KV cache do not fit in "
                     f"{serving.tensor_parallel * serving.expert_parallel} x {device.memory_gb:g} GB of {device.name}")
    elif np.any(b > b_max):
        notes.append(f"batch above max_batch_by_memory ({b_max:g}) is infeasible: the KV cache does not fit")
    if serving.spec_decode_draft_tokens > 0:
        notes.append(f"speculative decoding: k = {serving.spec_decode_draft_tokens}, "
                     f"acceptance {acceptance_or_none(serving.spec_decode_acceptance):g}")
    clock = clock_ratio(device)
    if np.ndim(clock) == 0 and clock < 1.0:
        notes.append(f"{device.name} held to its power_limit_w of {nameplate_w(device):g} W (TDP {device.tdp_w:g} W): "
                     f"its math runs at {clock:.2f} of its clock, its power at most the limit (an estimate that "
                     "under-predicts a cap's cost on measured runs: docs/model.md, \"Power limit\")")
    architecture = (getattr(device, "architecture", "") or "").strip()
    if not known_architecture(architecture):
        notes.append(f"{device.name}: architecture {architecture or '(not given)'} has no fitted compute ratio "
                     f"(fitted: {', '.join(ARCHITECTURE_COMPUTE)}): computed at Blackwell's compute efficiency")
    return notes


def generate_operating_point(device: Device, model: ModelSpec, serving: ServingConfig, workload: Workload,
                             factors: EfficiencyFactors = DEFAULT_FACTORS) -> OperatingPoint:
    """The plan's operating point at `serving.batch`; above the memory limit, served at the limit.

    Like a real server, a concurrency B above max_batch_by_memory B_max runs B_max sequences and
    queues the rest: throughput and per-user rate are those at B_max, and TTFT grows by the mean
    wait of a queued request, (B - B_max) / B_max x cycle_s, with cycle_s = output_tokens /
    tokens_per_s_per_user (the time one admitted request occupies a slot). The point says so.
    """
    curve = generate_curve(device, model, serving, workload, serving.batch, factors)
    problems = config_problems(device, model, serving)
    if problems or curve.max_batch_by_memory < 1:
        return missing_point("generated", "; ".join(curve.notes), curve.max_batch_by_memory)
    b, b_max = float(serving.batch), curve.max_batch_by_memory
    if b <= b_max:
        return _point(curve, 0, queued=False, extra_wait_s=0.0)
    at_limit = generate_curve(device, model, serving, workload, b_max, factors)
    cycle_s = workload.output_tokens / float(at_limit.tokens_per_s_per_user[0])
    wait = (b - b_max) / b_max * cycle_s
    note = (f"batch {b:g} exceeds max_batch_by_memory {b_max:g}: served at {b_max:g} with "
            f"{b - b_max:g} requests queued (TTFT + {wait:.3g} s)")
    return _point(at_limit, 0, queued=True, extra_wait_s=wait, extra_note=note)


def _point(curve: CurveArrays, i: int, queued: bool, extra_wait_s: float, extra_note: str | None = None):
    notes = tuple(n for n in curve.notes if not n.startswith("batch above")) + ((extra_note,) if extra_note else ())
    return OperatingPoint(
        batch=float(curve.batch[i]), tokens_per_s_per_device=float(curve.tokens_per_s_per_device[i]),
        tokens_per_s_per_user=float(curve.tokens_per_s_per_user[i]), ttft_s=float(curve.ttft_s[i]) + extra_wait_s,
        power_w=float(curve.power_w[i]), max_batch_by_memory=float(curve.max_batch_by_memory),
        source="generated", queued=queued, warnings=notes)
