"""The file formats: which columns hold the points, which define one configuration (one curve),
and how a format is recognized from its header.

- `inferencex`: SemiAnalysis InferenceX dashboard exports, current headers (`Output
  Throughput/Chip (tok/s)`, `Median TTFT (s)`, `Num Prefill Chips`, ...) and older ones (`Output
  Throughput/GPU`, `Median TTFT (ms)`), with or without the `#` preamble.
- `aiconfigurator`: NVIDIA aiconfigurator `pareto.csv` / `best_config_topn.csv`, aggregated
  (`tp`, `parallel`, ...) or disaggregated (`(p)tp`, `(d)workers`, ...). ttft/tpot are in ms.
- `plain`: the workbook's Curves sheet as CSV (curve, device, model, batch,
  tokens_per_s_per_device, ...).
"""
from __future__ import annotations

from dataclasses import dataclass

from .columns import Column, col

LATENCY_UNITS = ("s", "ms")


@dataclass(frozen=True)
class Format:
    name: str
    columns: dict[str, Column]          # field -> column
    config: tuple[str, ...]             # header keys of the columns that define one configuration
    label_order: tuple[str, ...]        # header keys tried, in order, to tell curves apart in names
    knobs: tuple[str, ...] = ()         # header keys that may differ between rows at one batch
    resolve_duplicates: bool = True     # several rows at one batch: keep one and say so (else an error)
    disaggregated: bool = False


INFERENCEX = Format("inferencex", {
    "batch": col("concurrency", "conc", "maxconcurrency", required=True, label="Concurrency"),
    "tokens_per_s_per_device": col("outputthroughputchip", "outputthroughputgpu", "outputthroughputperchip",
                                   "outputthroughputpergpu", "outputtokthroughputgpu", "outputtpsgpu", required=True,
                                   label="Output Throughput/Chip (tok/s)"),
    "tokens_per_s_per_user": col("medianinteractivity", "interactivity"),
    "tpot": col(("mediantpotms", "ms"), ("mediantpots", "s"), ("mediantpot", "s"), ("tpotms", "ms"), ("tpots", "s")),
    "ttft": col(("medianttftms", "ms"), ("medianttfts", "s"), ("medianttft", "s"), ("ttftms", "ms"), ("ttfts", "s")),
    "power_w": col("powerw", "powergpuw", "powerchipw", allow_zero=True),
}, config=("model", "isl", "osl", "hardware", "hardwarekey", "framework", "precision", "tp", "ep", "dpattention",
           "dp", "disaggregated", "numprefillchips", "numprefillgpus", "numdecodechips", "numdecodegpus",
           "specdecoding", "ismultinode", "physicalchips", "powerseries"),
   label_order=("tp", "ep", "dpattention", "numprefillchips", "numprefillgpus", "numdecodechips", "numdecodegpus",
                "precision", "framework", "specdecoding", "hardware", "hardwarekey", "model", "isl", "osl",
                "disaggregated", "ismultinode", "dp", "physicalchips", "powerseries"),
   knobs=("date", "runurl"))

_AIC_POINTS = {
    "batch": col("concurrency", required=True, label="concurrency"),
    "tokens_per_s_per_device": col("tokenssgpu", required=True, label="tokens/s/gpu"),
    "tokens_per_s_per_user": col("tokenssuser"),
    "tpot": col(("tpot", "ms")),
    "ttft": col(("ttft", "ms")),
    "power_w": col("powerw", allow_zero=True),
}
_AIC_POOL = ("workers", "tp", "pp", "dp", "moetp", "moeep", "cp", "parallel", "gemm", "kvcache", "fmha", "moe",
             "comm", "backend", "version", "system")

AICONFIGURATOR = Format("aiconfigurator", _AIC_POINTS,
    config=("model", "isl", "osl", "prefix", "system", "backend", "version", "numtotalgpus", "tp", "pp", "dp",
            "moetp", "moeep", "cp", "parallel", "gemm", "kvcache", "fmha", "moe", "comm"),
    label_order=("parallel", "tp", "pp", "dp", "moetp", "moeep", "cp", "gemm", "kvcache", "fmha", "moe", "comm",
                 "system", "backend", "version", "model", "isl", "osl", "prefix", "numtotalgpus"),
    knobs=("ctxtokens",))

AICONFIGURATOR_DISAGG = Format("aiconfigurator", {
    **_AIC_POINTS,
    # each pool's own rate and batch, for its pool curve (pools.py)
    "prefill.seq_per_s_per_worker": col("pseqsworker"), "decode.seq_per_s_per_worker": col("dseqsworker"),
    "prefill.batch": col("pbs"), "decode.batch": col("dbs"),
},
    config=("model", "isl", "osl", "prefix", "numtotalgpus") + tuple(f"{side}{k}" for side in ("p", "d", "e")
                                                                  for k in _AIC_POOL),
    label_order=("pworkers", "pparallel", "dworkers", "dparallel", "pgemm", "dgemm", "psystem", "dsystem",
                 "model", "isl", "osl", "numtotalgpus"),
    knobs=("pbs", "dbs"), disaggregated=True)

PLAIN = Format("plain", {
    "batch": col("batch", required=True),
    "tokens_per_s_per_device": col("tokenspersperdevice", required=True, label="tokens_per_s_per_device"),
    "tokens_per_s_per_user": col("tokenspersperuser"),
    "ttft": col(("ttfts", "s")),
    "tpot": col(("tpots", "s")),
    "power_w": col("powerw"),
}, config=("curve", "device", "model", "precision", "tensorparallel", "source", "config"),
   label_order=("curve", "device", "model", "precision", "tensorparallel"), resolve_duplicates=False)

FORMAT_NAMES = ("auto", "inferencex", "aiconfigurator", "plain")


def detect_format(keys: set[str]) -> Format | None:
    """The format whose signature columns the header has (keys: header_keys), or None."""
    if "tokenssgpu" in keys:
        disagg = any(k.startswith(("pworkers", "dworkers")) for k in keys)
        return AICONFIGURATOR_DISAGG if disagg else AICONFIGURATOR
    index = {k: 0 for k in keys}
    if INFERENCEX.columns["tokens_per_s_per_device"].find(index) or {"hardware", "concurrency"} <= keys:
        return INFERENCEX
    if "tokenspersperdevice" in keys:
        return PLAIN
    return None


def named_format(name: str, keys: set[str]) -> Format | None:
    """The format called `name` (aiconfigurator: aggregated or disaggregated by its header)."""
    if name == "aiconfigurator":
        disagg = any(k.startswith(("pworkers", "dworkers")) for k in keys)
        return AICONFIGURATOR_DISAGG if disagg else AICONFIGURATOR
    return {"inferencex": INFERENCEX, "plain": PLAIN}.get(name)
