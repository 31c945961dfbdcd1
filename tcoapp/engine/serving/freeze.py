"""Freeze what a serving search chose (docs/model.md, "Serving search"): the same plan with `serving_search = off`
and the chosen configuration typed in, so it computes to the same numbers without searching.

A plan without Pools rows (one serve pool) gets the chosen keys on its Plans column; a plan with
Pools rows gets them on each searched pool's row; a prefill_devices:decode_devices plan becomes
the same two pools on Pools rows first, so only its decode pool takes the searched keys. The batch is written only where the plan has no
interactivity target (with a target the engine picks the batch again, the same one).
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

from ..plan.pools import resolve_pools
from ..quantities.records import Plan, Pool, make_pool

if TYPE_CHECKING:
    from .search import SearchOutcome

FROZEN_KEYS = ("tensor_parallel", "expert_parallel", "attention_dp", "weight_precision", "kv_precision",
               "spec_decode_draft_tokens")


def _chosen(plan: Plan, outcome: SearchOutcome) -> dict:
    keys = FROZEN_KEYS + (() if plan.has_target else ("batch",))
    return {k: getattr(outcome.serving, k) for k in keys}


def frozen_plan(plan: Plan, searches: Sequence[SearchOutcome | None]) -> Plan:
    """The plan with the searched configurations typed in and the search off (see module docstring);
    `searches` per pool in the plan's pool order (PlanResult.searches)."""
    if not any(s is not None for s in searches):
        return plan
    if not plan.pools and plan.is_disaggregated:
        plan = _explicit_pair(plan)  # the prefill pool keeps the plan's keys, the decode pool gets its own
    if not plan.pools:
        return plan.with_(serving_search="off", **_chosen(plan, next(s for s in searches if s is not None)))
    pools: list[Pool] = [replace(pool, **_chosen(plan, s)) if s is not None else pool
                         for pool, s in zip(plan.pools, searches)]
    return plan.with_(serving_search="off", pools=tuple(pools))


def _explicit_pair(plan: Plan) -> Plan:
    """A prefill_devices:decode_devices plan as the same two pools on Pools rows (ratio keys cleared)."""
    pools = tuple(make_pool({"plan": plan.name, "pool": p.name, "role": p.role, "device": p.device,
                             "device_count": p.device_count}) for p in resolve_pools(plan))
    return plan.with_(pools=pools, prefill_devices=0, decode_devices=0, prefill_device="", decode_device="")
