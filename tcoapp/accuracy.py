"""Accuracy of the generated curves against published measurements (issue 3, item 6).

    python -m tcoapp.accuracy [CSV] [--rows] [--by family|device|model|kind|scenario|vendor|ep|stack|split]

Runs the engine with the shipped default efficiency factors on every row of a measurements CSV
(default: tests/data/measurements_public.csv: MLPerf Inference Offline rows, MLPerf v6.0 Server and
Interactive rows, InferenceX per-concurrency sweeps and the TensorRT-LLM per-GPU table) that names a
catalog device and model, skips and counts the rest, and prints the median and 90th-percentile
absolute percent error and the median signed error of output tokens/s per device overall and by
regime (`scenario`: offline / server / interactive), dense/MoE (`kind`), vendor, expert-parallel
width (`ep`), serving stack and fit/held-out split.

Regime: MLPerf Offline and max-throughput rows are *offline*; MLPerf Server rows *server*; MLPerf
Interactive rows *interactive*; a concurrency-sweep row is *interactive* where its measured
tokens/s per user is at least INTERACTIVE_MIN_TOKENS_PER_S_PER_USER (25: the MLPerf Interactive
TPOT limits are 15-40 ms), else *server*.

Split: whole sources are held out, never random rows. A row's `source_group` is its publication:
"MLPerf <round> <submitter>", "InferenceX <hardware> <framework>" (every run and date of one
hardware and serving stack), else the source URL (the TensorRT-LLM table is one page); groups that
share a source (an InferenceX workflow run that benchmarked two GPUs) are joined. The groups
are ordered by the CRC-32 of their name and every third (ranks 0, 3, 6, ...) is *held out*; the
rest is the *fit* part
(`assign_splits`; the CSV's `split` column records it, and a CSV without one is split by the same
rule). `tools/refit_factors.py` fits the shipped FIT factors on the fit part only.

How a row is modelled (the same rules for every row, never per-row tuning):
- Offline / max-throughput rows have no batch: the model is run at the throughput-maximizing
  feasible batch (batch up to max_batch_by_memory), as an offline benchmark does.
- Parallelism: when stated ("TP2", "DEP4" = attention-DP + expert parallel 4), used as stated;
  otherwise the throughput-maximizing TP/EP/attention-DP configuration that fits in the row's
  device count and the scale-up domain (submitters tune for it).
- Precision: as stated ("FP4 (NVFP4)", "FP8"). Where it is not stated (MLPerf summaries) or only
  "as labelled": a model published in a 4-bit checkpoint keeps it (gpt-oss: MXFP4, dequantized
  where the device has no FP4 math), else the lowest precision the device computes natively
  (NVIDIA FP4 -> nvfp4, AMD FP4 -> mxfp4, else fp8). KV cache fp8.
- Lengths: as stated; MLPerf rows state the mean output tokens only, so input lengths are the
  benchmark datasets' means (estimates, see MLPERF_INPUT_TOKENS).
- Operating point: a row with a concurrency (`batch_or_concurrency`, an InferenceX sweep) is run at
  that batch; a Server / Interactive row without one but with its measured tokens/s per user is run
  at the largest feasible batch reaching that rate with a mean TTFT within the row's TTFT limit (the
  throughput-maximizing configuration meeting them, as a plan with `min_tokens_per_s_per_user` and
  `max_ttft_s` is); an MLPerf Server / Interactive row that states no per-user rate takes it from its
  benchmark's TPOT limit (MLPERF_LATENCY_LIMITS); where no configuration reaches it the prediction
  is 0 (-100 %), counted, never dropped. Offline rows at the throughput-maximizing batch.
"""
from __future__ import annotations

import argparse
import csv
import pathlib
import re
import sys
import zlib
from dataclasses import dataclass

import numpy as np

from .engine.performance.factors import DEFAULT_FACTORS, EfficiencyFactors
from .engine.performance.frontier import sweep
from .engine.performance.precision import native_fp4_formats
from .engine.records import Workload

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_CSV = ROOT / "tests" / "data" / "measurements_public.csv"

# Mean input tokens per sample of the MLPerf Inference datasets, which the result files do not state
# (output means are in each row). All ESTIMATES, benchmark-level (the same for every row):
# - Llama-2-70B (OpenOrca, inputs < 1024 tokens): 300. Not read in a source; bounded by physics: at
#   ~4,300 output tokens/s per H200 (FP8, ~290 output tokens) a mean input above ~650 tokens would
#   need more than the FP8 peak, so the dataset mean must be short.
# - Llama-3.1-405B: 9,400 (MLCommons' description of the long-context mix, as recalled).
# - DeepSeek-R1: 800 (MLCommons' description of the reasoning mix, as recalled).
# gpt-oss-120b's MLPerf input mean is unknown here: those rows are skipped, not guessed.
MLPERF_INPUT_TOKENS = {"Llama-2-70B": 300, "Llama-3.1-405B": 9400, "DeepSeek-R1": 800}
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
HOLD_OUT_EVERY = 3   # every third source group (by CRC-32 order) is held out of the factor fit

DEVICE_PATTERNS = (  # (regex on the row's device text, catalog device); first match wins
    (r"GB300", "GB300-NVL72"), (r"GB200", "GB200-NVL72"), (r"B300", "B300"), (r"B200", "B200"),
    (r"H200[- ]NVL", None), (r"H200", "H200-SXM"), (r"H100", "H100-SXM"),
    (r"MI355X", "MI355X"), (r"MI325X", "MI325X"), (r"MI300X", "MI300X"),
)
MODEL_PREFIXES = ("Llama-2-70B", "Llama-3.1-405B", "Llama-3.3-70B", "DeepSeek-R1", "gpt-oss-120b")
FAMILY = {"H100-SXM": "NVIDIA Hopper", "H200-SXM": "NVIDIA Hopper", "B200": "NVIDIA Blackwell",
          "B300": "NVIDIA Blackwell", "GB200-NVL72": "NVIDIA Blackwell", "GB300-NVL72": "NVIDIA Blackwell",
          "MI300X": "AMD CDNA3", "MI325X": "AMD CDNA3", "MI355X": "AMD CDNA4"}
# Weight format of the published checkpoint, where it is 4-bit (model card: gpt-oss MoE weights MXFP4).
CHECKPOINT_PRECISION = {"gpt-oss-120b": "mxfp4"}
BATCHES = np.unique(np.round(np.geomspace(1, 32768, 160)))
GROUPINGS = ("family", "device", "model", "kind", "scenario", "vendor", "ep", "stack", "split")


@dataclass(frozen=True)
class RowResult:
    line: int
    device: str
    model: str
    family: str
    measured: float
    predicted: float
    config: dict
    kind: str = "dense"         # "dense" or "MoE"
    scenario: str = "offline"   # regime: "offline", "server" or "interactive"
    split: str = "fit"          # "fit" or "held-out"
    vendor: str = ""
    stack: str = ""             # serving stack: TensorRT-LLM, vLLM, SGLang, ROCm, other
    source_group: str = ""
    measured_per_user: float | None = None    # tokens/s per user, where the row states it
    predicted_per_user: float | None = None

    @property
    def ep(self) -> str:
        """Expert-parallel width of the modelled configuration: "EP1", "EP2-8" or "EP>8"."""
        n = int(self.config.get("expert_parallel", 1) or 1)
        return "EP1" if n <= 1 else "EP2-8" if n <= 8 else "EP>8"

    @property
    def signed_pct_error(self) -> float:
        return (self.predicted / self.measured - 1.0) * 100.0

    @property
    def abs_pct_error(self) -> float:
        return abs(self.signed_pct_error)


@dataclass(frozen=True)
class Accuracy:
    results: tuple[RowResult, ...]
    skipped: tuple[tuple[int, str], ...]   # (line, reason)

    def errors(self, family: str | None = None) -> np.ndarray:
        return np.array([r.abs_pct_error for r in self.results if family in (None, r.family)])

    def summary(self, by: str = "family", where=None) -> dict[str, dict[str, float]]:
        """{group: {n, median_ape_pct, p90_ape_pct, median_signed_pct}} per device family (or `by=`
        one of GROUPINGS) and "overall"; `where(result) -> bool` keeps a subset."""
        rows = [r for r in self.results if where is None or where(r)]
        groups = sorted({getattr(r, by) for r in rows}) + ["overall"]
        out = {}
        for g in groups:
            sel = [r for r in rows if g == "overall" or getattr(r, by) == g]
            if not sel:
                continue
            e = np.array([r.abs_pct_error for r in sel])
            signed = np.array([r.signed_pct_error for r in sel])
            out[g] = {"n": int(e.size), "median_ape_pct": float(np.median(e)), "p90_ape_pct": float(np.percentile(e, 90)),
                      "median_signed_pct": float(np.median(signed))}
        return out


def map_device(text: str) -> str | None:
    """Catalog device for a measurement's device text; None for unknown or mixed systems."""
    if "," in text or " and " in text or "Power Cap" in text:
        return None
    for pattern, name in DEVICE_PATTERNS:
        if re.search(pattern, text):
            return name
    return None


def source_group(row: dict) -> str:
    """The publication a row belongs to (held out as a whole; see the module docstring)."""
    source = row.get("source", "")
    m = re.search(r"inference_results_(v[\d.]+).*?/(?:closed|open)/([^/]+)/", source)
    if m:
        return f"MLPerf {m.group(1)} {m.group(2)}"
    if "InferenceX" in source:
        return f"InferenceX {row.get('device', '').strip()} {row.get('framework', '').strip()}"
    return source


def assign_splits(rows: list[dict]) -> list[dict]:
    """Set each row's `source_group` and `split` (in place). Groups that share a source (an
    InferenceX workflow run that benchmarked two GPUs) are joined into one; the joined groups,
    named by their first member and ordered by CRC-32, have every HOLD_OUT_EVERY-th held out."""
    parent: dict[str, str] = {}

    def root(g: str) -> str:
        while parent.setdefault(g, g) != g:
            g = parent[g]
        return g

    by_source: dict[str, str] = {}
    for r in rows:
        g = source_group(r)
        root(g)
        for part in _source_parts(r.get("source", "")):
            if part in by_source:
                a, b = sorted((root(g), root(by_source[part])))
                parent[b] = a
            else:
                by_source[part] = g
    joined = sorted({root(g) for g in parent}, key=lambda g: (zlib.crc32(g.encode()), g))
    held = set(joined[::HOLD_OUT_EVERY])
    for r in rows:
        r["source_group"] = source_group(r)
        r["split"] = "held-out" if root(r["source_group"]) in held else "fit"
    return rows


def _source_parts(source: str) -> list[str]:
    """The sources a row's `source` text names: the whole text, and each workflow run it cites."""
    return [source] + re.findall(r"actions/runs/\d+", source)


def row_split(row: dict) -> str:
    """The row's `split` column ("fit" / "held-out"); see `assign_splits` for a CSV without one."""
    return row.get("split") or "fit"


def row_scenario(row: dict) -> str:
    """offline, server or interactive (the regime; see the module docstring)."""
    text = row.get("scenario", "").lower()
    if "interactive" in text:
        return "interactive"
    if "server" in text:
        return "server"
    if "concurrency" in text or _number(row.get("batch_or_concurrency")):
        per_user = _number(row.get("tokens_per_s_per_user"))
        return "interactive" if per_user and per_user >= INTERACTIVE_MIN_TOKENS_PER_S_PER_USER else "server"
    return "offline"


def row_stack(row: dict, device) -> str:
    """Serving stack: ROCm on AMD devices; else TensorRT-LLM, SGLang or vLLM from the framework text."""
    if getattr(device, "vendor", "") == "AMD":
        return "ROCm"
    text = row.get("framework", "").lower()
    if "sglang" in text:
        return "SGLang"
    if "vllm" in text or "llm-d" in text:
        return "vLLM"
    if "tensorrt" in text or "trt" in text:
        return "TensorRT-LLM"
    return "other"


STACK_FACTOR = {"SGLang": "stack_step_sglang", "vLLM": "stack_step_vllm"}


def stack_scale(factors: EfficiencyFactors, stack: str) -> float:
    """The decode-step multiplier of a row's stack: SGLang and vLLM rows on NVIDIA take their stack
    factor (TensorRT-LLM is the reference, 1; the ROCm factor applies inside the kernel to every AMD
    device)."""
    name = STACK_FACTOR.get(stack)
    return 1.0 if name is None else float(getattr(factors, name))


def _number(text) -> float | None:
    try:
        v = float(str(text).strip())
    except (TypeError, ValueError):
        return None
    return v if v > 0 else None


def map_model(text: str) -> str | None:
    return next((m for m in MODEL_PREFIXES if text.startswith(m)), None)


def row_precision(row: dict, device, model_name: str = "") -> str:
    text = row.get("precision", "").upper()
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
    m = re.search(r"parallelism (DEP|TP|EP)(\d+)", row.get("notes", ""))
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
    try:
        out = float(row["output_len"])
    except (KeyError, ValueError):
        return None
    text = row.get("input_len", "").strip()
    inp = float(text) if text else MLPERF_INPUT_TOKENS.get(model_name)
    if inp is None:
        return None
    return Workload(input_tokens=int(round(inp)), output_tokens=int(round(out)))


def row_latency_targets(row: dict, model_name: str) -> tuple[float | None, float | None]:
    """(tokens/s per user to reach, TTFT limit s) of a row: as stated, else for an MLPerf Server or
    Interactive row from its benchmark's limits (MLPERF_LATENCY_LIMITS, MEAN_TPOT_OVER_P99_LIMIT)."""
    per_user, ttft_limit = _number(row.get("tokens_per_s_per_user")), _number(row.get("ttft_limit_s"))
    limits = MLPERF_LATENCY_LIMITS.get((model_name, row_scenario(row))) if "mlperf" in row.get("scenario", "").lower() else None
    if limits is not None:
        tpot_limit = _number(row.get("tpot_limit_s")) or limits[1]
        per_user = per_user or 1.0 / (MEAN_TPOT_OVER_P99_LIMIT * tpot_limit)
        ttft_limit = ttft_limit or limits[0]
    return per_user, ttft_limit


def model_row(row: dict, device, model, factors: EfficiencyFactors = DEFAULT_FACTORS):
    """(predicted tokens/s per device, its config, predicted tokens/s per user) at the row's
    operating point (module docstring), or None where the row cannot be modelled."""
    workload = row_workload(row, model.name)
    if workload is None:
        return None
    count = int(float(row.get("count") or 1))
    batch = _number(row.get("batch_or_concurrency"))
    per_user, ttft_limit = row_latency_targets(row, model.name)
    batches = np.array([float(batch)]) if batch else BATCHES
    result = sweep(device, model, workload, batches=batches, **row_parallelism(row, count, device, model.n_experts > 0),
                   weight_precisions=(row_precision(row, device, model.name),), factors=factors,
                   stack_scale=stack_scale(factors, row_stack(row, device)))
    if batch or per_user is None or row_scenario(row) == "offline":
        i = result.best_throughput_index()
        if i is None:
            return None
    else:
        ok = result.feasible & (result.tokens_per_s_per_user >= per_user)
        if ttft_limit:  # the row's TTFT limit (MLPerf: p99) bounds the mean TTFT, admission wait included
            ok &= np.isfinite(result.ttft_s) & (result.ttft_s <= ttft_limit)
        if not ok.any():
            i = result.best_throughput_index()
            if i is None:
                return None
            return 0.0, result.config(i), float(result.tokens_per_s_per_user[i])
        i = int(np.argmax(np.where(ok, result.tokens_per_s_per_device, -np.inf)))
    return (float(result.tokens_per_s_per_device[i]), dict(result.config(i), batch_measured=bool(batch)),
            float(result.tokens_per_s_per_user[i]))


def run(path=DEFAULT_CSV, catalog=None, factors: EfficiencyFactors = DEFAULT_FACTORS, lines=None) -> Accuracy:
    """Model every row that can be modelled (only `lines`, CSV line numbers, where given); skip (and
    say why) the rest."""
    catalog = catalog or load_catalog_for_accuracy()
    results, skipped = [], []
    rows = read_rows(path)
    for line, row in rows:
        if lines is not None and line not in lines:
            continue
        outcome = _one(row, catalog, factors)
        if isinstance(outcome, str):
            skipped.append((line, outcome))
        else:
            results.append(RowResult(line, *outcome))
    return Accuracy(tuple(results), tuple(skipped))


def read_rows(path) -> list[tuple[int, dict]]:
    """(line, row) of a measurements CSV, with `source_group` and `split` (computed where absent)."""
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if rows and not all(r.get("split") for r in rows):
        assign_splits(rows)
    return list(enumerate(rows, start=2))


def _one(row, catalog, factors):
    dev_name, model_name = map_device(row.get("device", "")), map_model(row.get("model", ""))
    if dev_name is None or dev_name not in catalog.devices:
        return f"device not in the catalog {row.get('device')!r}"
    if model_name is None or model_name not in catalog.models:
        return f"model not in the catalog {row.get('model')!r}"
    try:
        measured = float(row["tokens_per_s_per_gpu"])
    except (KeyError, ValueError):
        return "no tokens_per_s_per_gpu"
    device, model = catalog.devices[dev_name], catalog.models[model_name]
    modelled = model_row(row, device, model, factors)
    if modelled is None:
        return "input length not stated and the benchmark's mean unknown, or no feasible configuration"
    predicted, config, predicted_user = modelled
    return (dev_name, model_name, FAMILY.get(dev_name, device.vendor), measured, predicted, config,
            "MoE" if model.n_experts > 0 else "dense", row_scenario(row), row_split(row), device.vendor,
            row_stack(row, device), row.get("source_group") or source_group(row),
            _number(row.get("tokens_per_s_per_user")), predicted_user)


def interval_cells(results, quantiles=None) -> tuple[dict, dict]:
    """(per-device, per-user) quantile tables of measured / predicted for prediction intervals
    (engine/performance/prediction_interval.py): {regime or "*": (rows, low, high)}, low / high the
    BAND_QUANTILES of the ratio (per user: rows measured at a stated concurrency only). A row whose
    target no configuration reaches (predicted 0) counts as e^3 times the model."""
    from .engine.performance.prediction_interval import BAND_QUANTILES
    q = [100.0 * x for x in (quantiles or BAND_QUANTILES)]
    ratio = lambda r: r.measured / r.predicted if r.predicted > 0 else float(np.exp(3.0))  # noqa: E731
    device, user = {}, {}
    for regime in ("offline", "server", "interactive", "*"):
        sel = [ratio(r) for r in results if regime in ("*", r.scenario)]
        if sel:
            lo, hi = np.percentile(sel, q)
            device[regime] = (len(sel), float(lo), float(hi))
        sel = [r.measured_per_user / r.predicted_per_user for r in results
               if r.config.get("batch_measured") and regime in ("*", r.scenario) and r.measured_per_user
               and r.predicted_per_user]
        if sel:
            lo, hi = np.percentile(sel, q)
            user[regime] = (len(sel), float(lo), float(hi))
    return device, user


def interval_coverage(results, quantiles=None) -> dict[str, dict[str, float]]:
    """Calibration of the intervals without using a row to build its own band: the held-out source
    groups are split in two halves (by CRC-32 order), each half's rows are tested against the band
    the other half builds (with the engine's fall-back); per regime the share inside, and n."""
    from .engine.performance.prediction_interval import band_cell
    held = [r for r in results if r.split == "held-out"]
    groups = sorted({r.source_group for r in held}, key=lambda g: (zlib.crc32(g.encode()), g))
    half = {g: i % 2 for i, g in enumerate(groups)}
    inside: dict[str, list[bool]] = {}
    for side in (0, 1):
        table, _ = interval_cells([r for r in held if half[r.source_group] != side], quantiles)
        for r in (r for r in held if half[r.source_group] == side):
            _, (_, lo, hi) = band_cell(table, r.scenario)
            ratio = r.measured / r.predicted if r.predicted > 0 else float("inf")
            for key in (r.scenario, "overall"):
                inside.setdefault(key, []).append(bool(lo <= ratio <= hi))
    return {k: {"n": len(v), "inside_share": float(np.mean(v))} for k, v in inside.items()}


def load_catalog_for_accuracy():
    """The shipped catalog (tcoapp.io.catalog), or the repository's CSVs when not installed."""
    try:
        from .io.catalog import load_catalog
        return load_catalog()
    except (ImportError, OSError):  # not installed: fall back to the repository copy of the same files
        return _repo_catalog()


def _repo_catalog():
    from types import SimpleNamespace

    from .engine.records import make_device, make_model
    base = ROOT / "resources" / "catalog"
    with open(base / "devices.csv", newline="", encoding="utf-8") as f:
        devices = {r["name"]: make_device(r) for r in csv.DictReader(f)}
    with open(base / "models.csv", newline="", encoding="utf-8") as f:
        models = {r["name"]: make_model(r) for r in csv.DictReader(f)}
    return SimpleNamespace(devices=devices, models=models)


def format_report(acc: Accuracy, rows: bool = False, by: str = "family") -> str:
    lines = []
    if rows:
        for r in acc.results:
            c = r.config
            lines.append(f"line {r.line:4d} {r.device:12s} {r.model:15s} {r.scenario:11s} measured {r.measured:9.1f} "
                         f"predicted {r.predicted:9.1f} ({r.predicted / r.measured - 1:+.0%}) "
                         f"B={c['batch']:.0f} TP{c['tensor_parallel']} EP{c['expert_parallel']}"
                         f"{' ADP' if c['attention_dp'] else ''} {c['weight_precision']} {r.split}")
    header = f"{'group':28s} {'n':>4s} {'median APE %':>13s} {'p90 APE %':>10s} {'median signed %':>16s}"

    def table(title, acc_summary):
        lines.append(title)
        lines.append(header)
        for group, s in acc_summary.items():
            lines.append(f"{group:28s} {s['n']:4d} {s['median_ape_pct']:13.1f} {s['p90_ape_pct']:10.1f} "
                         f"{s['median_signed_pct']:+16.1f}")

    for grouping in dict.fromkeys((by, "scenario", "kind", "vendor", "ep", "stack", "split")):
        table(f"by {grouping}:", {g: s for g, s in acc.summary(grouping).items() if g != "overall" or grouping == by})
    for regime in ("offline", "server", "interactive"):
        sub = acc.summary("kind", where=lambda r, regime=regime: r.scenario == regime)
        if sub:
            table(f"{regime} by kind:", sub)
    table("held-out sources only, by regime:", acc.summary("scenario", where=lambda r: r.split == "held-out"))
    coverage = interval_coverage(acc.results)
    if coverage:
        lines.append("80 % prediction band, calibration on held-out sources (band from the other half of them): "
                     + "; ".join(f"{k} {c['inside_share']:.0%} of {c['n']}" for k, c in coverage.items()))
    unreached = sum(1 for r in acc.results if r.predicted == 0.0)
    lines.append(f"modelled {len(acc.results)} rows ({unreached} whose measured tokens/s per user no modelled "
                 f"configuration reaches: predicted 0, -100 %), skipped {len(acc.skipped)}:")
    reasons: dict[str, int] = {}
    for _, reason in acc.skipped:
        key = reason.split(" '")[0] if reason.startswith(("device", "model")) else reason
        reasons[key] = reasons.get(key, 0) + 1
    lines.extend(f"  {n:4d} {reason}" for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
    estimates = ", ".join(f"{model} {tokens:,}" for model, tokens in MLPERF_INPUT_TOKENS.items())
    lines.append(f"MLPerf rows state no input length: ESTIMATED mean input tokens used ({estimates}); "
                 "MLPerf Offline rows run at the throughput-maximizing feasible batch.")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tcoapp.accuracy", description=__doc__.splitlines()[0])
    parser.add_argument("csv", nargs="?", default=str(DEFAULT_CSV), help="measurements CSV")
    parser.add_argument("--rows", action="store_true", help="print every modelled row")
    parser.add_argument("--by", choices=GROUPINGS, default="family", help="first grouping of the tables")
    args = parser.parse_args(argv)
    print(format_report(run(args.csv), rows=args.rows, by=args.by))
    return 0


if __name__ == "__main__":
    sys.exit(main())
