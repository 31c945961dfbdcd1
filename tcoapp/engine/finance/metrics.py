"""Every finance metric of a plan at its operating point, in one vectorized pass (docs/model.md,
"Finance layer" and "Fleet plans").

`finance_metrics(x)` takes `FinanceInputs` (pool-scope arrays with a trailing pool axis, plan-scope
arrays of the leading variant shape) or one flat mapping of a one-pool plan, and returns a
`FinanceResult`: the plan's metrics, cost components and cash flows, with the per-pool quantities in
`.pools`. Each pool is packed, priced and powered on its own (whole servers of its device, its own
racks under its own cap, pools never share a rack); the plan sums its pools. Sensitivity, breakeven
and sizing call it with arrays of variants.
"""
from __future__ import annotations

import functools

import numpy as np

from . import cashflow, costs, depreciation, financing, recovery, timeline, year_rows
from ..quantities.expr import IN_POOL, POOL_AXIS, POOLS_MAX, POOLS_MIN
from ..quantities.expr_compiled import numpy_function
from ..quantities.finance import (
    LEVELIZED_YEAR_ROWS, OPEX_PARTS, PART_ANNUAL_KEYS, PART_YEAR_KEYS, PLAN_EXPRESSIONS, PLAN_INPUT_KEYS,
    POOL_EXPRESSIONS, POOL_INPUT_KEYS, POOL_QUANTITIES, SUMMED_KEYS, FinanceResult, PoolFinance, YearRows, as_inputs,
)
from ..quantities import wide_ops
from ..quantities.short_sum import short_sum

SUMMED = SUMMED_KEYS


def finance_metrics(x, with_irr: bool = True, with_extra_returns: bool = True) -> FinanceResult:
    """All finance metrics; NaN marks a value that does not exist (infeasible packing, never paid back).

    `with_irr=False` leaves "irr" NaN (a root search per row: the one costly metric) for callers
    that evaluate many variants of another metric. `with_extra_returns=False` leaves the EXTRA_RETURNS
    NaN, for callers that read none of them (a Monte Carlo run keeps SIMULATED_METRICS; the others are the
    same numbers either way).
    """
    a = as_inputs(x)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # NaN in, NaN out: by design
        plan = {k: np.asarray(a[k], float)[..., None] for k in PLAN_INPUT_KEYS}   # broadcast over the pool axis
        pool = _pool_quantities(a, plan)
        out = _plan_totals(a, pool)
        rows = _years(a, pool, out)
        out.update(_in_service(a, pool, rows))
        out.update(_costs_and_returns(a, out, pool, rows, with_irr, with_extra_returns))
    return FinanceResult(**out, pools=PoolFinance(**{q.key: pool[q.key] for q in POOL_QUANTITIES}),
                         years=YearRows(**rows))


COST = "cost_per_million_output_tokens_usd"
_COST_EXPRESSION = ((COST, dict(PLAN_EXPRESSIONS)[COST]),)
# the year rows `_levelized_costs` reads for the capex per year (present values of capex and residual value)
CAPEX_YEAR_ROWS = ("capex_usd", "replacement_capex_usd", "residual_value_usd", "discount_factor")
_COST_LEVELIZED = ("output_tokens", "opex_usd")   # the year rows it levelizes, and those the capex per year reads:
_COST_YEAR_ROWS = year_rows.rows_for(_COST_LEVELIZED + CAPEX_YEAR_ROWS)


def cost_per_million_output_tokens_usd(x) -> np.ndarray:
    """`finance_metrics(x)[COST]`, the same numbers, computing only what it reads (a serving search's objective
    prices every candidate this way): every pool quantity, the year rows of the opex, the output tokens, the capex,
    the residual values and the discount factor (and the depreciation the held capex's insurance and property
    tax read), and their levelized values; no tax, debt, cash flow or return. Each value is computed by the same
    code on the same arrays as in `finance_metrics`."""
    a = as_inputs(x)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # NaN in, NaN out: by design
        plan = {k: np.asarray(a[k], float)[..., None] for k in PLAN_INPUT_KEYS}
        pool = _pool_quantities(a, plan)
        out = _plan_totals(a, pool)
        y, t, _, h_t = _year_rows(a, pool, _COST_YEAR_ROWS)
        # the throughput index, and the depreciation the held capex's basis reads
        y.give(plan={"throughput_index": h_t}, pools={"depreciation_usd": _tranches(a, pool, t, disposal=False)[3]})
        _, lev, capex_year = _levelized_costs(a, out, y.plan, _COST_LEVELIZED)
        result = {"output_tokens_per_year": lev["output_tokens"], "opex_usd_per_year": lev["opex_usd"],
                  "capex_usd_per_year": capex_year}
        _evaluate(_COST_EXPRESSION, {**out, **result}, result, _over_pools(a, pool))
    return result[COST]


# the year rows the cash flow reads and those `_years_to_tax` reads itself (the tax's income, the replacements)
_NPV_YEAR_ROWS = year_rows.rows_for(("cash_flow_usd", "taxable_income_usd", "replacement_capex_usd",
                                     "replacement_residual_value_usd"))


def npv_usd(x) -> np.ndarray:
    """`finance_metrics(x)["npv_usd"]`, the same numbers, computing only what it reads (a tornado of NPV evaluates
    its variants this way): every pool quantity, the year rows up to the tax and the cash flow; no levelized cost,
    debt, equity flow or other return. Each value is computed by the same code on the same arrays as in
    `finance_metrics`."""
    a = as_inputs(x)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):  # NaN in, NaN out: by design
        plan = {k: np.asarray(a[k], float)[..., None] for k in PLAN_INPUT_KEYS}
        y = _years_to_tax(a, _pool_quantities(a, plan), _NPV_YEAR_ROWS)[0]
        y.finish()
        return cashflow.npv_usd(a.discount_rate, y.plan["cash_flow_usd"], a.discounting)


IRR_METRICS = ("irr", "equity_irr")  # the metrics finance_metrics computes only when asked (a root per row)


def metric_values(x, metric: str) -> np.ndarray:
    """`finance_metrics(x)[metric]`, the same numbers, computing only what the metric reads where the engine has
    such a path (NPV, the cost per million output tokens); else every metric but the costly ones it does not read
    (the IRRs' root searches, EXTRA_RETURNS)."""
    if metric == "npv_usd":
        return npv_usd(x)
    if metric == COST:
        return cost_per_million_output_tokens_usd(x)
    return finance_metrics(x, with_irr=metric in IRR_METRICS, with_extra_returns=metric in EXTRA_RETURNS)[metric]


def _pool_quantities(a, p) -> dict[str, np.ndarray]:
    """The finance layer (docs/model.md, section 3) applied to each pool alone (arrays with the pool axis last)."""
    count = a.device_count * np.ones_like(a.price_usd)
    out = {"device_count": count}
    # the rows written as expressions (packing, capex, power, opex lines, tokens), over the pool's inputs and rows
    # and the plan's inputs
    env = {**{k: getattr(a, k) for k in POOL_INPUT_KEYS}, **p, **out}
    _evaluate(_in_order(POOL_EXPRESSIONS, frozenset(env)), env, out)
    return out


def _plan_totals(a, pool) -> dict[str, np.ndarray]:
    return {key: short_sum(pool[key], axis=-1) for key in SUMMED}


def _years(a, pool, out) -> dict[str, np.ndarray]:
    """Every per-year row: the table's expressions (year_rows.YearRows) and, as they are needed, the rows written
    by hand (timeline.py: the throughput index's demand cap, depreciation, tax; financing.py: the debt):
    pools on axis -2, years on the last axis."""
    y, bought, t, n, years, in_horizon = _years_to_tax(a, pool)
    _financing(a, y, bought, t, n, years, in_horizon)
    y.finish()
    rows = y.plan
    rows["cumulative_cash_flow_usd"] = wide_ops.cumsum(rows["cash_flow_usd"], axis=-1)   # np.cumsum, bit for bit
    rows.update({f"pool_{key}": v for key, v in y.pools.items()})
    return rows


def _years_to_tax(a, pool, table=None):
    """The year rows of `table` (default every row) up to the tax and the cash flow, before the debt: (the rows,
    each pool's purchase year [..., P, 1], the years t, the years of the horizon [..., 1] and [...], 1 in the
    horizon's years)."""
    y, t, in_horizon, h_t = _year_rows(a, pool, table)
    years = np.asarray(a.years, float)
    n = years[..., None]
    bought, resid, life, depreciation, gain = _tranches(a, pool, t)
    # the rows written as expressions that read these: tokens, revenue, opex, capex, residual values
    y.give(plan={"throughput_index": h_t}, pools={"utilization": y.pools["utilization"], "depreciation_usd": depreciation})
    rows = y.plan
    replaced = rows["replacement_capex_usd"]
    replaced_dep = timeline.replacement_depreciation(replaced, a.depreciation_method, life, resid, in_horizon)
    replaced_value = short_sum(rows["replacement_residual_value_usd"], axis=-1)  # the value at the horizon
    y.give(plan=dict(
        replacement_depreciation_usd=replaced_dep,
        depreciation_rate_by_age=np.where(t <= n, timeline.depreciation_rate_by_age(  # the schedule by age, to the horizon
            np.asarray(a.depreciation_method, float)[..., None], life[..., None], resid[..., None], t), 0.0),
        # the replacements' values at the horizon less their book values then (bought less depreciated)
        disposal_gain_usd=np.where(t == n, (short_sum(gain, axis=-1) - (short_sum(replaced, axis=-1)
                                                                     - short_sum(replaced_dep, axis=-1))
                                            + replaced_value)[..., None], 0.0)))
    _tax(a, y, in_horizon)
    return y, bought, t, n, years, in_horizon


def _year_rows(a, pool, table=None):
    """(the year rows started: the indices, the utilization, each pool's `active` and utilization, and every
    other row of `table` that reads none written by hand; the years t; 1 in the horizon's years; the throughput
    index by year, not yet given)."""
    years = np.asarray(a.years, float)
    t = np.arange(int(np.nanmax(years)) + 1, dtype=float)
    in_horizon = ((t >= 1) & (t <= years[..., None])).astype(float)
    y = year_rows.YearRows(a, pool, t, table)
    active, pool_u = y.pools["active"], y.pools["utilization"]
    count = np.asarray(pool["device_count"], float)[..., None]
    return y, t, in_horizon, _throughput_index(a, count, pool_u, active, active > 0, t, in_horizon)


def _tranches(a, pool, t, disposal: bool = True):
    """(each pool's purchase year [..., P, 1], the residual value fraction, the depreciation life in years, each
    pool's depreciation by year, each pool's taxable gain on the horizon sale: `_depreciation`, `_disposal_gain`;
    without `disposal`, None for the gain: the cost-only path reads no tax)."""
    years = np.asarray(a.years, float)
    P1 = lambda v: np.asarray(v, float)[..., None]  # noqa: E731  pool [..., P] -> [..., P, 1]
    bought = P1(a.purchase_year)
    resid = np.asarray(a.residual_value_fraction, float)
    life = np.where(np.isnan(np.asarray(a.depreciation_years, float)), years, np.asarray(a.depreciation_years, float))
    capex = P1(pool["capex_usd"])
    depreciation = _depreciation(a, capex, bought, t, years[..., None], resid, life)
    gain = _disposal_gain(a, capex, bought, years[..., None], years, resid, life) if disposal else None
    return bought, resid, life, depreciation, gain


def _throughput_index(a, count, pool_u, active, serves, t, in_horizon):
    """The throughput index by year (software that gets faster, docs/model.md "Finance over time"; a demand-sized
    plan's capped at its demand over its pools' output tokens at year-1 speed; 0 past the horizon)."""
    tps = np.asarray(a.tokens_per_s_per_device, float)[..., None]
    at_year_1_speed = np.where(serves, costs.output_tokens_per_year(tps, count, pool_u) * active, 0.0)
    index = timeline.throughput_index(a.throughput_change_per_year, a.demand_tokens_per_year,
                                      short_sum(at_year_1_speed, axis=-2), t)
    return np.where(in_horizon > 0, index, 0.0)


def _tax(a, y, in_horizon) -> None:
    """The losses carried and the tax of every year (timeline.tax_by_year, a running state): the cash flow, a
    table row, follows."""
    tax, carried = timeline.tax_by_year(y.plan["taxable_income_usd"], a.tax_rate, a.tax_losses, a.tax_loss_limit)
    y.give(plan={"loss_carried_usd": carried, "tax_usd": np.where(in_horizon > 0, tax, 0.0)})


def _financing(a, y, bought, t, n, years, in_horizon) -> None:
    """The debt rows and the equity flows (financing.py); with debt_fraction = 0 the equity flows are the
    project's flows exactly."""
    L2 = lambda v: np.asarray(v, float)[..., None, None]  # noqa: E731  plan [...] -> [..., 1, 1]
    term = np.where(np.isnan(np.asarray(a.debt_years, float)), years, np.asarray(a.debt_years, float))
    _, interest, scheduled, balloon = financing.debt_by_year(
        y.pools["capex_usd"], bought, t, n[..., None, :], L2(a.debt_fraction), L2(a.debt_rate), L2(term))
    principal = scheduled + balloon
    out = {"interest_usd": short_sum(interest, axis=-2),
           "principal_usd": short_sum(principal, axis=-2), "balloon_usd": short_sum(balloon, axis=-2)}
    out["debt_service_usd"] = out["interest_usd"] + out["principal_usd"]
    y.give(plan=out, pools=dict(interest_usd=interest, principal_usd=principal, debt_service_usd=interest + principal,
                                balloon_usd=balloon))
    rows = y.plan
    tax, out["levered_loss_carried_usd"] = timeline.tax_by_year(rows["levered_taxable_income_usd"], a.tax_rate,
                                                                 a.tax_losses, a.tax_loss_limit)
    out["levered_tax_usd"] = np.where(in_horizon > 0, tax, 0.0)
    service = out["interest_usd"] + short_sum(scheduled, axis=-2)  # paid from operations (the balloon from the sale)
    with np.errstate(divide="ignore", invalid="ignore"):
        out["dscr"] = np.where(service > 0, (_available(rows) - out["levered_tax_usd"]) / service, np.nan)
    y.give(plan=out)


def _available(rows):
    """Cash from operations before tax and debt service: revenue - opex - the replacements of failed devices
    (capex that keeps the fleet serving, paid from operations, not borrowed)."""
    return rows["revenue_usd"] - rows["opex_usd"] - rows["replacement_capex_usd"]


def _depreciation(a, capex, bought, t, n, resid, life):
    """Per pool and year, the depreciation (depreciation.py)."""
    L2 = lambda v: np.asarray(v, float)[..., None, None]  # noqa: E731  plan [...] -> [..., 1, 1]
    method = np.asarray(a.depreciation_method, float)
    serving = (t > bought) & (t <= n[..., None, :])
    straight = np.where(serving & (t <= bought + L2(life)), capex * (1.0 - L2(resid)) / L2(life), 0.0)
    basis = capex * L2(depreciation.basis_fraction(method, resid))
    scheduled = np.where(serving, basis * depreciation.rate_by_age(L2(method), L2(life), t - bought), 0.0)
    return np.where(L2(method) == 0, straight, scheduled)


def _disposal_gain(a, capex, bought, n, years, resid, life):
    """Per pool, the horizon sale's taxable gain: the tranche's value at the horizon less its book value then
    (capex - the depreciation taken), negative where the basis is not yet depreciated (a deductible loss). With
    depreciation_years = years (straight line) the two are the same operation on the same numbers, so the gain
    is exactly 0."""
    method = np.asarray(a.depreciation_method, float)
    L1 = lambda v: np.asarray(v, float)[..., None]  # noqa: E731  plan [...] -> [..., 1] (the pool axis)
    age = n - bought[..., 0]
    value = timeline.resale_fraction(age, L1(years), L1(resid), L1(a.resale_curve), L1(a.resale_decline_per_year))
    book_straight = timeline.tranche_value_fraction(age, L1(life), L1(resid))
    book_scheduled = 1.0 - L1(depreciation.basis_fraction(method, resid)) * depreciation.taken_fraction(
        L1(method), L1(life), age)
    book = np.where(L1(method) == 0, book_straight, book_scheduled)
    return capex[..., 0] * (value - book)


def _recovery_factor(a, rows):
    """The capital recovery factor r / (1 - (1 + r)^-n); with mid-year discounting 1 / (the sum of the
    discount factors of years 1..n): the constant yearly amount with the same present value either way."""
    end_of_year = recovery.crf(a.discount_rate, a.years)
    t = np.arange(rows["discount_factor"].shape[-1])
    in_horizon = (t >= 1) & (t <= np.asarray(a.years, float)[..., None])
    with np.errstate(divide="ignore", invalid="ignore"):
        mid_year = 1.0 / short_sum(np.where(in_horizon, rows["discount_factor"], 0.0), axis=-1)
    return np.where(np.asarray(a.discounting, float) == 1, mid_year, end_of_year)


def _in_service(a, pool, rows) -> dict[str, np.ndarray]:
    """Racks and devices that exist, levelized like revenue: each pool's count over the years it serves
    (`pool_active`), PV x the capital recovery factor; the count itself where every pool is bought at the
    start (it serves every year: the same number, without rounding)."""
    flat = np.all(np.asarray(a.purchase_year, float) == 0, axis=-1)
    crf = _recovery_factor(a, rows)
    active, factor = rows["pool_active"], rows["discount_factor"]
    shape = np.broadcast_shapes(active.shape[:-1], factor.shape[:-1] + (1,))  # the shape of the pools' active PV

    def levelized(values):
        active_pv = short_sum(active[..., 1:] * factor[..., None, 1:], axis=-1)
        return short_sum(values * active_pv, axis=-1) * crf
    out = {}
    for key, count in (("racks_in_service", "racks"), ("device_count_in_service", "device_count")):
        values = np.asarray(pool[count], float)
        out[key] = _where_flat(flat, short_sum(values, axis=-1), lambda: levelized(values),
                               np.broadcast_shapes(values.shape, shape)[:-1], np.shape(crf))
    return out


def _where_flat(flat, flat_value, otherwise, *shapes):
    """np.where(flat, flat_value, otherwise()), calling `otherwise` only where some row is not flat: where every
    row is, the flat values, in the shape np.where gives (`shapes`: those of `otherwise()`'s result). The same
    numbers either way; a Monte Carlo run's finance over 10,000 draws skips its present values this way."""
    if np.asarray(flat).all():
        return np.where(flat, flat_value, np.zeros(_broadcast_shape(np.shape(flat), np.shape(flat_value), *shapes)))
    return np.where(flat, flat_value, otherwise())


@functools.lru_cache(maxsize=256)
def _broadcast_shape(*shapes) -> tuple:
    """np.broadcast_shapes, kept per shapes (`_where_flat` asks for the same few on every call)."""
    return np.broadcast_shapes(*shapes)


def _levelized(flat, rows, key, crf):
    """PV over years 1..n x crf: the constant yearly amount with the same present value (the year's
    amount itself where nothing changes by year)."""
    values, factor = rows[key], rows["discount_factor"]
    return _where_flat(flat, values[..., 1] if values.shape[-1] > 1 else np.nan,
                       lambda: short_sum(values[..., 1:] * factor[..., 1:], axis=-1) * crf,
                       values.shape[:-1], factor.shape[:-1], np.shape(crf))


def _levelized_costs(a, o, rows, keys=LEVELIZED_YEAR_ROWS):
    """(the capital recovery factor, the year rows `keys` levelized, the capex per year)."""
    flat = timeline.is_flat(a)
    crf = _recovery_factor(a, rows)
    lev = {key: _levelized(flat, rows, key, crf) for key in keys}
    capex, replaced, resid, factor = (rows[k] for k in CAPEX_YEAR_ROWS)

    def pv_capex_less_residual():
        pv_capex = short_sum((capex + replaced) * factor, axis=-1)
        pv_resid = short_sum(resid * factor, axis=-1)
        return (pv_capex - pv_resid) * crf
    capex_year = _where_flat(flat, recovery.capex_usd_per_year(o["capex_usd"], a.residual_value_fraction,
                                                               a.discount_rate, a.years), pv_capex_less_residual,
                             *(r.shape[:-1] for r in (capex, replaced, resid, factor)), np.shape(crf))
    return crf, lev, capex_year


def _costs_and_returns(a, o, pool, rows, with_irr: bool, with_extra_returns: bool = True) -> dict[str, np.ndarray]:
    crf, lev, capex_year = _levelized_costs(a, o, rows)
    out_tok, in_tok = lev["output_tokens"], lev["input_tokens"]
    revenue = lev["revenue_usd"]
    result = {PART_ANNUAL_KEYS[part]: lev[PART_YEAR_KEYS[part]] for part in OPEX_PARTS}
    result.update({
        "output_tokens_per_year": out_tok, "input_tokens_per_year": in_tok, "revenue_usd_per_year": revenue,
        "uncached_input_revenue_usd_per_year": lev["uncached_input_revenue_usd"],
        "cached_input_revenue_usd_per_year": lev["cached_input_revenue_usd"],
        "opex_usd_per_year": lev["opex_usd"],
        "capital_recovery_factor": crf * np.ones_like(capex_year + lev["opex_usd"]),
        "capex_usd_per_year": capex_year,
    })
    plan_inputs = {k: np.asarray(a[k], float) for k in PLAN_INPUT_KEYS}  # an expression may read the plan's inputs
    _evaluate(PLAN_EXPRESSIONS, {**plan_inputs, **o, **result}, result, _over_pools(a, pool))
    flows = rows["cash_flow_usd"]
    later_capex = short_sum(rows["capex_usd"][..., 1:], axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        roi = (short_sum(flows[..., 1:], axis=-1) + later_capex) / o["capex_usd"] - 1.0
    result.update(
        cash_flows_usd=flows,
        npv_usd=cashflow.npv_usd(a.discount_rate, flows, a.discounting),
        payback_months=cashflow.payback_months(flows),
        unused_tax_loss_usd=rows["loss_carried_usd"][..., -1] * np.ones_like(o["capex_usd"]),
        roi=np.where(o["capex_usd"] > 0, roi, np.nan),
        irr=cashflow.irr(flows) if with_irr else np.full(np.shape(o["capex_usd"]), np.nan),
    )
    equity = rows["equity_cash_flow_usd"]
    own_rate = np.asarray(a.equity_discount_rate, float)
    equity_rate = np.where(np.isnan(own_rate), np.asarray(a.discount_rate, float), own_rate)
    result.update(
        equity_npv_usd=cashflow.npv_usd(equity_rate, equity, a.discounting),
        equity_irr=equity_irr(equity, flows, result["irr"]) if with_irr else np.full(np.shape(o["capex_usd"]), np.nan),
        min_dscr=financing.min_dscr(rows["dscr"]),
        wacc=financing.wacc(a.debt_fraction, equity_rate, a.debt_rate, financing.shield_rate(rows)),
    )
    result.update(_extra_returns(a, rows, result["wacc"]) if with_extra_returns else
                  {key: np.full(np.shape(o["capex_usd"]), np.nan) for key in EXTRA_RETURNS})
    return result


EXTRA_RETURNS = ("discounted_payback_months", "mirr", "npv_at_wacc_usd")   # `with_extra_returns`


def _extra_returns(a, rows, wacc) -> dict[str, np.ndarray]:
    """The discounted payback, the MIRR and the NPV at the WACC (EXTRA_RETURNS)."""
    flows = rows["cash_flow_usd"]
    return {"discounted_payback_months": cashflow.payback_months(flows * rows["discount_factor"]),
            "mirr": cashflow.mirr(flows, a.discount_rate, a.discount_rate, a.years),
            "npv_at_wacc_usd": np.where(np.isfinite(wacc), cashflow.npv_usd(np.nan_to_num(wacc), flows, a.discounting),
                                        np.nan)}


def equity_irr(equity, flows, project_irr):
    """The IRR of the equity flows; where a row's equity flows are the project's (no debt, the same
    tax) it is the project's IRR, already found (one root search per row, not two)."""
    same = np.all(equity == flows, axis=-1)
    out = np.array(np.broadcast_to(project_irr, same.shape), float)
    if np.all(same):
        return out
    out[~same] = cashflow.irr(equity[~same])
    return out


def _evaluate(expressions, env: dict, out: dict, over_pools=None) -> None:
    """Each (key, expression) in order over `env` (the rows computed so far), into `out` and `env`; a name over
    the plan's pools (a pools_total's term, a min or max over pools) by `over_pools`."""
    def value(name: str):
        return env[name] if name in env else over_pools(name)
    for key, expr in expressions:
        out[key] = env[key] = numpy_function(expr)(value)   # expr.numpy(value), compiled once


def _over_pools(a, pool):
    """The names a plan quantity's expression reads over its pools (pools on the last axis): a pool's quantity or
    input in each pool, the smallest or largest of the pools' values."""
    def value(name: str) -> np.ndarray:
        if name == POOL_AXIS:
            return np.asarray(-1)
        if name.startswith(IN_POOL):
            key = name[len(IN_POOL):]
            return pool[key] if key in pool else np.asarray(a[key], float)
        for prefix, reduce in ((POOLS_MIN, np.min), (POOLS_MAX, np.max)):
            if name.startswith(prefix):
                return reduce(np.asarray(pool[name[len(prefix):]], float), axis=-1)
        raise KeyError(name)
    return value


@functools.lru_cache(maxsize=8)
def _in_order(expressions, known: frozenset) -> tuple:
    """The (key, expression) pairs ordered so that each reads only keys in `known` or computed before it."""
    done, ordered, rest = set(known), [], list(expressions)
    while rest:
        ready = [(k, e) for k, e in rest if all(x in done for x in e.keys())]
        if not ready:
            raise KeyError(f"expressions read keys nothing computes: {[k for k, _ in rest]}")
        ordered += ready
        done |= {k for k, _ in ready}
        rest = [pair for pair in rest if pair not in ready]
    return tuple(ordered)
