"""Engine calls behind the performance view: each plan's curve over a batch grid (cached), and the
frontier sweep job for a plan's device and model. No Qt here; everything comes from the engine."""
from __future__ import annotations

from functools import partial

import numpy as np

from ..engine.core.errors import TcoError
from ..engine.quantities.inputs import SELECTION_FIELDS, SERVING_FIELDS, WORKLOAD_FIELDS
from ..engine.serving.operating import plan_curve
from ..engine.performance.pool_pair import busy_power_w, decode_curve
from ..engine.plan.pools import pool_plan, resolve_pools

GRID = np.unique(np.round(np.geomspace(1, 4096, 64)))
SWEEP_BATCHES = np.unique(np.round(np.geomspace(1, 8192, 48)))
_CURVE_KEYS = tuple(f.name for f in SELECTION_FIELDS + WORKLOAD_FIELDS + SERVING_FIELDS if f.name != "batch")
_cache: dict = {}


def _grid(scenario, plan) -> np.ndarray:
    if plan.curve and plan.curve in scenario.curves:
        lo, hi = scenario.curves[plan.curve].batch_range
        return np.geomspace(lo, hi, 48)
    return GRID


def _pools(plan) -> tuple:
    """The pools a plan runs where it is not one device serving whole requests: its Pools rows, or the
    prefill/decode pair its prefill_devices:decode_devices split derives (engine/plan/pools.py); () else."""
    if plan.pools or (plan.is_disaggregated and not plan.curve):
        return resolve_pools(plan)
    return ()


def shown_pool(plan) -> int | None:
    """The pool a plan of pools (`_pools`) is drawn as (its first serve or decode pool); None for a plan of
    one device serving whole requests."""
    pools = _pools(plan)
    if not pools:
        return None
    roles = [p.role for p in pools]
    return next((i for i, role in enumerate(roles) if role in ("serve", "decode")), 0)


def has_frontier(plan) -> bool:
    """Whether the Performance tab sweeps a frontier for the plan: the sweep is one device serving whole
    requests, so a plan of pools (Pools rows, or a prefill:decode split: pools of their own devices and
    roles) has none."""
    return not _pools(plan)


def shown_plan(plan):
    """The plan whose curve the view draws: a plan of pools shows its `shown_pool` (its device and serving
    configuration); any other plan shows itself."""
    i = shown_pool(plan)
    return plan if i is None else pool_plan(plan, resolve_pools(plan)[i])


def shown_point(plan, result) -> dict[str, float]:
    """Where the plan's marker sits on the batch charts: its operating point; for a plan of pools (`_pools`)
    its shown pool's (batch, tokens/s per device and per user, tokens per joule at the pool's power)."""
    i = shown_pool(plan)
    m = result.metrics
    keys = ("batch", "tokens_per_s_per_device", "tokens_per_s_per_user", "tokens_per_joule")
    if i is None:
        return {k: float(getattr(m, k)) for k in keys}
    rows = result.pool_rows()
    row = rows[i] if i < len(rows) else {}
    value = lambda k: float(row[k]) if row.get(k) is not None else float("nan")  # noqa: E731
    power = value("power_w")
    return {"batch": value("batch"), "tokens_per_s_per_device": value("tokens_per_s_per_device"),
            "tokens_per_s_per_user": value("tokens_per_s_per_user"),
            "tokens_per_joule": value("tokens_per_s_per_device") / power if power > 0 else float("nan")}


def _decode_values(scenario, plan, batch) -> dict[str, np.ndarray]:
    """A decode pool's own curve: decode steps only (its requests arrive prefilled)."""
    device, factors = scenario.device(plan.device), scenario.factors_for(plan.device)
    curve = decode_curve(device, scenario.model(plan.model), scenario.serving_of(plan), plan.workload, batch, factors)
    per_device = curve.requests_per_s_per_device * plan.output_tokens
    bad = curve.batch > curve.max_batch_by_memory
    power = busy_power_w(device, curve.busy, factors)
    return {"tokens_per_s_per_device": np.where(bad, np.nan, per_device),
            "tokens_per_s_per_user": np.where(bad, np.nan, curve.tokens_per_s_per_user),
            "tokens_per_joule": np.where(bad, np.nan, per_device / power)}


def _values(scenario, plan, batch, decode: bool) -> tuple[dict[str, np.ndarray], float]:
    """The drawn values on `batch` and the largest batch that fits in memory (NaN: not known)."""
    if decode:
        device, factors = scenario.device(plan.device), scenario.factors_for(plan.device)
        b_max = decode_curve(device, scenario.model(plan.model), scenario.serving_of(plan), plan.workload, batch[:1],
                             factors).max_batch_by_memory
        return _decode_values(scenario, plan, batch), float(b_max)
    curve, _ = plan_curve(scenario, plan, batch)
    bad = ~np.asarray(curve.feasible, bool) if not plan.curve else np.zeros(batch.shape, bool)
    return ({"tokens_per_s_per_device": np.where(bad, np.nan, curve.tokens_per_s_per_device),
             "tokens_per_s_per_user": np.where(bad, np.nan, curve.tokens_per_s_per_user),
             "tokens_per_joule": np.where(bad, np.nan, curve.tokens_per_joule)},
            float(getattr(curve, "max_batch_by_memory", np.nan)))


def curve_for(scenario, plan) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(batch, {tokens_per_s_per_device, tokens_per_s_per_user, tokens_per_joule}); infeasible = NaN.
    A fleet plan's curve is its shown pool's (`shown_plan`); a decode pool's is decode only."""
    i = shown_pool(plan)
    decode = i is not None and resolve_pools(plan)[i].role == "decode"
    plan = shown_plan(plan)
    scenario = scenario.for_plan(plan)  # the calibration scoped to the plan's model class and stack
    decode = decode and not plan.curve
    key = (tuple(getattr(plan, k) for k in _CURVE_KEYS), decode, id(scenario.devices), id(scenario.models),
           id(scenario.curves), scenario.factors_for(plan.device))
    hit = _cache.get(key)
    if hit is not None and hit[0] is scenario.devices and hit[1] is scenario.models and hit[2] is scenario.curves:
        return hit[3]
    batch = _grid(scenario, plan)
    try:
        values, b_max = _values(scenario, plan, batch, decode)
        if not plan.curve and np.isfinite(b_max) and batch[0] < b_max < batch[-1] and b_max not in batch:
            batch = np.union1d(batch, [np.floor(b_max)])  # the curve ends at the memory limit, not before it
            values, _ = _values(scenario, plan, batch, decode)
    except TcoError:   # the engine's refusal: the plan's notes carry its message; draw nothing
        nan = np.full(batch.shape, np.nan)
        values = {"tokens_per_s_per_device": nan, "tokens_per_s_per_user": nan, "tokens_per_joule": nan}
    if len(_cache) > 256:
        _cache.clear()
    _cache[key] = (scenario.devices, scenario.models, scenario.curves, (batch, values))
    return batch, values


def sweep_key(plan) -> tuple:
    return (plan.device, plan.model, plan.workload, plan.spec_decode_acceptance)


def sweep_options(device, model) -> dict:
    """The grid swept for a device and model: precisions the device runs natively, TP up to its
    scale-up domain, EP and attention data-parallel for MoE models, speculative decoding off and on."""
    precisions = ["bf16"]
    if device.peak_tflops_fp8 > 0:
        precisions.append("fp8")
    if device.peak_tflops_fp4 > 0:
        precisions.append("nvfp4" if device.vendor.lower().startswith("nvidia") else "mxfp4")
    tp = tuple(t for t in (1, 2, 4, 8) if t <= device.scale_up_domain)
    moe = model.n_experts > 0
    ep = tuple(e for e in (1, 2, 4, 8) if e <= device.scale_up_domain) if moe else (1,)
    return {"tensor_parallel": tp, "expert_parallel": ep, "attention_dp": (False, True) if moe else (False,),
            "weight_precisions": tuple(precisions), "spec_decode_draft_tokens": (0, 3)}


def sweep_for_plan(scenario, plan, batches=SWEEP_BATCHES):
    """A job `f(progress=, should_cancel=) -> SweepResult` for the worker, or an error message."""
    from ..engine.performance.frontier import sweep
    scenario = scenario.for_plan(plan)
    try:
        device, model = scenario.device(plan.device), scenario.model(plan.model)
    except KeyError as exc:
        return f"Unknown device or model: {exc}"
    return partial(sweep, device, model, plan.workload, batches=batches,
                   spec_decode_acceptance=scenario.serving_of(plan).spec_decode_acceptance,
                   factors=scenario.factors_for(plan.device),
                   **sweep_options(device, model))
