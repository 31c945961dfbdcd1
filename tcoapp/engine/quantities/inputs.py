"""The one table of every input field (docs/model.md and docs/workbook_format.md).

Validation, the GUI plan editor, the workbook's units column and the docs glossary all read this
table; nothing else retypes a label, a unit, a default or a range.

Each field: its key (`name` reads it too), type, unit, default, min, max, group, label, help (+ choices
for enums); its scope is the table it is a row of (FIELD_TABLES), set where that table is defined.
`min`/`max` are inclusive bounds unless `min_exclusive` is set. `default=None` with
`required=False` means "not set" (an optional key such as an interactivity target).
"""
from __future__ import annotations

from .row import Field, _f, by_name, scoped  # noqa: F401  (Field and by_name are read through this module too)
from .curve_arrays import CURVE_ARRAYS  # noqa: F401  (read through this module too)
from ..core.physical_bounds import POWER_PER_DEVICE_MAX_W, TOKENS_PER_S_PER_DEVICE_MAX, TOKENS_PER_S_PER_USER_MAX

PRECISIONS = ("bf16", "fp8", "mxfp4", "nvfp4")
LATENCY_PERCENTILES = ("mean", "p90", "p99")  # engine/performance/latency_tail.py reads the same three
SIZING_MODES = ("devices", "facility_power", "capex_budget", "demand")
POOL_ROLES = ("serve", "prefill", "decode")
OWNERSHIPS = ("buy", "rent")
SEARCH_MODES = ("off", "auto")
SEARCH_OBJECTIVES = ("cost_per_million_output_tokens_usd", "tokens_per_s_per_device")
DEPRECIATION_METHODS = ("straight_line", "half_year", "macrs_5", "macrs_7")  # codes 0..3 in the finance layer
DISCOUNTING = ("end_of_year", "mid_year")
TAX_LOSSES = ("carry_forward", "credit")
REVENUE_MODES = ("tokens", "device_hours")
RESALE_CURVES = ("linear", "declining_balance")
HELD_CAPEX_BASES = ("capex", "book_value")  # what insurance and property tax are charged on (codes 0, 1)


BIG = 1e15

DEVICE_FIELDS: tuple[Field, ...] = scoped("device", (
    _f("name", "str", "", None, None, None, "device", "Name", "Catalog name of the accelerator.", required=True, checks="identity"),
    _f("vendor", "str", "", "", None, None, "device", "Vendor", "Manufacturer.", checks="doc"),
    _f("memory_gb", "float", "GB", None, 0, 1e6, "device", "Memory", "Accelerator memory (1e9 bytes).", required=True, min_exclusive=True),
    _f("mem_bw_gb_s", "float", "GB/s", None, 0, 1e8, "device", "Memory bandwidth", "Peak memory bandwidth (1e9 bytes/s).", required=True, min_exclusive=True),
    _f("fast_memory_gb", "float", "GB", 0.0, 0, 1e6, "device", "Fast memory tier", "On-chip memory (SRAM) per device beside memory_gb, read at fast_mem_bw_gb_s (0: one tier). Weights fill it first, then the KV cache; the rest sits in memory_gb at mem_bw_gb_s."),
    _f("fast_mem_bw_gb_s", "float", "GB/s", 0.0, 0, 1e9, "device", "Fast tier bandwidth", "Bandwidth of the fast memory tier (1e9 bytes/s; 0: no fast tier)."),
    _f("step_overhead_s", "float", "s", None, 0, 1, "device", "Step overhead", "This device's fixed time per decode step (its runtime's scheduler and launches); empty: the efficiency factor step_overhead_s (fitted on GPUs).", min_exclusive=False),
    _f("layer_overhead_s", "float", "s", None, 0, 0.1, "device", "Layer overhead", "This device's time per layer per decode step that no roofline term sees; empty: the efficiency factor layer_overhead_s (fitted on GPUs)."),
    _f("peak_tflops_bf16", "float", "TFLOPS", None, 0, 1e6, "device", "Peak BF16", "Dense BF16 tensor TFLOPS (the math every precision falls back to).", required=True, min_exclusive=True),
    _f("peak_tflops_fp8", "float", "TFLOPS", 0.0, 0, 1e6, "device", "Peak FP8", "Dense FP8 tensor TFLOPS (0 where unsupported: BF16 math is used)."),
    _f("peak_tflops_fp4", "float", "TFLOPS", 0.0, 0, 1e6, "device", "Peak FP4", "Dense FP4 tensor TFLOPS (0 where unsupported: weights are dequantized to the next precision)."),
    _f("fp4_formats", "str", "", "", None, None, "device", "FP4 math formats", "4-bit formats the device's FP4 math runs natively, separated by ';' (nvfp4, mxfp4): NVIDIA Blackwell both, AMD CDNA4 mxfp4. Empty: every FP4 format where peak_tflops_fp4 > 0, none otherwise. The serving search tries an FP4 weight or KV precision only where it is listed here (or, for weights, in fp4_weight_only_formats)."),
    _f("fp4_weight_only_formats", "str", "", "", None, None, "device", "FP4 weight-only formats", "4-bit weight formats the serving stacks run on this device without FP4 math, dequantized in the GEMM (W4A16), separated by ';': mxfp4 on Hopper (TensorRT-LLM runs gpt-oss there as BF16 activations x MXFP4 weights). Never a KV-cache format. Empty: none."),
    _f("fp4_w4a8_formats", "str", "", "", None, None, "device", "FP4 formats with 8-bit activations", "4-bit weight formats the serving stacks run on this device with 8-bit activations, so their math runs at the FP8 peak, not the FP4 one, separated by ';': mxfp4 on NVIDIA Blackwell (TensorRT-LLM runs gpt-oss there as MXFP8 activations x MXFP4 weights). Empty: every FP4 math format runs at the FP4 peak."),
    _f("fp4_kv_formats", "str", "", "", None, None, "device", "FP4 KV-cache formats", "4-bit KV-cache formats a named serving stack runs on this device, separated by ';' (its source in the catalog notes): nvfp4 on NVIDIA Blackwell (TensorRT-LLM's NVFP4 KV cache). The serving search tries an FP4 KV cache only where it is listed here and the FP4 math runs it. Empty: none (a configuration typed by hand is computed as typed)."),
    _f("architecture", "str", "", "", None, None, "device", "Architecture", "The vendor's name of the chip's architecture (Hopper, Blackwell, Blackwell Ultra, CDNA 3, CDNA 4, ...). The generated curves compute at eta_compute times the ratio fitted for that architecture (the efficiency factors arch_compute_<architecture>: Hopper, Blackwell Ultra, CDNA 3, CDNA 4); any other architecture, or empty, at eta_compute (fitted on Blackwell)."),
    _f("tdp_w", "float", "W", None, 0, 1e6, "device", "TDP", "Board power at full load, per accelerator.", required=True, min_exclusive=True, economics=4, sizing=("facility_power",)),
    _f("idle_w", "float", "W", 0.0, 0, 1e6, "device", "Idle power", "Power when idle, per accelerator.", economics=5),
    _f("power_limit_w", "float", "W", 0.0, 0, 1e6, "device", "Power limit", "Board power the accelerator is held to (nvidia-smi --power-limit, amd-smi's power cap), W; 0: none (it runs at its TDP). Above idle_w and at most tdp_w. Where a point's power at full clock exceeds it, the generated curves run the math at the clock that fits (memory, links and host overheads unslowed) and the power at the limit (docs/model.md, \"Power limit\"); the server nameplate (rack fit, facility power) counts the limit instead of the TDP. A measured curve is used as measured.", economics=7, zero_text="none", sizing=("facility_power",)),
    _f("price_usd", "float", "USD", None, 0, BIG, "device", "Price", "Price of one accelerator.", required=True, economics=1, checks="live", sizing=("capex_budget",)),
    _f("devices_per_server", "int", "devices", 8, 1, 4096, "device", "Devices per server", "Accelerators in one server (for a rack-scale system: in the whole indivisible rack).", economics=2, checks="live", sizing=("facility_power", "capex_budget", "demand")),
    _f("server_price_usd", "float", "USD", 0.0, 0, BIG, "device", "Server price (w/o accelerators)", "Chassis, CPUs, memory, NICs, switches of one server, without its accelerators.", economics=3, checks="live", sizing=("capex_budget",)),
    _f("server_overhead_w", "float", "W", 0.0, 0, 1e7, "device", "Server overhead power", "Server nameplate power minus its accelerators' TDP (CPUs, NICs, fans, switches).", economics=6, checks="live", sizing=("facility_power",)),
    _f("scale_up_domain", "int", "devices", 8, 1, 100000, "device", "Scale-up domain", "Devices in one NVLink / Infinity Fabric domain: the largest tensor/expert parallel group."),
    _f("interconnect_gb_s", "float", "GB/s", 0.0, 0, 1e8, "device", "Scale-up bandwidth", "Scale-up bandwidth per device, unidirectional (0: no scale-up fabric)."),
    _f("scale_out_gb_s", "float", "GB/s", 50.0, 0, 1e8, "device", "Scale-out bandwidth", "Scale-out (InfiniBand / Ethernet) bandwidth per device, unidirectional: carries the KV cache from a prefill pool to a decode pool. Default 50 GB/s = one 400 Gb/s NIC per accelerator (NVIDIA DGX H100/B200: 8 ConnectX-7 400 Gb/s compute ports for 8 GPUs)."),
    _f("available_from", "str", "", "", None, None, "device", "Available from", "Month (YYYY-MM) from which an announced device can be bought (empty: shipping). A tranche bought before it is refused: a plan's year 0 is the catalog's date (the month of its prices), year k that plus k years.", checks="doc"),
    _f("estimated_fields", "str", "", "", None, None, "device", "Estimated fields", "Semicolon-separated fields whose values are estimates, not read in a primary source.", checks="doc"),
    _f("source", "str", "", "", None, None, "device", "Source", "Where the numbers come from.", checks="doc"),
    _f("notes", "str", "", "", None, None, "device", "Notes", "What a planner must know about this entry.", checks="doc"),
    # the KV-cache tiers beyond HBM (docs/model.md, "Agentic sessions and KV tiers"); 0: not stated, no tier
    _f("host_memory_gb", "float", "GB", 0.0, 0, 1e8, "device", "Host memory per server", "CPU (host) memory of one server (for a rack-scale system: the whole rack), GB: the host KV-cache tier a plan with kv_offload = host or host_nvme keeps idle sessions' KV in, shared by the server's devices. 0: not stated (no host tier)."),
    _f("host_link_gb_s", "float", "GB/s", 0.0, 0, 1e6, "device", "Host link per device", "Bandwidth between one device and host memory, one direction, GB/s: a reused prefix reloads from the host tier at this rate (PCIe Gen5 x16 about 64; GB200's NVLink-C2C 900 bidirectional, 450 one way). 0: not stated (no host tier)."),
    _f("nvme_tb", "float", "TB", 0.0, 0, 1e6, "device", "NVMe per server", "Local NVMe capacity of one server (rack-scale: the whole rack), TB: the NVMe KV-cache tier of kv_offload = host_nvme. 0: not stated (no NVMe tier)."),
    _f("nvme_gb_s", "float", "GB/s", 0.0, 0, 1e6, "device", "NVMe read bandwidth per server", "Read bandwidth of the server's NVMe drives together, GB/s, shared by its devices when they reload KV from the NVMe tier. 0: not stated (no NVMe tier)."),
))

MODEL_FIELDS: tuple[Field, ...] = scoped("model", (
    _f("name", "str", "", None, None, None, "model", "Name", "Catalog name of the model.", required=True, checks="identity"),
    _f("total_params_b", "float", "B params", None, 0, 1e5, "model", "Total parameters", "All parameters, billions.", required=True, min_exclusive=True),
    _f("active_params_b", "float", "B params", None, 0, 1e5, "model", "Active parameters", "Parameters used per token (MoE: shared + routed experts per token), billions.", required=True, min_exclusive=True),
    _f("n_layers", "int", "layers", None, 1, 10000, "model", "Layers", "Transformer layers.", required=True),
    _f("hidden_size", "int", "", None, 1, 1e7, "model", "Hidden size", "Model dimension.", required=True),
    _f("n_heads", "int", "heads", 0, 0, 100000, "model", "Attention heads", "Query heads (0: unknown)."),
    _f("n_kv_heads", "int", "heads", None, 0, 100000, "model", "KV heads", "Key/value heads (GQA); 0 for MLA models.", required=True),
    _f("head_dim", "int", "", None, 1, 100000, "model", "Head dim", "Dimension of one attention head.", required=True),
    _f("qk_rope_head_dim", "int", "", 0, 0, 100000, "model", "RoPE head dim", "Extra rotary width of each query/key head beyond head_dim (MLA: DeepSeek-V3/R1 qk_rope_head_dim = 64, so QK is 128 + 64 = 192 wide); prefill attention costs 2 x layers x heads x (2 x head_dim + this) FLOPs per token pair (0: QK as wide as head_dim)."),
    _f("mla_latent_dim", "int", "", 0, 0, 1e6, "model", "MLA latent size", "KV-cache elements per token per layer of a multi-head latent attention model (0: not MLA)."),
    _f("n_experts", "int", "experts", 0, 0, 100000, "model", "Routed experts", "Routed experts per MoE layer (0: dense)."),
    _f("experts_per_token", "int", "experts", 0, 0, 100000, "model", "Experts per token", "Routed experts each token uses (0: dense)."),
    _f("sliding_window_layers", "int", "layers", 0, 0, 10000, "model", "Sliding-window layers", "Layers whose attention only sees the last `sliding_window_tokens` tokens (their KV cache stops growing there); 0: none."),
    _f("sliding_window_tokens", "int", "tokens", 0, 0, 1e9, "model", "Sliding window", "Window of the sliding-window layers (0: none)."),
    _f("sparse_attention_layers", "int", "layers", 0, 0, 10000, "model", "Sparse-attention layers", "Layers whose attention reads only the `sparse_top_k_tokens` context tokens an indexer selects (DeepSeek Sparse Attention, DSA): they store the whole context's KV cache, but a token's attention reads and multiplies k of them; the indexer itself scores every context token (its cost: `indexer_heads`, `indexer_head_dim`). Counted among the full-attention layers (apart from the compressed ones; not the sliding-window or linear ones); 0: none."),
    _f("sparse_top_k_tokens", "int", "tokens", 0, 0, 1e9, "model", "Sparse top-k", "Context tokens each query of a sparse-attention layer attends to (DeepSeek-V3.2: index_topk = 2048); 0: no sparse layers."),
    _f("indexer_heads", "int", "heads", 0, 0, 100000, "model", "Indexer heads", "Query heads of a sparse layer's indexer (DeepSeek-V3.2: index_n_heads = 64): it costs 2 x indexer_heads x indexer_head_dim FLOPs per (query, context token) pair per sparse layer; 0: no indexer cost."),
    _f("indexer_head_dim", "int", "", 0, 0, 100000, "model", "Indexer head dim", "Width of the indexer's one key per token per sparse layer, cached beside the KV cache at the KV precision and read whole every step (DeepSeek-V3.2: index_head_dim = 128); 0: no indexer."),
    _f("sparse_compression_ratio", "int", "tokens", 1, 1, 1e6, "model", "Sparse entry size", "Tokens one KV entry of a sparse-attention layer summarizes: 1 for DeepSeek Sparse Attention (one entry per token); DeepSeek-V4's compressed sparse attention (CSA) compresses 4 tokens into an entry, and its indexer scores and its top-k selects among entries."),
    _f("compressed_attention_layers", "int", "layers", 0, 0, 10000, "model", "Compressed-attention layers", "Full-attention layers that attend densely to KV entries each summarizing `compressed_attention_ratio` tokens (DeepSeek-V4's heavily compressed attention, HCA): they hold and read c / ratio entries at context c. Counted among the full-attention layers, apart from the sparse ones; 0: none."),
    _f("compressed_attention_ratio", "int", "tokens", 0, 0, 1e6, "model", "Compression ratio", "Tokens one KV entry of a compressed-attention layer summarizes (DeepSeek-V4-Flash: 128); 0: no compressed layers."),
    _f("compressed_window_tokens", "int", "tokens", 0, 0, 1e9, "model", "Raw window of compressed layers", "Most recent tokens a sparse or compressed layer also keeps and reads uncompressed beside its entries (DeepSeek-V4: its 128-token sliding window); 0: none."),
    _f("linear_attention_layers", "int", "layers", 0, 0, 10000, "model", "Linear-attention layers", "Layers of linear or recurrent attention (Gated DeltaNet, Lightning, Mamba) that hold a fixed state per sequence, `linear_state_values`, however long the context: no KV cache, constant work per token; 0: none."),
    _f("linear_state_values", "float", "values", 0.0, 0, 1e12, "model", "Linear state size", "Values of the recurrent state one sequence holds in each linear-attention layer (Gated DeltaNet: value heads x key head dim x value head dim, plus the short convolution's (kernel - 1) x channels); 0: no linear layers."),
    _f("linear_attention_heads", "int", "heads", 0, 0, 100000, "model", "Linear-attention heads", "Heads of a linear-attention layer's state (Gated DeltaNet: linear_num_value_heads): tensor parallelism splits the state min(devices, heads) ways; 0: no linear layers."),
    _f("linear_state_bytes", "float", "bytes", 2.0, 1, 8, "model", "Linear state bytes", "Bytes per value of the recurrent state: 2 = bfloat16, the dtype of the checkpoints, which serving stacks keep the state in unless told otherwise; 4 where a stack keeps it in float32. The state is not stored at the KV precision (kv_precision does not apply to it). Read only where linear_attention_layers > 0."),
    _f("spec_decode_draft", "str", "", "", None, None, "model", "Published draft / MTP head", "The published draft model or multi-token-prediction head speculative decoding runs with for this model (with its source). Empty: none published, so the serving search keeps draft tokens at 0 (a configuration typed by hand is computed as typed)."),
    _f("vocab_size", "int", "tokens", 0, 0, 1e8, "model", "Vocabulary", "Vocabulary size (0: unknown)."),
    _f("max_context_tokens", "int", "tokens", 0, 0, 1e9, "model", "Max context", "Longest supported context (0: unknown)."),
    _f("estimated_fields", "str", "", "", None, None, "model", "Estimated fields", "Semicolon-separated fields whose values are estimates.", checks="doc"),
    _f("source", "str", "", "", None, None, "model", "Source", "Published configuration the numbers come from.", checks="doc"),
    _f("notes", "str", "", "", None, None, "model", "Notes", "What a planner must know about this entry.", checks="doc"),
))

WORKLOAD_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("input_tokens", "int", "tokens", 1024, 1, 1e7, "workload", "Input tokens", "Prompt length per request."),
    _f("output_tokens", "int", "tokens", 1024, 1, 1e7, "workload", "Output tokens", "Generated tokens per request."),
    _f("prefix_cache_hit_rate", "float", "fraction", 0.0, 0, 1, "workload", "Prefix-cache hit rate", "Share of input tokens whose KV cache is reused (0..1): cuts prefill work and TTFT."),
    _f("latency_percentile", "choice", "", "mean", None, None, "target", "Latency percentile", "The statistic min_tokens_per_s_per_user and max_ttft_s bound: mean, p90 or p99 over requests (MLPerf Server and Interactive limits are p99). A percentile counts the decode steps that carry other requests' prefill chunks and the tail of the admission wait, so it allows a smaller batch than the mean.", choices=LATENCY_PERCENTILES),
    _f("software_date", "str", "", "", None, None, "workload", "Software date", "Month of the serving software, YYYY-MM (empty: the date of the shipped factors). MoE serving was measurably slower on older software (the maturity curve of docs/model.md); dense models show no effect."),
))

SERVING_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("batch", "int", "sequences", 64, 1, 1e6, "serving", "Batch", "Concurrent sequences per replica (ignored when an interactivity target is set)."),
    _f("tensor_parallel", "int", "devices", 1, 1, 4096, "serving", "Tensor parallel", "Devices one replica's layers are split across (TP)."),
    _f("expert_parallel", "int", "devices", 1, 1, 4096, "serving", "Expert parallel", "Devices the experts are spread across (EP); a replica spans TP x EP devices."),
    _f("attention_dp", "bool", "", False, None, None, "serving", "Attention data parallel", "Attention runs data-parallel across the replica's devices (each holds its sequences' KV cache) instead of tensor-parallel."),
    _f("weight_precision", "choice", "", "fp8", None, None, "serving", "Weight precision", "Storage and math precision of the weights.", choices=PRECISIONS),
    _f("attention_weight_precision", "str", "", "", None, None, "serving", "Non-expert weight precision", "MoE models: storage and math precision of the weights outside the routed experts (attention, dense layers, shared experts, embeddings), one of bf16, fp8, mxfp4, nvfp4; empty: weight_precision. A mixed checkpoint such as FP8 attention with NVFP4 experts: weight_precision = nvfp4, this = fp8. On a plan of a dense model it is refused (leave it empty)."),
    _f("kv_precision", "choice", "", "fp8", None, None, "serving", "KV-cache precision", "Storage precision of the KV cache.", choices=PRECISIONS),
    _f("spec_decode_draft_tokens", "int", "tokens", 0, 0, 64, "serving", "Draft tokens (k)", "Speculative decoding: tokens drafted per step (0 = off)."),
    _f("spec_decode_acceptance", "float", "fraction", None, 0, 1, "serving", "Draft acceptance", "Speculative decoding: per-token acceptance rate alpha (0..1) of the drafter. Empty: the model's published acceptance (resources/catalog/spec_acceptance.csv, with its source and spread; docs/model.md, \"Speculative decoding\"); 0 where none is published, so drafting gains nothing."),
    _f("prefill_devices", "int", "devices", 0, 0, 1e6, "serving", "Prefill devices (ratio)", "Disaggregation: devices in the prefill pool per pool unit (0 = no disaggregation)."),
    _f("decode_devices", "int", "devices", 0, 0, 1e6, "serving", "Decode devices (ratio)", "Disaggregation: devices in the decode pool per pool unit (0 = no disaggregation)."),
))

SELECTION_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("device", "str", "", None, None, None, "selection", "Device", "Accelerator: a name in the catalog or the Devices sheet.", required=True),
    _f("model", "str", "", None, None, None, "selection", "Model", "Model: a name in the catalog or the Models sheet.", required=True),
    _f("curve", "str", "", "", None, None, "selection", "Measured curve", "Name of a measured curve in the Curves sheet (empty: the generated curve)."),
    _f("prefill_device", "str", "", "", None, None, "selection", "Prefill device", "Disaggregation: device of the prefill pool (empty: `device`)."),
    _f("decode_device", "str", "", "", None, None, "selection", "Decode device", "Disaggregation: device of the decode pool (empty: `device`)."),
    _f("price_tiers", "str", "", "", None, None, "selection", "Price tiers", "Name of a price-tier table in the PriceTiers sheet: the output price then follows tokens/s per user."),
    _f("serving_stack", "str", "", "", None, None, "selection", "Serving stack", "Inference server the plan runs (trtllm, vllm, sglang, ...; empty: not stated): picks factors calibrated for that stack on the Calibration sheet."),
))

TARGET_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("min_tokens_per_s_per_user", "float", "tokens/s", None, 0, 1e7, "target", "Min tokens/s per user", "Interactivity target: the largest batch whose tokens/s per user is at least this (empty: use `batch`).", min_exclusive=True),
    _f("max_ttft_s", "float", "s", None, 0, 1e5, "target", "Max time to first token", "Interactivity target: the largest batch whose TTFT is at most this (empty: no TTFT target).", min_exclusive=True),
))

SIZING_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("sizing_mode", "choice", "", "devices", None, None, "sizing", "Sizing mode", "How the device count is set: given (devices), or derived from facility power, capex budget or token demand.", choices=SIZING_MODES),
    _f("device_count", "int", "devices", 8, 1, 1e8, "sizing", "Devices", "Accelerators bought (sizing_mode = devices)."),
    _f("facility_power_kw", "float", "kW", 1000.0, 0, 1e8, "sizing", "Facility power", "Facility power available, incl. PUE (sizing_mode = facility_power): nameplate IT power x PUE must fit.", min_exclusive=True, sizing=("facility_power",)),
    _f("capex_budget_usd", "float", "USD", 10_000_000.0, 0, BIG, "sizing", "Capex budget", "Capital budget (sizing_mode = capex_budget).", min_exclusive=True, sizing=("capex_budget",)),
    _f("demand_tokens_per_day", "float", "tokens/day", 1e10, 0, BIG, "sizing", "Demand", "Output tokens per day to serve (sizing_mode = demand).", min_exclusive=True, sizing=("demand",)),
))

FINANCE_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("rack_power_cap_kw", "float", "kW", 40.0, 0, 10000, "facility", "Rack power cap", "Power a rack may draw at nameplate. Assumption 40 kW (air-cooled high-density); rack-scale NVL72 systems need >= ~120 kW (liquid-cooled).", min_exclusive=True),
    _f("servers_per_rack_max", "int", "servers", 4, 1, 1000, "facility", "Max servers per rack", "Space limit on servers in one rack (4 x 8-GPU 8-10U servers in a 42U rack; 1 for NVL72)."),
    _f("other_capex_fraction", "float", "fraction", 0.15, 0, 10, "capex", "Other capex", "Networking, storage and installation as a fraction of hardware capex (assumption 15%).", sizing=("capex_budget",)),
    _f("network_usd_per_device", "float", "USD/device", 0.0, 0, BIG, "capex", "Network capex per device", "Itemized capex beside other_capex_fraction: network (NICs, switches, optics, cables) per device of a bought pool (0: in the fraction). Lower other_capex_fraction when you itemize.", sizing=("capex_budget",)),
    _f("storage_usd_per_device", "float", "USD/device", 0.0, 0, BIG, "capex", "Storage capex per device", "Itemized capex: storage per device of a bought pool (0: in the fraction).", sizing=("capex_budget",)),
    _f("installation_usd_per_server", "float", "USD/server", 0.0, 0, BIG, "capex", "Installation per server", "Itemized capex: installation, racking and commissioning per server of a bought pool (0: in the fraction).", sizing=("capex_budget",)),
    _f("pue", "float", "ratio", 1.3, 1, 5, "opex", "PUE", "Facility power / IT power. 1.3: new large facilities per the Uptime Institute 2024 survey (industry average 1.56).", sizing=("facility_power",)),
    _f("electricity_usd_per_kwh", "float", "USD/kWh", 0.0895, 0, 10, "opex", "Electricity price", "Default: EIA 2023 average commercial price in Virginia, 8.95 c/kWh."),
    _f("colocation_usd_per_kw_month", "float", "USD/kW/month", 0.0, 0, 100000, "opex", "Colocation", "Colocation rent per provisioned IT kW per month (0: owned facility, building cost not modeled).", zero_text="not entered"),
    _f("maintenance_fraction_per_year", "float", "fraction/yr", 0.0, 0, 1, "opex", "Maintenance", "Support and repairs per year as a fraction of hardware capex (0 unless you have a quote).", zero_text="not entered"),
    _f("annual_failure_rate", "float", "fraction/yr", 0.0, 0, 1, "opex", "Device failure rate", "Share of a bought pool's devices that fail every year and are replaced at the device's price_usd (only the accelerator; the server, network and storage stay): capex in each year the pool serves, depreciated like a tranche bought that year, not valued at the horizon (its remaining book value a deductible loss there); capacity is unchanged (a failed device is swapped for a spare at once). Meta's Llama 3 run saw GPU and HBM3 interruptions at about 9% of H100s a year (The Llama 3 Herd of Models, arXiv:2407.21783, 2024: 148 + 72 in 54 days on 16,384 GPUs), an upper bound on replacements. Default 0."),
    _f("insurance_fraction_per_year", "float", "fraction/yr", 0.0, 0, 1, "opex", "Insurance", "Insurance premium per year as a fraction of the capex still held: every bought tranche's capex, from the year after it is paid to the horizon (not indexed by cost_change_per_year: the premium follows the insured value). 0: none (self-insured, or in another line)."),
    _f("property_tax_fraction_per_year", "float", "fraction/yr", 0.0, 0, 1, "opex", "Property tax", "Tax on business personal property per year as a fraction of the capex still held, like insurance (a flat fraction of the capex, not of the depreciated value). 0: none (no such tax where the fleet sits)."),
    _f("held_capex_basis", "choice", "", "capex", None, None, "opex", "Insurance and property tax basis", "What insurance_fraction_per_year and property_tax_fraction_per_year are charged on: capex: each bought tranche's capex, every year it is held (default); book_value: its book value at the start of the year (capex less the depreciation taken in earlier years, depreciation_method), as many insurers and assessors do.", choices=HELD_CAPEX_BASES),
    _f("colocation_contracted_kw", "float", "kW", None, 0, 1e7, "opex", "Colocation contracted power", "The power the colocation contract bills, in kW, every year 1..years (x colocation_usd_per_kw_month x 12 x the cost index), in place of the bought servers' nameplate power (empty: nameplate, the default). Colocation contracts bill the power reserved, which is often not the servers' nameplate."),
    _f("software_usd_per_device_year", "float", "USD/device/yr", 0.0, 0, 1e9, "opex", "Software", "Software licences per device per year (0 unless you have a quote).", zero_text="not entered"),
    _f("staff_usd_per_year", "float", "USD/yr", 0.0, 0, BIG, "opex", "Staff", "Operations staff cost per year for this plan.", zero_text="not entered"),
    _f("utilization", "float", "fraction", 0.7, 0.001, 1, "operations", "Utilization", "Share of the year the fleet serves at the operating point (0.001..1: below 0.1 % the cost per token is the idle fleet's, 1000x and more); the rest it idles. Assumption 70%.", sizing=("demand",)),
    _f("years", "int", "years", 4, 1, 50, "finance", "Years", "Economic life and cash-flow horizon. 4: SemiAnalysis TCO model's economic useful life."),
    _f("discount_rate", "float", "fraction/yr", 0.10, 0, 1, "finance", "Discount rate", "Cost of capital for NPV and capital recovery (assumption 10%)."),
    _f("residual_value_fraction", "float", "fraction", 0.0, 0, 1, "finance", "Residual value", "Resale value at the end of `years` as a fraction of capex."),
    _f("resale_curve", "choice", "", "linear", None, None, "finance", "Resale curve", "How a tranche's resale value falls with its age a (years since purchase): linear: capex x (1 - (1 - residual_value_fraction) x min(1, a / years)); declining_balance: capex x (1 - resale_decline_per_year)^a (residual_value_fraction then sets only the depreciation basis).", choices=RESALE_CURVES),
    _f("resale_decline_per_year", "float", "fraction/yr", 0.0, 0, 1, "finance", "Resale decline", "resale_curve = declining_balance: the share of its value a tranche loses every year."),
    _f("price_usd_per_million_output_tokens", "float", "USD/Mtok", 0.60, 0, 1e6, "revenue", "Output price", "Price charged per million output tokens. Default: gpt-oss-120b at Groq/Together ($0.60)."),
    _f("price_usd_per_million_input_tokens", "float", "USD/Mtok", 0.15, 0, 1e6, "revenue", "Input price", "Price charged per million input tokens. Default: gpt-oss-120b at Groq/Together ($0.15)."),
    _f("price_usd_per_million_cached_input_tokens", "float", "USD/Mtok", None, 0, 1e6, "revenue", "Cached input price", "Price charged per million input tokens read from the prefix cache (the share prefix_cache_hit_rate of the input tokens); the rest pay the input price. Providers price them at about a tenth of the input price. Empty: the input price (every input token pays it)."),
    _f("revenue_mode", "choice", "", "tokens", None, None, "revenue", "Revenue mode", "tokens: revenue is the tokens made at the token prices; device_hours: the devices are sold by the hour, the way GPU clouds sell: reserved_fraction of every device-hour of the year at reserved_price_usd_per_device_hour, the rest at price_usd_per_device_hour for the hours it is used (utilization). Every price follows price_change_per_year.", choices=REVENUE_MODES),
    _f("price_usd_per_device_hour", "float", "USD/device/h", 0.0, 0, 1e6, "revenue", "On-demand price", "revenue_mode = device_hours: price of a device-hour sold on demand (paid for the hours used)."),
    _f("reserved_price_usd_per_device_hour", "float", "USD/device/h", 0.0, 0, 1e6, "revenue", "Reserved price", "revenue_mode = device_hours: price of a reserved device-hour (paid for every hour of the year)."),
    _f("reserved_fraction", "float", "fraction", 0.0, 0, 1, "revenue", "Reserved share", "revenue_mode = device_hours: share of the devices sold as reserved capacity (0..1); the rest is sold on demand."),
))

YEARS_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("price_change_per_year", "float", "fraction/yr", 0.0, -1, 10, "years", "Token price change", "Change of every token price (output, input, each price tier) per year: year t pays price x (1 + change)^(t-1). Token prices for a given model fall fast in this market: enter -0.3 for 30% a year. Default 0 (flat)."),
    _f("electricity_price_change_per_year", "float", "fraction/yr", 0.0, -1, 10, "years", "Electricity price change", "Change of the electricity price per year (year t: price x (1 + change)^(t-1)). Default 0."),
    _f("cost_change_per_year", "float", "fraction/yr", 0.0, -1, 10, "years", "Cost change", "Change per year of colocation, maintenance, software, staff and rent (year t: cost x (1 + change)^(t-1)). Default 0."),
    _f("first_year_utilization", "float", "fraction", None, 0, 1, "years", "First-year utilization", "Utilization in year 1 of a ramp (empty: `utilization` from the start)."),
    _f("ramp_years", "float", "years", 0.0, 0, 50, "years", "Ramp", "Years over which utilization climbs from the first-year value to `utilization`: year t runs at first + (utilization - first) x min(1, (t - 1) / ramp_years); 0: no ramp."),
    _f("tranche_ramp_months", "float", "months", 0.0, 0, 600, "years", "Tranche ramp", "Months over which each tranche (each pool, from the year after its purchase_year) climbs from no load to the plan's utilization: its load in month m of service is min(1, m / ramp) of full, each year the average over its twelve months (tokens, energy above idle and on-demand hours follow it; reserved hours are sold from the start). 0: no ramp. Applies on top of ramp_years."),
    _f("hardware_price_change_per_year", "float", "fraction/yr", 0.0, -1, 10, "years", "Hardware price change", "Change per year of the price of everything bought: a tranche paid in year k (its purchase_year) and the failed devices replaced in year k cost today's price x (1 + change)^k (every capex item: devices, servers, other and itemized capex). Hardware of a given performance gets cheaper: enter -0.2 for 20% a year. Default 0 (today's prices)."),
    _f("throughput_change_per_year", "float", "fraction/yr", 0.0, -1, 10, "years", "Throughput change", "Software that gets faster: every pool serves (1 + change)^(t-1) x its year-1 output tokens in year t (same devices, same power and hours); a plan sized by demand never serves more than its demand (demand_tokens_per_day x 365). Default 0; docs/model.md gives measured speedups between software releases."),
    _f("tax_rate", "float", "fraction", 0.0, 0, 1, "years", "Tax rate", "Income tax on taxable income (revenue - opex - depreciation, losses carried forward). Default 0 (pre-tax cash flows)."),
    _f("depreciation_years", "int", "years", None, 1, 50, "years", "Depreciation life", "Straight-line depreciation of each tranche's capex x (1 - residual value) from the year after purchase (empty: `years`)."),
    _f("depreciation_method", "choice", "", "straight_line", None, None, "years", "Depreciation method", "straight_line: capex x (1 - residual) in equal parts over depreciation_years; half_year: the same with half a year's part in the first year and the other half after the last; macrs_5 / macrs_7: the IRS MACRS GDS half-year percentages of the whole capex (IRS Publication 946, Table A-1; computers are 5-year property), depreciation_years not used. At the horizon the sale's gain over book value is taxed, a loss deducted.", choices=DEPRECIATION_METHODS),
    _f("discounting", "choice", "", "end_of_year", None, None, "years", "Discounting", "end_of_year: the flow of year t is discounted by (1 + r)^t; mid_year: the flows of years 1..N by (1 + r)^(t - 0.5) (revenue and costs arrive through the year), year 0 undiscounted. NPV, the levelized cost per token and the capital recovery factor follow it; IRR stays the year-end IRR.", choices=DISCOUNTING),
    _f("tax_loss_limit", "float", "fraction", 1.0, 0, 1, "years", "Tax loss limit", "tax_losses = carry_forward: the share of a year's taxable income that losses carried from earlier years may offset (US federal since 2018: 0.8, 26 U.S.C. 172(a)). Default 1 (no limit)."),
    _f("tax_losses", "choice", "", "carry_forward", None, None, "years", "Tax losses", "carry_forward: a year's tax loss offsets later taxable income; credit: it reduces the owner's other taxable income in that year (a negative tax: a saving of tax_rate x the loss).", choices=TAX_LOSSES),
))

FINANCING_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("debt_fraction", "float", "fraction", 0.0, 0, 1, "financing", "Debt share", "Share of each tranche's capex borrowed when it is paid (0: no debt). NPV and IRR stay project (unlevered) figures; equity NPV, equity IRR and min DSCR show the financing."),
    _f("debt_rate", "float", "fraction/yr", 0.0, 0, 1, "financing", "Debt rate", "Interest rate of the debt; interest is deductible from taxable income."),
    _f("debt_years", "int", "years", None, 1, 50, "financing", "Debt term", "Years of the level-annuity repayment, from the year after the tranche is paid (empty: `years`); a balance still owed at the horizon is repaid then."),
    _f("equity_discount_rate", "float", "fraction/yr", None, 0, 1, "financing", "Equity discount rate", "Discount rate of the equity NPV (empty: `discount_rate`)."),
))

SEARCH_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("serving_search", "choice", "", "off", None, None, "search", "Serving search", "off: every pool runs the serving configuration you typed. auto: the engine sweeps, per serve pool (and decode pool), TP and EP over powers of two within the scale-up domain and the pool's devices, attention-DP on and off (MoE models), the precisions of `search_precisions`, draft tokens 0..`search_max_draft_tokens` and the batch, and keeps the configuration that meets the interactivity targets and is best for `search_objective` (without a target the plan's batch is kept). The chosen configuration is reported.", choices=SEARCH_MODES),
    _f("search_precisions", "str", "", "", None, None, "search", "Search precisions", "Serving search: weight and KV-cache precisions to try, separated by ';' (e.g. fp8;nvfp4); each weight precision is crossed with each KV precision. Empty: the plan's own weight_precision and kv_precision."),
    _f("search_max_draft_tokens", "int", "tokens", 0, 0, 8, "search", "Search draft tokens", "Serving search: speculative draft tokens tried, 0..this value, at the plan's spec_decode_acceptance (0: no speculative decoding)."),
    _f("search_objective", "choice", "", "cost_per_million_output_tokens_usd", None, None, "search", "Search objective", "Serving search: what the chosen configuration is best at: cost_per_million_output_tokens_usd (lowest, the pool's own cost at its operating point; default) or tokens_per_s_per_device (highest).", choices=SEARCH_OBJECTIVES),
))

KV_OFFLOADS = ("none", "host", "host_nvme")       # engine/serving/agentic.py reads the same three
KV_ROUTINGS = ("session_affinity", "random")       # engine/performance/kv_residency.py reads the same two
KV_TIER_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("kv_offload", "choice", "", "none", None, None, "kv tiers", "KV offload", "Where an agentic class keeps idle sessions' KV cache beyond HBM: none (HBM only), host (and the servers' host memory), host_nvme (and their NVMe). Read only by agentic request classes (docs/model.md, \"Agentic sessions and KV tiers\").", choices=KV_OFFLOADS),
    _f("extra_host_memory_gb", "float", "GB/server", 0.0, 0, 1e8, "kv tiers", "Extra host memory", "Host memory bought per server beyond the catalog's host_memory_gb, GB: a KV tier for idle sessions (kv_offload = host or host_nvme); its price enters capex per server."),
    _f("host_memory_price_usd_per_gb", "float", "USD/GB", None, 0, 1e6, "kv tiers", "Host memory price", "Price of the extra host memory, USD per GB (server DDR5 RDIMMs). Needed where extra_host_memory_gb > 0."),
    _f("extra_nvme_tb", "float", "TB/server", 0.0, 0, 1e6, "kv tiers", "Extra NVMe", "NVMe bought per server beyond the catalog's nvme_tb, TB: a KV tier for idle sessions (kv_offload = host_nvme); its price enters capex per server."),
    _f("nvme_price_usd_per_tb", "float", "USD/TB", None, 0, 1e7, "kv tiers", "NVMe price", "Price of the extra NVMe, USD per TB (data-centre U.2 / E1.S drives). Needed where extra_nvme_tb > 0."),
    _f("kv_routing", "choice", "", "session_affinity", None, None, "kv tiers", "KV routing", "How an agentic session's turns are routed across replicas: session_affinity (KV-aware: a turn goes to the replica holding its session's cache) or random (any replica; a hit only where the session's last visit there is still resident).", choices=KV_ROUTINGS),
    _f("sessions_per_replica", "float", "sessions", None, 0, 1e7, "kv tiers", "Sessions per replica", "Concurrent agentic sessions per replica (empty: the sessions that keep the plan's operating batch in service).", min_exclusive=True),
))

WORKLOAD_AND_SERVING = WORKLOAD_FIELDS + SERVING_FIELDS
# Search fields added after the rest: appended last, so a workbook's earlier Plans rows (and every
# formula that reads them) keep their places.
LATER_SEARCH_FIELDS: tuple[Field, ...] = scoped("plan", (
    _f("search_disaggregation", "choice", "", "off", None, None, "search", "Search disaggregation", "Serving search: off: the search keeps prefill and decode in one replica. auto: it also prices the plan as a prefill pool feeding a decode pool (the prefill pool at the configuration of the search space that prefills the most requests per device, sized for the decode pool's request rate at 2/3 of its capacity, or less where max_ttft_s needs it; the decode pool searched) and keeps whichever is best for `search_objective` (a plan without Pools rows, prefill_devices or request classes).", choices=SEARCH_MODES),
))

PLAN_FIELDS: tuple[Field, ...] = (
    SELECTION_FIELDS + WORKLOAD_FIELDS + SERVING_FIELDS + TARGET_FIELDS + SEARCH_FIELDS + SIZING_FIELDS + FINANCE_FIELDS
    + YEARS_FIELDS + FINANCING_FIELDS + KV_TIER_FIELDS + LATER_SEARCH_FIELDS
)

CURVE_POINT_FIELDS: tuple[Field, ...] = scoped("curve_point", (
    _f("curve", "str", "", None, None, None, "curve", "Measured curve", "Name of the measured curve this point belongs to.", required=True, checks="identity"),
    _f("device", "str", "", "", None, None, "curve", "Device", "Device the curve was measured on."),
    _f("model", "str", "", "", None, None, "curve", "Model", "Model the curve was measured with."),
    _f("batch", "float", "sequences", None, 0, 1e7, "curve", "Batch", "Batch size or concurrency of the point.", required=True, min_exclusive=True),
    _f("tokens_per_s_per_device", "float", "tokens/s", None, 0, TOKENS_PER_S_PER_DEVICE_MAX, "curve", "Tokens/s per device", "Output tokens/s per device.", required=True, min_exclusive=True),
    _f("tokens_per_s_per_user", "float", "tokens/s", None, 0, TOKENS_PER_S_PER_USER_MAX, "curve", "Tokens/s per user", "Output tokens/s each sequence sees (empty: derived from batch).", min_exclusive=True),
    _f("power_w", "float", "W", None, 0, POWER_PER_DEVICE_MAX_W, "curve", "Power per device", "Measured power per device (empty: the device's power model).", min_exclusive=True),
    _f("ttft_s", "float", "s", None, 0, 1e5, "curve", "Time to first token", "Time to first token (empty: unknown).", min_exclusive=True),
    _f("precision", "str", "", "", None, None, "curve", "Precision", "Precision of the measurement."),
    _f("tensor_parallel", "int", "devices", None, 1, 4096, "curve", "Tensor parallel", "TP of the measurement."),
    _f("source", "str", "", "", None, None, "curve", "Source", "Where the points come from."),
    _f("config", "str", "", "", None, None, "curve", "Configuration", "The configuration the points were measured in, as key=value pairs separated by ';' (tensor_parallel=4; input_tokens=4000; ...): written by curve import, one value per curve."),
))

PRICE_TIER_FIELDS: tuple[Field, ...] = scoped("price_tier", (
    _f("price_tiers", "str", "", None, None, None, "price_tiers", "Price tiers", "Name of the tier table.", required=True, checks="identity"),
    _f("min_tokens_per_s_per_user", "float", "tokens/s", None, 0, 1e7, "price_tiers", "Min tokens/s per user", "The tier applies from this interactivity upward.", required=True),
    _f("price_usd_per_million_output_tokens", "float", "USD/Mtok", None, 0, 1e6, "price_tiers", "Output price", "Price per million output tokens in this tier.", required=True),
    _f("source", "str", "", "", None, None, "price_tiers", "Source", "Where the tier prices come from.", checks="doc"),
))

_POOL_SERVING = tuple(
    Field(key=f.key, type=f.type, unit=f.unit, default=None, min=f.min, max=f.max, group="pool serving", label=f.label,
          help=f.help + " Empty: the plan's value.", choices=f.choices, required=False, min_exclusive=f.min_exclusive)
    for f in SERVING_FIELDS if f.name not in ("prefill_devices", "decode_devices")
)

POOL_FIELDS: tuple[Field, ...] = scoped("pool", (
    _f("plan", "str", "", None, None, None, "pool", "Plan", "Name of the plan (a column header of the Plans sheet) this pool belongs to.", required=True, checks="identity"),
    _f("pool", "str", "", None, None, None, "pool", "Pool", "Name of the pool, unique within its plan.", required=True, checks="identity"),
    _f("role", "choice", "", "serve", None, None, "pool", "Role", "serve: the pool serves whole requests; prefill / decode: a disaggregated pair (a plan with a prefill pool needs a decode pool).", choices=POOL_ROLES),
    _f("device", "str", "", None, None, None, "pool", "Device", "Accelerator of the pool: a name in the catalog or the Devices sheet.", required=True),
    _f("device_count", "float", "devices", None, 0, 1e8, "pool", "Devices", "Accelerators in the pool (sizing_mode = devices); under another sizing mode, the pool's share of the plan's devices (any positive numbers: 1 and 3 split 25/75).", required=True, min_exclusive=True, checks="live"),
) + _POOL_SERVING + (
    _f("curve", "str", "", None, None, None, "pool", "Measured curve", "Measured curve of this pool (empty: the plan's `curve`)."),
    _f("rack_power_cap_kw", "float", "kW", None, 0, 10000, "pool", "Rack power cap", "Power a rack of this pool may draw at nameplate (empty: the plan's). Pools never share a rack.", min_exclusive=True, checks="live"),
    _f("servers_per_rack_max", "int", "servers", None, 1, 1000, "pool", "Max servers per rack", "Space limit on this pool's servers in one rack (empty: the plan's).", checks="live"),
    _f("purchase_year", "int", "year", 0, 0, 49, "pool", "Purchase year", "Year the pool (a tranche) is paid (0 = at the start); it serves from the next year to the plan's horizon and is worth capex x (1 - (1 - residual) x age / years) at the horizon. Must be before the plan's `years`.", checks="live"),
    _f("ownership", "choice", "", "buy", None, None, "pool", "Ownership", "buy: capex, residual and operating costs; rent: no capex, reserved rent in opex (energy, facility and maintenance included in the rent).", choices=OWNERSHIPS, checks="live"),
    _f("rent_usd_per_device_hour", "float", "USD/device/h", 0.0, 0, 1e6, "pool", "Rent", "Reserved rent per device-hour of a rented pool (paid for every hour of the year).", checks="live"),
))

_PLAN_KEY = {f.name: f for f in WORKLOAD_FIELDS + TARGET_FIELDS + FINANCE_FIELDS}


def _class_key(name: str, help_: str, **kw) -> Field:
    """A request-class column that is also a Plans key: the plan key's type, unit, range and label."""
    f = _PLAN_KEY[name]
    return Field(key=f.key, type=f.type, unit=f.unit, default=kw.pop("default", None), min=f.min, max=f.max,
                 group="request class", label=f.label, help=help_, choices=f.choices,
                 min_exclusive=kw.pop("min_exclusive", f.min_exclusive), **kw)


# a request class's columns that are Plans keys: empty means the plan's value, or (targets, lengths) are the class's own
CLASS_PLAN_VALUE_KEYS = ("latency_percentile", "prefix_cache_hit_rate", "price_usd_per_million_output_tokens",
                         "price_usd_per_million_input_tokens", "price_usd_per_million_cached_input_tokens")
CLASS_OWN_KEYS = ("input_tokens", "output_tokens", "min_tokens_per_s_per_user", "max_ttft_s")
# the Plans keys a plan with classes serves as its mix's equivalent request (engine/plan/request_classes.mix_plan)
EQUIVALENT_KEYS = CLASS_OWN_KEYS[:2] + CLASS_PLAN_VALUE_KEYS[1:]

REQUEST_CLASS_FIELDS: tuple[Field, ...] = scoped("request_class", (
    _f("plan", "str", "", None, None, None, "request class", "Plan", "Name of the plan (a column header of the Plans sheet) this class of requests belongs to.", required=True, checks="identity"),
    _f("class", "str", "", None, None, None, "request class", "Class", "Name of the request class, unique within its plan (chat, reasoning, agentic coding, batch...).", required=True, checks="identity"),
    _f("share", "float", "fraction", None, 0, 1, "request class", "Share of requests", "This class's share of the plan's requests (0..1, above 0); a plan's shares add to 1.", required=True, min_exclusive=True),
    _class_key("input_tokens", "Mean prompt length of the class's requests (an agentic class: empty, its prompts follow from its session).", min_exclusive=False),
    _f("input_tokens_p90", "int", "tokens", None, 1, 1e7, "request class", "Input tokens p90", "90th percentile of the prompt length, above the mean and at most 2.273 x it (no lognormal has a longer p90; a longer tail is typed as two classes, a body and a tail, as the error says): the lengths are lognormal through the mean and the p90. Empty: every prompt is input_tokens long."),
    _class_key("output_tokens", "Mean output length of the class's requests (an agentic class: per turn).", required=True),
    _f("output_tokens_p90", "int", "tokens", None, 1, 1e7, "request class", "Output tokens p90", "90th percentile of the output length, above the mean and at most 2.273 x it: lognormal through the mean and the p90. Empty: every output is output_tokens long."),
    _class_key("min_tokens_per_s_per_user", "The class's interactivity target (empty: none, e.g. a batch class)."),
    _class_key("max_ttft_s", "The class's time-to-first-token target (empty: none)."),
    _class_key("latency_percentile", "The statistic the class's targets bound: mean, p90 or p99 over its requests (empty: the plan's)."),
    _class_key("prefix_cache_hit_rate", "Share of the class's input tokens whose KV cache is reused (empty: the plan's; an agentic class: an outcome of its sessions and the KV memory)."),
    _class_key("price_usd_per_million_output_tokens", "Price per million output tokens of this class (empty: the plan's)."),
    _class_key("price_usd_per_million_input_tokens", "Price per million uncached input tokens of this class (empty: the plan's)."),
    _class_key("price_usd_per_million_cached_input_tokens", "Price per million input tokens read from the prefix cache (empty: the plan's cached input price)."),
    _f("session_turns", "int", "turns", None, 1, 10000, "agentic", "Turns per session", "An agentic class: turns of one session (a coding agent's loop); each turn's prompt is the session's context so far. Empty: requests are independent (not agentic)."),
    _f("system_prompt_tokens", "int", "tokens", None, 0, 1e7, "agentic", "System prompt", "An agentic class: tokens of the system prompt (tools, instructions) every session shares, the first turn's cacheable prefix."),
    _f("turn_input_tokens", "int", "tokens", None, 0, 1e7, "agentic", "New input per turn", "An agentic class: new input tokens a turn adds (tool results, user text)."),
    _f("turn_gap_s", "float", "s", None, 0, 1e6, "agentic", "Gap between turns", "An agentic class: time between a turn's last token and the next turn's prompt (tool and think time)."),
))

FIELD_TABLES = {
    "device": DEVICE_FIELDS,
    "model": MODEL_FIELDS,
    "plan": PLAN_FIELDS,
    "curve_point": CURVE_POINT_FIELDS,
    "price_tier": PRICE_TIER_FIELDS,
    "pool": POOL_FIELDS,
    "request_class": REQUEST_CLASS_FIELDS,
}


PLAN_FIELD_BY_NAME = by_name(PLAN_FIELDS)

# views of the flow columns
if tuple(f.name for f in CURVE_POINT_FIELDS if f.type == "float") != CURVE_ARRAYS:   # a curve point's measured values
    raise ImportError("curve_arrays.CURVE_ARRAYS must list the float fields of CURVE_POINT_FIELDS, in order")
DEVICE_ECONOMICS_KEYS = tuple(f.name for f in sorted((f for f in DEVICE_FIELDS if f.economics), key=lambda f: f.economics))
SIZING_INPUTS = {mode: tuple(f.name for f in PLAN_FIELDS if mode in f.sizing) for mode in SIZING_MODES[1:]}
SIZING_KEYS = tuple(f.name for f in SIZING_FIELDS)  # the sizing group: its mode and each mode's input
