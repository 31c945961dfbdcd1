"""The efficiency factors of the generated (roofline) curve, one row each: default, allowed range, fit
scope and fit bounds, label, help and where the default comes from (docs/model.md, "Efficiency factors").
Everything else is read from these rows: the `EfficiencyFactors` record (factor_types.py, written by
tools/gen_records.py), the Calibration sheet, the GUI, the docs, the fittable factors and their bounds
of a curve fit (`calibration.BOUNDS`) and of the shipped global fit (`factor_fit.FIT`), and which
architecture a compute ratio applies to (factors.py). A new factor is one row here (then
`python tools/gen_docs.py` writes it into the record).

These are the only tunable numbers of the physics model. Defaults are set once for all devices
and models (never per measurement row): the physical ones from engineering rules of thumb, the
factors of fit scope GLOBAL by one global least-squares fit (`tools/refit_factors.py`,
`factor_fit.py`: log-space soft-L1, the model exactly as `tcoapp accuracy` runs it) to every
modelled row of the public measurements (711 rows, 603 of known configuration fitted: MLPerf Inference v4.1-v6.0 Offline, MLPerf v6.0
Server and Interactive at their p99 limits, InferenceX concurrency sweeps and the TensorRT-LLM
per-GPU table; rows whose configuration is unknown are not fitted); their unseen error is the worse
of the leave-one-family-out and leave-one-era-out figures `tcoapp accuracy` prints. The physical
ones are held (step_overhead_s 1 ms, eta_mem 0.8, comm_latency_s 10 us,
a2a_peer_overhead_s 1 us, scale_out_latency_s 5 us, sched_overhead_s 5.2 us: per attention-DP rank it
has the regressor of seq_overhead_s). Refit 2026-12-04 with the achieved compute per architecture
(arch_compute_<architecture>), which leave one family out chose over one eta_compute for every chip
(docs/model.md, "Achieved compute per architecture"), and refit again the same day once expert
parallelism without attention-DP pays the TP all-reduce alone, not an all-to-all as well
(docs/model.md, "Which collective"). Refit 2026-12-06 on the rows of known configuration only (each
modelled in the configuration it ran: docs/model.md, "Configurations in the data"), with the
software-maturity rate held at 0 (the leave-one-era-out split scored worse with it). Refit
2026-12-06 again with the per-layer overhead fitted, the stack factors split into kernels and fixed
overheads and SGLang's serial speculative host time (docs/model.md, "serving stack", "Speculative
decoding"), and once more with a per-layer overhead ratio per architecture (arch_layer_<architecture>:
docs/model.md, "Per-layer overhead per architecture"). Refit 2026-12-07 on 711 rows (MI350X, H200 NVL and RTX PRO 6000 added) with each Server and Interactive
row without a stated batch read at the exact crossing of its target (not the grid batch below it) and a
prior: each fitted factor is pulled toward its `prior`, the factor of the 2026-12-06 fit, with sd 0.3 in
the log factor (factor_fit.PRIOR_SD), so the fit has one optimum from any start (docs/model.md, "One
optimum: the crossing and the prior"), and again the same day once the 49 InferenceX MTP rows whose
launch recipes were misread state their draft tokens (ATOM's default of 1, TensorRT-LLM's early slurm
recipes; docs/model.md, "Configurations in the data"): 652 rows fitted; and again the same day with the
MLPerf rows of power-limited systems modelled at their limit (docs/model.md, "Power limit"): 657 rows
fitted. Users calibrate
their own set to their measurements; the fitted set is part of the scenario (saved in the workbook).
"""
from __future__ import annotations

from .row import CURVE, GLOBAL, HELD, Factor


def _layer_ratio(key: str, default: float, prior: float, architecture: str, devices: str,
                 fitted: str = "Fitted") -> Factor:
    """The row of one architecture's per-layer overhead ratio over layer_overhead_s (fitted on its rows)."""
    return Factor(key=key, unit='ratio', default=default, min=0.0, max=100.0, min_exclusive=True,
                  fit=GLOBAL, prior=prior, fit_bounds=(0.2, 5.0),
                  layer_architecture=architecture,
                  label=f'Layer overhead ratio, {architecture}',
                  help=(f'The per-layer overhead on devices whose architecture is {architecture} ({devices}) over '
                        'layer_overhead_s (Blackwell, CDNA 4 and any architecture without its own ratio: 1); a '
                        'device row that states its own layer_overhead_s keeps it.'),
                  provenance=(f'{fitted} on the {architecture} rows ({devices}) with layer_overhead_s on Blackwell '
                              'B200 / GB200 (docs/model.md, "Per-layer overhead per architecture")'))


# An efficiency is a share of peak: below 1% no serving system runs (and a denormal such as 5e-324,
# "> 0" as it is, once made every metric of every plan vanish), so efficiencies start at 0.01.
MIN_EFFICIENCY = 0.01

FACTOR_ROWS: tuple[Factor, ...] = (
    Factor(key='eta_mem', unit='fraction', default=0.8, min=MIN_EFFICIENCY, max=1.0,
           fit=CURVE, fit_bounds=(0.2, 1.0),
           label='Weight-read bandwidth efficiency',
           help='Achieved / peak memory bandwidth streaming weights in decode.',
           provenance=('0.8: achieved / peak HBM bandwidth streaming weights in decode (GEMV-like reads '
                       'reach ~80%)')),
    Factor(key='eta_kv', unit='fraction', default=0.4675, min=MIN_EFFICIENCY, max=1.0,
           fit=GLOBAL, prior=0.3554, fit_bounds=(0.1, 1.0),
           label='KV-read bandwidth efficiency',
           help='Achieved / peak memory bandwidth of KV-cache reads in attention (paged, scattered).',
           provenance='0.45: achieved / peak HBM bandwidth of KV-cache reads in attention (paged, scattered)'),
    Factor(key='eta_compute', unit='fraction', default=0.645, min=MIN_EFFICIENCY, max=1.0,
           fit=GLOBAL, prior=0.5936, fit_bounds=(0.05, 1.0),
           label='Decode compute efficiency',
           help=('Achieved / peak tensor FLOPS of decode GEMMs and attention on Blackwell and on every '
                 'architecture without its own ratio; the others run at this x arch_compute_<architecture>, '
                 'at most 1.'),
           provenance='0.63: achieved / peak tensor FLOPS of decode GEMMs and attention (Blackwell, and any architecture without its own factor below)'),
    Factor(key='eta_prefill', unit='fraction', default=0.5753, min=MIN_EFFICIENCY, max=1.0,
           fit=GLOBAL, prior=0.5196, fit_bounds=(0.05, 1.0),
           label='Prefill compute efficiency',
           help=('Achieved / peak tensor FLOPS in prefill on Blackwell and every architecture without its '
                 'own ratio; the others run at this x arch_compute_<architecture>, at most 1.'),
           provenance='0.59: achieved / peak tensor FLOPS in prefill (Blackwell; others by their decode ratio)'),
    Factor(key='eta_comm', unit='fraction', default=0.7, min=MIN_EFFICIENCY, max=1.0,
           fit=CURVE, fit_bounds=(0.05, 1.0),
           label='Collective bandwidth efficiency',
           help='Achieved / peak scale-up bandwidth of collectives.',
           provenance='0.7: achieved / peak scale-up bandwidth of NCCL-style collectives (rule of thumb)'),
    Factor(key='step_overhead_s', unit='s', default=0.001, min=0.0, max=1.0,
           fit=CURVE, fit_bounds=(1e-05, 0.05),
           label='Step overhead',
           help='Fixed time per decode step: scheduler, kernel launches.',
           provenance='1 ms: fixed per decode step (scheduler, kernel launches / CUDA-graph replay)'),
    Factor(key='layer_overhead_s', unit='s', default=4.829e-05, min=0.0, max=0.1,
           fit=GLOBAL, prior=4.097e-05, fit_bounds=(1e-07, 0.001),
           label='Layer overhead',
           help=('Time per layer per decode step that no roofline term sees (kernel launch and tail), on '
                 'Blackwell, CDNA 4 and any architecture without its own ratio (arch_layer_<architecture>).'),
           provenance=('FIT: per layer per decode step, latency no roofline term sees (~10 kernels per '
                       'layer at a few us launch/tail each with CUDA graphs: 30 us the rule of thumb); '
                       'sets the small-batch floor of time per output token. Fitted since the stack '
                       'factors split into kernels and fixed overheads: held, the small-batch rows of a '
                       'family the fit never saw were predicted 15-35 % too fast (docs/model.md, '
                       '"serving stack"); 41 us on Blackwell since the ratio per architecture')),
    Factor(key='seq_overhead_s', unit='s', default=1.692e-05, min=0.0, max=0.1,
           fit=GLOBAL, prior=6.865e-06, fit_bounds=(1e-08, 0.0001),
           label='Sequence overhead',
           help='Time per sequence per decode step that the roofline does not see (sampling, bookkeeping).',
           provenance='9 us: per sequence per decode step, work the roofline does not see (sampling, scheduler bookkeeping, attention and MoE-routing kernel inefficiency at large batch); saturates throughput'),
    Factor(key='moe_compute_efficiency', unit='fraction', default=0.1495, min=MIN_EFFICIENCY, max=1.0,
           fit=GLOBAL, prior=0.1329, fit_bounds=(0.1, 1.0),
           label='MoE GEMM efficiency',
           help='Achieved FLOPS of routed-expert GEMMs relative to dense GEMMs.',
           provenance='0.15: achieved FLOPS of routed-expert (grouped) GEMMs relative to dense GEMMs, at many tokens per expert (routing, gathers and ragged tiles that neither bytes nor FLOPs count)'),
    Factor(key='moe_gemm_half_tokens', unit='tokens', default=33.64, min=0.0, max=1000000.0,
           fit=GLOBAL, prior=27.2, fit_bounds=(1.0, 4096.0),
           label='MoE GEMM half-efficiency tokens',
           help=('Tokens per expert per step at which routed-expert GEMMs reach half of the MoE GEMM '
                 'efficiency: efficiency x m / (m + this).'),
           provenance='30 tokens: tokens per expert per step at which routed (grouped) GEMMs reach half of moe_compute_efficiency (tensor-core tiles are 64-128 rows; tens of tokens per expert waste them)'),
    Factor(key='mem_compute_overlap_loss', unit='fraction', default=0.1399, min=0.0, max=1.0,
           fit=GLOBAL, prior=0.2417, fit_bounds=(0.001, 1.0),
           label='Memory/compute overlap loss',
           help=('Share of the smaller of memory and compute time not hidden under the larger: t = max + '
                 'loss x min (0: perfect overlap).'),
           provenance='0.14: share of the smaller of memory and compute time NOT hidden under the larger one (t_core = max + loss x min; 0 = perfect overlap)'),
    Factor(key='fp4_math_efficiency', unit='fraction', default=0.9975, min=MIN_EFFICIENCY, max=1.0,
           fit=GLOBAL, prior=0.995, fit_bounds=(0.3, 1.0),
           label='FP4 speed-up efficiency',
           help='Achieved FP4 speedup over FP8, as a fraction of the peak ratio.',
           provenance='0.99: achieved FP4 speedup over FP8 / the peak ratio (scales and non-GEMM work do not speed up)'),
    Factor(key='comm_latency_s', unit='s', default=1e-5, min=0.0, max=0.1,
           fit=CURVE, fit_bounds=(1e-07, 0.001),
           label='Collective latency',
           help='Latency per collective (all-reduce / all-to-all).',
           provenance=('10 us: latency of one collective (all-reduce / all-to-all) over NVLink-class '
                       'fabrics (one-shot custom all-reduce ~5-10 us on 8 GPUs; NCCL ring 2-3x more)')),
    Factor(key='usable_memory_fraction', unit='fraction', default=0.9, min=MIN_EFFICIENCY, max=1.0,
           fit=CURVE, fit_bounds=(0.5, 0.98),
           label='Usable memory',
           help='Share of device memory for weights + KV cache.',
           provenance=('0.9: share of device memory for weights + KV cache (the rest: activations, runtime, '
                       'fragmentation)')),
    Factor(key='power_gamma', unit='ratio', default=1.0, min=0.0, max=5.0, min_exclusive=True,
           fit=CURVE, fit_bounds=(0.2, 3.0),
           label='Power exponent',
           help='Exponent of the power model: power = idle + (tdp - idle) x busy^gamma.',
           provenance='1.0: power_w = idle + (tdp - idle) * u^gamma (linear in the busy fraction u)'),
    Factor(key='power_mem_activity', unit='fraction', default=0.6, min=0.0, max=1.0,
           fit=CURVE, fit_bounds=(0.05, 1.0),
           label='Memory activity weight',
           help='Weight of memory-bound time in the busy fraction of the power model.',
           provenance=('0.6: weight of memory-bound time in the busy fraction u (HBM traffic draws less '
                       'than tensor math)')),
    Factor(key='spec_draft_cost_fraction', unit='fraction', default=0.05, min=0.0, max=1.0,
           fit=CURVE, fit_bounds=(0.0, 1.0),
           label='Draft token cost',
           help='Cost of one draft token, as a fraction of a target step.',
           provenance=('0.05: cost of one draft token as a fraction of a target step (a ~1-5% size draft '
                       'model / MTP head)')),
    Factor(key='spec_acceptance_realised', unit='ratio', default=0.8599, min=0.0, max=2.0, min_exclusive=True,
           fit=GLOBAL, prior=0.7881, fit_bounds=(0.3, 1.5),
           label='Realised draft acceptance',
           help=('Share of the stated per-token draft acceptance that measured speculative runs realise: every '
                 'draft position accepts alpha x this (at most 1). A configuration term fitted on the measured '
                 'speculative rows.'),
           provenance='0.84: the share of the stated per-token draft acceptance that measured speculative runs realise (a configuration term, fitted only where fitted rows run speculative decoding; the benchmark\'s prompts and the stack\'s drafting accept less than the published MT-bench / HumanEval / GSM8K lengths): every draft position accepts alpha x this (docs/model.md, "Speculative decoding")'),
    Factor(key='spec_serial_seq_overhead_s', unit='s', default=8.714e-05, min=0.0, max=0.01,
           fit=GLOBAL, prior=8.384e-05, fit_bounds=(1e-07, 0.001),
           label='Serial speculative host time per sequence',
           help=('Host time per sequence per speculative step that a stack running speculative decoding '
                 'without its overlap scheduler (SGLang) adds to the step: its scheduling and acceptance '
                 'bookkeeping no longer hide under the previous step. A configuration term fitted on the '
                 'measured speculative SGLang rows; 0 for any other stack and for plans.'),
           provenance=('FIT: host time per sequence per speculative step a stack that drops its overlap '
                       'scheduler under speculative decoding leaves exposed (SGLang sets '
                       'disable_overlap_schedule for EAGLE / MTP drafting: sgl-project/sglang '
                       'python/sglang/srt/server_args.py, v0.4-v0.5); counted like the scheduler, per '
                       'scheduler rank (docs/model.md, "Speculative decoding")')),
    Factor(key='expert_load_skew', unit='fraction', default=0.0853, min=0.0, max=5.0,
           fit=GLOBAL, prior=0.0617, fit_bounds=(0.001, 2.0),
           label='Expert load skew',
           help=("Share by which the busiest expert-parallel device's routed tokens exceed the "
                 "balls-into-bins expectation (non-uniform routing)."),
           provenance="0.001: routing skew of expert popularity: the busiest expert-parallel device's share of routed tokens exceeds the balls-into-bins expectation by this fraction (real routers are not uniform; DeepSeek ships an expert-placement balancer, EPLB, for it)"),
    Factor(key='a2a_peer_overhead_s', unit='s', default=1e-6, min=0.0, max=0.01,
           fit=CURVE, fit_bounds=(1e-08, 0.0001),
           label='All-to-all per-peer overhead',
           help=('Time per peer message of an all-to-all dispatch or combine under attention-DP (EP - 1 '
                 'messages per device).'),
           provenance=('1 us: per peer message of an all-to-all (dispatch or combine, under attention-DP): '
                       'each device posts EP - 1 messages (DeepEP / NCCL all-to-all: a few us per peer '
                       'beyond the one collective latency)')),
    Factor(key='sched_overhead_s', unit='s', default=5.21e-6, min=0.0, max=0.01,
           fit=CURVE, fit_bounds=(1e-09, 0.0001),
           label='Scheduler overhead per sequence',
           help=("Time per sequence per decode step of scheduling and request routing: each attention-DP "
                 "rank runs its own for its sequences; without attention-DP the replica's one scheduler "
                 "handles the whole batch."),
           provenance=("5.2 us (held; fitted once on the attention-DP rows, docs/model.md): per sequence "
                       "per decode step of scheduling and request routing, run by each attention-DP rank "
                       "for its own sequences (the busiest rank's ceil(B / N)); the whole batch without "
                       "attention-DP (one scheduler per replica). Held by the global fit: per attention-DP "
                       "rank it has the regressor of seq_overhead_s (ceil(B / N) under attention-DP, B "
                       "without), so only their sum is identified")),
    Factor(key='stack_step_rocm', unit='ratio', default=1.162, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=1.266, fit_bounds=(0.2, 10.0), stack='ROCm',
           label='ROCm stack step scale',
           help='Multiplier of the decode step time on AMD devices (ROCm stacks) relative to TensorRT-LLM.',
           provenance='FIT: per-stack multiplier of the decode step time relative to TensorRT-LLM (1): the ROCm stacks (vLLM / SGLang / ATOM on AMD, every AMD device) 1.40, vLLM on NVIDIA 0.83, SGLang on NVIDIA 1.00 (measurements only; each stack has its own fixed-overhead factor too)'),
    Factor(key='stack_step_sglang', unit='ratio', default=1.023, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=0.9486, fit_bounds=(0.2, 10.0), stack='SGLang',
           label='SGLang stack step scale',
           help=('Multiplier of the decode step time under SGLang on NVIDIA relative to TensorRT-LLM '
                 '(measurements; plans on NVIDIA are computed as TensorRT-LLM).'),
           provenance=("1.00: the decode step kernels' time of SGLang on NVIDIA over TensorRT-LLM's, fitted on the "
                       "measurements (plans on NVIDIA are computed as TensorRT-LLM)")),
    Factor(key='stack_step_vllm', unit='ratio', default=0.9688, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=0.9072, fit_bounds=(0.2, 10.0), stack='vLLM',
           label='vLLM stack step scale',
           help=('Multiplier of the decode step time under vLLM on NVIDIA relative to TensorRT-LLM '
                 '(measurements; plans on NVIDIA are computed as TensorRT-LLM).'),
           provenance=("0.83: the decode step kernels' time of vLLM on NVIDIA over TensorRT-LLM's, fitted on the "
                       "measurements (plans on NVIDIA are computed as TensorRT-LLM)")),
    Factor(key='stack_overhead_rocm', unit='ratio', default=1.587, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=1.64, fit_bounds=(0.2, 10.0),
           label='ROCm fixed-overhead scale',
           help=('Multiplier of the fixed per-step, per-layer and per-sequence overheads of a decode step '
                 'on AMD devices (ROCm stacks) relative to TensorRT-LLM (the step factor scales the kernels).'),
           provenance=('FIT: the ROCm stack\'s fixed overheads of a decode step (its launches, per-layer '
                       'tails, sampling and scheduling) over TensorRT-LLM\'s; the stack step factor scales '
                       'the kernels (docs/model.md, "serving stack")')),
    Factor(key='stack_overhead_sglang', unit='ratio', default=1.249, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=1.419, fit_bounds=(0.2, 10.0),
           label='SGLang fixed-overhead scale',
           help=('Multiplier of the fixed per-step, per-layer and per-sequence overheads of a decode step '
                 'under SGLang on NVIDIA relative to TensorRT-LLM (the step factor scales the kernels).'),
           provenance=('FIT: the SGLang stack\'s fixed overheads of a decode step (its launches, per-layer '
                       'tails, sampling and scheduling) over TensorRT-LLM\'s; the stack step factor scales '
                       'the kernels (docs/model.md, "serving stack")')),
    Factor(key='stack_overhead_vllm', unit='ratio', default=1.083, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=1.261, fit_bounds=(0.2, 10.0),
           label='vLLM fixed-overhead scale',
           help=('Multiplier of the fixed per-step, per-layer and per-sequence overheads of a decode step '
                 'under vLLM on NVIDIA relative to TensorRT-LLM (the step factor scales the kernels).'),
           provenance=('FIT: the vLLM stack\'s fixed overheads of a decode step (its launches, per-layer '
                       'tails, sampling and scheduling) over TensorRT-LLM\'s; the stack step factor scales '
                       'the kernels (docs/model.md, "serving stack")')),
    Factor(key='model_error', unit='ratio', default=1.0, min=0.05, max=20.0,
           fit=HELD, fit_bounds=None,
           label='Model error (speed multiplier)',
           help=("Generated curves run this many times as fast as the model says (1: as fitted). For Monte "
                 "Carlo: draw it from the plan's prediction interval, e.g. triangular 0.67 / 1 / 1.5 at "
                 "interactive targets."),
           provenance=('1.0: the model\'s own error as a speed multiplier of the generated curve (decode '
                       'steps and prefills run model_error times as fast; 1 = the model as fitted). Meant '
                       'for Monte Carlo (`factor.model_error` on the Uncertainty sheet), drawn from the '
                       'plan\'s prediction interval (docs/model.md, "How sure it is"); leave it at 1 for '
                       'deterministic numbers')),
    Factor(key='scale_out_latency_s', unit='s', default=5e-6, min=0.0, max=0.1,
           fit=CURVE, fit_bounds=(1e-07, 0.001),
           label='Scale-out latency',
           help=('Latency of one collective step over the scale-out network (expert parallelism across '
                 'scale-up domains).'),
           provenance=('5 us: latency of one collective step over the scale-out network (RDMA over '
                       'InfiniBand / RoCE, 2-5 us per hop; paid where expert parallelism spans several '
                       'scale-up domains)')),
    Factor(key='w4a16_gemm_efficiency', unit='fraction', default=0.3927, min=MIN_EFFICIENCY, max=1.0,
           fit=GLOBAL, prior=0.4208, fit_bounds=(0.05, 1.0),
           label='W4A16 grouped-GEMM efficiency',
           help=('Efficiency of routed-expert GEMMs with 4-bit weights dequantized in the kernel (MXFP4 on '
                 'Hopper / CDNA3) relative to the FP8-style grouped GEMM at the same tokens per expert (its '
                 'tiles are 16 rows).'),
           provenance='0.42: achieved / FP8-style efficiency of a weight-only 4-bit grouped GEMM (W4A16: MXFP4 experts on Hopper, CDNA3), whose 16-row tiles dequantize the weights in the main loop on the general cores'),
    Factor(key='software_maturity_moe_per_year', unit='1/yr', default=0.0, min=0.0, max=5.0,
           fit=HELD, fit_bounds=(0.0001, 3.0),
           label='MoE software maturity',
           help=("Log-throughput an MoE model's serving software gains per year before the shipped factors' "
                 "date: at a plan's software_date the speed is exp(-this x years earlier)."),
           provenance=('Held at 0: fitted it lands at 0.5-0.66 per year, but the leave-one-era-out split '
                       'scores worse with it (overall median 18.6 % against 13.6 %, p90 42.6 % against 39.5 '
                       '%), so the calendar form is not kept; a user may set it by hand (docs/model.md, '
                       '"Software date")')),
    Factor(key='software_maturity_dense_per_year', unit='1/yr', default=0.0, min=0.0, max=5.0,
           fit=HELD, fit_bounds=None,
           label='Dense software maturity',
           help='As the MoE rate, for dense models (0: the measurements show no effect).',
           provenance=('Held at 0: fitted it lands at 0.0001-0.026 per year across refits (no effect); a '
                       'user may set it by hand (docs/model.md, "Software date")')),
    Factor(key='arch_compute_hopper', unit='ratio', default=1.269, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=1.366, fit_bounds=(0.2, 5.0), architecture='Hopper',
           label='Compute ratio, Hopper',
           help=('Achieved fraction of peak tensor FLOPS on devices whose architecture is Hopper (H100, '
                 'H200), relative to eta_compute: decode math at min(1, eta_compute x this), prefill at '
                 'eta_prefill x the same factor over eta_compute (calibrating eta_compute moves these '
                 'devices too).'),
           provenance='FIT: an architecture\'s achieved fraction of peak tensor FLOPS relative to eta_compute (fitted with Blackwell B200 / GB200 and used by every architecture without its own ratio): decode math runs at min(1, eta_compute x ratio), prefill at eta_prefill x the same factor over eta_compute (ARCHITECTURE_COMPUTE; docs/model.md, "Achieved compute per architecture"). Hopper 1.35 (0.72 of peak), Blackwell Ultra 0.89 (0.47), CDNA 3 0.93 (0.49), CDNA 4 2.18 (1.16: held at the ceiling of 1; with the ROCm step factor the fit cannot tell MI355X\'s compute from its stack\'s step time apart)'),
    Factor(key='arch_compute_blackwell_ultra', unit='ratio', default=0.8971, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=0.9113, fit_bounds=(0.2, 5.0), architecture='Blackwell Ultra',
           label='Compute ratio, Blackwell Ultra',
           help=('Achieved fraction of peak tensor FLOPS on devices whose architecture is Blackwell Ultra '
                 '(B300, GB300), relative to eta_compute: decode math at min(1, eta_compute x this), '
                 'prefill at eta_prefill x the same factor over eta_compute (calibrating eta_compute moves '
                 'these devices too).'),
           provenance=('0.90: fitted on the Blackwell Ultra rows (B300, GB300) with eta_compute fitted on '
                       'Blackwell B200 / GB200 (docs/model.md, "Achieved compute per architecture")')),
    Factor(key='arch_compute_cdna3', unit='ratio', default=0.989, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=1.084, fit_bounds=(0.2, 5.0), architecture='CDNA 3',
           label='Compute ratio, CDNA 3',
           help=('Achieved fraction of peak tensor FLOPS on devices whose architecture is CDNA 3 (MI300X, '
                 'MI325X), relative to eta_compute: decode math at min(1, eta_compute x this), prefill at '
                 'eta_prefill x the same factor over eta_compute (calibrating eta_compute moves these '
                 'devices too).'),
           provenance=('2.89: fitted on the CDNA 3 rows (MI300X, MI325X) with eta_compute fitted on Blackwell '
                       'B200 / GB200 (docs/model.md, "Achieved compute per architecture")')),
    Factor(key='arch_compute_cdna4', unit='ratio', default=2.181, min=0.0, max=100.0, min_exclusive=True,
           fit=GLOBAL, prior=2.181, fit_bounds=(0.2, 5.0), architecture='CDNA 4',
           label='Compute ratio, CDNA 4',
           help=('Achieved fraction of peak tensor FLOPS on devices whose architecture is CDNA 4 (MI355X), '
                 'relative to eta_compute: decode math at min(1, eta_compute x this), prefill at '
                 'eta_prefill x the same factor over eta_compute (calibrating eta_compute moves these '
                 'devices too).'),
           provenance=('Fitted on the CDNA 4 rows (MI355X); above 1 / eta_compute, so its decode math is '
                       'held at the ceiling of 1 (with the ROCm step factor the fit cannot tell MI355X\'s '
                       'compute from its stack\'s step time apart; docs/model.md, "Achieved compute per '
                       'architecture")')),
    _layer_ratio('arch_layer_hopper', 1.119, 1.188, 'Hopper', 'H100, H200'),
    _layer_ratio('arch_layer_blackwell_ultra', 0.8977, 0.8972, 'Blackwell Ultra', 'B300, GB300'),
    _layer_ratio('arch_layer_cdna3', 2.947, 2.894, 'CDNA 3', 'MI300X, MI325X'),
)
