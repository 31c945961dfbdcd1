"""One plan over a draw axis: its uncertain inputs' draws pushed through the engine in one call.

From the plan's deterministic result (`PlanResult.inputs`: the finance inputs at its operating point
and sized device count) every finance input gets a leading draw axis. Then, in order:
1. finance keys (plan-scope inputs, a device's price/power/server figures on the pools of the plan's
   device, the output price, the rack cap) take their draws;
2. keys that move the operating point (factors, device performance fields, tdp/idle power, plan
   serving and workload keys, interactivity targets) re-run the roofline over the draw axis for each
   generated `serve` pool (`serve_draws.py`); a price-tier table then prices each draw's interactivity;
3. sizing keys (and a moved operating point under demand sizing) re-size the device count per draw
   (`finance/sizing.py`, the rule the deterministic compute runs as its one-draw case);
4. a prefill/decode pair is re-run as a whole (`pair_draws.py`) at each draw's device counts, since
   its request rate depends on them;
5. `finance_metrics` runs once over all draws (cash flows, NPV, IRR, payback, years).
The model's own error (`model_error.py`) multiplies each generated pool's tokens/s per device after its
operating point moved (step 2) and before sizing (step 3), so a demand-sized plan buys for the drawn
throughput; a prefill/decode pair's re-run rate (step 4) is multiplied the same way.
What cannot move is said in the plan's notes: a measured curve's points.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..finance import sizing
from ..finance import cashflow
from ..finance.metrics import equity_irr, finance_metrics
from ..quantities.finance import FinanceInputs
from ..quantities.metrics import SIMULATED_METRICS, DrawMetrics, Metrics
from ..plan.kv_tiers import extra_tier_usd_per_server
from ..plan.pools import plan_reaches, sells_output
from . import keys as K
from .inputs import UncertainInput, field_name, target_field
from .sampling import values as draw_values
from .model_error import OWN_ROW_KEY, PoolError, multipliers, stream_names
from .pair_draws import pair_draws
from .serve_draws import ServeCase, serve_draws

@dataclass(frozen=True)
class InputDraws:
    row: UncertainInput
    values: np.ndarray  # (draws,) in the key's unit


@dataclass(frozen=True)
class PlanDraws:
    """A plan's simulated metrics: arrays of shape (draws,) (NaN: the metric does not exist in that draw)."""

    name: str
    metrics: DrawMetrics                       # SIMULATED_METRICS, an array per metric
    cumulative_cash_flow_usd: np.ndarray       # (draws, years + 1), year 0 first
    inputs: tuple[InputDraws, ...]
    deterministic: Metrics                     # the plan's compute result
    notes: tuple[str, ...] = field(default=())
    model_error: tuple[tuple[str, np.ndarray], ...] = ()   # (stream, its standard normal draws) moving the plan
    error_pools: tuple[tuple[str, PoolError], ...] = ()     # (pool name, its model error: sd and stream shares)
    equity_cash_flow_usd: np.ndarray | None = None          # (draws, years + 1): what equity gets each year

    def error_multipliers(self) -> tuple[tuple[str, np.ndarray], ...]:
        """(pool name, exp(e) per draw): the model error's multiplier of each pool's tokens/s per device
        (model_error.py), recomputed from the streams' standard normal draws."""
        normals = dict(self.model_error)
        out = multipliers([e for _, e in self.error_pools], normals) if normals else {}
        return tuple((name, out[e.index]) for name, e in self.error_pools if e.index in out)

    def metric(self, key: str) -> np.ndarray:
        """One SIMULATED_METRICS metric per draw, in its unit (NaN: does not exist in that draw)."""
        return getattr(self.metrics, key)

    def head(self, n: int) -> "PlanDraws":
        """The first n draws."""
        return self._part(slice(None, n))

    def tail(self, n: int) -> "PlanDraws":
        """The draws after the first n."""
        return self._part(slice(n, None))

    def _part(self, part: slice) -> "PlanDraws":
        return PlanDraws(self.name, self.metrics.map(lambda v: v[part]), self.cumulative_cash_flow_usd[part],
                         tuple(InputDraws(d.row, d.values[part]) for d in self.inputs), self.deterministic, self.notes,
                         tuple((name, z[part]) for name, z in self.model_error), self.error_pools,
                         None if self.equity_cash_flow_usd is None else self.equity_cash_flow_usd[part])


def joined(parts: list[PlanDraws]) -> PlanDraws:
    """Consecutive chunks of a plan's draws as one (the draws in order)."""
    first = parts[0]
    if len(parts) == 1:
        return first
    metrics = DrawMetrics.joined([p.metrics for p in parts])
    cumulative = np.concatenate([p.cumulative_cash_flow_usd for p in parts])
    inputs = tuple(InputDraws(d.row, np.concatenate([p.inputs[i].values for p in parts])) for i, d in enumerate(first.inputs))
    notes = tuple(dict.fromkeys(n for p in parts for n in p.notes))
    errors = tuple((name, np.concatenate([p.model_error[i][1] for p in parts])) for i, (name, _) in enumerate(first.model_error))
    equity = (None if first.equity_cash_flow_usd is None else
              np.concatenate([p.equity_cash_flow_usd for p in parts]))
    return PlanDraws(first.name, metrics, cumulative, inputs, first.deterministic, notes, errors, first.error_pools,
                     equity)


def simulate_plan(scenario, plan, base, rows: list[UncertainInput], quantiles, draws: int,
                  row_values: dict | None = None, errors=(), normals: dict | None = None,
                  irr_later: list | None = None) -> PlanDraws:
    """The plan's metrics in every draw (see module docstring); `base` is its PlanResult.
    `row_values`: a cache of each row's draws (a `*` row's draws are the same for every plan).
    `errors`: the model error of its generated pools (`model_error.pool_errors`), `normals` each of
    their streams' standard normal draws. `irr_later`: where given, the IRR and equity IRR are left NaN and the
    plan's (cash flows, equity flows) appended to it, for `with_irr` to find over several plans at once."""
    scenario = scenario.for_plan(plan)  # the calibration scoped to the plan's device, model class and stack
    inputs = _input_draws(rows, quantiles, {} if row_values is None else row_values)
    deterministic = base.metrics
    model_error = tuple((name, normals[name]) for name in stream_names(errors)) if normals else ()
    if base.inputs is None or not (inputs or errors):
        return _fixed(base, inputs, deterministic, draws)
    error = multipliers(errors, normals or {})
    drawn = {d.row.key: d.values for d in inputs}
    a = base.inputs
    batch = _DrawBatch({k: np.asarray(a[k], float)[None, ...] for k in a.keys()}, draws)
    notes: list[str] = _own_error_note(inputs)
    _finance_keys(plan, base.pools, drawn, batch, notes)
    perf = {k: v for k, v in drawn.items() if K.moves_operating_point(k)}
    moved = _serve_points(scenario, plan, base, perf, batch, notes, draws)
    pair = _pair_cases(scenario, plan, base, perf)
    _apply_error(base, batch, error, "serve")
    sized = _sizing(plan, base.pools, drawn, batch, moved or bool(error) or bool(pair and perf), notes, pair, draws,
                    error)
    if pair and (perf or sized):  # the pair's rate depends on its factors and on its pools' device counts
        _pair_points(scenario, plan, base, pair, {i: batch["device_count"][:, i] for i in pair}, batch, draws)
    _apply_error(base, batch, error, "pair")
    out = _finance(batch, irr_later)
    ones = np.ones(draws)
    metrics = DrawMetrics(**{k: np.asarray(out[k], float) * ones for k in SIMULATED_METRICS})
    return PlanDraws(plan.name, metrics, _per_draw(out.years.cumulative_cash_flow_usd, draws, plan), inputs,
                     deterministic, tuple(dict.fromkeys(notes)), model_error, _named(base, errors),
                     _per_draw(out.years.equity_cash_flow_usd, draws, plan))


def _finance(batch, irr_later: list | None):
    """The finance over the draws (none of the extra returns is simulated); with `irr_later`, its IRRs left to
    `with_irr` and its (cash flows, equity flows) appended to it."""
    out = finance_metrics(FinanceInputs(**batch.inputs()), with_irr=irr_later is None, with_extra_returns=False)
    if irr_later is not None:
        irr_later.append((out.cash_flows_usd, out.years.equity_cash_flow_usd))
    return out


def with_irr(plans: list[PlanDraws], owners: list[int], flows: list[tuple]) -> list[PlanDraws]:
    """`plans` with the IRR and equity IRR of each plans[owners[k]] over its (cash flows, equity flows) flows[k]
    (`simulate_plan`'s `irr_later`): the project IRRs of every plan found in one root search per row length
    (each row's root depends on that row alone, so the numbers are those of one search per plan, with its
    iterations' fixed cost paid once), the equity IRR as `finance_metrics` finds it."""
    found = _irr_by_length([f for f, _ in flows])
    out = list(plans)
    for owner, (cash, equity), irr in zip(owners, flows, found):
        p = out[owner]
        ones = np.ones(len(p.metrics.npv_usd))
        metrics = replace(p.metrics, irr=np.asarray(irr, float) * ones,
                          equity_irr=np.asarray(equity_irr(equity, cash, irr), float) * ones)
        out[owner] = replace(p, metrics=metrics)
    return out


def _irr_by_length(flows: list[np.ndarray]) -> list[np.ndarray]:
    """cashflow.irr of each array of flows, the arrays of one row length joined into one call."""
    found: list = [None] * len(flows)
    for length in {f.shape[-1] for f in flows}:
        which = [i for i, f in enumerate(flows) if f.shape[-1] == length]
        rows = [np.asarray(flows[i], float).reshape(-1, length) for i in which]
        irr = cashflow.irr(np.concatenate(rows))
        ends = np.cumsum([len(r) for r in rows])
        for i, part in zip(which, np.split(irr, ends[:-1])):
            found[i] = part.reshape(flows[i].shape[:-1])
    return found


def _per_draw(rows, draws: int, plan) -> np.ndarray:
    """A yearly row of the finance result as (draws, years + 1), in C order (the finance may keep its rows with
    the draws innermost: quantities/wide_ops.py)."""
    flows = np.asarray(rows, float)
    return np.array(np.broadcast_to(flows, (draws,) + flows.shape[1:])[:, :int(plan.years) + 1], order="C")


def _named(base, errors) -> tuple:
    """(pool name, its PoolError) of each pool with a model error."""
    return tuple((base.pools[e.index].name, e) for e in errors)


def _input_draws(rows, quantiles, row_values: dict) -> tuple[InputDraws, ...]:
    for row in rows:
        if id(row) not in row_values:
            row_values[id(row)] = draw_values(row, quantiles)
    return tuple(InputDraws(row, row_values[id(row)]) for row in rows)


def _own_error_note(inputs) -> list[str]:
    if any(d.row.key == OWN_ROW_KEY for d in inputs):
        return [f"the model's error is the Uncertainty sheet's {OWN_ROW_KEY} row: the default one (shared per "
                "architecture and stack and per configuration) is not drawn for this plan"]
    return []


def _apply_error(base, batch, error: dict, which: str) -> None:
    """Multiply the throughput of the `serve` pools (before sizing) or of a prefill/decode pair's pools
    (after the pair is re-run) by their model error."""
    for i, m in error.items():
        if (base.pools[i].role == "serve") == (which == "serve"):
            batch["tokens_per_s_per_device"][:, i] *= m


class _DrawBatch(dict):
    """The finance inputs over the draws, by key: an input no draw changes stays one row (shape (1, ...)) that
    broadcasts over the draws, so the finance layer computes what depends on it once, not once a draw (the
    numbers are the same); reading a key (to write draws into it) makes it a row per draw."""

    def __init__(self, rows: dict, draws: int):
        super().__init__()
        self._rows, self._draws = rows, draws

    def __getitem__(self, key):
        if not dict.__contains__(self, key):
            dict.__setitem__(self, key, np.repeat(self._rows[key], self._draws, axis=0))
        return dict.__getitem__(self, key)

    def __contains__(self, key) -> bool:
        return key in self._rows or dict.__contains__(self, key)

    def inputs(self) -> dict:
        """Every input: the keys read or set per draw, the others one row."""
        return {**self._rows, **dict(self)}


def _fixed(base, inputs, deterministic, draws) -> PlanDraws:
    """No uncertain input (or no finance result): every draw is the deterministic plan."""
    metrics = DrawMetrics(**{k: np.full(draws, getattr(deterministic, k), float) for k in SIMULATED_METRICS})
    flows = ([r["cumulative_cash_flow_usd"] for r in base.year_rows()] if base.inputs is not None else [])
    cumulative = np.repeat(np.array([np.nan if v is None else v for v in flows], float)[None, :], draws, axis=0)
    equity = None
    if base.finance is not None:
        row = np.asarray(base.finance.years.equity_cash_flow_usd, float).reshape(-1)[:cumulative.shape[1]]
        equity = np.repeat(row[None, :], draws, axis=0)
    return PlanDraws(base.name, metrics, cumulative, inputs, deterministic, equity_cash_flow_usd=equity)


def _finance_keys(plan, pools, drawn, batch, notes) -> None:
    for key, v in drawn.items():
        found = target_field(key)
        assert found is not None, key   # drawn keys were checked when the sheet was read
        kind = found[0]
        name = field_name(key)
        if kind == "plan" and key in K.PLAN_FINANCE:
            batch[key] = v
        elif kind == "plan" and key == "price_usd_per_million_output_tokens":
            if plan.price_tiers:
                notes.append(f"{key} is not used: the plan's output price follows price tiers {plan.price_tiers!r}")
                continue
            for i, pool in enumerate(pools):
                if sells_output(pool):
                    batch[key][:, i] = v
        elif kind == "plan" and key == "rack_power_cap_kw":
            for i in range(len(pools)):
                if plan_reaches(plan, i, key):
                    batch[key][:, i] = v
        elif kind == "device":
            on_device = [i for i, pool in enumerate(pools) if pool.device == plan.device]
            if not on_device:
                notes.append(f"{key}: no pool of the plan runs {plan.device!r}")
            if name in K.DEVICE_FINANCE:
                for i in on_device:
                    batch[name][:, i] = v + _bought_extra(plan, name)


def _bought_extra(plan, name: str) -> float:
    """What the plan adds to a drawn device value: a drawn server price is the catalog server's, the KV tiers
    the plan buys (plan/kv_tiers.py) stay on top of it."""
    return extra_tier_usd_per_server(plan) if name == "server_price_usd" else 0.0


def _serve_points(scenario, plan, base, perf, batch, notes, draws) -> bool:
    """Re-run each generated serve pool's operating point over the draws; True if any moved."""
    if not perf or base.fleet is None:
        return False
    if plan.workloads:   # the draws re-run one request shape; a mix's point is held (docs/model.md, "Request classes")
        notes.append(f"{', '.join(perf)} do not move the operating point of a plan serving request classes: it is "
                     "held at its computed value (its finance inputs are drawn)")
        return False
    moved = False
    for i, pool in enumerate(base.pools):
        if pool.curve:
            moved |= _measured_point(scenario, plan, i, pool, perf, batch, notes)
        elif pool.role == "serve":
            d = serve_draws(_serve_case(scenario, plan, i, pool, perf), draws)
            _set_point(scenario, plan, batch, i, d.tokens_per_s_per_device, d.power_w, d.tokens_per_s_per_user)
            batch["prefill_share"][:, i] = d.prefill_share
            moved = True
    return moved


def _measured_point(scenario, plan, i, pool, perf, batch, notes) -> bool:
    """A measured curve's points are measurements: factors and device fields do not move them, except
    the TDP a curve without measured power is taken at (`evaluate_measured`)."""
    curve = scenario.curves[pool.curve]
    unpowered = not np.any(np.isfinite(curve.power_w))
    moved = unpowered and pool.device == plan.device and "device.tdp_w" in perf
    if moved:
        batch["power_w"][:, i] = perf["device.tdp_w"]
    held = [k for k in perf if not (moved and k == "device.tdp_w")]
    if held:
        notes.append(f"pool {pool.name!r}: {', '.join(held)} do not move its throughput or power (a measured curve)")
    return moved


def _pair_cases(scenario, plan, base, perf) -> dict:
    """The prefill and decode pools of the plan, as roofline cases with their draws ({} if none)."""
    if base.fleet is None:
        return {}
    return {i: _serve_case(scenario, plan, i, pool, perf) for i, pool in enumerate(base.pools) if pool.role != "serve"}


def _pair_points(scenario, plan, base, pair, counts, batch, draws) -> None:
    d = pair_draws(pair, {i: base.pools[i].role for i in pair}, counts, draws,
                   {i: base.pools[i].purchase_year for i in pair})
    for i in pair:
        _set_point(scenario, plan, batch, i, d.tokens_per_s_per_device[i], d.power_w[i], d.tokens_per_s_per_user.get(i))


def _set_point(scenario, plan, batch, i, tokens, power, per_user) -> None:
    """Pool i's tokens/s per device and power per draw; a price-tier table prices its interactivity."""
    batch["tokens_per_s_per_device"][:, i] = tokens
    batch["power_w"][:, i] = power
    if plan.price_tiers and per_user is not None:
        batch["price_usd_per_million_output_tokens"][:, i] = scenario.price_tiers[plan.price_tiers].prices_at(per_user)


def _serve_case(scenario, plan, i, pool, perf) -> ServeCase:
    base_device = scenario.device(pool.device)
    device_changes = {field_name(k): v for k, v in perf.items() if k.startswith("device.")}
    device = base_device.with_(**device_changes) if pool.device == plan.device else base_device
    factors = scenario.factors_for(pool.device)
    factors = factors.with_(**{field_name(k): v for k, v in perf.items() if k.startswith("factor.")})
    value = lambda key, default: (perf[key] if key in perf and plan_reaches(plan, i, key) else default)  # noqa: E731
    return ServeCase(base_device, device, scenario.model(plan.model), pool.serving, plan.workload, factors,
                     value("spec_decode_acceptance", pool.serving.spec_decode_acceptance),
                     value("prefix_cache_hit_rate", plan.prefix_cache_hit_rate),
                     value("min_tokens_per_s_per_user", plan.min_tokens_per_s_per_user),
                     value("max_ttft_s", plan.max_ttft_s))


def _sizing(plan, pools, drawn, batch, moved: bool, notes, pair, draws, error=None) -> bool:
    """Re-size the device count per draw where a sizing input or the operating point moved; True if so."""
    mode = plan.sizing_mode
    for mode_name, key in K.SIZING_INPUT.items():
        if key in drawn and mode != mode_name:
            notes.append(f"{key} is not used: the plan's sizing_mode is {mode}")
    if mode == "devices" or not (K.SIZING_READS[mode] & drawn.keys() or (mode == "demand" and moved)):
        return False
    weights = [p.device_count for p in pools]
    fleet_rate = None
    if mode == "demand":
        shares = np.asarray(weights, float) / np.sum(weights)
        tokens = batch["tokens_per_s_per_device"]
        if pair:  # the pair's throughput per device at the pools' shares, as the deterministic sizing takes it
            at_shares = pair_draws(pair, {i: pools[i].role for i in pair}, {i: shares[i] for i in pair}, draws,
                                  {i: pools[i].purchase_year for i in pair})
            tokens = tokens.copy()
            for i in pair:
                tokens[:, i] = at_shares.tokens_per_s_per_device[i] * (error or {}).get(i, 1.0)
        fleet_rate = np.sum(np.asarray(tokens, float) * shares, axis=-1)
    servers = sizing.pool_servers(mode, plan_value(plan, drawn, sizing.SIZING_INPUT[mode]), batch, weights, fleet_rate)
    batch["device_count"] = servers * batch["devices_per_server"]
    return True


def plan_value(plan, drawn, key) -> np.ndarray:
    """A sizing input: its draws (draws,), else the plan's value (a 0-d array)."""
    return np.asarray(drawn.get(key, getattr(plan, key)), float)
