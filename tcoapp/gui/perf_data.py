"""Engine calls behind the performance view: each plan's curve over a batch grid (cached), and the
frontier sweep job for a plan's device and model. No Qt here; everything comes from the engine."""
from __future__ import annotations

from functools import partial

import numpy as np

from ..engine.fields import SELECTION_FIELDS, SERVING_FIELDS, WORKLOAD_FIELDS
from ..engine.operating import plan_curve
from ..engine.pools import pool_plan, resolve_pools

GRID = np.unique(np.round(np.geomspace(1, 4096, 64)))
SWEEP_BATCHES = np.unique(np.round(np.geomspace(1, 8192, 48)))
_CURVE_KEYS = tuple(f.name for f in SELECTION_FIELDS + WORKLOAD_FIELDS + SERVING_FIELDS if f.name != "batch")
_cache: dict = {}


def _grid(scenario, plan) -> np.ndarray:
    if plan.curve and plan.curve in scenario.curves:
        lo, hi = scenario.curves[plan.curve].batch_range
        return np.geomspace(lo, hi, 48)
    return GRID


def shown_plan(plan):
    """The plan whose curve the view draws: a fleet with Pools rows shows its first serve or decode
    pool (its device and serving configuration); any other plan shows itself."""
    if not plan.pools:
        return plan
    pools = resolve_pools(plan)
    main = next((p for p in pools if p.role in ("serve", "decode")), pools[0])
    return pool_plan(plan, main)


def curve_for(scenario, plan) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(batch, {tokens_per_s_per_device, tokens_per_s_per_user, tokens_per_joule}); infeasible = NaN.
    A fleet plan's curve is its first serve or decode pool's (`shown_plan`)."""
    plan = shown_plan(plan)
    key = (tuple(getattr(plan, k) for k in _CURVE_KEYS), id(scenario.devices), id(scenario.models),
           id(scenario.curves), scenario.factors_for(plan.device))
    hit = _cache.get(key)
    if hit is not None and hit[0] is scenario.devices and hit[1] is scenario.models and hit[2] is scenario.curves:
        return hit[3]
    batch = _grid(scenario, plan)
    try:
        curve, _ = plan_curve(scenario, plan, batch)
        bad = ~np.asarray(curve.feasible, bool) if not plan.curve else np.zeros(batch.shape, bool)
        values = {"tokens_per_s_per_device": np.where(bad, np.nan, curve.tokens_per_s_per_device),
                  "tokens_per_s_per_user": np.where(bad, np.nan, curve.tokens_per_s_per_user),
                  "tokens_per_joule": np.where(bad, np.nan, curve.tokens_per_joule)}
    except Exception:  # noqa: BLE001 - the plan's notes carry the engine's message; draw nothing
        nan = np.full(batch.shape, np.nan)
        values = {"tokens_per_s_per_device": nan, "tokens_per_s_per_user": nan, "tokens_per_joule": nan}
    if len(_cache) > 256:
        _cache.clear()
    _cache[key] = (scenario.devices, scenario.models, scenario.curves, (batch, values))
    return batch, values


def sweep_key(plan) -> tuple:
    return (plan.device, plan.model, plan.input_tokens, plan.output_tokens, plan.prefix_cache_hit_rate,
            plan.spec_decode_acceptance)


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
    try:
        from ..engine.performance.frontier import sweep
    except ImportError as exc:
        return f"The frontier sweep is not available in this build ({exc})."
    try:
        device, model = scenario.device(plan.device), scenario.model(plan.model)
    except KeyError as exc:
        return f"Unknown device or model: {exc}"
    return partial(sweep, device, model, plan.workload, batches=batches,
                   spec_decode_acceptance=plan.spec_decode_acceptance, factors=scenario.factors_for(plan.device),
                   **sweep_options(device, model))
