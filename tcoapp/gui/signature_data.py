"""Engine calls behind the Decision view's signature chart: one frontier per device (and model) and
each plan's operating point, in tokens/s per device and per MW of facility power against tokens/s
per user. No Qt here.

A device's frontier is the upper envelope of its swept configurations (batch x TP/EP x precision x
speculative decoding, `perf_data.sweep_for_plan`; a sweep takes milliseconds and is cached) and of
the curves of the plans that run on it (so a measured curve is on it too).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine.decision.summary import facility_mw, facility_w_per_device, pareto_upper
from ..engine.core.errors import TcoError
from .perf_data import curve_for, shown_plan, sweep_for_plan, sweep_key

_sweeps: dict = {}


@dataclass(frozen=True)
class Frontier:
    label: str                      # "B200" (or "B200 / Llama-3.3-70B" where plans differ in model)
    device: str
    tokens_per_s_per_user: np.ndarray
    tokens_per_s_per_device: np.ndarray
    tokens_per_s_per_mw: np.ndarray
    plans: tuple[int, ...]          # the plans on this device and model
    problem: str = ""               # why the device's configurations could not be swept ("" when they were)


@dataclass(frozen=True)
class PlanPoint:
    index: int
    name: str
    tokens_per_s_per_user: float
    tokens_per_s_per_device: float
    tokens_per_s_per_mw: float
    target: float | None            # min_tokens_per_s_per_user, when set


def _swept(scenario, plan):
    """(tokens/s per user, tokens/s per device, problem) of the swept configurations of the plan's
    device and model; empty with the reason when the sweep is not possible or fails."""
    try:
        device, model = scenario.device(plan.device), scenario.model(plan.model)
    except KeyError as exc:
        return np.empty(0), np.empty(0), f"unknown device or model {exc}"
    factors = scenario.for_plan(plan).factors_for(plan.device)
    key = (sweep_key(plan), id(device), id(model), factors)
    hit = _sweeps.get(key)
    if hit is not None and hit[0] is device and hit[1] is model:
        return hit[2]
    job = sweep_for_plan(scenario, plan)
    value = (np.empty(0), np.empty(0), job if isinstance(job, str) else "")
    if not isinstance(job, str):
        try:
            result = job(progress=lambda _f: None, should_cancel=lambda: False)
        except TcoError as exc:   # the engine's refusal: the plans' curves still draw; the chart says why
            return np.empty(0), np.empty(0), str(exc)  # not cached: the next refresh tries again
        ok = np.asarray(result.feasible, bool)
        value = (np.asarray(result.tokens_per_s_per_user, float)[ok], np.asarray(result.tokens_per_s_per_device, float)[ok],
                 "" if ok.any() else "no configuration of the sweep is feasible")
    if len(_sweeps) > 64:
        _sweeps.clear()
    _sweeps[key] = (device, model, value)
    return value


def frontiers(scenario, results=()) -> list[Frontier]:
    """One frontier per device and model; `results` (the plans' computed results) add each
    one-pool plan's own operating point, which may sit between the swept batches."""
    groups: dict[tuple, list[int]] = {}
    shown = [shown_plan(p) for p in scenario.plans]
    for i, plan in enumerate(shown):
        groups.setdefault((plan.device, plan.model, sweep_key(plan)), []).append(i)
    models = {k[1] for k in groups}
    out = []
    for (device_name, model_name, _), members in groups.items():
        plan = shown[members[0]]
        sx, sy, problem = _swept(scenario, plan)
        xs, ys = [sx], [sy]
        for i in members:
            _, values = curve_for(scenario, scenario.plans[i])
            xs.append(values["tokens_per_s_per_user"])
            ys.append(values["tokens_per_s_per_device"])
            if i < len(results) and len(results[i].pools) == 1:
                m = results[i].metrics
                xs.append(np.array([m.tokens_per_s_per_user]))
                ys.append(np.array([m.tokens_per_s_per_device]))
        x, y = pareto_upper(np.concatenate(xs), np.concatenate(ys))
        try:
            watts = facility_w_per_device(scenario.device(device_name), plan.pue)
        except KeyError:
            watts = np.nan
        label = device_name if len(models) == 1 else f"{device_name} / {model_name}"
        out.append(Frontier(label, device_name, x, y, y * 1e6 / watts, tuple(members), problem))
    return out


def plan_points(scenario, results) -> list[PlanPoint]:
    out = []
    for i, (plan, r) in enumerate(zip(scenario.plans, results)):
        m = r.metrics
        mw = facility_mw(r)
        per_mw = m.tokens_per_s_per_device * m.device_count / mw if np.isfinite(mw) and mw > 0 else np.nan
        out.append(PlanPoint(i, plan.name, float(m.tokens_per_s_per_user), float(m.tokens_per_s_per_device),
                             float(per_mw), plan.min_tokens_per_s_per_user))
    return out
