"""The efficient frontier: sweep batch x TP/EP/attention-DP x precision x speculative decoding.

Every configuration of the grid is evaluated by the roofline kernel in broadcast numpy calls (one
call per chunk of configurations over all batches); the result keeps every point (the cloud) and
the Pareto set of (tokens_per_s_per_user, tokens_per_s_per_device) among feasible points, jagged as
it is. `progress(fraction)` and `should_cancel() -> bool` are plain callables, so a GUI worker can
drive the sweep; cancelling raises `tcoapp.engine.core.errors.Cancelled`.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import cached_property
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from ..core.errors import Cancelled
from ..quantities.records import ServingConfig
from .factors import DEFAULT_FACTORS, EfficiencyFactors
from .generated import acceptance_or_none, config_problems, shared_weight_args
from .memory import architecture, capacity_gb, max_batch_by_memory
from .precision import attention_peak_flops, bytes_per_value, is_weight_only, peak_flops
from .roofline import evaluate
from .roofline_inputs import ServingArrays, WorkloadArrays
from .software_maturity import software_speed

CONFIG_COLUMNS = ("tensor_parallel", "expert_parallel", "attention_dp", "weight_precision", "kv_precision",
                  "spec_decode_draft_tokens")


def _per_point(name: str) -> cached_property:
    """A configuration column per point (configuration-major, every batch of a configuration in a row),
    built when first read: the search reads a point's configuration through `config`, not these."""
    def column(self) -> np.ndarray:
        return np.repeat(self.configurations[name], self.batches_per_configuration)
    column.__name__ = name
    column.__doc__ = f"`{name}` of every point (per point; see `configurations` for one per configuration)."
    return cached_property(column)


@dataclass(frozen=True)
class SweepResult:
    """Every swept point as equal-length arrays (units in the names) plus the Pareto set. The
    configuration columns (CONFIG_COLUMNS) are kept once per configuration (`configurations`), each
    configuration's points being `batches_per_configuration` consecutive points; per point they are
    properties built on first read (a sweep of the widest space has millions of points)."""

    batch: np.ndarray
    configurations: Mapping[str, np.ndarray]   # CONFIG_COLUMNS -> one value per configuration (read-only)
    batches_per_configuration: int
    spec_decode_acceptance: float
    tokens_per_s_per_user: np.ndarray
    tokens_per_s_per_device: np.ndarray
    ttft_s: np.ndarray
    power_w: np.ndarray
    max_batch_by_memory: np.ndarray
    feasible: np.ndarray

    tensor_parallel = _per_point("tensor_parallel")
    expert_parallel = _per_point("expert_parallel")
    attention_dp = _per_point("attention_dp")
    weight_precision = _per_point("weight_precision")
    kv_precision = _per_point("kv_precision")
    spec_decode_draft_tokens = _per_point("spec_decode_draft_tokens")

    def per_point(self, per_configuration) -> np.ndarray:
        """A value per configuration (e.g. computed from `configurations`) spread to every point."""
        return np.repeat(np.asarray(per_configuration), self.batches_per_configuration)

    @cached_property
    def pareto_mask(self) -> np.ndarray:
        """The Pareto set of (tokens_per_s_per_user, tokens_per_s_per_device) among feasible points
        (computed when first asked for: the serving search does not need it)."""
        return pareto_mask(self.tokens_per_s_per_user, self.tokens_per_s_per_device, self.feasible)

    @property
    def pareto_indices(self) -> np.ndarray:
        """Indices of the frontier points, by increasing tokens/s per user."""
        idx = np.nonzero(self.pareto_mask)[0]
        return idx[np.argsort(self.tokens_per_s_per_user[idx], kind="stable")]

    @property
    def size(self) -> int:
        """The number of (configuration, batch) points swept."""
        return int(self.batch.size)

    def best_throughput_index(self) -> int | None:
        """Index of the feasible point with the most tokens/s per device (None: nothing feasible)."""
        if not self.feasible.any():
            return None
        return int(np.argmax(np.where(self.feasible, self.tokens_per_s_per_device, -np.inf)))

    def config(self, i: int) -> dict:
        """The configuration columns of point i (and its batch) as plain Python values."""
        j = int(i) // self.batches_per_configuration
        return {"batch": self.batch[i].item(), **{c: self.configurations[c][j].item() for c in CONFIG_COLUMNS}}


def pareto_mask(x, y, valid=None) -> np.ndarray:
    """Points not dominated in (x, y), both maximized, among `valid` ones (ties: the first is kept).

    Sort by x descending (y descending within ties); a point is on the front when its y beats
    every y seen before it. O(n log n), vectorized.
    """
    x, y = np.asarray(x, float), np.asarray(y, float)
    valid = np.ones(x.shape, bool) if valid is None else np.asarray(valid, bool) & np.isfinite(x) & np.isfinite(y)
    idx = np.nonzero(valid)[0]
    order = idx[np.lexsort((-y[idx], -x[idx]))]
    ys = y[order]
    best_before = np.concatenate(([-np.inf], np.maximum.accumulate(ys)[:-1]))
    mask = np.zeros(x.shape, bool)
    mask[order[ys > best_before]] = True
    return mask


def dent_share(x, y) -> float | None:
    """Share of the Pareto points of (x, y) (both maximized, both > 0) that lie off the upper convex
    hull of the front in log-log space: a dent is a frontier point that a mix of its neighbours'
    configurations would beat, where one configuration's curve hands over to another's. None with
    fewer than 3 frontier points. (How jagged a frontier is: docs/model.md, "The efficient frontier".)"""
    x, y = np.asarray(x, float), np.asarray(y, float)
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    idx = np.nonzero(pareto_mask(x, y, ok))[0]
    if idx.size < 3:
        return None
    order = idx[np.argsort(x[idx], kind="stable")]
    lx, ly = np.log(x[order]), np.log(y[order])
    hull: list[int] = []
    for i in range(lx.size):  # monotone chain, upper hull
        while len(hull) >= 2 and ((lx[hull[-1]] - lx[hull[-2]]) * (ly[i] - ly[hull[-2]])
                                  - (ly[hull[-1]] - ly[hull[-2]]) * (lx[i] - lx[hull[-2]])) > 1e-12:
            hull.pop()
        hull.append(i)
    return 1.0 - len(hull) / lx.size


def _combos(tensor_parallel, expert_parallel, attention_dp, weight_precisions, kv_precisions, drafts, pairs=None):
    pairs = pairs if pairs is not None else tuple(itertools.product(tensor_parallel, expert_parallel))
    for (tp, ep), adp, wp, k in itertools.product(pairs, attention_dp, weight_precisions, drafts):
        kvs = kv_precisions if kv_precisions is not None else ("bf16" if wp == "bf16" else "fp8",)
        for kv in kvs:
            yield int(tp), int(ep), bool(adp), str(wp), str(kv), int(k)


def sweep(device, model, workload, *, batches, tensor_parallel=(1, 2, 4, 8), expert_parallel=(1,),
          attention_dp=(False,), weight_precisions=("fp8",), kv_precisions=None, spec_decode_draft_tokens=(0,),
          spec_decode_acceptance=None, attention_weight_precision: str = "", factors: EfficiencyFactors = DEFAULT_FACTORS,
          stack_scale: float = 1.0, stack_overhead: float = 1.0, spec_host_serial: bool = False, parallel_pairs=None, progress: Callable[[float], None] | None = None,
          should_cancel: Callable[[], bool] | None = None, feasible_only: bool = False) -> SweepResult:
    """Evaluate the grid batches x configurations; keep every point and the Pareto frontier.

    kv_precisions None pairs each weight precision with its KV precision (bf16 weights -> bf16 KV,
    any other -> fp8 KV) instead of crossing them. Impossible configurations (TP x EP beyond the
    scale-up domain, EP on a dense model, weights that do not fit) stay in the cloud as infeasible
    points. Per point the physics is `roofline.evaluate` (docs/model.md section 1).
    `attention_weight_precision` (a mixed MoE checkpoint's non-expert weights) applies to every point.
    `stack_scale` multiplies the decode step's kernels, `stack_overhead` its fixed overheads (a
    measurement's serving stack; plans use 1);
    `spec_host_serial`: the stack drafts without overlapping its host work (a measurement of SGLang;
    roofline.serial_speculation_s).
    `parallel_pairs` ((TP, EP), ...) replaces the cross product of the two axes (the search's pairs).
    `feasible_only`: with the batches ascending, only the feasible points are evaluated (the search reads no
    other), the rest hold NaN (their max_batch_by_memory and `feasible` as always); every evaluated point's
    values are the same. It runs in one pass: `progress` and `should_cancel` are not called (the search, its
    only caller, passes neither).
    """
    b = np.asarray(batches, float).ravel()
    spec_decode_acceptance = acceptance_or_none(spec_decode_acceptance)   # None: no published rate, 0
    combos = list(_combos(tensor_parallel, expert_parallel, attention_dp, weight_precisions, kv_precisions,
                          spec_decode_draft_tokens, parallel_pairs))
    arch = architecture(model)
    possible = _possible(device, model, [c[0] for c in combos], [c[1] for c in combos], attention_weight_precision)
    cols = {name: np.array([c[i] for c in combos]) for i, name in enumerate(CONFIG_COLUMNS)}
    cols = _precision_columns(device, factors, cols)
    mixed = dict(shared_weight_args(device, attention_weight_precision, factors), stack_step_ratio=stack_scale,
                 stack_overhead_ratio=stack_overhead, spec_host_serial=spec_host_serial)
    if feasible_only and np.all(np.diff(b) > 0):
        out = _feasible_points(device, arch, workload, b, cols, possible, spec_decode_acceptance, factors, mixed)
        batch = out["batch"]
    else:
        batch = np.tile(b, len(combos))
        out = {k: np.empty(len(combos) * b.size) for k in ("u", "d", "t", "p", "m")}
        chunk = _chunk_size(len(combos), b.size, progress is not None or should_cancel is not None)
        for start in range(0, len(combos), chunk):
            if should_cancel is not None and should_cancel():
                raise Cancelled("sweep cancelled")
            stop = min(start + chunk, len(combos))
            _evaluate_chunk(device, arch, workload, b, cols, start, stop, spec_decode_acceptance, factors, out, mixed)
            if progress is not None:
                progress(stop / len(combos))
    if "count" in out:   # feasible_only: a configuration's feasible batches are the first `count` (the same test)
        feasible = (np.arange(b.size)[None, :] < out["count"][:, None]).ravel()
    else:
        feasible = np.repeat(possible, b.size) & (batch <= out["m"]) & (out["m"] >= 1)
    return SweepResult(batch, MappingProxyType({c: cols[c] for c in CONFIG_COLUMNS}), int(b.size),
                       float(spec_decode_acceptance), out["u"], out["d"], out["t"], out["p"], out["m"], feasible)


def _possible(device, model, tensor_parallel, expert_parallel, attention_weight_precision: str) -> np.ndarray:
    """Per configuration, whether its (TP, EP) is possible on the device and model (`config_problems`, which
    reads nothing else): decided once per distinct pair."""
    pairs = [(int(tp), int(ep)) for tp, ep in zip(np.asarray(tensor_parallel).tolist(), np.asarray(expert_parallel).tolist())]
    ok = {pair: not config_problems(device, model, ServingConfig(tensor_parallel=pair[0], expert_parallel=pair[1],
                                                                 attention_weight_precision=attention_weight_precision))
          for pair in set(pairs)}
    return np.array([ok[pair] for pair in pairs], bool)


PROGRESS_STEPS = 20          # chunks of a sweep that reports progress or may be cancelled (a GUI worker)
# (configuration, batch) points per kernel call otherwise: ~256 kB per temporary, still in cache, and half the
# calls of 16,384 (each call's fixed cost is about a millisecond): the serving search's sweeps take 10-15 % less
POINTS_PER_CHUNK = 32_768


def _chunk_size(configurations: int, batches: int, reports: bool) -> int:
    """Configurations per kernel call: PROGRESS_STEPS steps where a caller follows the sweep, else
    as many as POINTS_PER_CHUNK points allow (fewer calls: the per-call overhead dominates small
    sweeps). Every point's value is the same at any chunking (the kernel is elementwise per point)."""
    if reports:
        return max(1, int(np.ceil(configurations / PROGRESS_STEPS)))
    return max(1, min(configurations, POINTS_PER_CHUNK // max(batches, 1)))


def _per_precision(value, precisions) -> np.ndarray:
    """`value(precision)` for each configuration's precision: computed once per distinct precision (a sweep
    holds a handful among hundreds of configurations)."""
    names = np.asarray(precisions).ravel().tolist()
    found = {p: value(str(p)) for p in dict.fromkeys(names)}   # (np.unique would sort the strings: slower)
    return np.array([found[p] for p in names])


def _precision_columns(device, factors, cols) -> dict:
    """The configuration columns with the kernel's per-precision values beside them (bytes per value, math
    peaks, weight-only), computed once per sweep, not per kernel call."""
    weights, kv = cols["weight_precision"], cols["kv_precision"]
    return {**cols, "_weight_bytes": _per_precision(bytes_per_value, weights), "_kv_bytes": _per_precision(bytes_per_value, kv),
            "_peak": _per_precision(lambda p: peak_flops(device, p, factors.fp4_math_efficiency), weights),
            "_attention_peak": _per_precision(lambda p: attention_peak_flops(device, p), kv),
            "_weight_only": _per_precision(lambda p: is_weight_only(device, p), weights)}


def _feasible_points(device, arch, workload, b, cols, possible, acceptance, factors, mixed) -> dict:
    """`sweep`'s output arrays with only the feasible points evaluated (the rest NaN). A configuration's
    feasible batches are those up to its memory limit (the kernel's, read without it: `_memory_limits`): with the
    batches ascending, a prefix of them. The configurations, in order of that prefix's length, are evaluated in
    chunks of about POINTS_PER_CHUNK points, each chunk over its longest prefix (as `_evaluate_chunk` over
    every batch). Also: "batch", every point's batch, and "count", each configuration's number of feasible
    batches."""
    n = len(possible)
    limit = np.broadcast_to(_memory_limits(device, arch, workload, cols, factors, mixed), (n, 1))[:, 0]
    # the point arrays (u, d, t, p, m) and the batches tiled as the rows of one block: one allocation, not six
    # (each array of a wide sweep is megabytes, and fresh memory is paid page by page; a block of 4 MB or more is
    # given huge pages where the system offers them). Every value is written once: not filled with NaN first
    block = np.empty((6, n * b.size))
    out = dict(zip(("u", "d", "t", "p", "m", "batch"), block))
    out["m"].reshape(n, b.size)[:] = limit[:, None]       # np.repeat(limit, b.size)
    out["batch"].reshape(n, b.size)[:] = b[None, :]       # np.tile(b, n)
    points = block[:4].reshape(4, n, b.size)              # u, d, t, p: one row per configuration
    count = out["count"] = np.where(possible & (limit >= 1), np.searchsorted(b, limit, side="right"), 0)
    order = np.argsort(count, kind="stable")
    start = int(np.searchsorted(count[order], 1))   # configurations with no feasible batch: nothing to evaluate
    points[:, order[:start]] = np.nan
    while start < n:
        stop = start + 1
        while stop < n and (stop + 1 - start) * count[order[stop]] <= POINTS_PER_CHUNK:
            stop += 1
        rows_ = order[start:stop]
        width = int(count[rows_].max())
        r = _kernel(device, arch, workload, b[None, :width], {c: v[rows_] for c, v in cols.items()},
                    slice(None), acceptance, factors, mixed)
        kept = np.arange(width)[None, :] < count[rows_][:, None]
        # each row's first `width` points: its values where feasible, NaN past its count (not evaluated)
        for i, arr in enumerate((r.tokens_per_s_per_user, r.tokens_per_s_per_device, r.ttft_s, r.power_w)):
            points[i, rows_, :width] = np.where(kept, arr, np.nan)
        points[:, rows_, width:] = np.nan
        start = stop
    return out


def _memory_limits(device, arch, workload, cols, factors, mixed) -> np.ndarray:
    """Per configuration ([n, 1]), the kernel's max_batch_by_memory, which no batch enters: the call
    `roofline.evaluate` makes, on the same columns (`_kernel`'s), without the rest of the kernel."""
    col = lambda name: cols[name][:, None]  # noqa: E731
    devices = np.asarray(col("tensor_parallel"), float) * np.asarray(col("expert_parallel"), float)
    return max_batch_by_memory(arch, capacity_gb(device), factors.usable_memory_fraction, devices,
                               np.asarray(col("attention_dp"), bool), col("_weight_bytes"), col("_kv_bytes"),
                               float(workload.input_tokens) + float(workload.output_tokens),
                               mixed.get("shared_weight_bytes_per_value"))


def _evaluate_chunk(device, arch, workload, b, cols, start, stop, acceptance, factors, out, mixed):
    r = _kernel(device, arch, workload, b[None, :], cols, slice(start, stop), acceptance, factors, mixed)
    flat = slice(start * b.size, stop * b.size)
    shape = (stop - start, b.size)
    for key, arr in (("u", r.tokens_per_s_per_user), ("d", r.tokens_per_s_per_device), ("t", r.ttft_s),
                     ("p", r.power_w), ("m", r.max_batch_by_memory)):
        out[key][flat] = np.broadcast_to(arr, shape).ravel()


def _kernel(device, arch, workload, batch, cols, sl, acceptance, factors, mixed):
    """`roofline.evaluate` of the configurations `cols[...][sl]` (one per row; `_precision_columns`) at `batch`
    (a row of batches shared by every configuration, [1, B], or one row per configuration, [n, B])."""
    col = lambda name: cols[name][sl][:, None]  # noqa: E731
    serving = ServingArrays(
        batch_sequences=batch, tensor_parallel=col("tensor_parallel"), expert_parallel=col("expert_parallel"),
        attention_dp=col("attention_dp"), weight_bytes_per_value=col("_weight_bytes"), kv_bytes_per_value=col("_kv_bytes"),
        peak_flop_s=col("_peak"), attention_peak_flop_s=col("_attention_peak"), draft_tokens=col("spec_decode_draft_tokens"),
        acceptance_fraction=acceptance, weight_only=col("_weight_only"), **mixed)
    requests = WorkloadArrays(
        input_tokens=float(workload.input_tokens), output_tokens=float(workload.output_tokens),
        prefix_cache_hit_fraction=float(workload.prefix_cache_hit_rate),
        latency_percentile=getattr(workload, "latency_percentile", "mean") or "mean",
        software_speed_ratio=software_speed(getattr(workload, "software_date", ""), arch.is_moe, factors))
    return evaluate(device, arch, serving, requests, factors)


@dataclass(frozen=True)
class RowPoints:
    """`rows`' points, one row per configuration ([n, B] arrays, units in the names)."""

    tokens_per_s_per_user: np.ndarray
    tokens_per_s_per_device: np.ndarray
    ttft_s: np.ndarray
    power_w: np.ndarray
    max_batch_by_memory: np.ndarray | float    # [n, 1]; a number in one configuration's row
    feasible: np.ndarray
    prefill_share: np.ndarray           # the share of a replica's time spent prefilling

    def row(self, i: int, size: int) -> RowPoints:
        """Configuration i's first `size` points (1-D; its memory limit a number)."""
        def first(v) -> np.ndarray:
            return np.asarray(v)[i, :size]
        return RowPoints(first(self.tokens_per_s_per_user), first(self.tokens_per_s_per_device), first(self.ttft_s),
                         first(self.power_w), float(np.asarray(self.max_batch_by_memory)[i, 0]), first(self.feasible),
                         first(self.prefill_share))


def rows(device, model, workload, configurations: Mapping[str, np.ndarray], batches: np.ndarray, *,
         spec_decode_acceptance=None, attention_weight_precision: str = "",
         factors: EfficiencyFactors = DEFAULT_FACTORS) -> RowPoints:
    """Each configuration (CONFIG_COLUMNS -> one value per configuration) at its own row of batches
    ([n, B] sequences per replica), in one kernel call: every value equal to the sweep's (and the
    generated curve's) for the same configuration and batch (the kernel is elementwise per point). A row
    may repeat a batch to fill its width."""
    b = np.asarray(batches, float)
    n = b.shape[0]
    possible = _possible(device, model, configurations["tensor_parallel"], configurations["expert_parallel"],
                         attention_weight_precision)
    r = row_kernel(device, model, workload, configurations, b, spec_decode_acceptance=spec_decode_acceptance,
                   attention_weight_precision=attention_weight_precision, factors=factors)
    m = np.broadcast_to(r.max_batch_by_memory, (n, 1))
    return RowPoints(np.broadcast_to(r.tokens_per_s_per_user, b.shape), np.broadcast_to(r.tokens_per_s_per_device, b.shape),
                     np.broadcast_to(r.ttft_s, b.shape), np.broadcast_to(r.power_w, b.shape), m,
                     possible[:, None] & (b <= m) & (m >= 1), np.broadcast_to(r.prefill_share, b.shape))


def row_kernel(device, model, workload, configurations: Mapping[str, np.ndarray], batches: np.ndarray, *,
               spec_decode_acceptance=None, attention_weight_precision: str = "", factors: EfficiencyFactors = DEFAULT_FACTORS):
    """`roofline.evaluate`'s arrays (RooflineArrays, each broadcastable to [n, B]) of each configuration
    (one per row) at its row of `batches` [n, B]: every value as the generated curve's of the configuration
    alone (`generated.run_roofline`)."""
    b = np.asarray(batches, float)
    return _kernel(device, architecture(model), workload, b, _precision_columns(device, factors, configurations),
                   slice(0, b.shape[0]), acceptance_or_none(spec_decode_acceptance), factors,
                   dict(shared_weight_args(device, attention_weight_precision, factors)))


def row_memory_limits(device, model, workload, configurations: Mapping[str, np.ndarray], *,
                      attention_weight_precision: str = "", factors: EfficiencyFactors = DEFAULT_FACTORS) -> np.ndarray:
    """`row_kernel`'s max_batch_by_memory of each configuration ([n, 1]; no batch enters it), without the rest of
    the kernel: the same values."""
    return _memory_limits(device, architecture(model), workload, _precision_columns(device, factors, configurations),
                          factors, dict(shared_weight_args(device, attention_weight_precision, factors)))


def serving_columns(servings) -> tuple[dict, object, str]:
    """(CONFIG_COLUMNS -> one value per configuration, their spec_decode_acceptance, their
    attention_weight_precision) of serving configurations that share those two (a search space's), for
    `row_kernel`; ValueError where they differ."""
    first = servings[0]
    shared = (first.spec_decode_acceptance, first.attention_weight_precision)
    if any((s.spec_decode_acceptance, s.attention_weight_precision) != shared for s in servings):
        raise ValueError("the configurations must share one acceptance and mixed precision")
    return {c: np.array([getattr(s, c) for s in servings]) for c in CONFIG_COLUMNS}, shared[0], shared[1]
