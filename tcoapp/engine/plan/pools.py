"""The pools of a plan (docs/model.md, "Fleet plans"): every plan is a set of pools.

A plan with rows on the Pools sheet has those pools. A plan without pool rows is one `serve` pool
of its `device`; a plan with prefill_devices:decode_devices (and `prefill_device` / `decode_device`)
is a prefill pool and a decode pool whose device counts split the plan's device_count in that ratio.
`resolve_pools` fills every empty per-pool key with the plan's value (`plan_reaches`), so later stages
see complete pools: a `ResolvedPool` is what the engine computes from (its device, count or sizing
weight, serving configuration, curve, role, rack keys, ownership, rent and purchase year); the
operating point, the fleet physics and the finance read it directly, with the plan giving only what
is plan-wide (model, workload, target, finance).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from ..core.errors import Problem
from ..quantities.inputs import SERVING_FIELDS
from ..quantities.records import Plan, Pool, ServingConfig

POOL_SERVING_KEYS = tuple(f.name for f in SERVING_FIELDS if f.name not in ("prefill_devices", "decode_devices"))


@dataclass(frozen=True)
class ResolvedPool:
    """A pool of a plan with every key set: `device` (a device name) and `device_count` [devices]
    (under a sizing mode other than `devices`, the pool's weight in the fleet's ratio), `role`
    (serve, prefill or decode), `serving` (its configuration), `curve` (a measured curve's name, or
    "" for the generated model), `rack_power_cap_kw` [kW], `servers_per_rack_max` [servers], `owned`
    (bought, else rented at `rent_usd_per_device_hour` [USD per device-hour]), `purchase_year` (the
    year the tranche is paid; it serves from the next)."""

    name: str
    role: str
    device: str
    device_count: float
    serving: ServingConfig
    curve: str
    rack_power_cap_kw: float
    servers_per_rack_max: int
    owned: bool
    rent_usd_per_device_hour: float
    purchase_year: int = 0
    derived: bool = False  # made from the plan's own keys (no Pools rows)


def resolve_pools(plan: Plan) -> tuple[ResolvedPool, ...]:
    """The plan's pools, every empty key filled from the plan (see module docstring)."""
    if plan.pools:
        return tuple(_resolve(plan, i) for i in range(len(plan.pools)))
    if plan.is_disaggregated and not plan.curve:
        return _derived_pair(plan)
    return (serve_pool(plan),)


def serve_pool(plan: Plan) -> ResolvedPool:
    """The plan as one `serve` pool of its own keys (device, curve, serving, rack keys)."""
    return _pool(plan, "serve", "serve", plan.device, float(plan.device_count))


def plan_reaches(plan: Plan, index: int, key: str) -> bool:
    """True where pool `index` takes the plan's value of `key` (no Pools rows, or its row leaves the
    key empty); False where the pool's own row sets it."""
    return not plan.pools or getattr(plan.pools[index], key, None) is None


def sells_output(pool: ResolvedPool) -> bool:
    """Whether the pool's tokens sell as output (a prefill pool hands its requests on: no output price)."""
    return pool.role != "prefill"


def _pool(plan: Plan, name: str, role: str, device: str, count: float) -> ResolvedPool:
    serving = ServingConfig(**{k: getattr(plan, k) for k in POOL_SERVING_KEYS})
    return ResolvedPool(name, role, device, count, serving, plan.curve, float(plan.rack_power_cap_kw),
                        int(plan.servers_per_rack_max), True, 0.0, 0, derived=True)


def split_by_ratio(total: float, prefill: int, decode: int) -> tuple[float, float]:
    """(prefill, decode) whole devices splitting `total` in the ratio, each at least 1 where total >= 2."""
    if total < 2:
        return float(total), 0.0
    first = min(max(round(total * prefill / (prefill + decode)), 1), int(total) - 1)
    return float(first), float(total - first)


def _derived_pair(plan: Plan) -> tuple[ResolvedPool, ...]:
    pre, dec = split_by_ratio(float(plan.device_count), plan.prefill_devices, plan.decode_devices)
    if plan.sizing_mode != "devices":  # a share, sized later
        pre, dec = float(plan.prefill_devices), float(plan.decode_devices)
    return (_pool(plan, "prefill", "prefill", plan.prefill_device or plan.device, pre),
            _pool(plan, "decode", "decode", plan.decode_device or plan.device, dec))


def _resolve(plan: Plan, index: int) -> ResolvedPool:
    pool = plan.pools[index]
    value = lambda key: getattr(plan, key) if plan_reaches(plan, index, key) else getattr(pool, key)  # noqa: E731
    serving = ServingConfig(**{k: value(k) for k in POOL_SERVING_KEYS}, prefill_devices=0, decode_devices=0)
    return ResolvedPool(pool.pool, pool.role, pool.device, float(pool.device_count), serving, value("curve") or "",
                        float(value("rack_power_cap_kw")), int(value("servers_per_rack_max")),
                        pool.ownership == "buy", float(pool.rent_usd_per_device_hour), int(pool.purchase_year))


def pool_plan(plan: Plan, pool: ResolvedPool) -> Plan:
    """The plan as one pool sees it: its device, curve, serving configuration and rack keys. The engine
    does not use it (it reads pools directly); the GUI's curve drawing does (tcoapp/gui/perf_data.py)."""
    return plan.with_(device=pool.device, curve=pool.curve, prefill_device="", decode_device="",
                      rack_power_cap_kw=pool.rack_power_cap_kw, servers_per_rack_max=pool.servers_per_rack_max,
                      pools=(), **{k: getattr(pool.serving, k) for k in POOL_SERVING_KEYS},
                      prefill_devices=0, decode_devices=0)


def pool_problems(plan: Plan, where) -> list[Problem]:
    """Structural problems of a plan's pools: names, roles, counts (located by `where(pool_index, key)`)."""
    problems: list[Problem] = []
    names: dict[str, int] = {}
    for i, pool in enumerate(plan.pools):
        if pool.pool in names:
            problems.append(Problem(where(i, "pool"), "pool", f"= {pool.pool!r}: plan {plan.name!r} already has a pool of that name"))
        names.setdefault(pool.pool, i)
        if plan.sizing_mode == "devices" and float(pool.device_count) != round(pool.device_count):
            problems.append(Problem(where(i, "device_count"), "device_count",
                                    f"= {pool.device_count:g}: must be a whole number of devices (the plan's sizing_mode "
                                    "is devices; under another mode it is the pool's share)"))
        if pool.purchase_year >= plan.years:
            problems.append(Problem(where(i, "purchase_year"), "purchase_year",
                                    f"= {pool.purchase_year}: must be before the plan's horizon (years = {plan.years}): "
                                    f"a tranche bought in year y serves years y+1 to {plan.years}"))
        if pool.role in ("prefill", "decode") and (pool.curve or plan.curve):
            problems.append(Problem(where(i, "curve"), "curve",
                                    f"a {pool.role} pool uses the generated model: a measured curve describes whole "
                                    "requests, so it serves `serve` pools only"))
    roles = {pool.role for pool in plan.pools}
    if roles and (("prefill" in roles) != ("decode" in roles)):
        missing = "decode" if "prefill" in roles else "prefill"
        first = next(i for i, p in enumerate(plan.pools) if p.role in ("prefill", "decode"))
        problems.append(Problem(where(first, "role"), "role", f"plan {plan.name!r} has a "
                                f"{'prefill' if missing == 'decode' else 'decode'} pool but no {missing} pool"))
    if plan.pools and plan.is_disaggregated:
        problems.append(Problem(where(0, "plan"), "plan", f"plan {plan.name!r} has Pools rows and also "
                                "prefill_devices/decode_devices on Plans: describe the pools on one of the two"))
    return problems



def with_acceptance(pools: tuple[ResolvedPool, ...], published: float) -> tuple[ResolvedPool, ...]:
    """The pools with an empty `spec_decode_acceptance` set to `published` (the model's published
    per-token acceptance, 0 where none is published: docs/model.md, "Speculative decoding")."""
    return tuple(p if p.serving.spec_decode_acceptance is not None
                 else replace(p, serving=p.serving.with_(spec_decode_acceptance=float(published))) for p in pools)
