"""The efficiency factors as a field table: unit, allowed range, label and help of every factor of
the generated (roofline) curve (docs/model.md, "Efficiency factors"). The Calibration sheet, the
GUI and the docs read it; `factor_defaults.py` holds the defaults and their reasons."""
from __future__ import annotations

from ..core.errors import shown
from .row import Field, by_name, scoped
from .factor_defaults import DEFAULT_FACTORS, FACTOR_NAMES

# An efficiency is a share of peak: below 1% no serving system runs (and a denormal such as 5e-324,
# "> 0" as it is, once made every metric of every plan vanish), so efficiencies start at 0.01.
MIN_EFFICIENCY = 0.01

# name: (unit, low, high, low exclusive, label, help)
_SPEC = {
    "eta_mem": ("fraction", MIN_EFFICIENCY, 1.0, False, "Weight-read bandwidth efficiency", "Achieved / peak memory bandwidth streaming weights in decode."),
    "eta_kv": ("fraction", MIN_EFFICIENCY, 1.0, False, "KV-read bandwidth efficiency", "Achieved / peak memory bandwidth of KV-cache reads in attention (paged, scattered)."),
    "eta_compute": ("fraction", MIN_EFFICIENCY, 1.0, False, "Decode compute efficiency", "Achieved / peak tensor FLOPS of decode GEMMs and attention on Blackwell and on every architecture without its own ratio; the others run at this x arch_compute_<architecture>, at most 1."),
    "eta_prefill": ("fraction", MIN_EFFICIENCY, 1.0, False, "Prefill compute efficiency", "Achieved / peak tensor FLOPS in prefill on Blackwell and every architecture without its own ratio; the others run at this x arch_compute_<architecture>, at most 1."),
    "eta_comm": ("fraction", MIN_EFFICIENCY, 1.0, False, "Collective bandwidth efficiency", "Achieved / peak scale-up bandwidth of collectives."),
    "step_overhead_s": ("s", 0.0, 1.0, False, "Step overhead", "Fixed time per decode step: scheduler, kernel launches."),
    "layer_overhead_s": ("s", 0.0, 0.1, False, "Layer overhead", "Time per layer per decode step that no roofline term sees (kernel launch and tail)."),
    "seq_overhead_s": ("s", 0.0, 0.1, False, "Sequence overhead", "Time per sequence per decode step that the roofline does not see (sampling, bookkeeping)."),
    "moe_compute_efficiency": ("fraction", MIN_EFFICIENCY, 1.0, False, "MoE GEMM efficiency", "Achieved FLOPS of routed-expert GEMMs relative to dense GEMMs."),
    "moe_gemm_half_tokens": ("tokens", 0.0, 1e6, False, "MoE GEMM half-efficiency tokens", "Tokens per expert per step at which routed-expert GEMMs reach half of the MoE GEMM efficiency: efficiency x m / (m + this)."),
    "mem_compute_overlap_loss": ("fraction", 0.0, 1.0, False, "Memory/compute overlap loss", "Share of the smaller of memory and compute time not hidden under the larger: t = max + loss x min (0: perfect overlap)."),
    "fp4_math_efficiency": ("fraction", MIN_EFFICIENCY, 1.0, False, "FP4 speed-up efficiency", "Achieved FP4 speedup over FP8, as a fraction of the peak ratio."),
    "comm_latency_s": ("s", 0.0, 0.1, False, "Collective latency", "Latency per collective (all-reduce / all-to-all)."),
    "usable_memory_fraction": ("fraction", MIN_EFFICIENCY, 1.0, False, "Usable memory", "Share of device memory for weights + KV cache."),
    "power_gamma": ("ratio", 0.0, 5.0, True, "Power exponent", "Exponent of the power model: power = idle + (tdp - idle) x busy^gamma."),
    "power_mem_activity": ("fraction", 0.0, 1.0, False, "Memory activity weight", "Weight of memory-bound time in the busy fraction of the power model."),
    "spec_draft_cost_fraction": ("fraction", 0.0, 1.0, False, "Draft token cost", "Cost of one draft token, as a fraction of a target step."),
    "spec_acceptance_realised": ("ratio", 0.0, 2.0, True, "Realised draft acceptance", "Share of the stated per-token draft acceptance that measured speculative runs realise: every draft position accepts alpha x this (at most 1). A configuration term fitted on the measured speculative rows."),
    "expert_load_skew": ("fraction", 0.0, 5.0, False, "Expert load skew", "Share by which the busiest expert-parallel device's routed tokens exceed the balls-into-bins expectation (non-uniform routing)."),
    "a2a_peer_overhead_s": ("s", 0.0, 0.01, False, "All-to-all per-peer overhead", "Time per peer message of an all-to-all dispatch or combine under attention-DP (EP - 1 messages per device)."),
    "sched_overhead_s": ("s", 0.0, 0.01, False, "Scheduler overhead per sequence", "Time per sequence per decode step of scheduling and request routing: each attention-DP rank runs its own for its sequences; without attention-DP the replica's one scheduler handles the whole batch."),
    "stack_step_rocm": ("ratio", 0.0, 100.0, True, "ROCm stack step scale", "Multiplier of the decode step time on AMD devices (ROCm stacks) relative to TensorRT-LLM."),
    "stack_step_sglang": ("ratio", 0.0, 100.0, True, "SGLang stack step scale", "Multiplier of the decode step time under SGLang on NVIDIA relative to TensorRT-LLM (measurements; plans on NVIDIA are computed as TensorRT-LLM)."),
    "stack_step_vllm": ("ratio", 0.0, 100.0, True, "vLLM stack step scale", "Multiplier of the decode step time under vLLM on NVIDIA relative to TensorRT-LLM (measurements; plans on NVIDIA are computed as TensorRT-LLM)."),
    "model_error": ("ratio", 0.05, 20.0, False, "Model error (speed multiplier)", "Generated curves run this many times as fast as the model says (1: as fitted). For Monte Carlo: draw it from the plan's prediction interval, e.g. triangular 0.67 / 1 / 1.5 at interactive targets."),
    "scale_out_latency_s": ("s", 0.0, 0.1, False, "Scale-out latency", "Latency of one collective step over the scale-out network (expert parallelism across scale-up domains)."),
    "w4a16_gemm_efficiency": ("fraction", MIN_EFFICIENCY, 1.0, False, "W4A16 grouped-GEMM efficiency", "Efficiency of routed-expert GEMMs with 4-bit weights dequantized in the kernel (MXFP4 on Hopper / CDNA3) relative to the FP8-style grouped GEMM at the same tokens per expert (its tiles are 16 rows)."),
    "software_maturity_moe_per_year": ("1/yr", 0.0, 5.0, False, "MoE software maturity", "Log-throughput an MoE model's serving software gains per year before the shipped factors' date: at a plan's software_date the speed is exp(-this x years earlier)."),
    "software_maturity_dense_per_year": ("1/yr", 0.0, 5.0, False, "Dense software maturity", "As the MoE rate, for dense models (0: the measurements show no effect)."),
    "arch_compute_hopper": ("ratio", 0.0, 100.0, True, "Compute ratio, Hopper", "Achieved fraction of peak tensor FLOPS on devices whose architecture is Hopper (H100, H200), relative to eta_compute: decode math at min(1, eta_compute x this), prefill at eta_prefill x the same factor over eta_compute (calibrating eta_compute moves these devices too)."),
    "arch_compute_blackwell_ultra": ("ratio", 0.0, 100.0, True, "Compute ratio, Blackwell Ultra", "Achieved fraction of peak tensor FLOPS on devices whose architecture is Blackwell Ultra (B300, GB300), relative to eta_compute: decode math at min(1, eta_compute x this), prefill at eta_prefill x the same factor over eta_compute (calibrating eta_compute moves these devices too)."),
    "arch_compute_cdna3": ("ratio", 0.0, 100.0, True, "Compute ratio, CDNA 3", "Achieved fraction of peak tensor FLOPS on devices whose architecture is CDNA 3 (MI300X, MI325X), relative to eta_compute: decode math at min(1, eta_compute x this), prefill at eta_prefill x the same factor over eta_compute (calibrating eta_compute moves these devices too)."),
    "arch_compute_cdna4": ("ratio", 0.0, 100.0, True, "Compute ratio, CDNA 4", "Achieved fraction of peak tensor FLOPS on devices whose architecture is CDNA 4 (MI355X), relative to eta_compute: decode math at min(1, eta_compute x this), prefill at eta_prefill x the same factor over eta_compute (calibrating eta_compute moves these devices too)."),
}

FACTOR_FIELDS: tuple[Field, ...] = scoped("factor", tuple(
    Field(key=name, type="float", unit=unit, default=getattr(DEFAULT_FACTORS, name), min=low, max=high,
          group="factor", label=label, help=help_, min_exclusive=exclusive)
    for name in FACTOR_NAMES
    for unit, low, high, exclusive, label, help_ in (_SPEC[name],)
))
FACTOR_FIELD_BY_NAME = by_name(FACTOR_FIELDS)


def factor_problem(name: str, value) -> str | None:
    """None if `value` is allowed for factor `name`, else the message with the allowed range."""
    if name not in FACTOR_FIELD_BY_NAME:
        return f"unknown factor (allowed: {', '.join(FACTOR_NAMES)})"
    field = FACTOR_FIELD_BY_NAME[name]
    low, high, exclusive = field.min, field.max, field.min_exclusive
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and value == value
    ok = ok and (value > low if exclusive else value >= low) and value <= high
    if ok:
        return None
    bound = f"> {low:g}" if exclusive else f">= {low:g}"
    return f"= {shown(value)}: must be a number {bound} and <= {high:g}"
