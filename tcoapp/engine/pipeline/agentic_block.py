"""A plan's agentic answer (docs/model.md, "Agentic sessions and KV tiers"): for its first agentic request
class (a Workloads row with session_turns), the sessions, hit rate per tier, agents per MW and cost per
agent-hour of its first pool that serves users, on the servers the plan buys (extras included), from
serving/agentic.py. None for a plan without an agentic class: its result is unchanged."""
from __future__ import annotations

import numpy as np

from ..plan.kv_tiers import server_with_kv_tiers
from ..plan.pools import ResolvedPool
from ..serving.agentic import agentic_answer


def agentic_class(plan):
    """The plan's first agentic request class, or None."""
    return next((rc for rc in getattr(plan, "workloads", ()) if rc.session_turns is not None), None)


def agentic_pool_index(pools) -> int | None:
    """The pool (0-based) whose agentic answer the plan gives: its first pool serving users (None: none does)."""
    return next((i for i, p in enumerate(pools) if p.role in ("serve", "decode")), None)


def agentic_block(scenario, plan, pools: tuple[ResolvedPool, ...], fleet, finance, metrics) -> dict | None:
    """The `agentic` block of the plan's JSON, or None (no agentic class, no pool serving users)."""
    request_class = agentic_class(plan)
    i = agentic_pool_index(pools)
    if request_class is None or i is None:
        return None
    pool, point = pools[i], fleet.pool_points[i]
    devices_per_replica = pool.serving.tensor_parallel * pool.serving.expert_parallel
    count = float(np.asarray(finance.pools["device_count"], float)[..., i])
    replicas = max(1, int(count // devices_per_replica)) if np.isfinite(count) else 1
    facility_w = float(np.asarray(finance.pools["it_provisioned_kw"], float)[..., i]) * 1000.0 * plan.pue
    answer = agentic_answer(
        server_with_kv_tiers(scenario.device(pool.device), plan), scenario.model(plan.model), pool.serving,
        request_class, plan.kv_offload, plan.kv_routing, replicas, plan.sessions_per_replica,
        operating_batch=float(point.batch), cost_per_device_hour_usd=float(metrics.cost_per_device_hour_usd),
        utilization=float(plan.utilization), facility_w_per_device=facility_w / count if count > 0 else float("nan"),
        factors=scenario.factors_for(pool.device))
    answer["pool"] = pool.name
    answer["notes"] = tier_notes(server_with_kv_tiers(scenario.device(pool.device), plan), plan.kv_offload)
    return answer


def sessions_hit_rate(plan, agentic: dict | None):
    """(the plan's classes with its agentic class served at its sessions' achieved prefix hit rate, the note
    saying so, {the class: its turn's reload from host memory and NVMe, s}), or None where the plan has no
    agentic answer, or its class already states that rate and its sessions reload nothing."""
    request_class = agentic_class(plan)
    if agentic is None or request_class is None:
        return None
    achieved = float(agentic["achieved_prefix_hit_rate"])
    reload_s = float(agentic.get("turn_reload_s") or 0.0)
    reloads = {request_class.class_: reload_s} if np.isfinite(reload_s) and reload_s > 0 else {}
    stated = request_class.prefix_cache_hit_rate
    if not np.isfinite(achieved) or (stated is not None and abs(stated - achieved) < 1e-12 and not reloads):
        return None
    classes = tuple(rc.with_(prefix_cache_hit_rate=achieved) if rc is request_class else rc for rc in plan.workloads)
    was = "the plan's" if stated is None else f"{stated:g} stated"
    offload = {"none": "HBM only", "host": "host-memory KV tier", "host_nvme": "host-memory and NVMe KV tiers"}
    routing = {"session_affinity": "session-affinity", "random": "random"}
    note = (f"agentic class {request_class.class_!r}: served at its sessions' achieved prefix hit rate {achieved:.3f} "
            f"({offload.get(plan.kv_offload, plan.kv_offload)}, {routing.get(plan.kv_routing, plan.kv_routing)} "
            f"routing; {was} rate replaced): the KV its sessions keep resident decides the prefill work, the "
            "throughput and the cached-input revenue")
    if reloads:
        note += (f"; each of its requests waits {reload_s * 1e3:,.3g} ms reloading its prefix from host memory or NVMe, "
                 "counted in its prefill time (the replica's time and the TTFT)")
    return classes, note, reloads


def tier_notes(server, offload: str) -> list[str]:
    """What a KV offload cannot use on this server: a tier without capacity or without a link (stated, not
    silently computed as none)."""
    notes = []
    if offload in ("host", "host_nvme") and not (server.host_memory_gb > 0 and server.host_link_gb_s > 0):
        notes.append(f"kv_offload = {offload} but {server.name} states no host memory or host link "
                     "(host_memory_gb, host_link_gb_s): the host tier holds nothing; buy extra_host_memory_gb or "
                     "enter the server's figures")
    if offload == "host_nvme" and not (server.nvme_tb > 0 and server.nvme_gb_s > 0):
        notes.append(f"kv_offload = host_nvme but {server.name} states no NVMe capacity or bandwidth (nvme_tb, "
                     "nvme_gb_s): the NVMe tier holds nothing")
    return notes
