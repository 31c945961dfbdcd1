"""The decision at a glance: plans ranked by an objective, each with its ratios against a reference
plan, the reason in words and its breakeven price and utilization (docs/user_guide.md, "Decision").

Everything here reads computed `PlanResult`s; nothing is recomputed except the breakevens, which
come from `finance.sensitivity`. Facility power is provisioned IT power x PUE (what a power-limited
site must hold), so "per MW" means per MW of facility power at nameplate.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..performance.device_power import nameplate_w
from ..serving.defaults import LOW_SHARE
from .throughput_reason import throughput_sentence

from ..quantities.metrics import OBJECTIVES  # noqa: F401  objective key -> (label, unit, better): the table's objective column
MANY_DEVICES = 1e6          # more accelerators than any single deployment holds today
LARGE_FACILITY_KW = 1e6     # 1 GW of facility power
_LIMITS = {"prefill": "the prefill pool (decode waits for it)", "decode": "the decode pool (prefill waits for it)",
           "kv_transfer": "the KV-cache transfer between the pools"}
_ROUTINE = ("not entered (0)", "chosen for")


@dataclass(frozen=True)
class PlanSummary:
    """One plan as the Decision view shows it. NaN = does not exist."""

    index: int                       # the plan's position in the scenario
    name: str
    value: float                     # the objective's value
    facility_mw: float               # provisioned IT power x PUE [MW]
    tokens_per_s_per_mw: float       # output tokens/s at the operating point per MW of facility power
    revenue_usd_per_mw_per_year: float
    breakeven_price_usd_per_million: float   # output price where NPV = 0
    price_usd_per_million: float             # the output price charged (output-token-weighted over selling pools)
    breakeven_utilization: float             # utilization where NPV = 0 (NaN: never within 0..1)
    utilization: float
    payback_months: float
    reason: str                      # which target, which configuration, what limits it
    notes: tuple[str, ...]           # implausible sizes, a name that names another device
    workload: tuple[str, int, int] = ("", 0, 0)   # (model, input tokens, output tokens): what a token is
    frontier_share: float = math.nan     # tokens/s per device over the best its device reaches at the target
    frontier_tokens_per_s_per_device: float = math.nan
    frontier_config: str = ""            # the configuration that reaches the frontier
    device: str = ""
    fleet: str = ""                      # what the plan runs: 'H100-SXM' or 'H100-SXM prefill 64 + B200 decode 192'
    sells_hours: bool = False            # revenue_mode = device_hours
    breakeven_hour_price_usd: float = math.nan   # device-hour price where NPV = 0 (sells_hours)
    hour_price_usd: float = math.nan             # the price charged of that kind
    hour_price_kind: str = ""                    # "on-demand" or "reserved"
    searched: bool = False               # serving_search = auto: the plan is already at its searched best
    fixed_batch: float = math.nan        # the batch as entered where the plan has no target (the search keeps it)
    config_name: str = ""                # a name describing the configuration it now runs ('H200-SXM FP8 TP2 batch 167')

    @property
    def far_below_frontier(self) -> bool:
        """Whether the plan reaches less than LOW_SHARE of its device's frontier throughput (a plan that
        sells device-hours earns the same at any throughput: never)."""
        return bool(np.isfinite(self.frontier_share) and self.frontier_share < LOW_SHARE and not self.sells_hours)

    @property
    def can_search(self) -> bool:
        """Far below its frontier and not searched yet: the search button can still raise it."""
        return self.far_below_frontier and not self.searched

    def why_below(self) -> str:
        """Why a searched plan stays below its frontier, in words."""
        if np.isfinite(self.fixed_batch):
            return (f"its batch is fixed at {self.fixed_batch:g} as entered (no interactivity target), and the "
                    f"frontier runs at {self.frontier_config}: set a target or a larger batch")
        return f"the search keeps the plan's own fixed keys; the frontier runs at {self.frontier_config}"

    @property
    def exists(self) -> bool:
        """Whether the plan's ranked value is a number (it has an operating point and finance)."""
        return bool(np.isfinite(self.value))


def facility_mw(result) -> float:
    """The plan's facility power [MW]: provisioned IT kW x PUE / 1000; NaN without finance inputs."""
    if result.inputs is None:
        return math.nan
    pue = float(np.asarray(result.inputs.pue, float))
    kw = float(result.metrics.it_provisioned_kw)
    return kw * pue / 1000.0 if kw > 0 else math.nan


def facility_w_per_device(device, pue: float) -> float:
    """Facility power per device at nameplate [W]: (devices x nameplate + server overhead) / devices x PUE, the
    nameplate the TDP or the device's power limit (device_power.nameplate_w)."""
    per_server = device.devices_per_server * nameplate_w(device) + device.server_overhead_w
    return per_server / device.devices_per_server * pue


def _per_mw(value: float, mw: float) -> float:
    return value / mw if np.isfinite(value) and np.isfinite(mw) and mw > 0 else math.nan


def _breakevens(result) -> tuple[float, float, float]:
    """(breakeven output price, plan's output price, breakeven utilization); NaN without cash flows."""
    if result.inputs is None or not np.isfinite(result.metrics.npv_usd):
        return math.nan, math.nan, math.nan
    from ..finance.sensitivity import breakeven_output_price, breakeven_utilization  # with computed results only
    price = result.output_price_usd_per_million()
    return breakeven_output_price(result.inputs), price, breakeven_utilization(result.inputs)


def _hour_breakeven(plan, result) -> tuple[float, float, str]:
    """revenue_mode = device_hours: (breakeven device-hour price, the price charged, 'on-demand' or
    'reserved': the on-demand price where devices are sold on demand, the reserved price moved in
    proportion; else the reserved price); NaN elsewhere."""
    if plan.revenue_mode != "device_hours" or result.inputs is None or not np.isfinite(result.metrics.npv_usd):
        return math.nan, math.nan, ""
    from ..finance.sensitivity import breakeven_device_hour_price  # with computed results only
    price = breakeven_device_hour_price(result.inputs)
    key = "price_usd_per_device_hour" if (plan.price_usd_per_device_hour or 0) > 0 else "reserved_price_usd_per_device_hour"
    return price, float(getattr(plan, key)), "on-demand" if key == "price_usd_per_device_hour" else "reserved"


def fleet_text(plan, result) -> str:
    """What a plan runs: its device ('H100-SXM'), or its pools as a fleet ('H100-SXM prefill 64 +
    B200 decode 192'; a pool bought later says its purchase_year as typed: 'B200 64 (bought year 2)')."""
    pools = result.pools if result is not None and result.pools else ()
    if len(pools) <= 1:
        return pools[0].device if pools else plan.device
    rows = result.pool_rows()
    parts = []
    for pool, row in zip(pools, rows):
        count = row.get("device_count")
        role = "" if pool.role == "serve" else f" {pool.role}"
        number = f" {count:,.0f}" if count is not None else ""
        later = f" (bought year {pool.purchase_year})" if pool.purchase_year else ""
        parts.append(f"{pool.device}{role}{number}{later}")
    return " + ".join(parts)


def summarize(plans, results, objective: str, device_names=()) -> list[PlanSummary]:
    """One summary per plan, in plan order."""
    if objective not in OBJECTIVES:
        raise ValueError(f"objective {objective!r}: must be one of {', '.join(OBJECTIVES)}")
    out = []
    for i, (plan, r) in enumerate(zip(plans, results)):
        mw = facility_mw(r)
        m = r.metrics
        tokens_s = m.tokens_per_s_per_device * m.device_count
        revenue_mw = _per_mw(m.revenue_usd_per_year, mw)
        value = revenue_mw if objective == "revenue_usd_per_mw_per_year" else float(getattr(m, objective))
        be_price, price, be_util = _breakevens(r)
        notes = tuple(size_warnings(r, mw)) + tuple(filter(None, [name_mismatch(plan, device_names)]))
        hour_be, hour_price, hour_kind = _hour_breakeven(plan, r)
        out.append(PlanSummary(i, plan.name, value, mw, _per_mw(tokens_s, mw), revenue_mw, be_price, price, be_util,
                               float(plan.utilization), float(m.payback_months), reason(plan, r), notes,
                               workload_of(plan), float(r.frontier_share),
                               r.frontier.tokens_per_s_per_device if r.frontier else math.nan,
                               r.frontier.text if r.frontier else "", r.pools[0].device if r.pools else plan.device,
                               fleet_text(plan, r), plan.revenue_mode == "device_hours", hour_be, hour_price, hour_kind,
                               plan.serving_search == "auto", math.nan if plan.has_target else float(plan.batch),
                               config_name(r)))
    return out


def ranked(summaries: list[PlanSummary], objective: str) -> list[PlanSummary]:
    """Best first by the objective; plans without a value last, in plan order."""
    sign = 1.0 if OBJECTIVES[objective][2] == "low" else -1.0
    return sorted(summaries, key=lambda s: (not s.exists, sign * s.value if s.exists else 0.0, s.index))


def _ratio(a: float, b: float) -> str | None:
    if not (np.isfinite(a) and np.isfinite(b)) or b <= 0 or a <= 0:
        return None
    r = a / b
    return f"{r:.2g}x" if r < 10 else f"{r:,.0f}x"


def months_text(number: str) -> str:
    """'1 month', '14 months': a count of months as written (`number` as shown, '1' is singular)."""
    return f"{number} month" if number in ("1", "1.0", "1.00") else f"{number} months"


def _months(value: float, has_flows: bool) -> str:
    if np.isfinite(value):
        return months_text(f"{value:.0f}")
    return "never" if has_flows else "n/a"


def ratios_text(s: PlanSummary, ref: PlanSummary, results) -> str:
    """'4.2x tokens per MW, 3.1x revenue per rack, payback 14 months vs 1 month' against `ref`."""
    if s.index == ref.index:
        return "reference plan"
    m, mr = results[s.index].metrics, results[ref.index].metrics
    parts = []
    for a, b, what in ((s.tokens_per_s_per_mw, ref.tokens_per_s_per_mw, "tokens per MW"),
                       (m.revenue_usd_per_rack_per_year, mr.revenue_usd_per_rack_per_year, "revenue per rack")):
        ratio = _ratio(a, b)
        if ratio:
            parts.append(f"{ratio} {what}")
    cost, ref_cost = m.cost_per_million_output_tokens_usd, mr.cost_per_million_output_tokens_usd
    if np.isfinite(cost) and np.isfinite(ref_cost):
        parts.append(f"${cost:.3g} vs ${ref_cost:.3g} per Mtok")
    mine = _months(s.payback_months, np.isfinite(m.npv_usd))
    theirs = _months(ref.payback_months, np.isfinite(mr.npv_usd))
    if not (mine == theirs == "n/a"):
        parts.append(f"payback {mine} vs {theirs}")
    if not parts:
        return f"no comparison: {s.name} or {ref.name} has no operating point"
    if s.workload != ref.workload:
        return (f"different work ({workload_text(s.workload)} vs {workload_text(ref.workload)}): "
                + ", ".join(parts))
    return ", ".join(parts)


def _config_text(serving: dict) -> str:
    parts = [f"TP{serving['tensor_parallel']}"]
    if serving.get("expert_parallel", 1) > 1:
        parts.append(f"EP{serving['expert_parallel']}")
    if serving.get("attention_dp"):
        parts.append("attention DP")
    parts.append(f"{serving['weight_precision'].upper()} weights, {serving['kv_precision'].upper()} KV")
    if serving.get("spec_decode_draft_tokens"):
        parts.append(f"{serving['spec_decode_draft_tokens']} draft tokens")
    return " ".join(parts[:-1]) + (", " if len(parts) > 1 else "") + parts[-1]


def _pool_text(row: dict, several: bool) -> str:
    count = f"{row['device_count']:,.0f}" if row["device_count"] is not None else "no"
    batch = f"batch {row['batch']:g}, " if row.get("batch") is not None else ""
    head = f"{row['role']} pool {row['pool']!r}: " if several else ""
    return f"{head}{count} x {row['device']}, {batch}{_config_text(row['serving'])}"


def target_text(plan) -> str:
    """The plan's (or a request class's) interactivity target in words (tokens/s per user, TTFT in s);
    empty without one."""
    parts = []
    if plan.min_tokens_per_s_per_user is not None:
        parts.append(f">= {plan.min_tokens_per_s_per_user:g} tokens/s per user")
    if plan.max_ttft_s is not None:
        parts.append(f"TTFT <= {plan.max_ttft_s:g} s")
    return " and ".join(parts)


def targeted(plan, result) -> bool:
    """Whether a target sets the plan's batch: the plan's own, or for a plan of request classes any class's."""
    classes = getattr(result, "workloads", ())
    return any(c.meets_target is not None for c in classes) if classes else plan.has_target


def class_head(result) -> str:
    """A plan of request classes: each targeted class's target and what it reaches, or the typed batch."""
    parts = []
    for c in result.workloads:
        if c.meets_target is None:
            continue
        parts.append(f"{c.class_} {target_text(c)} ({c.tokens_per_s_per_user:.3g} tokens/s per user, TTFT {c.ttft_s:.3g} s)")
    if not parts:
        return f"batch {result.metrics.batch:g} as entered (no class has a target)"
    met = all(c.meets_target is not False for c in result.workloads)
    return ("meets every class's target: " if met else "misses a class's target: ") + ", ".join(parts)


def limits(plan, result) -> list[str]:
    """What limits the plan, in words (the first that applies of each kind)."""
    out = []
    m, point = result.metrics, result.point
    if result.fleet is not None and result.fleet.limited_by:
        out.append(f"its rate is set by {_LIMITS.get(result.fleet.limited_by, result.fleet.limited_by)}")
    batch, cap = m.batch, m.max_batch_by_memory
    if point.queued or (np.isfinite(batch) and np.isfinite(cap) and batch >= cap):
        out.append(f"memory caps the batch at {cap:g}")
    elif targeted(plan, result) and np.isfinite(batch):
        room = f" (memory would allow {cap:g})" if np.isfinite(cap) else ""
        out.append(f"the target caps the batch at {batch:g}{room}")
    finance = result.finance
    if finance is not None and len(result.pools):
        per_rack = np.asarray(finance.pools.servers_per_rack, float).reshape(-1)
        for pool, k in zip(result.pools, per_rack):
            if 0 < k < pool.servers_per_rack_max:
                out.append(f"the {pool.rack_power_cap_kw:g} kW rack power cap holds {k:g} server(s) of "
                           f"{pool.device} per rack")
                break
    return out


def reason(plan, result, with_notes: bool = True) -> str:
    """Which target, which configuration, what limits it; why a plan has no value. `with_notes` adds
    the engine's first two other notes (left out where the notes are listed anyway)."""
    m = result.metrics
    if not np.isfinite(m.tokens_per_s_per_device) or not np.isfinite(m.cost_per_million_output_tokens_usd):
        why = [w for w in result.warnings if not w.startswith(_ROUTINE[0])]
        return "No operating point: " + ("; ".join(why) if why else "the engine found none")
    rows = result.pool_rows()
    head = (class_head(result) if getattr(result, "workloads", ()) else
            f"meets {target_text(plan)} ({m.tokens_per_s_per_user:.3g} reached)" if plan.has_target
            else f"batch {m.batch:g} as entered ({m.tokens_per_s_per_user:.3g} tokens/s per user)")
    config = "; ".join(_pool_text(r, len(rows) > 1) for r in rows)
    sentence = f"{head[0].upper()}{head[1:]}; {config}"
    found = limits(plan, result)
    if found:
        sentence += "; " + "; ".join(found)
    extra = [w for w in result.warnings if not any(t in w for t in _ROUTINE) and "batch" not in w.split(":")[0]]
    if extra and with_notes:
        sentence += ". Note: " + "; ".join(extra[:2])
    return sentence + "." + throughput_sentence(plan, result)


def frontier_text(s: PlanSummary) -> str:
    """'12 % of its frontier: 1,862 tokens/s per device H100-SXM reaches at this target with TP2, ...';
    'no frontier' where none exists (several pools, a measured curve, no operating point)."""
    if not np.isfinite(s.frontier_share):
        return "no frontier (a fleet of several pools, a measured curve or no operating point)"
    return (f"{s.frontier_share:.0%} of its frontier: {s.frontier_tokens_per_s_per_device:,.0f} tokens/s per device "
            f"{s.device} reaches at this target ({s.frontier_config})")


def frontier_headline(summaries) -> str | None:
    """One sentence when plans run far below their frontier: those not searched yet are ranked as
    typed, not at their best; those searched say why the search cannot bring them there. None
    otherwise."""
    low = [s for s in summaries if s.far_below_frontier]
    if not low:
        return None
    typed = [s for s in low if not s.searched]
    searched = [s for s in low if s.searched]
    parts = []
    if typed:
        names = ", ".join(f"{s.name} at {s.frontier_share:.0%}" for s in typed)
        verb, its = ("runs", "its") if len(typed) == 1 else ("run", "their")
        parts.append(f"{names} {verb} far below {its} frontier (under {LOW_SHARE:.0%} of what the device reaches at "
                     f"the target): ranked as typed, not at {its} best")
    for s in searched:
        parts.append(f"{s.name} is searched and still at {s.frontier_share:.0%} of its frontier: {s.why_below()}")
    return "; ".join(parts)


_CONFIG_WORDS = re.compile(r"\b(TP\d+|EP\d+|batch \d+|BF16|FP8|FP4|NVFP4|MXFP4|k=\d+)\b", re.IGNORECASE)


def names_config(name: str) -> bool:
    """Whether a plan's name describes a serving configuration ('H200 FP8 TP2 batch 64')."""
    return bool(_CONFIG_WORDS.search(name))


def config_name(result) -> str:
    """A name for what a one-pool plan now runs: 'H200-SXM FP8 TP2 batch 167' (empty for a fleet or
    without an operating point)."""
    rows = result.pool_rows() if result.pools else []
    if len(rows) != 1 or not np.isfinite(result.metrics.batch):
        return ""
    serving = rows[0]["serving"]
    ep = f" EP{serving['expert_parallel']}" if serving.get("expert_parallel", 1) > 1 else ""
    return (f"{rows[0]['device']} {serving['weight_precision'].upper()} TP{serving['tensor_parallel']}{ep} "
            f"batch {result.metrics.batch:g}")


def breakeven_price_text(s: PlanSummary) -> str:
    """The breakeven price of what the plan sells: '$0.31 per Mtok (price $0.88)'; 'any (...)' where
    the root is negative (input-token revenue alone pays); for device-hours '$1.42 per device-hour
    on demand (price $2.10)'."""
    from ..core.number_format import money
    if s.sells_hours:
        be, price = s.breakeven_hour_price_usd, s.hour_price_usd
        if not np.isfinite(be):
            return "never: no device-hour price pays" if np.isfinite(s.value) else "n/a: no cash flows"
        return f"{money(be)} per device-hour {s.hour_price_kind} (price {money(price)})"
    be, price = s.breakeven_price_usd_per_million, s.price_usd_per_million
    if not np.isfinite(be):
        return "n/a: no cash flows"
    if be <= 0:
        return f"any (input tokens alone pay; price {money(price)})"
    return f"{money(be)} per Mtok (price {money(price)})"


def breakeven_utilization_text(s: PlanSummary) -> str:
    """The utilization (fraction of the year) at which NPV = 0, as text beside the plan's own."""
    has_flows = np.isfinite(s.hour_price_usd) if s.sells_hours else np.isfinite(s.breakeven_price_usd_per_million)
    if not has_flows:
        return "n/a: no cash flows"
    if not np.isfinite(s.breakeven_utilization):
        return f"never: not even at 100 % (plan {s.utilization:.0%})"
    return f"{s.breakeven_utilization:.0%} (plan {s.utilization:.0%})"


def size_warnings(result, mw: float | None = None) -> list[str]:
    """Sizes no real deployment has: over a million devices, over 1 GW of facility power."""
    mw = facility_mw(result) if mw is None else mw
    out = []
    devices = result.metrics.device_count
    if np.isfinite(devices) and devices > MANY_DEVICES:
        out.append(f"{devices:,.0f} devices: more than any deployment holds (over {MANY_DEVICES:,.0f}); check the sizing")
    if np.isfinite(mw) and mw * 1000 > LARGE_FACILITY_KW:
        out.append(f"{mw / 1000:,.3g} GW of facility power: more than the largest sites (over 1 GW); check the sizing")
    return out


def _family(device_name: str) -> str:
    """'H100' of 'H100-SXM', 'GB200' of 'GB200-NVL72', 'MI355X' of 'MI355X'."""
    return re.split(r"[-_ ]", device_name.strip(), maxsplit=1)[0].upper()


def name_mismatch(plan, device_names) -> str | None:
    """A note when the plan's name names a device family the plan does not use ('H100 FP8' on H200)."""
    words = {w.upper() for w in re.split(r"[^A-Za-z0-9]+", plan.name) if w}
    used = {plan.device, plan.prefill_device, plan.decode_device} | {p.device for p in plan.pools}
    used_families = {_family(d) for d in used if d}
    named = sorted({_family(d) for d in device_names if _family(d) in words} - used_families)
    if not named or used_families & words:
        return None
    uses = ", ".join(sorted(d for d in used if d))
    return f"the plan's name says {', '.join(named)} but it runs on {uses}: rename it so tables and charts do not mislead"


def pareto_upper(x, y) -> tuple[np.ndarray, np.ndarray]:
    """The upper-right frontier of points (x, y): no kept point has another with both larger x and y.
    Returned sorted by x; non-finite points dropped."""
    x, y = np.asarray(x, float).ravel(), np.asarray(y, float).ravel()
    ok = np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)
    x, y = x[ok], y[ok]
    order = np.lexsort((-y, -x))            # x descending, then y descending
    ys = y[order]
    previous = np.concatenate([[-np.inf], np.maximum.accumulate(ys)[:-1]])
    keep = order[ys > previous][::-1]
    return x[keep], y[keep]


def workload_of(plan) -> tuple[str, int, int]:
    """What a plan's tokens are: (model, input tokens, output tokens). Plans rank like with like only
    when this is the same: a token of an 8B model is not a token of a 671B one. A plan serving request
    classes: the model and its classes' names, and the mix's request-weighted mean lengths."""
    if getattr(plan, "workloads", ()):
        from ..plan.request_classes import class_loads
        loads = class_loads(plan)
        names = ", ".join(c.name for c in loads)
        return (f"{plan.model} (mix of {names})", round(sum(c.share * c.input.mean for c in loads)),
                round(sum(c.share * c.output.mean for c in loads)))
    return plan.model, int(plan.input_tokens), int(plan.output_tokens)


def workload_text(workload: tuple[str, int, int]) -> str:
    """A workload (model, input tokens, output tokens per request) in words."""
    model, tokens_in, tokens_out = workload
    return f"{model} {tokens_in:,} in / {tokens_out:,} out"


def comparability_note(plans) -> str | None:
    """None when every plan serves the same model and workload; otherwise one plain sentence saying
    that the ranking compares different work, and which plans serve what."""
    groups: dict[tuple[str, int, int], list[str]] = {}
    for plan in plans:
        groups.setdefault(workload_of(plan), []).append(plan.name)
    if len(groups) <= 1:
        return None
    parts = [f"{workload_text(w)} ({len(names)} plan{'s' if len(names) > 1 else ''}: {', '.join(names)})"
             for w, names in groups.items()]
    return ("Not like with like: these plans serve different models or workloads, so the ranking compares "
            "different work (" + "; ".join(parts) + ")")
