"""Compute a scenario: pools, operating point, sizing and finance for every plan (the one
orchestrator the CLI, the GUI and the workbook export all call).

Every plan is a set of pools (`plan/pools.py`): each pool's device runs at its own operating point
(`serving/fleet.py`), the plan is sized in whole servers of every pool, and each pool is packed, priced and
powered on its own before the plan sums them (`finance/metrics.py`).
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from .agentic_block import agentic_block
from .agentic_passes import served_by_sessions
from .config_gains import configuration_gains
from .disagg_search import search_disaggregation
from .plausibility import plausibility_notes
from ..finance import cashflow, sizing
from ..finance.metrics import finance_metrics
from ..quantities.finance import DEVICE_ECONOMICS_KEYS, FinanceResult, finance_inputs
from ..serving.frontier_share import frontier_for, low_share_note, share_of
from ..serving.fleet import PoolCapacity, fleet_point, pool_capacities
from ..serving.search import SearchOutcome
from ..quantities.metrics import FINANCE_METRICS, METRIC_KEYS, POINT_METRICS, Metrics  # noqa: F401 (METRIC_KEYS: read here by callers)
from ..performance.curve import OperatingPoint
from ..performance.error_components import is_measured
from ..performance.acceptance_spread import acceptance_ratios
from ..performance.memory import architecture
from ..performance.prediction_interval import prediction_interval
from ..plan.pool_inputs import pool_finance_inputs
from ..plan.kv_tiers import server_with_kv_tiers
from ..plan.pools import ResolvedPool, resolve_pools, sells_output, with_acceptance
from ..quantities.inputs import PLAN_FIELDS
from .plan_result import PlanResult
from ..quantities.records import Plan
from ..plan.request_classes import class_loads, class_prices, mix_plan
from ..plan.scenario import Scenario
from ..serving.objective import plan_finance_inputs
from .mix_plan_result import blended_json, mix_notes, mix_prices, mix_results, own_target_notes



def pool_economics(scenario: Scenario, pools: tuple[ResolvedPool, ...], plan: Plan | None = None) -> dict[str, np.ndarray]:
    """Per-pool arrays of each device's price, power and server figures (pool axis last); with `plan`, its
    servers carry the extra host memory and NVMe it buys (plan/kv_tiers.py)."""
    devices = [scenario.device(p.device) if plan is None else server_with_kv_tiers(scenario.device(p.device), plan)
               for p in pools]
    return {k: np.array([float(getattr(d, k)) for d in devices]) for k in DEVICE_ECONOMICS_KEYS}


def sized_counts(plan: Plan, caps: tuple[PoolCapacity, ...], econ: dict[str, np.ndarray], factors_for) -> np.ndarray:
    """Devices per pool from the plan's sizing mode, in whole servers of every pool (`finance/sizing.py`,
    the rule Monte Carlo runs over its draws: here the one-draw case). NaN where the mode's input does
    not bound the fleet."""
    pools = [c.pool for c in caps]
    weights = np.array([p.device_count for p in pools], float)
    mode = plan.sizing_mode
    if mode == "devices":
        return weights
    one_draw = {k: np.asarray(v, float)[None, ...] for k, v in
                dict(plan_finance_inputs(plan), **econ, owned=[1.0 if p.owned else 0.0 for p in pools]).items()}
    fleet_rate = None
    if mode == "demand":
        shares = weights / np.sum(weights)
        fleet_rate = np.array([fleet_point(plan, caps, shares, factors_for).point.tokens_per_s_per_device])
    limit = getattr(plan, sizing.SIZING_INPUT[mode])
    return sizing.pool_servers(mode, limit, one_draw, weights, fleet_rate)[0] * econ["devices_per_server"]


def output_price(scenario: Scenario, plan: Plan, point: OperatingPoint) -> tuple[float, tuple[str, ...]]:
    """The output price revenue uses: the plan's, or the tier its interactivity reaches. Below the
    slowest tier the plan sells no output tokens (price 0, said in a warning); input tokens still pay."""
    if not plan.price_tiers:
        return plan.price_usd_per_million_output_tokens, ()
    tiers = scenario.price_tiers[plan.price_tiers]
    if not np.isfinite(point.tokens_per_s_per_user):
        return float("nan"), ()
    price = tiers.price_at(point.tokens_per_s_per_user)
    if tiers.below_slowest(point.tokens_per_s_per_user):
        return price, (f"{point.tokens_per_s_per_user:.3g} tokens/s per user is below every tier of price table "
                     f"{tiers.name!r} (slowest from {min(tiers.min_tokens_per_s_per_user):g}): no output revenue",)
    return price, ()


def plan_frontier(scenario: Scenario, plan: Plan, caps, point, mix: bool):
    """(the plan's frontier, its share of it, the note where the share is low); no frontier for a plan of
    request classes (a mix's point is on no single request's frontier: request_classes.class_as_plan gives
    a class's)."""
    pools = tuple(c.pool for c in caps)
    swept = caps[0].search.sweep if caps and caps[0].search is not None else None  # shared with the frontier
    frontier = frontier_for(scenario, plan, pools, point.tokens_per_s_per_user, swept) if point.exists and not mix else None
    share = share_of(point.tokens_per_s_per_device, frontier)
    return frontier, share, [n for n in [low_share_note(pools[0].device, share, frontier)] if n]


def pool_prices(scenario: Scenario, plan: Plan, pools, fleet) -> tuple[list[float], list[str]]:
    """Each pool's output price (`output_price`; a pool that sells no output tokens: 0) and the notes."""
    prices: list[float] = []
    notes: list[str] = []
    for pool, pool_point in zip(pools, fleet.pool_points):
        price, said = output_price(scenario, plan, pool_point) if sells_output(pool) else (0.0, ())
        prices.append(price)
        notes += said
    return prices, notes


def curve_device_notes(scenario: Scenario, plan: Plan, pools: tuple[ResolvedPool, ...]) -> tuple[str, ...]:
    """A measured curve recorded on another device or model than its pool's is used, and said."""
    notes = []
    for pool in pools:
        if not pool.curve:
            continue
        curve = scenario.curves[pool.curve]
        for what, recorded, planned in (("device", curve.device, pool.device), ("model", curve.model, plan.model)):
            if recorded and recorded != planned:
                notes.append(f"curve {curve.name!r} was measured on {what} {recorded!r}, the plan uses {planned!r}: "
                             f"its throughput is applied to the plan's {what}")
    return tuple(notes)


def drafting_at_published(scenario: Scenario, plan: Plan, draft_tokens):
    """The model's published acceptance where a pool drafting `draft_tokens` takes it (the plan leaves
    spec_decode_acceptance empty and the model has one); None otherwise."""
    published = scenario.published_acceptance(plan.model)
    if plan.spec_decode_acceptance is not None or published is None or not (draft_tokens or 0) > 0:
        return None
    return published


def acceptance_notes(scenario: Scenario, plan: Plan, pools) -> list[str]:
    """Where a pool drafts tokens at the model's published acceptance (the plan's was empty): which
    rate, its spread and source (docs/model.md, "Speculative decoding")."""
    published = drafting_at_published(scenario, plan, max((p.serving.spec_decode_draft_tokens for p in pools), default=0))
    if published is None:
        return []
    source = published.source.split(" (")[0].split(", section")[0]
    return [f"the draft acceptance {published.acceptance:g} is {plan.model}'s published rate (spread "
            f"{published.low:g}-{published.high:g}; {source})"]


def compute_plan(scenario: Scenario, plan: Plan) -> PlanResult:
    """One plan's result: its pools' operating points (tokens/s, W), the sizing to whole servers
    (devices), the output price (USD per million output tokens) and the finance (USD, per year), with
    the notes that explain it (see module docstring).

    With `search_disaggregation` = auto the search also prices the plan as a prefill pool feeding a decode
    pool and keeps the better by the plan's objective (pipeline/disagg_search.py). A plan with an agentic
    request class is then computed again until it serves what its memory allows: its sessions' achieved
    prefix hit rate and prefix reload at a pass's operating point are the class's in the next pass
    (pipeline/agentic_passes.py; docs/model.md, "A plan's agentic answer"), so the plan's throughput,
    revenue and NPV serve what its memory allows."""
    first = search_disaggregation(scenario, plan, _compute_plan(scenario, plan), _compute_plan)
    return served_by_sessions(plan, first,
                              lambda classes, reloads: _compute_plan(scenario, plan.with_(workloads=classes), reloads))


def _compute_plan(scenario: Scenario, plan: Plan, reloads: dict[str, float] | None = None) -> PlanResult:
    """One pass (compute_plan); `reloads`: {an agentic class: its requests' prefix reload, s} of a later pass."""
    scenario = scenario.for_plan(plan)  # the calibration scoped to the plan's device, model class and stack
    pools = with_acceptance(resolve_pools(plan), scenario.acceptance_for(plan.model))
    loads = class_loads(plan, reloads)
    own_plan, plan = plan, (mix_plan(plan, loads, [class_prices(plan, rc) for rc in plan.workloads]) if loads else plan)
    caps = pool_capacities(scenario, plan, pools, loads)
    searched = tuple((typed, c.search) for typed, c in zip(pools, caps))   # (the pool as typed, its search)
    pools = tuple(c.pool for c in caps)  # a searched pool carries the configuration the search chose
    econ = pool_economics(scenario, pools, plan)
    counts = sized_counts(plan, caps, econ, scenario.factors_for)
    fleet = fleet_point(plan, caps, np.nan_to_num(counts, nan=0.0), scenario.factors_for)
    point = fleet.point
    warnings = list(point.warnings) + list(fleet.warnings) + list(curve_device_notes(scenario, plan, pools))
    warnings += search_notes(plan, caps) + acceptance_notes(scenario, plan, pools)
    frontier, share, notes = plan_frontier(scenario, plan, caps, point, bool(loads))
    warnings += notes
    warnings += _sizing_notes(plan, pools, counts, econ)
    if loads:
        plan, class_price_list, prices, notes = mix_prices(scenario, own_plan, loads, caps, output_price)
        warnings += notes + own_target_notes(own_plan)
    else:
        prices, notes = pool_prices(scenario, plan, pools, fleet)
        warnings += notes  # repeated notes are dropped once, below
    pts = fleet.pool_points
    pool_inputs = pool_finance_inputs(pools, [server_with_kv_tiers(scenario.device(p.device), plan) for p in pools], counts,
                                      [p.tokens_per_s_per_device for p in pts], [p.power_w for p in pts], prices,
                                      prefill_share=[p.prefill_share for p in pts])
    inputs = finance_inputs(pool_inputs, plan_finance_inputs(plan))
    out = finance_metrics(inputs)
    warnings += _rack_notes(pools, out)
    warnings += _tranche_split_notes(plan, pools, out)
    warnings += plausibility_notes(plan, out, prices)
    warnings += not_entered_notes(plan)
    # ambiguous only where the IRR does not exist (out.irr is cashflow.irr of these flows): no root count otherwise
    if np.isnan(float(np.asarray(out.irr, float))) and cashflow.irr_is_ambiguous(out.cash_flows_usd):
        warnings.append("IRR not given: several rates make NPV = 0 (the cash flows change sign more than once); "
                        "compare NPV or MIRR instead")
    warnings += finance_notes(plan, out)
    metrics = Metrics(**{key: float(out[key]) for key in FINANCE_METRICS},
                      **{key: float(getattr(point, key)) for key in POINT_METRICS})
    plan_interval, pool_intervals = prediction_intervals(scenario, plan, pools, fleet)
    workloads = mix_results(plan, loads, class_price_list, caps, counts, fleet, metrics, out) if loads else ()
    warnings += mix_notes(workloads, caps)
    agentic = agentic_block(scenario, plan, pools, fleet, out, metrics)
    warnings += agentic["notes"] if agentic else []
    return PlanResult(plan.name, point, metrics, out, inputs, pools, fleet,
                      tuple(dict.fromkeys(warnings)), serving_search=plan.serving_search,
                      searches=tuple(_without_sweep(c.search) for c in caps), prediction_interval=plan_interval,
                      pool_intervals=pool_intervals, frontier=frontier, frontier_share=share, workloads=workloads,
                      workloads_blended=blended_json(plan, caps, fleet) if loads else None, agentic=agentic,
                      configuration_gains=configuration_gains(scenario, plan, pools, fleet, searched, loads))


def finance_notes(plan: Plan, out) -> list[str]:
    """Notes on the finance result: tax losses unused at the horizon, a colocation contract below the
    fleet's nameplate IT power."""
    from ..core.number_format import money
    notes = []
    unused = float(np.asarray(out.unused_tax_loss_usd, float))
    if unused > 0:
        notes.append(f"tax losses of {money(unused)} are unused at the horizon (year {int(plan.years)}): no taxable "
                     "income offset them, so no tax saving is counted for them (tax losses taken as a credit "
                     "against the owner's other income count in the year they arise)")
    contracted = plan.colocation_contracted_kw
    nameplate = float(np.asarray(out.it_provisioned_kw, float))
    if contracted is not None and contracted == contracted and np.isfinite(nameplate) and contracted < nameplate:
        notes.append(f"the contracted colocation power ({contracted:,.6g} kW) is below the fleet's nameplate IT power "
                     f"({nameplate:,.6g} kW): the contract bills {contracted:,.6g} kW while the servers can draw "
                     "their nameplate; raise the contract or size the fleet to it")
    return notes


def _without_sweep(outcome: SearchOutcome | None) -> SearchOutcome | None:
    """The search's outcome without its sweep (every point it evaluated: 100-300 MB for the widest
    space), its ranking and its chosen configuration's curve, once the frontier, the configuration gains and the
    operating point have reused them: a result keeps what was chosen, not how."""
    return outcome if outcome is None or outcome.sweep is None else replace(outcome, sweep=None, ranked=None,
                                                                             chosen_curve=None)


def prediction_intervals(scenario: Scenario, plan: Plan, pools, fleet) -> tuple[dict | None, tuple[dict | None, ...]]:
    """(the plan's, each pool's) 80 % prediction interval (performance/prediction_interval.py): a
    pool on a generated curve gets one; the plan gets one when every pool that serves users does."""
    kind = "MoE" if scenario.model(plan.model).n_experts > 0 else "dense"
    devices = [scenario.device(p.device) for p in pools]
    vendors = [d.vendor for d in devices]
    arches = [getattr(d, "architecture", "") or "" for d in devices]
    date = getattr(plan, "software_date", "")
    spreads = [acceptance_spread(scenario, plan, pool, pt) for pool, pt in zip(pools, fleet.pool_points)]
    per_pool = tuple(prediction_interval(pt, kind, v, software_date=date, architecture=a, acceptance=sp)
                     for pt, v, a, sp in zip(fleet.pool_points, vendors, arches, spreads))
    users = [i for i, p in enumerate(pools) if p.role in ("serve", "decode")]
    if not users or any(per_pool[i] is None for i in users):
        return None, per_pool
    unmeasured = next((a for i, a in enumerate(arches) if per_pool[i] is not None and not is_measured(a)), None)
    return prediction_interval(fleet.point, kind, vendors[users[0]], generated=True, software_date=date,
                               architecture=unmeasured if unmeasured is not None else arches[users[0]],
                               acceptance=spreads[users[0]]), per_pool


def acceptance_spread(scenario: Scenario, plan: Plan, pool, point) -> dict | None:
    """{"ratios", "user_ratios", "text"}: a pool drafting at its model's published acceptance (the plan's
    left empty) at the published spread's ends, as tokens/s per device (per user: decode alone) over its
    figure at the same batch
    (performance/acceptance_spread.py); None otherwise (no draft tokens, a stated acceptance, no spread)."""
    k = int(pool.serving.spec_decode_draft_tokens or 0)
    published = drafting_at_published(scenario, plan, k)
    if published is None or point is None:
        return None
    factors = scenario.factors_for(pool.device)
    arch = architecture(scenario.model(plan.model))
    ratios = acceptance_ratios(k, published.acceptance, published.low, published.high,
                               factors.spec_acceptance_realised, arch.draft_later_ratio,
                               float(getattr(point, "prefill_share", float("nan"))))
    if ratios is None:
        return None
    per_user = acceptance_ratios(k, published.acceptance, published.low, published.high,
                                 factors.spec_acceptance_realised, arch.draft_later_ratio)
    return {"ratios": ratios, "user_ratios": per_user, "text": f"{k} draft tokens at {plan.model}'s published acceptance {published.acceptance:g} "
                                      f"(spread {published.low:g}-{published.high:g})"}


def search_notes(plan: Plan, caps: tuple[PoolCapacity, ...]) -> list[str]:
    """What the serving search chose, or why a pool was not searched (plan notes)."""
    if plan.serving_search != "auto":
        return []
    notes = []
    for c in caps:
        where = "" if len(caps) == 1 else f"pool {c.pool.name!r}: "
        if c.search is not None:
            notes.append(f"{where}serving search chose {c.search.text()}")
        elif c.pool.curve:
            notes.append(f"{where}serving search skipped: the pool uses measured curve {c.pool.curve!r}")
        elif c.pool.role != "prefill":
            notes.append(f"{where}serving search found no configuration with an operating point: the typed one is kept")
    return notes


def not_entered(plan: Plan) -> list[str]:
    """Labels of the cost inputs left at 0 where 0 means "not entered" (the cost is left out)."""
    return [f.label.lower() for f in PLAN_FIELDS if f.zero_text and getattr(plan, f.name) == 0]


def not_entered_notes(plan: Plan) -> list[str]:
    """The note listing cost inputs left at 0 ("not entered"), or none."""
    missing = not_entered(plan)
    if not missing:
        return []
    return [f"not entered (0): {', '.join(missing)}: these costs are left out of opex and cost per token; "
            "enter your quotes to include them"]


def _sizing_notes(plan, pools, counts, econ) -> list[str]:
    if plan.sizing_mode == "devices":
        return []
    servers = counts / econ["devices_per_server"]
    if len(pools) == 1:
        return [] if servers[0] >= 1 else [f"sizing mode {plan.sizing_mode!r} buys no whole server"]
    return [f"sizing mode {plan.sizing_mode!r} buys no whole server of pool {p.name!r}"
            for p, s in zip(pools, servers) if not s >= 1]


def _tranche_split_notes(plan, pools, out: FinanceResult) -> list[str]:
    """A plan sized by facility power or capex budget whose pools are bought in different years: how the
    site (or budget) is split between its tranches, and how to change the split."""
    if plan.sizing_mode not in ("facility_power", "capex_budget") or len({p.purchase_year for p in pools}) < 2:
        return []
    from ..core.number_format import money
    weights = " : ".join(f"{float(p.device_count):g}" for p in pools)
    parts = []
    for i, pool in enumerate(pools):
        count = float(np.asarray(out.pools.device_count)[..., i])
        if plan.sizing_mode == "facility_power":
            kw = float(np.asarray(out.pools.servers)[..., i] * np.asarray(out.pools.server_nameplate_w)[..., i]
                       * float(plan.pue) / 1000.0)
            share = f"{kw:,.0f} kW"
        else:
            share = money(float(np.asarray(out.pools.capex_usd)[..., i]))
        year = f" (bought year {pool.purchase_year})" if pool.purchase_year else " (bought year 0)"
        parts.append(f"{pool.name!r}{year} {count:,.0f} devices, {share}")
    limit = (f"facility power of {float(plan.facility_power_kw):,.0f} kW" if plan.sizing_mode == "facility_power"
             else f"capex budget of {money(float(plan.capex_budget_usd))}")
    what = "site" if plan.sizing_mode == "facility_power" else "budget"
    return [f"the {limit} holds every tranche together (a later tranche is not added on top of the first): it is "
            f"split in the ratio of their device_count on Pools ({weights}): {'; '.join(parts)}. Give each pool's "
            f"device_count the share of the {what} it should take"]


def _rack_notes(pools, out: FinanceResult) -> list[str]:
    notes = []
    for i, pool in enumerate(pools):
        if out.pools.servers_per_rack[..., i] != 0:
            continue
        which = "a server" if len(pools) == 1 else f"a server of pool {pool.name!r}"
        notes.append(f"{which} draws {out.pools.server_nameplate_w[..., i] / 1000:.3g} kW at nameplate, more than "
                     f"the rack power cap of {pool.rack_power_cap_kw:g} kW: the plan cannot be racked")
    return notes


def compute_scenario(scenario: Scenario) -> tuple[PlanResult, ...]:
    """Every plan's result, in the scenario's plan order (`compute_plan`)."""
    return tuple(compute_plan(scenario, plan) for plan in scenario.plans)
