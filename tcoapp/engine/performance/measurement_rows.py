"""How a published measurement row is read as an engine configuration (docs/model.md, "How sure it
is"): which catalog device and model it names, its regime, serving stack, precision,
parallelism, lengths and latency targets, and which source family it belongs to.
Pure: rows are dicts of the measurements CSV (tcoapp/io/measurements.py reads it).

Regime: MLPerf Offline and max-throughput rows are *offline*; MLPerf Server rows *server*; MLPerf
Interactive rows *interactive*; a concurrency-sweep row is *interactive* where its measured
tokens/s per user is at least INTERACTIVE_MIN_TOKENS_PER_S_PER_USER (25: the MLPerf Interactive
TPOT limits are 15-40 ms), else *server*.

Family: the unit of independent evidence (`source_family`), which leave-one-family-out validation
(`cross_validation.py`) holds out whole. MLPerf: one round's submissions on one chip vendor's
devices ("MLPerf v6.0 NVIDIA": an OEM's or cloud's resubmission of NVIDIA's stack is NVIDIA's
family; partner software on those chips is joined in, never split out); InferenceX: one serving
framework at one snapshot of the results ("InferenceX sglang @<commit>", every GPU); any other
source (a docs table, a blog post, a benchmark repository): its page. Families that share a
source (an InferenceX workflow run that benchmarked two frameworks) are joined (`assign_families`;
the CSV's `source_family` column records it, and a CSV without one gets it by the same rule).
`source_group` (the publication: MLPerf round and submitter, InferenceX hardware and framework, or
the page) is the finer, informational grouping.

How a row is modelled (the same rules for every row, never per-row tuning):
- Offline / max-throughput rows have no batch: the model is run at the throughput-maximizing
  feasible batch (batch up to max_batch_by_memory), as an offline benchmark does.
- Configuration: the row's configuration columns first (measurement_config.py: speculative
  decoding, disaggregation, TP / EP / attention-DP / PP as its submission states them; accuracy.py
  models the row in it); then:
- Parallelism: when stated ("TP2", "DEP4" = attention-DP + expert parallel 4), used as stated;
  otherwise the throughput-maximizing TP/EP/attention-DP configuration that fits in the row's
  device count and the scale-up domain (submitters tune for it).
- Precision: as stated ("FP4 (NVFP4)", "FP8"). Where it is not stated (MLPerf summaries) or only
  "as labelled": a model published in a 4-bit checkpoint keeps it (gpt-oss: MXFP4, dequantized
  where the device has no FP4 math), else the lowest precision the device computes natively
  (NVIDIA FP4 -> nvfp4, AMD FP4 -> mxfp4, else fp8). KV cache fp8.
- Lengths: as stated; MLPerf rows state the mean output tokens only, so input lengths are the
  benchmark datasets' means (estimates, see MLPERF_INPUT_TOKENS; `input_estimated`).
- Operating point: a row with a concurrency (`batch_or_concurrency`, an InferenceX sweep) is run at
  that batch; a Server / Interactive row without one but with its measured tokens/s per user is run
  at the largest feasible batch reaching that rate with a mean TTFT within the row's TTFT limit (the
  throughput-maximizing configuration meeting them, as a plan with `min_tokens_per_s_per_user` and
  `max_ttft_s` is); an MLPerf Server / Interactive row that states no per-user rate takes it from its
  benchmark's TPOT limit (MLPERF_LATENCY_LIMITS); where no configuration reaches it the prediction
  is 0 (-100 %), counted, never dropped. Offline rows at the throughput-maximizing batch.
"""
from __future__ import annotations

import math
import re

from ..quantities.factors import STACK_OVERHEAD_FACTORS, stack_factors
from .factors import EfficiencyFactors
from .precision import native_fp4_formats
from ..quantities.records import Workload

# Mean input tokens per sample of the MLPerf Inference datasets, which the result files do not state
# (output means are in each row). All ESTIMATES, benchmark-level (the same for every row; the CSV's
# `input_len_basis` column marks the rows that take them):
# - Llama-2-70B (OpenOrca, inputs < 1024 tokens: the reference README's --seqlen_limit=1024): 300. Not
#   read in a source; bounded by physics: at ~4,300 output tokens/s per H200 (FP8, ~290 output tokens)
#   a mean input above ~650 tokens would need more than the FP8 peak, so the dataset mean must be short.
# - Llama-3.1-405B: 9,400 (MLCommons' description of the long-context mix, as recalled; inputs up to
#   20,000 tokens: NVIDIA v6.0 documentation/bandwidth_requirement.md).
# - DeepSeek-R1: 800 (MLCommons' description of the reasoning mix, as recalled; inputs up to 3,136
#   tokens: the reference implementation's MAX_ISL, language/deepseek-r1/utils/backend_registry.py).
# - gpt-oss-120b: 4,000. The performance set is a synthetic PubMed summarization set of 6,396 samples
#   with inputs up to 15,330 tokens (NVIDIA's v6.0 code README, closed/NVIDIA/code/gpt-oss-120b/
#   tensorrt/README.md of mlcommons/inference_results_v6.0); its mean is not published. A PubMed
#   article averages ~3,000 words (Cohan et al. 2018, the PubMed summarization set), ~4,000 tokens.
MLPERF_INPUT_TOKENS = {"Llama-2-70B": 300, "Llama-3.1-405B": 9400, "DeepSeek-R1": 800, "gpt-oss-120b": 4000}
INTERACTIVE_MIN_TOKENS_PER_S_PER_USER = 25.0
# MLPerf Server / Interactive latency limits (p99 TTFT s, p99 TPOT s) per benchmark, read in the result
# files' "Test Parameters" (docs: REFERENCES.md B.1; v6.0 summaries in tests/data). A Server or
# Interactive row that states no tokens/s per user is run at a mean TPOT of MEAN_TPOT_OVER_P99_LIMIT x
# its TPOT limit: 0.745, the median of measured mean TPOT / p99 limit over the 170 MLPerf v6.0
# Server and Interactive rows of tests/data (one global ratio, 0.65-0.90 by benchmark), and a mean
# TTFT within the TTFT limit.
MLPERF_LATENCY_LIMITS = {
    ("Llama-2-70B", "server"): (2.0, 0.2), ("Llama-2-70B", "interactive"): (0.45, 0.04),
    ("Llama-3.1-405B", "server"): (6.0, 0.175), ("Llama-3.1-405B", "interactive"): (4.5, 0.08),
    ("DeepSeek-R1", "server"): (2.0, 0.08), ("DeepSeek-R1", "interactive"): (1.5, 0.015),
    ("gpt-oss-120b", "server"): (3.0, 0.08), ("gpt-oss-120b", "interactive"): (2.0, 0.015),
}
MEAN_TPOT_OVER_P99_LIMIT = 0.745
CHIP_VENDORS = ((r"Intel|Gaudi|Arc Pro", "Intel"), (r"AMD|Instinct|\bMI\d{3}", "AMD"), (r"TPU|Google|Trillium", "Google"),
                (r"NVIDIA|\b(?:[AHBL]\d{2,3}S?|GB[23]00|RTX)\b", "NVIDIA"))  # (regex on the device text, vendor): first match wins
DEVICE_PATTERNS = (  # (regex on the row's device text, catalog device); first match wins
    (r"GB300", "GB300-NVL72"), (r"GB200", "GB200-NVL72"), (r"B300", "B300"), (r"B200", "B200"),
    (r"H200[- ]NVL", "H200-NVL"), (r"H200", "H200-SXM"), (r"H100", "H100-SXM"),
    (r"RTX PRO 6000 Blackwell Server Edition", "RTX-PRO-6000-SE"),
    (r"MI355X", "MI355X"), (r"MI350X", "MI350X"), (r"MI325X", "MI325X"), (r"MI300X", "MI300X"),
)
# A GPU power stated in a row's notes (system name "...Server Edition-450W", hw_notes "GPU 450W / 600W",
# "B200 TGP 1000W", "1200W TGP Per GPU"): a row whose GPUs ran below the catalog device's TDP is a
# power-limited variant the model cannot represent (it has no power-limit input), so it is skipped.
STATED_GPU_POWER = r"(?:Edition-|GPU |TGP |Power Cap )(\d{3,4}) ?W\b|\b(\d{3,4}) ?W TGP"
MODEL_PREFIXES = ("Llama-2-70B", "Llama-3.1-405B", "Llama-3.3-70B", "DeepSeek-R1", "gpt-oss-120b")
FAMILY = {"H100-SXM": "NVIDIA Hopper", "H200-SXM": "NVIDIA Hopper", "B200": "NVIDIA Blackwell",
          "B300": "NVIDIA Blackwell", "GB200-NVL72": "NVIDIA Blackwell", "GB300-NVL72": "NVIDIA Blackwell",
          "MI300X": "AMD CDNA3", "MI325X": "AMD CDNA3", "MI355X": "AMD CDNA4",
          "H200-NVL": "NVIDIA Hopper", "RTX-PRO-6000-SE": "NVIDIA Blackwell", "MI350X": "AMD CDNA4"}
# Weight format of the published checkpoint, where it is 4-bit (model card: gpt-oss MoE weights MXFP4).
CHECKPOINT_PRECISION = {"gpt-oss-120b": "mxfp4"}


def map_device(text: str) -> str | None:
    """Catalog device for a measurement's device text; None for unknown or mixed systems."""
    if "," in text or " and " in text:
        return None
    for pattern, name in DEVICE_PATTERNS:
        if re.search(pattern, text):
            return name
    return None


def stated_gpu_power_w(notes: str) -> float | None:
    """The lowest GPU power (W) a row's notes state (STATED_GPU_POWER), or None when they state none."""
    watts = [float(a or b) for a, b in re.findall(STATED_GPU_POWER, notes)]
    return min(watts) if watts else None


def power_limited_w(row: dict, device) -> float | None:
    """The GPU power (W) a row states (in its notes or device text, e.g. "MI355X ... (Power Cap 1000 W)")
    below `device`'s TDP (a power-limited run: modelled with the device at that `power_limit_w`,
    device_power.py; a published anchor only for a device at the same limit), else None."""
    stated_w = stated_gpu_power_w(f"{row.get('notes') or ''} {row.get('device') or ''}")
    return stated_w if stated_w is not None and stated_w < device.tdp_w else None


def source_group(row: dict) -> str:
    """The publication a row belongs to (held out as a whole; see the module docstring)."""
    source = (row.get("source") or "")
    m = re.search(r"inference_results_(v[\d.]+).*?/(?:closed|open)/([^/]+)/", source)
    if m:
        return f"MLPerf {m.group(1)} {m.group(2)}"
    if "InferenceX" in source:
        return f"InferenceX {(row.get('device') or '').strip()} {(row.get('framework') or '').strip()}"
    return source


def chip_vendor(device_text: str) -> str:
    """The vendor of the chips a row's device text names (NVIDIA, AMD, Intel, Google), else "other"."""
    for pattern, vendor in CHIP_VENDORS:
        if re.search(pattern, device_text, re.IGNORECASE):
            return vendor
    return "other"


def source_family(row: dict) -> str:
    """The row's family by the rule alone (module docstring), before families sharing a source are joined."""
    source = (row.get("source") or "")
    m = re.search(r"inference_results_(v[\d.]+)", source)
    if m:
        return f"MLPerf {m.group(1)} {chip_vendor((row.get('device') or ''))}"
    if "InferenceX" in source:
        snapshot = re.search(r"@([0-9a-f]{7,40})", source)
        return f"InferenceX {(row.get('framework') or '').strip()} @{snapshot.group(1)[:7] if snapshot else 'undated'}"
    return re.sub(r"\s*\(rendered: [^)]*\)", "", source).strip() or "unsourced"


def assign_families(rows: list[dict]) -> list[dict]:
    """Set each row's `source_group` and `source_family` (in place). Families that share a source
    (the whole `source` text, or a workflow run it cites) are joined into one, named by the first
    (alphabetically) of their members."""
    parent: dict[str, str] = {}

    def root(f: str) -> str:
        while parent.setdefault(f, f) != f:
            f = parent[f]
        return f

    by_source: dict[str, str] = {}
    for r in rows:
        f = source_family(r)
        root(f)
        for part in _source_parts((r.get("source") or "")):
            if part in by_source and root(by_source[part]) != root(f):
                a, b = sorted((root(f), root(by_source[part])))
                parent[b] = a
            else:
                by_source.setdefault(part, f)
    for r in rows:
        r["source_group"] = source_group(r)
        r["source_family"] = root(source_family(r))
    return rows


def _source_parts(source: str) -> list[str]:
    """The sources a row's `source` text names: the whole text, and each workflow run it cites."""
    return [source] + re.findall(r"actions/runs/\d+", source)


def row_scenario(row: dict) -> str:
    """offline, server or interactive (the regime; see the module docstring)."""
    text = (row.get("scenario") or "").lower()
    if "interactive" in text:
        return "interactive"
    if "server" in text:
        return "server"
    if "concurrency" in text or positive_number(row.get("batch_or_concurrency")):
        per_user = positive_number(row.get("tokens_per_s_per_user"))
        return "interactive" if per_user and per_user >= INTERACTIVE_MIN_TOKENS_PER_S_PER_USER else "server"
    return "offline"


def row_stack(row: dict, device) -> str:
    """Serving stack: ROCm on AMD devices; else TensorRT-LLM, SGLang or vLLM from the framework text."""
    if getattr(device, "vendor", "") == "AMD":
        return "ROCm"
    text = (row.get("framework") or "").lower()
    if "sglang" in text:
        return "SGLang"
    if "vllm" in text or "llm-d" in text:
        return "vLLM"
    if "tensorrt" in text or "trt" in text:
        return "TensorRT-LLM"
    return "other"


def drafts_serially(row: dict) -> bool:
    """True where the row's stack drafts without overlapping its host work: SGLang (on any vendor) sets
    disable_overlap_schedule for EAGLE / MTP speculative decoding (sgl-project/sglang
    python/sglang/srt/server_args.py, v0.4-v0.5; roofline.serial_speculation_s)."""
    return "sglang" in (row.get("framework") or "").lower()


KERNEL_STACK = "ROCm"  # its step factor applies inside the kernel to every AMD device (roofline.stack_step_scale)
# a measurement row's stack -> its step factor (the factor rows' `stack`), the kernel's own excepted
STACK_FACTOR = {stack: name for stack, name in stack_factors().items() if stack != KERNEL_STACK}


def stack_scale(factors: EfficiencyFactors, stack: str) -> float:
    """The decode-step multiplier of a row's stack: SGLang and vLLM rows on NVIDIA take their stack
    factor (TensorRT-LLM is the reference, 1; the ROCm factor applies inside the kernel to every AMD
    device)."""
    name = STACK_FACTOR.get(stack)
    return 1.0 if name is None else float(getattr(factors, name))


def stack_overhead(factors: EfficiencyFactors, stack: str) -> float:
    """The fixed-overhead multiplier of a row's stack (SGLang and vLLM on NVIDIA; the ROCm one applies
    inside the kernel to every AMD device; TensorRT-LLM 1)."""
    name = STACK_OVERHEAD_FACTORS.get(stack) if stack != KERNEL_STACK else None
    return 1.0 if name is None else float(getattr(factors, name))


def positive_number(text) -> float | None:
    """The number a CSV cell holds where it is finite and > 0, else None (empty, text, inf, nan, 0 or negative)."""
    try:
        v = float(str(text).strip())
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and v > 0 else None


def map_model(text: str) -> str | None:
    """The catalog model a measurement's model name starts with, or None."""
    return next((m for m in MODEL_PREFIXES if text.startswith(m)), None)


def row_precision(row: dict, device, model_name: str = "") -> str:
    """The weight precision a row ran: as stated, else the checkpoint's, else the device's lowest
    native precision (FP4 where it computes FP4, else fp8)."""
    text = (row.get("precision") or "").upper()
    if "AS LABELLED" in text or "NOT STATED" in text or not text:
        text = ""
    if not text and model_name in CHECKPOINT_PRECISION:
        return CHECKPOINT_PRECISION[model_name]
    if "FP4" in text:
        return "mxfp4" if "MX" in text else "nvfp4"
    if "FP8" in text:
        return "fp8"
    if "BF16" in text or "FP16" in text:
        return "bf16"
    native = native_fp4_formats(device)
    if native:
        preferred = "nvfp4" if device.vendor == "NVIDIA" else "mxfp4"
        return preferred if preferred in native else native[0]
    return "fp8"


def row_parallelism(row: dict, count: int, device, is_moe: bool) -> dict:
    """Sweep axes for the row: the stated parallelism, or every option that fits the row."""
    m = re.search(r"parallelism (DEP|TP|EP)(\d+)", (row.get("notes") or ""))
    if m:
        kind, n = m.group(1), int(m.group(2))
        if kind == "TP" or not is_moe:
            return {"tensor_parallel": (n,), "expert_parallel": (1,), "attention_dp": (kind == "DEP",) if is_moe else (False,)}
        return {"tensor_parallel": (1,), "expert_parallel": (n,), "attention_dp": (kind == "DEP",)}
    limit = min(count, device.scale_up_domain)
    sizes = tuple(n for n in (1, 2, 4, 8, 16, 32, 64, 72) if n <= limit)
    if is_moe:
        wide = tuple(n for n in (2, 4) for n in (n * device.scale_up_domain,) if n <= count) if count > limit else ()
        return {"tensor_parallel": sizes, "expert_parallel": sizes + wide, "attention_dp": (False, True)}
    return {"tensor_parallel": sizes, "expert_parallel": (1,), "attention_dp": (False,)}


def row_workload(row: dict, model_name: str) -> Workload | None:
    """The row's input and output lengths [tokens] (MLPerf rows: the dataset's mean input), or None."""
    out = positive_number(row.get("output_len"))
    if out is None:
        return None
    text = (row.get("input_len") or "").strip()
    inp = positive_number(text) if text else MLPERF_INPUT_TOKENS.get(model_name)
    if inp is None:
        return None
    return Workload(input_tokens=int(round(inp)), output_tokens=int(round(out)))


def input_estimated(row: dict) -> bool:
    """True where the row states no input length (the benchmark dataset's mean is used: an estimate)."""
    return not (row.get("input_len") or "").strip()


def row_latency_targets(row: dict, model_name: str) -> tuple[float | None, float | None]:
    """(tokens/s per user to reach, TTFT limit s) of a row: as stated, else for an MLPerf Server or
    Interactive row from its benchmark's limits (MLPERF_LATENCY_LIMITS, MEAN_TPOT_OVER_P99_LIMIT)."""
    per_user, ttft_limit = positive_number(row.get("tokens_per_s_per_user")), positive_number(row.get("ttft_limit_s"))
    limits = MLPERF_LATENCY_LIMITS.get((model_name, row_scenario(row))) if "mlperf" in (row.get("scenario") or "").lower() else None
    if limits is not None:
        tpot_limit = positive_number(row.get("tpot_limit_s")) or limits[1]
        per_user = per_user or 1.0 / (MEAN_TPOT_OVER_P99_LIMIT * tpot_limit)
        ttft_limit = ttft_limit or limits[0]
    return per_user, ttft_limit

