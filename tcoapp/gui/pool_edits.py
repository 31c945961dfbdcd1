"""Undoable edits of a plan's pools through the document (validated like a Pools sheet row).

A plan without Pools rows has derived pools (one `serve` pool, or the prefill and decode pools of
its prefill_devices:decode_devices ratio); the first pool edit turns them into explicit rows, and a
derived pair's ratio keys are cleared in the same undo step, so the plan means the same thing.
Removing the last row returns the plan to its single pool of `device`.
"""
from __future__ import annotations

from typing import Any

from ..engine.core.errors import ValidationError
from ..engine.quantities.inputs import POOL_FIELDS, by_name
from ..engine.plan.pools import pool_problems, resolve_pools
from ..engine.quantities.records import Plan, Pool, make_pool
from ..engine.plan.scenario import reference_problems
from .document import Document
from .labels import parse_input

POOL_FIELD_BY_NAME = by_name(POOL_FIELDS)


def explicit_pools(plan: Plan) -> tuple[Pool, ...]:
    """The plan's pools as Pools rows (a plan without rows: its derived pools, every key the plan's)."""
    if plan.pools:
        return plan.pools
    return tuple(make_pool({"plan": plan.name, "pool": p.name, "role": p.role, "device": p.device,
                            "device_count": p.device_count}) for p in resolve_pools(plan))


def _plan_with(plan: Plan, pools) -> Plan:
    changes: dict[str, Any] = {"pools": tuple(pools)}
    if pools and plan.is_disaggregated:
        changes.update(prefill_devices=0, decode_devices=0, prefill_device="", decode_device="")
    return plan.with_(**changes)


def _apply(doc: Document, index: int, pools, text: str) -> str | None:
    plan = doc.scenario.plans[index]
    new_plan = _plan_with(plan, pools)
    new = doc.scenario.replace_plan(index, new_plan)
    where = lambda k, key: f"pool {new_plan.pools[k].pool!r}"  # noqa: E731
    problems = pool_problems(new_plan, where)
    problems += [p for p in reference_problems(new) if p.where.startswith(f"Plan {plan.name!r} pool")]
    if problems:
        return "; ".join(f"{p.where} {p.field} {p.message}".strip() for p in problems)
    doc.push(new, text)
    return None


def set_pool_value(doc: Document, index: int, pool_index: int, key: str, raw: Any) -> str | None:
    """Set one key of one pool ("" or None: the plan's value); an error message, or None when done."""
    plan = doc.scenario.plans[index]
    pools = list(explicit_pools(plan))
    values = pools[pool_index].as_dict()
    values[key] = parse_input(POOL_FIELD_BY_NAME[key], raw) if key in POOL_FIELD_BY_NAME else raw
    values.update(_ownership_follows(key, values))
    try:
        pools[pool_index] = make_pool(values)
    except ValidationError as exc:
        text = "; ".join(f"{p.field} {p.message}".strip() for p in exc.problems)
        if key == "ownership" and values[key] == "rent":
            text += " (type the rent per device-hour in the Rent column: that rents the pool in one step)"
        return text
    if tuple(pools) == plan.pools:
        return None
    label = POOL_FIELD_BY_NAME[key].label if key in POOL_FIELD_BY_NAME else key
    return _apply(doc, index, pools, f"Set {label} of pool {values['pool']!r} of {plan.name!r}")


def _ownership_follows(key: str, values: dict) -> dict:
    """Renting is one edit: typing a rent > 0 on a bought pool rents it; setting a rented pool to buy
    clears its rent (the engine refuses a bought pool with a rent and a rented one without)."""
    if key == "rent_usd_per_device_hour":
        try:
            if float(str(values[key]).replace(",", "")) > 0:
                return {"ownership": "rent"}
        except (TypeError, ValueError):
            return {}
    if key == "ownership" and values[key] == "buy":
        return {"rent_usd_per_device_hour": 0.0}
    return {}


def add_pool(doc: Document, index: int) -> str | None:
    """Add a pool (a copy of the last one, under a new name)."""
    plan = doc.scenario.plans[index]
    pools = list(explicit_pools(plan))
    names = {p.pool for p in pools}
    n = len(pools) + 1
    while f"pool {n}" in names:
        n += 1
    pools.append(pools[-1].with_(pool=f"pool {n}"))
    return _apply(doc, index, pools, f"Add pool 'pool {n}' to {plan.name!r}")


def remove_pool(doc: Document, index: int, pool_index: int) -> str | None:
    plan = doc.scenario.plans[index]
    pools = list(explicit_pools(plan))
    removed = pools.pop(pool_index)
    return _apply(doc, index, pools, f"Remove pool {removed.pool!r} from {plan.name!r}")


def add_deployment_plans(document, curves) -> list[str]:
    """Each disaggregated deployment among `curves` as a two-pool plan (undoable); the problems, one per curve."""
    from ..engine.core.errors import ValidationError
    from ..engine.plan.pools_from_curve import is_disaggregated, two_pool_plan

    problems = []
    for curve in (c for c in curves if is_disaggregated(c)):
        template = document.current_plan()
        try:
            plan = two_pool_plan(curve, template, document.unique_name(f"{curve.name} (pools)"))
        except (ValueError, ValidationError) as exc:
            problems.append(f"{curve.name}: {exc}")
            continue
        document.push(document.scenario.with_plans(document.scenario.plans + (plan,)), f"Add plan {plan.name!r}")
    return problems


SPLIT_RATIO = (1, 3)   # prefill : decode devices of a new split (the plan's notes give the balanced ratio)


def can_split(plan: Plan) -> bool:
    """A plan with a serve pool (and no prefill/decode pair yet) can be split into a prefill/decode pair."""
    roles = [p.role for p in resolve_pools(plan)]
    return "serve" in roles and "prefill" not in roles


def can_merge(plan: Plan) -> bool:
    roles = [p.role for p in resolve_pools(plan)]
    return "prefill" in roles and "decode" in roles


def split_plan(doc: Document, index: int) -> str | None:
    """Make the plan's serve pool a prefill pool and a decode pool of the same device, in one undoable step
    (a plan without Pools rows: its prefill_devices:decode_devices ratio 1:3; with rows: the first serve row
    becomes two rows sharing its devices 1:3)."""
    plan = doc.scenario.plans[index]
    if not can_split(plan):
        return f"{plan.name!r} has no serve pool to split (it already has a prefill/decode pair)"
    pre, dec = SPLIT_RATIO
    text = f"Split {plan.name!r} into prefill + decode ({pre}:{dec})"
    if not plan.pools:
        return doc.set_plan_values(index, {"prefill_devices": pre, "decode_devices": dec}, text)
    pools = list(plan.pools)
    i = next(k for k, p in enumerate(pools) if p.role == "serve")
    serve = pools[i]
    count = float(serve.device_count)
    first = max(1.0, round(count * pre / (pre + dec))) if count >= 2 else float(pre)
    second = count - first if count >= 2 else float(dec)
    names = {p.pool for p in pools}
    pools[i:i + 1] = [serve.with_(pool=_free(names, f"{serve.pool} prefill"), role="prefill", device_count=first),
                      serve.with_(pool=_free(names, f"{serve.pool} decode"), role="decode", device_count=second)]
    return _apply(doc, index, pools, text)


def merge_plan(doc: Document, index: int) -> str | None:
    """Turn the plan's prefill/decode pair back into one serve pool (of the decode pool's device, with
    the pair's devices), in one undoable step."""
    plan = doc.scenario.plans[index]
    if not can_merge(plan):
        return f"{plan.name!r} has no prefill/decode pair to merge"
    text = f"Merge the prefill and decode pools of {plan.name!r} into one serve pool"
    if not plan.pools:
        device = plan.decode_device or plan.device
        return doc.set_plan_values(index, {"prefill_devices": 0, "decode_devices": 0, "prefill_device": "",
                                           "decode_device": "", "device": device}, text)
    pools = list(plan.pools)
    pair = [k for k, p in enumerate(pools) if p.role in ("prefill", "decode")]
    decode = next(pools[k] for k in pair if pools[k].role == "decode")
    total = sum(float(pools[k].device_count) for k in pair)
    merged = decode.with_(pool=decode.pool, role="serve", device_count=total)
    pools = [p for k, p in enumerate(pools) if k not in pair[1:]]
    pools[pair[0]] = merged
    return _apply(doc, index, pools, text)


def _free(names: set, base: str) -> str:
    name, n = base, 2
    while name in names:
        name, n = f"{base} {n}", n + 1
    names.add(name)
    return name
