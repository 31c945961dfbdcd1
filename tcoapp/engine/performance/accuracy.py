"""Accuracy of the generated curves against published measurements (docs/model.md, "How sure it is").

Runs the roofline kernel (`frontier.sweep`) with a set of efficiency factors (default: the shipped
ones) on every measurement row that names a catalog device and model (`measurement_rows.py` reads
a row as a configuration and an operating point; `measurement_config.py` the configuration its
submission states: a row is modelled in it, or marked unknown), skips and counts the rest, and summarizes the
absolute and signed percent error of output tokens/s per device: median and 90th percentile,
overall and by regime (offline / server / interactive), dense/MoE, vendor, expert-parallel width,
serving stack and source family. Leave-one-family-out validation (`cross_validation.py`) runs it
with factors refitted without each row's family: the "unseen" figures.

Pure computation: the rows come in as (CSV line, dict) pairs (`tcoapp.io.measurements` reads the
file), the catalog as an object with `.devices` and `.models`. `tcoapp accuracy` prints the tables.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from typing import Any

import numpy as np

from ..quantities.records import ServingConfig
from .curve import meets_target
from .disaggregation import generate_disaggregated
from .factors import DEFAULT_FACTORS, EfficiencyFactors
from .frontier import CONFIG_COLUMNS, SweepResult, sweep
from .measurement_config import ConfigurationError, RowConfiguration, row_configuration, stated_parallelism
from .measurement_rows import (
    FAMILY, MLPERF_LATENCY_LIMITS, assign_families, drafts_serially, input_estimated, map_device, map_model,
    positive_number, row_latency_targets, row_parallelism, row_precision, row_scenario, row_stack, row_workload, source_family,
    power_limited_w, source_group, stack_overhead, stack_scale,
)
from .software_maturity import month_text

BATCHES = np.unique(np.round(np.geomspace(1, 32768, 160)))
GROUPINGS = ("family", "device", "model", "kind", "scenario", "vendor", "ep", "stack", "source_family")


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
    vendor: str = ""
    stack: str = ""             # serving stack: TensorRT-LLM, vLLM, SGLang, ROCm, other
    source_group: str = ""
    source_family: str = ""     # the unit of independent evidence (measurement_rows.source_family)
    input_estimated: bool = False  # the input length is the benchmark dataset's mean (an estimate)
    measured_per_user: float | None = None    # tokens/s per user, where the row states it
    predicted_per_user: float | None = None
    architecture: str = ""      # the device's architecture (catalog), for the architecture factors
    configuration: str = "known"  # "known": modelled as the row states it ran; "unknown": its own cell, not fitted

    @property
    def ep(self) -> str:
        """Expert-parallel width of the modelled configuration: "EP1", "EP2-8" or "EP>8"."""
        n = int(self.config.get("expert_parallel", 1) or 1)
        return "EP1" if n <= 1 else "EP2-8" if n <= 8 else "EP>8"

    @property
    def signed_pct_error(self) -> float:
        """Predicted over measured tokens/s per device, minus 1, in percent (+: the model over-predicts)."""
        return (self.predicted / self.measured - 1.0) * 100.0

    @property
    def abs_pct_error(self) -> float:
        """The absolute percent error of tokens/s per device [%]."""
        return abs(self.signed_pct_error)


@dataclass(frozen=True)
class Accuracy:
    results: tuple[RowResult, ...]
    skipped: tuple[tuple[int, str], ...]   # (line, reason)

    def errors(self, family: str | None = None) -> np.ndarray:
        """Absolute percent errors [%] of every modelled row (of one device family when given)."""
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


def model_row(row: dict, device, model, factors: EfficiencyFactors = DEFAULT_FACTORS,
              published_acceptance: float | None = None):
    """(predicted tokens/s per device, its config, predicted tokens/s per user) at the row's
    operating point (module docstring), or None where the row cannot be modelled. A row whose
    configuration columns state how it ran (measurement_config.py) is modelled in that configuration:
    its parallelism, its speculative decoding (draft tokens at the stated acceptance, else the
    model's published one) and its prefill/decode disaggregation."""
    workload = row_workload(row, model.name)
    if workload is None:
        return None
    count = max(1, int(positive_number(row.get("count")) or 1))
    batch = positive_number(row.get("batch_or_concurrency"))
    per_user, ttft_limit = row_latency_targets(row, model.name)
    workload, per_user, ttft_limit = _at_row_percentile(row, model.name, workload, per_user, ttft_limit)
    batches = np.array([float(batch)]) if batch else BATCHES
    setup = row_configuration(row)
    axes = stated_parallelism(setup, model.n_experts > 0) or row_parallelism(row, count, device, model.n_experts > 0)
    precision = row_precision(row, device, model.name)
    acceptance = row_acceptance(setup, published_acceptance)
    serial = bool(setup.speculative and drafts_serially(row))
    spec: dict[str, Any] = {"spec_decode_draft_tokens": (setup.draft_tokens,), "spec_decode_acceptance": acceptance,
                            "spec_host_serial": serial} if setup.speculative else {}
    if setup.disaggregated:
        result = disaggregated_sweep(device, model, workload, batches, setup, axes, precision, factors, acceptance)
    else:
        result = sweep(device, model, workload, batches=batches, **axes, weight_precisions=(precision,), factors=factors,
                       stack_scale=stack_scale(factors, row_stack(row, device)),
                       stack_overhead=stack_overhead(factors, row_stack(row, device)), **spec)
    i = _operating_index(result, row, batch, per_user, ttft_limit)
    if i is None:
        return None
    stated: dict[str, Any] = {"disaggregated": setup.disaggregated, "pipeline_parallel": setup.pipeline_parallel,
                              "spec_host_serial": serial}
    if i < 0:   # no configuration reaches the row's target: predicted 0
        best = result.best_throughput_index()
        if best is None:
            return None
        return 0.0, dict(result.config(best), **stated), float(result.tokens_per_s_per_user[best])
    tps, rate = float(result.tokens_per_s_per_device[i]), float(result.tokens_per_s_per_user[i])
    if not batch and per_user is not None and row_scenario(row) != "offline":
        i, tps, rate = at_crossing(result, per_user, ttft_limit or None)
    return tps, dict(result.config(i), batch_measured=bool(batch), **stated), rate


def at_crossing(result, per_user: float, ttft_limit: float | None) -> tuple[int, float, float]:
    """(point, tokens/s per device, tokens/s per user) of the best operating point at the row's targets with the
    batch continuous: for each configuration, its largest grid batch meeting the targets, moved toward the next
    grid batch up to where the per-user rate (log-linear in the batch) or the TTFT reaches its limit; so the
    prediction moves continuously with the factors instead of jumping from one grid batch to the next."""
    n = result.batches_per_configuration
    ok = result.feasible & meets_target(result.tokens_per_s_per_user, result.ttft_s, per_user, ttft_limit)
    last = np.arange(result.size) % n == n - 1
    nxt = np.minimum(np.arange(result.size) + 1, result.size - 1)
    edge = ok & ~last & ~ok[nxt] & result.feasible[nxt]     # meets, and the next batch is feasible but misses
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        tps, rate = np.log(result.tokens_per_s_per_device), np.log(result.tokens_per_s_per_user)
        share = np.where(rate > rate[nxt], (rate - np.log(per_user)) / (rate - rate[nxt]), 0.0)
        if ttft_limit is not None:
            ttft = np.log(result.ttft_s)
            share = np.minimum(share, np.where(ttft[nxt] > ttft, (np.log(ttft_limit) - ttft) / (ttft[nxt] - ttft), 1.0))
    share = np.where(edge, np.clip(share, 0.0, 1.0), 0.0)
    with np.errstate(invalid="ignore", over="ignore"):
        moved = np.exp(tps + np.where(edge, share * (tps[nxt] - tps), 0.0))
    value = np.where(ok, moved, -np.inf)
    i = int(np.argmax(value))
    return i, float(value[i]), float(np.exp(rate[i] + (share[i] * (rate[nxt[i]] - rate[i]) if edge[i] else 0.0)))


def _operating_index(result, row, batch, per_user, ttft_limit) -> int | None:
    """The point a row is compared at: the best throughput (a stated batch, an offline row), else the
    best throughput meeting the row's per-user rate and TTFT limit (-1: none meets them); None: nothing
    feasible."""
    best = result.best_throughput_index()
    if best is None or batch or per_user is None or row_scenario(row) == "offline":
        return best
    # the row's TTFT limit (MLPerf: p99) bounds the mean TTFT, admission wait included
    ok = result.feasible & meets_target(result.tokens_per_s_per_user, result.ttft_s, per_user, ttft_limit or None)
    if not ok.any():
        return -1
    return int(np.argmax(np.where(ok, result.tokens_per_s_per_device, -np.inf)))


# a speculative row that states no acceptance, of a model with none published: the prior of the
# published drafters (EAGLE-3 and MTP chains accept 0.6-0.9 per token: resources/catalog/spec_acceptance.csv)
UNSTATED_ACCEPTANCE = 0.7


def row_acceptance(setup: RowConfiguration, published: float | None = None) -> float:
    """The per-token acceptance a speculative row runs at: as stated, else the model's published one
    (the catalog's acceptance table), else UNSTATED_ACCEPTANCE."""
    for value in (setup.acceptance, published):
        if value is not None and np.ndim(value) == 0 and 0.0 <= float(value) < 1.0:
            return float(value)
    return UNSTATED_ACCEPTANCE


def disaggregated_sweep(device, model, workload, batches, setup: RowConfiguration, axes: dict, precision: str,
                        factors, acceptance: float = UNSTATED_ACCEPTANCE) -> SweepResult:
    """A disaggregated row's points (disaggregation.generate_disaggregated: per device over both
    pools, the row's prefill:decode device ratio, its decode workers' parallelism) as a sweep result of
    one configuration over `batches` (sequences per decode replica)."""
    serving = ServingConfig(tensor_parallel=axes["tensor_parallel"][0], expert_parallel=axes["expert_parallel"][0],
                            attention_dp=axes["attention_dp"][0], weight_precision=precision,
                            kv_precision="bf16" if precision == "bf16" else "fp8",
                            spec_decode_draft_tokens=setup.draft_tokens if setup.speculative else 0,
                            spec_decode_acceptance=acceptance,
                            prefill_devices=setup.prefill_devices, decode_devices=setup.decode_devices)
    curve = generate_disaggregated(device, device, model, serving, workload, batches, factors).curve
    b = np.asarray(curve.batch, float)
    values = {c: np.array([getattr(serving, c)]) for c in CONFIG_COLUMNS}
    feasible = np.asarray(curve.feasible, bool) & np.isfinite(curve.tokens_per_s_per_device)
    return SweepResult(b, values, int(b.size), acceptance, np.asarray(curve.tokens_per_s_per_user),
                       np.asarray(curve.tokens_per_s_per_device), np.asarray(curve.ttft_s), np.asarray(curve.power_w),
                       np.full(b.size, curve.max_batch_by_memory), feasible)


def _at_row_percentile(row, model_name, workload, per_user, ttft_limit):
    """The row's software date on its workload, and its latency statistic: an MLPerf Server or
    Interactive row is run at its p99 limits (TPOT and TTFT, both 99th percentiles) with
    latency_percentile = p99; every other row at the mean of what it states."""
    workload = workload.with_(software_date=month_text(row.get("date", "")))
    limits = MLPERF_LATENCY_LIMITS.get((model_name, row_scenario(row)))
    if limits is None or "mlperf" not in row.get("scenario", "").lower():
        return workload, per_user, ttft_limit
    tpot_limit = positive_number(row.get("tpot_limit_s")) or limits[1]
    ttft = positive_number(row.get("ttft_limit_s")) or limits[0]
    return workload.with_(latency_percentile="p99"), 1.0 / tpot_limit, ttft


def run(rows, catalog, factors: EfficiencyFactors = DEFAULT_FACTORS, lines=None) -> Accuracy:
    """Model every row of `rows` ((CSV line, dict) pairs) that can be modelled (only `lines`, CSV line
    numbers, where given); skip (and say why) the rest. Rows without a `source_family` get one first
    (`assign_families`, on copies)."""
    rows = list(rows)
    if rows and not all(r.get("source_family") for _, r in rows):
        named = assign_families([dict(r) for _, r in rows])
        rows = [(line, r) for (line, _), r in zip(rows, named)]
    results, skipped = [], []
    for line, row in rows:
        if lines is not None and line not in lines:
            continue
        outcome = _one(row, catalog, factors)
        if isinstance(outcome, str):
            skipped.append((line, outcome))
        else:
            results.append(RowResult(line, *outcome))
    return Accuracy(tuple(results), tuple(skipped))


def _one(row, catalog, factors):
    if row.get("invalid"):
        return str(row["invalid"])
    dev_name, model_name = map_device(row.get("device") or ""), map_model(row.get("model") or "")
    if dev_name is None or dev_name not in catalog.devices:
        return f"device not in the catalog {row.get('device')!r}"
    if model_name is None or model_name not in catalog.models:
        return f"model not in the catalog {row.get('model')!r}"
    measured = positive_number(row.get("tokens_per_s_per_gpu"))
    if measured is None:
        return "no tokens_per_s_per_gpu (a positive number)"
    device, model = catalog.devices[dev_name], catalog.models[model_name]
    if (limited_w := power_limited_w(row, device)) is not None:   # a run below the TDP: the device at that limit
        device = replace(device, power_limit_w=limited_w)
    if row_workload(row, model.name) is None:
        return "no output length, or no input length and no benchmark dataset mean for it"
    try:
        published = getattr(catalog.models, "spec_acceptance", {}).get(model_name)
        modelled = model_row(row, device, model, factors, published.acceptance if published else None)
    except ConfigurationError as exc:
        return f"configuration: {exc}"
    if modelled is None:
        return "no modelled configuration of the row's devices is feasible at the stated batch (memory or parallelism limits)"
    predicted, config, predicted_user = modelled
    return (dev_name, model_name, FAMILY.get(dev_name, device.vendor), measured, predicted, config,
            "MoE" if model.n_experts > 0 else "dense", row_scenario(row), device.vendor,
            row_stack(row, device), row.get("source_group") or source_group(row),
            row.get("source_family") or source_family(row), input_estimated(row),
            positive_number(row.get("tokens_per_s_per_user")), predicted_user, getattr(device, "architecture", ""),
            "known" if row_configuration(row).known else "unknown")
