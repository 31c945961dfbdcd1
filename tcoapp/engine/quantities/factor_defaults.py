"""Efficiency factors of the generated (roofline) curve: documented defaults, calibrated by fit.

These are the only tunable numbers of the physics model. Defaults are set once for all devices
and models (never per measurement row): the physical ones from engineering rules of thumb, the
factors marked FIT by one global least-squares fit (`tools/refit_factors.py`,
`factor_fit.py`: log-space soft-L1, the model exactly as `tcoapp accuracy` runs it) to every
modelled row of the public measurements (536 rows: MLPerf Inference v4.1-v6.0 Offline, MLPerf v6.0
Server and Interactive at their p99 limits, InferenceX concurrency sweeps and the TensorRT-LLM
per-GPU table; rows whose configuration is unknown are not fitted); their unseen error is the worse
of the leave-one-family-out and leave-one-era-out figures `tcoapp accuracy` prints. The physical ones are held (step_overhead_s 1 ms, layer_overhead_s
30 us, eta_mem 0.8, comm_latency_s 10 us, a2a_peer_overhead_s 1 us, scale_out_latency_s 5 us,
sched_overhead_s 5.2 us: per attention-DP rank it has the regressor of seq_overhead_s). Refit
2026-12-04 with the achieved compute per architecture (arch_compute_<architecture>),
which leave one family out chose over one eta_compute for every chip (docs/model.md, "Achieved
compute per architecture"), and refit again the same day once expert parallelism without
attention-DP pays the TP all-reduce alone, not an all-to-all as well (docs/model.md, "Which
collective"). Refit 2026-12-06 on the rows of known configuration only (each modelled in the
configuration it ran: docs/model.md, "Configurations in the data"), with the software-maturity rate
held at 0 (the leave-one-era-out split scored worse with it). Users calibrate
their own set to their measurements; the fitted set is part of the scenario (saved in the workbook).
"""
from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class EfficiencyFactors:
    # 0.8: achieved / peak HBM bandwidth streaming weights in decode (GEMV-like reads reach ~80%)
    eta_mem: float = 0.8
    # FIT 0.42: achieved / peak HBM bandwidth of KV-cache reads in attention (paged, scattered)
    eta_kv: float = 0.4203
    # FIT 0.58: achieved / peak tensor FLOPS of decode GEMMs and attention (Blackwell, and any
    # architecture without its own factor below)
    eta_compute: float = 0.577
    # FIT 0.54: achieved / peak tensor FLOPS in prefill (Blackwell; others by their decode ratio)
    eta_prefill: float = 0.537
    # 0.7: achieved / peak scale-up bandwidth of NCCL-style collectives (rule of thumb)
    eta_comm: float = 0.7
    # 1 ms: fixed per decode step (scheduler, kernel launches / CUDA-graph replay)
    step_overhead_s: float = 0.001
    # 30 us: per layer per decode step, latency no roofline term sees (~10 kernels per layer at ~3 us
    # launch/tail each with CUDA graphs); sets the small-batch floor of time per output token
    layer_overhead_s: float = 3e-5
    # FIT 9 us: per sequence per decode step, work the roofline does not see (sampling, scheduler
    # bookkeeping, attention and MoE-routing kernel inefficiency at large batch); saturates throughput
    seq_overhead_s: float = 8.969e-06
    # FIT 0.15: achieved FLOPS of routed-expert (grouped) GEMMs relative to dense GEMMs, at many
    # tokens per expert (routing, gathers and ragged tiles that neither bytes nor FLOPs count)
    moe_compute_efficiency: float = 0.1474
    # FIT 31 tokens: tokens per expert per step at which routed (grouped) GEMMs reach half of
    # moe_compute_efficiency (tensor-core tiles are 64-128 rows; tens of tokens per expert waste them)
    moe_gemm_half_tokens: float = 31.46
    # FIT 0.29: share of the smaller of memory and compute time NOT hidden under the larger one
    # (t_core = max + loss x min; 0 = perfect overlap)
    mem_compute_overlap_loss: float = 0.2921
    # FIT 0.99: achieved FP4 speedup over FP8 / the peak ratio (scales and non-GEMM work do not speed up)
    fp4_math_efficiency: float = 0.9974
    # 10 us: latency of one collective (all-reduce / all-to-all) over NVLink-class fabrics (one-shot
    # custom all-reduce ~5-10 us on 8 GPUs; NCCL ring 2-3x more)
    comm_latency_s: float = 1e-5
    # 0.9: share of device memory for weights + KV cache (the rest: activations, runtime, fragmentation)
    usable_memory_fraction: float = 0.9
    # 1.0: power_w = idle + (tdp - idle) * u^gamma (linear in the busy fraction u)
    power_gamma: float = 1.0
    # 0.6: weight of memory-bound time in the busy fraction u (HBM traffic draws less than tensor math)
    power_mem_activity: float = 0.6
    # 0.05: cost of one draft token as a fraction of a target step (a ~1-5% size draft model / MTP head)
    spec_draft_cost_fraction: float = 0.05
    # FIT 0.80: the share of the stated per-token draft acceptance that measured speculative
    # runs realise (a configuration term, fitted only where fitted rows run speculative decoding; the
    # benchmark's prompts and the stack's drafting accept less than the published MT-bench / HumanEval /
    # GSM8K lengths): every draft position accepts alpha x this (docs/model.md, "Speculative decoding")
    spec_acceptance_realised: float = 0.8017
    # FIT 0.001: routing skew of expert popularity: the busiest expert-parallel device's share of routed
    # tokens exceeds the balls-into-bins expectation by this fraction (real routers are not uniform;
    # DeepSeek ships an expert-placement balancer, EPLB, for it)
    expert_load_skew: float = 0.001229
    # 1 us: per peer message of an all-to-all (dispatch or combine, under attention-DP): each device
    # posts EP - 1 messages
    # (DeepEP / NCCL all-to-all: a few us per peer beyond the one collective latency)
    a2a_peer_overhead_s: float = 1e-6
    # 5.2 us (held; fitted once on the attention-DP rows, docs/model.md): per sequence per decode step of scheduling and request
    # routing, run by each attention-DP rank for its own sequences (the busiest rank's ceil(B / N)); the whole batch
    # without attention-DP (one scheduler per replica)
    sched_overhead_s: float = 5.21e-6
    # FIT: per-stack multiplier of the decode step time relative to TensorRT-LLM (1): the ROCm stacks
    # (vLLM / SGLang / ATOM on AMD, every AMD device) 1.53, vLLM on NVIDIA 1.01, SGLang on NVIDIA
    # 1.19 (measurements only)
    stack_step_rocm: float = 1.531
    stack_step_sglang: float = 1.187
    stack_step_vllm: float = 1.013
    # 1.0: the model's own error as a speed multiplier of the generated curve (decode steps and
    # prefills run model_error times as fast; 1 = the model as fitted). Meant for Monte Carlo
    # (`factor.model_error` on the Uncertainty sheet), drawn from the plan's prediction interval
    # (docs/model.md, "How sure it is"); leave it at 1 for deterministic numbers
    model_error: float = 1.0
    # 5 us: latency of one collective step over the scale-out network (RDMA over InfiniBand /
    # RoCE, 2-5 us per hop; paid where expert parallelism spans several scale-up domains)
    scale_out_latency_s: float = 5e-6
    # FIT 0.40: achieved / FP8-style efficiency of a weight-only 4-bit grouped GEMM (W4A16: MXFP4 experts on
    # Hopper, CDNA3), whose 16-row tiles dequantize the weights in the main loop on the general cores
    w4a16_gemm_efficiency: float = 0.3891
    # Held at 0: log-throughput gained per year by the serving software of a model class before the
    # shipped factors' date (software_maturity.FACTORS_DATE): speed = exp(-rate x years earlier). MoE:
    # fitted it lands at 0.5-0.66 per year, but the leave-one-era-out split scores worse with it (overall
    # median 18.6 % against 13.6 %, p90 42.6 % against 39.5 %), so the calendar form is not kept; dense 0:
    # its fit lands at 0.0001-0.026 per year across refits (no effect). A user may set either by hand.
    software_maturity_moe_per_year: float = 0.0
    software_maturity_dense_per_year: float = 0.0
    # FIT: an architecture's achieved fraction of peak tensor FLOPS relative to eta_compute (fitted with
    # Blackwell B200 / GB200 and used by every architecture without its own ratio): decode math runs at
    # min(1, eta_compute x ratio), prefill at eta_prefill x the same factor over eta_compute
    # (ARCHITECTURE_COMPUTE; docs/model.md, "Achieved compute per architecture"). Hopper 1.35 (0.78 of
    # peak), Blackwell Ultra 0.91 (0.53), CDNA 3 1.00 (0.58), CDNA 4 2.18 (1.26: held at the ceiling of 1; with
    # the ROCm step factor the fit cannot tell MI355X's compute from its stack's step time apart)
    arch_compute_hopper: float = 1.351
    arch_compute_blackwell_ultra: float = 0.9127
    arch_compute_cdna3: float = 1.001
    arch_compute_cdna4: float = 2.181

    def as_dict(self) -> dict[str, float]:
        """Every factor by name (fractions or exponents, as the factor table says)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def with_(self, **changes) -> "EfficiencyFactors":
        """A copy with some factors changed."""
        return replace(self, **changes)


DEFAULT_FACTORS = EfficiencyFactors()
FACTOR_NAMES = tuple(f.name for f in fields(EfficiencyFactors))
