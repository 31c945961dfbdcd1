"""Per-pool physics of a fleet plan (docs/model.md, "Fleet plans").

Two stages, so that sizing can sit between them:
1. `pool_capacities`: what one device of each pool does, independent of how many there are: a
   `serve` pool's operating point (measured or generated, at its batch or its interactivity target,
   exactly the single-device operating point), a prefill pool's request rate and TTFT part, a decode
   pool's batch, per-user rate and request rate (formulas: performance/pool_pair.py).
2. `fleet_point`: with the pools' device counts, the plan's request rate (serve pools add up; a
   prefill/decode pair runs at the smallest of prefill capacity, decode capacity and the KV link),
   each pool's tokens/s per device and power at what it actually serves, and the plan's operating
   point over all its devices. A one-pool plan's point is its pool's point, unchanged.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .operating import operating_point, search_batches
from ..performance.curve import OperatingPoint, meets_target, missing_point
from ..performance.pool_pair import (
    busy_power_w, decode_curve, kv_link_gb_s, kv_transfer_s, pair_rate, prefill_capacity,
)
from ..core.number_format import number
from .routing import route_by_year
from ..plan.pools import ResolvedPool
from ..quantities.records import Device, Plan
from ..plan.scenario import Scenario
from .class_mix import MixPoint, mix_operating_point, search_mix_pool
from .decode_points import decode_points
from .gain_spaces import GAIN_SPACES
from .search import SearchOutcome, search_by_evaluation, search_serve_pool

NAN = float("nan")


@dataclass(frozen=True)
class PoolCapacity:
    pool: ResolvedPool
    device: Device
    point: OperatingPoint              # per device of the pool, before the plan's rate is known
    requests_per_s_per_device: float   # what one device can serve (prefill: prefill; decode: decode)
    busy: float = 1.0                  # decode: busy fraction of a step; prefill: 1
    kv_bytes: float = 0.0              # prefill: KV cache of one request
    link_gb_s: float = 0.0             # prefill/decode: per-device bandwidth carrying the KV cache
    link: str = ""
    search: SearchOutcome | None = None   # serving_search = auto: what the search chose
    mix: MixPoint | None = None           # a plan's request classes: each class's figures at the point


@dataclass(frozen=True)
class FleetPoint:
    point: OperatingPoint                   # the plan's, per device over all pools
    pool_points: tuple[OperatingPoint, ...]  # per device of each pool, at what it serves
    requests_per_s: tuple[float, ...]       # per pool (prefill pools: requests prefilled)
    limited_by: str                          # "", "prefill", "decode" or "kv_transfer"
    warnings: tuple[str, ...]


def pool_capacities(scenario: Scenario, plan: Plan, pools: tuple[ResolvedPool, ...], loads=()) -> tuple[PoolCapacity, ...]:
    """What one device of each pool does before the fleet's rate is known (stage 1, module docstring).
    `loads`: the plan's request classes (`plan/request_classes.class_loads`; `plan` then the mix's
    equivalent request): each serve pool runs where every class meets its target (`class_mix.py`)."""
    if loads:
        return tuple(_mix_capacity(scenario, plan, p, loads) if p.role == "serve" else _no_pair_mix(scenario, p)
                     for p in pools)
    serve = {i: _serve_capacity(scenario, plan, p) for i, p in enumerate(pools) if p.role == "serve"}
    pair = _pair_capacities(scenario, plan, pools)
    return tuple(serve.get(i) or pair[i] for i in range(len(pools)))


def _serve_capacity(scenario, plan, pool) -> PoolCapacity:
    outcome = None
    if plan.serving_search == "auto" and not pool.curve:
        pool, outcome = search_serve_pool(scenario, plan, pool, keeps=GAIN_SPACES)   # the gains' spaces evaluated with it
    chosen = outcome.chosen_curve if outcome is not None and outcome.chosen_curve is not None else None
    point, _ = operating_point(scenario, plan, pool, chosen() if chosen is not None else None)  # the search's curve
    rate = point.tokens_per_s_per_device / plan.output_tokens if point.exists else NAN
    return PoolCapacity(pool, scenario.device(pool.device), point, rate, search=outcome)


def _mix_capacity(scenario, plan, pool, loads) -> PoolCapacity:
    outcome = None
    if plan.serving_search == "auto" and not pool.curve:
        pool, outcome = search_mix_pool(scenario, plan, pool, loads)
    point, mix = mix_operating_point(scenario, plan, pool, loads)
    rate = mix.requests_per_s_per_device if mix is not None else NAN
    return PoolCapacity(pool, scenario.device(pool.device), point, rate, search=outcome, mix=mix)


def _no_pair_mix(scenario, pool) -> PoolCapacity:
    """A prefill or decode pool of a plan with request classes: not computed (a serve pool serves the mix)."""
    reason = (f"pool {pool.name!r} ({pool.role}): request classes are served by serve pools; a prefill/decode pair "
              "serves the plan's single request of its Plans keys (remove the Workloads rows, or serve the mix "
              "with serve pools)")
    return PoolCapacity(pool, scenario.device(pool.device), missing_point("pools", reason), NAN)


def _pair_capacities(scenario, plan, pools) -> dict[int, PoolCapacity]:
    prefill = [i for i, p in enumerate(pools) if p.role == "prefill"]
    decode = [i for i, p in enumerate(pools) if p.role == "decode"]
    if not prefill:
        return {}
    model, workload = scenario.model(plan.model), plan.workload
    out: dict[int, PoolCapacity] = {}
    pre_caps = {}
    for i in prefill:
        device = scenario.device(pools[i].device)
        pre_caps[i] = (device, prefill_capacity(device, model, pools[i].serving, workload,
                                                scenario.factors_for(device.name)))
    for j in decode:
        device = scenario.device(pools[j].device)
        receive = min((kv_link_gb_s(pre_device, device)[1:] for pre_device, _ in pre_caps.values()))
        out[j] = _searched_decode(scenario, plan, pools[j], device, pre_caps, receive)
    for i, (device, cap) in pre_caps.items():
        link_gb_s, _, kind = min(kv_link_gb_s(device, scenario.device(pools[j].device)) for j in decode)
        point = OperatingPoint(1.0, 0.0, NAN, cap.ttft_part_s, NAN, NAN, "generated:prefill",
                               warnings=cap.problems, prefill_share=1.0)
        if cap.problems:
            point = missing_point("generated:prefill", "; ".join(cap.problems))
        out[i] = PoolCapacity(pools[i], device, point, cap.requests_per_s_per_device, 1.0, cap.kv_bytes, link_gb_s, kind)
    return out


def _lead_s(pre_caps, pool, device) -> float:
    """TTFT before the first decode step of a request decoded by `pool`: the slowest prefill pool's
    isolated prefill + its KV transfer, kv_bytes / (min(n_p x link_p, n_d x link_d) x 1e9)."""
    n_d = pool.serving.tensor_parallel * pool.serving.expert_parallel
    lead_s = 0.0
    for pre_device, cap in pre_caps.values():
        send, receive, _ = kv_link_gb_s(pre_device, device)
        lead_s = max(lead_s, cap.ttft_part_s + kv_transfer_s(cap.kv_bytes, 1, min(cap.replica_devices * send,
                                                                                  n_d * receive)))
    return lead_s


def _searched_decode(scenario, plan, pool, device, pre_caps, link) -> PoolCapacity:
    """The decode pool's capacity at its typed configuration, or (serving_search = auto) at the best
    configuration of its space, each evaluated exactly at full load."""
    if plan.serving_search != "auto":
        return _decode_capacity(scenario, plan, pool, device, _lead_s(pre_caps, pool, device), link)

    def evaluate(candidates):   # every configuration's capacity in two kernel calls (serving/decode_points.py)
        lead_s = [_lead_s(pre_caps, candidate, device) for candidate in candidates]
        return decode_points(scenario, plan, device, [candidate.serving for candidate in candidates], lead_s)

    chosen, outcome = search_by_evaluation(scenario, plan, pool, evaluate)
    return replace(_decode_capacity(scenario, plan, chosen, device, _lead_s(pre_caps, chosen, device), link),
                   search=outcome)


def _decode_capacity(scenario, plan, pool, device, lead_s, link) -> PoolCapacity:
    model, workload, factors = scenario.model(plan.model), plan.workload, scenario.factors_for(device.name)
    probe = decode_curve(device, model, pool.serving, workload, 1.0, factors)
    b_max = probe.max_batch_by_memory
    source = "generated:decode"
    if probe.problems or not b_max >= 1:
        reason = "; ".join(probe.problems) or f"{model.name} does not fit in a {device.name} decode replica"
        return PoolCapacity(pool, device, missing_point(source, reason, b_max), NAN, link_gb_s=link[0], link=link[1])
    if plan.has_target:
        curve = decode_curve(device, model, pool.serving, workload, search_batches(b_max), factors)
        ttft = lead_s + curve.step_s
        ok = (curve.batch <= b_max) & meets_target(curve.tokens_per_s_per_user, ttft, plan.min_tokens_per_s_per_user,
                                                   plan.max_ttft_s)
        if not ok.any():
            return PoolCapacity(pool, device, missing_point(source, "the target is not met at any feasible batch of "
                                                                   f"the decode pool {pool.name!r}", b_max), NAN,
                                link_gb_s=link[0], link=link[1])
        k = int(np.nonzero(ok)[0][-1])
        note: tuple[str, ...] = (f"batch {curve.batch[k]:g} chosen for the target",)
    else:
        curve = decode_curve(device, model, pool.serving, workload, float(pool.serving.batch), factors)
        if curve.batch[0] > b_max:
            return PoolCapacity(pool, device, missing_point(source, f"infeasible: batch {curve.batch[0]:g} above "
                                                                   f"max_batch_by_memory ({b_max:g})", b_max), NAN,
                                link_gb_s=link[0], link=link[1])
        k, note = 0, ()
    point = OperatingPoint(float(curve.batch[k]), NAN, float(curve.tokens_per_s_per_user[k]),
                           float(lead_s + curve.step_s[k]), NAN, b_max, source, warnings=note, prefill_share=0.0)
    return PoolCapacity(pool, device, point, float(curve.requests_per_s_per_device[k]), float(curve.busy[k]),
                        link_gb_s=link[0], link=link[1])


def fleet_point(plan: Plan, caps: tuple[PoolCapacity, ...], counts: np.ndarray, factors_for) -> FleetPoint:
    """The plan's operating point with the pools' device counts (see module docstring); `factors_for`
    gives a device name's efficiency factors (its power model)."""
    missing = [c for c in caps if not _usable(c)]
    if missing:
        reasons = "; ".join(f"pool {c.pool.name!r}: {'; '.join(c.point.warnings) or 'no operating point'}" for c in missing)
        point = missing[0].point if len(caps) == 1 else missing_point("pools", reasons)
        return FleetPoint(point, tuple(c.point for c in caps), tuple(NAN for _ in caps), "", ())
    if len(caps) == 1 and caps[0].pool.role == "serve":
        cap = caps[0]
        return FleetPoint(cap.point, (cap.point,), (cap.requests_per_s_per_device * counts[0],), "", ())
    points, rates = [c.point for c in caps], [NAN] * len(caps)
    for i, c in enumerate(caps):
        if c.pool.role == "serve":
            rates[i] = c.requests_per_s_per_device * counts[i]
    limited_by, notes = _pair(plan, caps, counts, points, rates, factors_for)
    return FleetPoint(_plan_point(plan, caps, points, counts), tuple(points), tuple(rates), limited_by, tuple(notes))


def _usable(cap: PoolCapacity) -> bool:
    if cap.pool.role == "prefill":
        return bool(np.isfinite(cap.requests_per_s_per_device) and cap.requests_per_s_per_device > 0
                    and np.isfinite(cap.point.ttft_s))
    return bool(np.isfinite(cap.requests_per_s_per_device) and cap.requests_per_s_per_device > 0)


def _pair(plan, caps, counts, points, rates, factors_for) -> tuple[str, list[str]]:
    """A prefill/decode pair's request rate: the rate and operating point of each pool set in `rates` and
    `points` in place; (what limits the rate, the notes that say so)."""
    pre = [i for i, c in enumerate(caps) if c.pool.role == "prefill"]
    dec = [i for i, c in enumerate(caps) if c.pool.role == "decode"]
    if not pre:
        return "", []
    kv_bytes = max(caps[i].kv_bytes for i in pre)
    prefill_side = [(caps[i].requests_per_s_per_device, counts[i], caps[i].link_gb_s) for i in pre]
    decode_side = [(caps[j].requests_per_s_per_device, counts[j], caps[j].link_gb_s) for j in dec]
    rate, pre_cap, dec_cap, link_cap = pair_rate(prefill_side, decode_side, kv_bytes)
    limits = {"prefill": pre_cap, "decode": dec_cap, "kv_transfer": link_cap}
    limited_by = min(limits, key=lambda side: limits[side])
    for i in pre:
        c = caps[i]
        rates[i] = rate * c.requests_per_s_per_device * counts[i] / pre_cap if pre_cap > 0 else 0.0
        busy = rate / pre_cap if pre_cap > 0 else 0.0
        points[i] = replace(c.point, power_w=float(busy_power_w(c.device, busy, factors_for(c.device.name))))
    served, routing_notes = route_by_year(prefill_side, decode_side, kv_bytes,
                                          [caps[i].pool.purchase_year for i in pre],
                                          [caps[j].pool.purchase_year for j in dec])
    for k, j in enumerate(dec):
        rates[j] = float(served[k])
        points[j] = _decode_point(plan, caps[j], counts[j], rates[j], factors_for)
    notes = [f"prefill/decode: {number(rate, 4)} requests/s, limited by {_limit_text(limited_by)}; prefill capacity "
             f"{number(pre_cap, 4)}, decode capacity {number(dec_cap, 4)}, KV link ({caps[pre[0]].link}) "
             f"{number(link_cap, 4)} requests/s ({number(kv_bytes / 1e6)} MB of KV cache per request)"]
    notes += routing_notes
    notes += _waiting_notes(limits, limited_by, rate)
    return limited_by, notes


def _decode_point(plan, cap: PoolCapacity, count, rate: float, factors_for) -> OperatingPoint:
    """A decode pool's operating point serving `rate` requests/s: its tokens/s per device and its power at
    the share of its capacity that rate uses."""
    capacity = cap.requests_per_s_per_device * count
    used = rate / capacity if capacity > 0 else 0.0
    per_device = rate * plan.output_tokens / count if count > 0 else 0.0
    return replace(cap.point, tokens_per_s_per_device=float(per_device),
                   power_w=float(busy_power_w(cap.device, cap.busy * used, factors_for(cap.device.name))))


def _waiting_notes(limits: dict, limited_by: str, rate: float) -> list[str]:
    """A note for each pool (prefill, decode) with capacity to spare: the share of it the pair uses."""
    return [f"the {name} pool waits: it runs at {rate / limits[name]:.0%} of its capacity"
            for name in ("prefill", "decode") if name != limited_by and limits[name] > rate * (1 + 1e-9)]


def _limit_text(kind: str) -> str:
    return {"prefill": "the prefill pool (the decode pool is starved)",
            "decode": "the decode pool (the prefill pool waits)",
            "kv_transfer": "the KV-cache transfer between the pools"}[kind]


def _plan_point(plan, caps, points, counts) -> OperatingPoint:
    n = float(np.sum(counts))
    tokens = sum(p.tokens_per_s_per_device * k for p, k in zip(points, counts))
    power = sum(p.power_w * k for p, k in zip(points, counts))
    users = [p for p, c in zip(points, caps) if c.pool.role in ("serve", "decode")]
    batches = {p.batch for p in users}
    warnings = tuple(f"pool {c.pool.name!r}: {w}" for c, p in zip(caps, points) for w in p.warnings)
    source = "generated:disaggregated" if any(c.pool.role == "prefill" for c in caps) else "pools"
    return OperatingPoint(
        batch=batches.pop() if len(batches) == 1 else NAN,
        tokens_per_s_per_device=tokens / n if n > 0 else NAN,
        tokens_per_s_per_user=min(p.tokens_per_s_per_user for p in users),
        ttft_s=max(p.ttft_s for p in users),
        power_w=power / n if n > 0 else NAN,
        max_batch_by_memory=min(p.max_batch_by_memory for p in users),
        source=source, extrapolated=any(p.extrapolated for p in points), queued=any(p.queued for p in points),
        warnings=warnings)
