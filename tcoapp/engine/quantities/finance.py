"""The finance side's tables: every input and intermediate of the finance layer, with its unit,
its array axis and its help (docs/model.md, "Finance layer" and "Fleet plans"). Their rows are the
quantity table's scopes "finance input", "pool quantity", "plan quantity" and "year".

Axis "pool" quantities are per pool (the last array axis is the pool axis); axis "plan" quantities
are per plan (the pools summed, or plan-wide inputs). The typed records `FinanceInputs`,
`PoolFinance` and `FinanceResult` are generated from these tables, so a key, its unit and its help
live in one place; the workbook writers keep only `key -> formula` and read units and help here.
"""
from __future__ import annotations

import functools
import operator
from dataclasses import replace
from typing import Any, Mapping

import numpy as np

from .expr import (
    C, Expr, K, Y, Year, all_of, any_of, compare, gated, is_blank, is_choice, is_number, maximum, minimum, negation,
    not_available, over_years, per_million, plan_row, pools_sum, pools_total, round_down, round_up, serving, to_date,
    when, when_positive,
)
from .metrics import METRIC_BY_KEY, METRICS
from .inputs import DEVICE_ECONOMICS_KEYS  # the per-pool device inputs (read through this module too)
from .inputs import DEVICE_FIELDS, PLAN_FIELD_BY_NAME, PLAN_FIELDS, POOL_FIELDS
from .row import Field, Quantity, by_name, ranked, scoped


def _q(key, unit, axis, help_, **flows) -> Quantity:
    return Quantity(key=key, unit=unit, axis=axis, help=help_, **flows)


# per-year rows (plan axis, trailing axis = year 0..max years)
YEARS = dict(cashflow="years")
SERVES = compare(Y("active"), "=", 1)  # the pool serves in the year (a year row's gate: 0 in the other years)
# a pool's average IT power in the year: its devices at the year's utilization plus its servers' overhead
# the price an average input token pays: (1 - hit rate) x input price + hit rate x cached price (empty: the input price)
INPUT_PRICE = when(is_blank("price_usd_per_million_cached_input_tokens"), K("price_usd_per_million_input_tokens"),
                   (1 - K("prefix_cache_hit_rate")) * K("price_usd_per_million_input_tokens")
                   + K("prefix_cache_hit_rate") * K("price_usd_per_million_cached_input_tokens"))
# a pool's revenue in the year: its tokens at the year's prices (its input tokens: output x input / output per request)
TOKEN_REVENUE = (Y("output_tokens") * (K("price_usd_per_million_output_tokens") * Y("price_index")) / C("TOKENS_PER_MILLION")
                 + Y("output_tokens") * K("input_tokens") / K("output_tokens") * (INPUT_PRICE * Y("price_index"))
                 / C("TOKENS_PER_MILLION"))
# or its device-hours (docs/model.md, "Revenue as device hours"): the reserved share of every hour, the rest as used
DEVICE_HOUR_REVENUE = (K("device_count") * C("HOURS_PER_YEAR") * (
    K("reserved_fraction") * K("reserved_price_usd_per_device_hour")
    + (1 - K("reserved_fraction")) * Y("utilization") * K("price_usd_per_device_hour")) * Y("price_index") * Y("active"))
IT_AVG_KW = (K("device_count") * (Y("utilization") * K("power_w") + (1 - Y("utilization")) * K("idle_w"))
             + K("servers") * K("server_overhead_w")) / C("W_PER_KW")


def _itemized(unit: str) -> Expr:
    """The itemized capex inputs priced in `unit` (USD/device, USD/server; the "capex" group of the plan fields),
    added in table order: a new item is its field row."""
    return functools.reduce(operator.add, (K(f.name) for f in PLAN_FIELDS if f.group == "capex" and f.unit == unit))


PER_DEVICE_CAPEX, PER_SERVER_CAPEX = _itemized("USD/device"), _itemized("USD/server")
# what a failed device's replacement costs: the device's price and the per-device items marked `replaced`
REPLACED_PRICE = functools.reduce(operator.add, (K(f.name) for f in PLAN_FIELDS if f.group == "capex" and f.replaced),
                                  K("price_usd"))
ITEMIZED_CAPEX_KEYS = PER_DEVICE_CAPEX.keys() + PER_SERVER_CAPEX.keys()  # the itemized capex inputs
BOUGHT = (1 + K("hardware_price_change_per_year")) ** K("purchase_year")  # the price index of the purchase year
# the capex of one whole server of a bought pool at today's prices: what a capex budget buys servers by (the
# engine's sizing and the Results sized device count of a one-pool plan); its items are capex_usd's
# the power a device is provisioned for: its power limit where it has one (> 0), else its TDP
# (performance/device_power.nameplate_w is the same rule for one device)
DEVICE_NAMEPLATE_W = when(compare(K("power_limit_w"), ">", 0), minimum(K("tdp_w"), K("power_limit_w")), K("tdp_w"))
SERVER_CAPEX = ((K("devices_per_server") * K("price_usd") + K("server_price_usd")) * (1 + K("other_capex_fraction"))
                + K("devices_per_server") * PER_DEVICE_CAPEX + PER_SERVER_CAPEX)

def _held(key, rate_input, **flows) -> Quantity:
    """An opex line that is a fraction per year (the input field `rate_input`, a finance input) of the capex
    of the bought pools serving in the year: the field's row and this row are all it takes."""
    label = PLAN_FIELD_BY_NAME[rate_input].label
    flows = {"bar": "other", **flows}   # drawn in the cost bar's "other" segment unless it says otherwise
    # (the fraction decides first: 0 where it is 0, even where the capex does not exist)
    held = when(is_choice("held_capex_basis", "book_value"),
                K("capex_usd") - (to_date("depreciation_usd") - Y("depreciation_usd")), K("capex_usd"))
    return _q(key, "USD", "plan", f"{label} of the bought pools serving in the year: {rate_input} x their capex.",
              **YEARS, label=label, rate_input=rate_input, levelized=True, **flows,
              pool_expr=gated(all_of(SERVES, compare(K(rate_input), ">", 0)), K("owned") * held * K(rate_input) * Y("active")))


def _device_line(field: Field) -> Quantity:
    """An itemized opex line per device-year (a plan field with per_device_year): the serving devices x the
    field x the cost index, each year a pool serves. The field row is all a new line takes: its year row, plan and
    pool quantities per year, CashFlow and Results rows, opex, cost per token and NPV follow from it."""
    part = field.name.removesuffix("_usd_per_device_year")
    return _q(f"{part}_usd", "USD", "plan", f"{field.label} of the pools serving in the year: devices x {field.name} x "
              "the cost index.", **YEARS, label=field.label, opex_part=part, bar="other", levelized=True,
              device_input=field.name,
              pool_expr=gated(SERVES, K("device_count") * K(field.name) * Y("cost_index") * Y("active")))


F = dict(cashflow="financing")


def _index(change: str) -> Expr:
    """(1 + change)^(t-1) in the years 1..n of the horizon, else 0 (nothing is sold or paid for at the start)."""
    return gated(serving(), (1 + K(change)) ** (Year() - 1))


def _value_fraction(age: Expr) -> Expr:
    """A tranche's resale value at `age` years as a fraction of its capex (docs/model.md, "Years"): linear,
    1 - (1 - residual) x min(1, age / years) (residual from the horizon on), or declining balance,
    (1 - resale_decline_per_year)^age."""
    resid, years = K("residual_value_fraction"), K("years")
    return when(is_choice("resale_curve", "declining_balance"), (1 - K("resale_decline_per_year")) ** age,
                when(compare(age, ">=", years), resid, 1 - (1 - resid) * minimum(1, age / years)))


AT_HORIZON = compare(Year(), "=", K("years"))   # the horizon's year: the sale
MONTHS = C("MONTHS_PER_YEAR")


def _ramp(months: Expr, serving_year: Expr) -> Expr:
    """A tranche's ramp factor in its `serving_year`-th year of service (docs/model.md, "Tranche ramp"): its load
    min(1, m / R) over its months m in [a, b] = [12 (k - 1), 12 k] averaged, ((c^2 - a^2) / (2 R) + b - c) / 12
    with c = min(max(R, a), b); 1 where R = 0 (no ramp). (c^2 - a^2) / (2 R) is written RAMP_MEAN x (c^2 - a^2) / R:
    the same number to the bit (a halving is exact), with no literal 2 in the formula."""
    a, b = MONTHS * (serving_year - 1), MONTHS * serving_year
    c = minimum(maximum(months, a), b)
    return when(compare(months, ">", 0), (C("RAMP_MEAN") * (c * c - a * a) / months + b - c) / MONTHS, 1)


# a pool's input tokens in the year (its output tokens x input / output tokens per request), and the token revenue
# by type where the pool serves and revenue is by token (docs/model.md, "Three token prices")
POOL_INPUT_TOKENS = Y("output_tokens") * K("input_tokens") / K("output_tokens")
SELLS_TOKENS = all_of(SERVES, negation(is_choice("revenue_mode", "device_hours")))
CACHED_PRICE = when(is_blank("price_usd_per_million_cached_input_tokens"), K("price_usd_per_million_input_tokens"),
                    K("price_usd_per_million_cached_input_tokens"))
FIRST, RAMP = K("first_year_utilization"), K("ramp_years")
YEAR_QUANTITIES: tuple[Quantity, ...] = scoped("year", (
    _q("price_index", "ratio", "plan", "(1 + price_change_per_year)^(t-1): every token price in year t, relative to year 1.", **YEARS, label="Token price index",
       expr=_index("price_change_per_year")),
    _q("electricity_index", "ratio", "plan", "(1 + electricity_price_change_per_year)^(t-1).", **YEARS, label="Electricity price index",
       expr=_index("electricity_price_change_per_year")),
    _q("cost_index", "ratio", "plan", "(1 + cost_change_per_year)^(t-1): colocation, maintenance, software, staff, rent.", **YEARS, label="Cost index (colocation, maintenance, software, staff, rent)",
       expr=_index("cost_change_per_year")),
    _q("throughput_index", "ratio", "plan", "(1 + throughput_change_per_year)^(t-1), a demand-sized plan's capped so that its output tokens stay within its demand (never below 1): every pool's output tokens in year t x this.", **YEARS, label="Throughput index (software speed)", json=True),
    _q("hardware_price_index", "ratio", "plan", "(1 + hardware_price_change_per_year)^t: the price of capex paid in year t, relative to today's.", **YEARS, label="Hardware price index", json=True,
       expr=gated(compare(Year(), "<=", K("years")), (1 + K("hardware_price_change_per_year")) ** Year())),
    _q("utilization", "fraction", "plan", "first + (utilization - first) x min(1, (t - 1) / ramp_years); each tranche serves at this x its ramp factor (tranche_ramp_months).", **YEARS, label="Utilization", pool_year=1,
       pool_expr=gated(SERVES, plan_row("utilization") * _ramp(K("tranche_ramp_months"), Year() - K("purchase_year"))),
       expr=gated(serving(), when(any_of(compare(RAMP, "=", 0), is_blank("first_year_utilization")), K("utilization"),
                                  FIRST + (K("utilization") - FIRST) * minimum(1, (Year() - 1) / RAMP)))),
    _q("output_tokens", "tokens", "plan", "Output tokens made in the year by the pools serving then.", **YEARS, label="Output tokens", pool_year=2, json=True, levelized=True,
       pool_expr=gated(SERVES, K("tokens_per_s_per_device") * K("device_count") * Y("utilization") * C("SECONDS_PER_YEAR")
                      * Y("active") * Y("throughput_index"))),
    _q("input_tokens", "tokens", "plan", "Input tokens of those requests.", **YEARS, label="Input tokens", levelized=True,
       expr=pools_total(POOL_INPUT_TOKENS)),
    _q("revenue_usd", "USD", "plan", "Output and input tokens at the year's prices.", **YEARS, label="Revenue", pool_year=3, json=True, levelized=True,
       pool_expr=gated(SERVES, when(is_choice("revenue_mode", "device_hours"), DEVICE_HOUR_REVENUE, TOKEN_REVENUE))),
    _q("uncached_input_revenue_usd", "USD", "plan", "Revenue of the input tokens not read from the prefix cache: input tokens x (1 - prefix_cache_hit_rate) x the input price x the price index (0 where revenue_mode = device_hours).", **YEARS, label="Revenue of uncached input tokens", json=True, levelized=True,
       expr=pools_total(gated(SELLS_TOKENS, POOL_INPUT_TOKENS * (1 - K("prefix_cache_hit_rate"))
                              * (K("price_usd_per_million_input_tokens") * Y("price_index")) / C("TOKENS_PER_MILLION")))),
    _q("cached_input_revenue_usd", "USD", "plan", "Revenue of the input tokens read from the prefix cache: input tokens x prefix_cache_hit_rate x the cached input price (empty: the input price) x the price index (0 where revenue_mode = device_hours).", **YEARS, label="Revenue of cached input tokens", json=True, levelized=True,
       expr=pools_total(gated(SELLS_TOKENS, POOL_INPUT_TOKENS * K("prefix_cache_hit_rate")
                              * (CACHED_PRICE * Y("price_index")) / C("TOKENS_PER_MILLION")))),
    _q("energy_usd", "USD", "plan", "Energy of the bought pools serving in the year.", **YEARS, label="Energy", opex_part="energy", bar="energy", bridge=1, pool_year=4, levelized=True,
       pool_expr=gated(SERVES, K("owned") * IT_AVG_KW * K("pue") * C("HOURS_PER_YEAR") * K("electricity_usd_per_kwh")
                      * Y("electricity_index") * Y("active"))),
    # a contract on a power of its own (colocation_contracted_kw) bills the plan; else each bought pool's nameplate
    _q("colocation_usd", "USD", "plan", "Colocation of the bought pools serving in the year.", **YEARS, label="Colocation", opex_part="colocation", bar="colocation", bridge=2, pool_year=5, levelized=True,
       pool_expr=gated(SERVES, when(is_blank("colocation_contracted_kw"), K("owned") * K("it_provisioned_kw")
                                   * K("colocation_usd_per_kw_month") * C("MONTHS_PER_YEAR") * Y("cost_index") * Y("active"))),
       expr=pools_sum(Y("colocation_usd")) + when(
           all_of(serving(), negation(is_blank("colocation_contracted_kw"))),
           K("colocation_contracted_kw") * K("colocation_usd_per_kw_month") * C("MONTHS_PER_YEAR") * Y("cost_index"))),
    _q("maintenance_usd", "USD", "plan", "Maintenance of the pools serving in the year.", **YEARS, label="Maintenance", opex_part="maintenance", bar="maintenance", bridge=3, pool_year=6, levelized=True,
       pool_expr=gated(SERVES, K("hardware_capex_usd") * K("maintenance_fraction_per_year") * Y("cost_index") * Y("active"))),
    _q("software_usd", "USD", "plan", "Software of the pools serving in the year.", **YEARS, label="Software", opex_part="software", bar="other", bridge=4, pool_year=7, levelized=True,
       pool_expr=gated(SERVES, K("device_count") * K("software_usd_per_device_year") * Y("cost_index") * Y("active"))),
    _q("rent_usd", "USD", "plan", "Rent of the rented pools serving in the year.", **YEARS, label="Rent", opex_part="rent", bar="other", bridge=6, pool_year=8, levelized=True,
       pool_expr=gated(SERVES, (1 - K("owned")) * K("device_count") * K("rent_usd_per_device_hour") * C("HOURS_PER_YEAR")
                      * Y("cost_index") * Y("active"))),
    _q("staff_usd", "USD", "plan", "Staff cost of the year.", **YEARS, label="Staff", opex_part="staff", bar="other", bridge=5, levelized=True,
       expr=gated(serving(), K("staff_usd_per_year") * Y("cost_index"))),
    _held("insurance_usd", "insurance_fraction_per_year", opex_part="insurance", bridge=7, pool_year=16),
    _held("property_tax_usd", "property_tax_fraction_per_year", opex_part="property_tax", bridge=8, pool_year=17),
    *(_device_line(f) for f in PLAN_FIELDS if f.per_device_year),
    _q("opex_usd", "USD", "plan", "Energy + colocation + maintenance + software + rent + staff.", **YEARS, label="Opex", json=True, levelized=True, outflow=True),
    _q("capex_usd", "USD", "plan", "Capex of the tranches paid in the year.", **YEARS, label="Capex", pool_year=9, json=True, outflow=True,
       pool_expr=gated(compare(Year(), "=", K("purchase_year")), K("capex_usd"))),
    _q("replacement_capex_usd", "USD", "plan", "Failed devices replaced in the year: annual_failure_rate x the bought pools' serving devices x price_usd x the hardware price index.", **YEARS, label="Replacements of failed devices", pool_year=10, json=True, outflow=True,
       pool_expr=gated(SERVES, K("annual_failure_rate") * K("owned") * K("device_count") * REPLACED_PRICE * Y("hardware_price_index"))),
    _q("replacement_value_fraction", "fraction", "plan", "The value at the horizon of a replacement bought in the year, as a fraction of its price (the tranches' resale curve at its age then).", **YEARS, label="Value at the horizon of this year's replacements (fraction of price)",
       expr=gated(serving(), _value_fraction(K("years") - Year()))),
    _q("replacement_residual_value_usd", "USD", "plan", "At the horizon: the replacements' value then (each valued like a tranche bought in its year); in residual_value_usd.", **YEARS, label="Replacements' value at the horizon", json=True,
       expr=gated(AT_HORIZON, over_years("replacement_capex_usd", "replacement_value_fraction"))),
    _q("residual_value_usd", "USD", "plan", "At the horizon: every tranche's value then, and the replacements'.", **YEARS, label="Residual value at the horizon", pool_year=12, json=True,
       pool_expr=gated(AT_HORIZON, K("capex_usd") * _value_fraction(K("years") - K("purchase_year"))),
       expr=pools_sum(Y("residual_value_usd")) + Y("replacement_residual_value_usd")),
    _q("depreciation_rate_by_age", "fraction", "plan", "Share of a tranche's capex deducted in the year it reaches this age (the column's year): the schedule the replacements follow.", **YEARS, label="Depreciation rate at this age (the replacements' schedule)"),
    _q("replacement_depreciation_usd", "USD", "plan", "Depreciation of the replacements bought in earlier years (the tranches' schedule by their age); in depreciation_usd.", **YEARS, label="Depreciation of the replacements"),
    _q("depreciation_usd", "USD", "plan", "Depreciation of the tranches and of the replacements (depreciation_method).", **YEARS, label="Depreciation", pool_year=11, json=True,
       expr=pools_sum(Y("depreciation_usd")) + Y("replacement_depreciation_usd")),
    _q("disposal_gain_usd", "USD", "plan", "At the horizon: the tranches' and replacements' values less their book values (capex and replacements - depreciation taken); taxable, a loss deductible.", **YEARS, label="Gain on the horizon sale (over book value)", json=True),
    _q("taxable_income_usd", "USD", "plan", "Revenue - opex - depreciation (+ the disposal gain in the last year).", **YEARS, label="Taxable income", json=True,
       expr=gated(serving(), Y("revenue_usd") - Y("opex_usd") - Y("depreciation_usd") + Y("disposal_gain_usd"))),
    _q("loss_carried_usd", "USD", "plan", "Tax losses carried into the next year.", **YEARS, label="Loss carried forward", carried=True),
    _q("tax_usd", "USD", "plan", "tax_rate x (taxable income - the losses carried forward it may offset: at most tax_loss_limit x the income) (>= 0); tax_losses = credit: tax_rate x taxable income (a loss: a negative tax).", **YEARS, label="Tax", json=True),
    _q("cash_flow_usd", "USD", "plan", "Revenue - opex - tax - capex paid - replacements (+ residual values in the last year).", **YEARS, label="Cash flow", json=True,
       expr=Y("revenue_usd") - Y("opex_usd") - Y("tax_usd") - Y("capex_usd") - Y("replacement_capex_usd")
       + Y("residual_value_usd")),
    _q("cumulative_cash_flow_usd", "USD", "plan", "Sum of the cash flows up to the year.", **YEARS, label="Cumulative cash flow", carried=True, json=True),
    _q("discount_factor", "ratio", "plan", "1 / (1 + discount_rate)^t (discounting = mid_year: t - 0.5 for t >= 1).", **YEARS, label="Discount factor",
       expr=1 / (1 + K("discount_rate")) ** (Year() - when(all_of(is_choice("discounting", "mid_year"), compare(Year(), ">=", 1)),
                                                           C("HALF_YEAR"), 0))),
    _q("debt_drawn_usd", "USD", "plan", "Debt borrowed in the year: debt_fraction x the capex of the tranches paid then.", **F, label="Debt drawn", json=True,
       expr=pools_total(Y("capex_usd") * K("debt_fraction"))),
    _q("interest_usd", "USD", "plan", "Interest paid in the year: debt_rate x the balance owed at its start.", **F, label="Interest", pool_year=13, json=True),
    _q("principal_usd", "USD", "plan", "Principal repaid in the year (level annuity; at the horizon also the balance still owed, balloon_usd).", **F, label="Principal repaid", pool_year=14, json=True),
    _q("balloon_usd", "USD", "plan", "At the horizon: the balance still owed, repaid from the sale (part of principal_usd).", **F, label="Balloon repayment", pool_year=18, json=True),
    _q("debt_service_usd", "USD", "plan", "Interest + principal, the horizon's balloon repayment included.", **F, pool_year=15, json=True, label="Debt service"),
    _q("levered_taxable_income_usd", "USD", "plan", "Taxable income less interest (the equity holder's).", **F, label="Taxable income after interest",
       expr=gated(serving(), Y("taxable_income_usd") - Y("interest_usd"))),
    _q("levered_loss_carried_usd", "USD", "plan", "Tax losses of the levered taxable income carried into the next year.", **F, carried=True, label="Loss carried (after interest)"),
    _q("levered_tax_usd", "USD", "plan", "Tax with interest deducted from taxable income (same loss rule).", **F, label="Tax after interest"),
    _q("equity_cash_flow_usd", "USD", "plan", "Cash flow + (tax - levered tax) + debt drawn - interest - principal.", **F, json=True, label="Equity cash flow",
       expr=Y("cash_flow_usd") + (Y("tax_usd") - Y("levered_tax_usd")) + Y("debt_drawn_usd") - Y("interest_usd")
       - Y("principal_usd")),
    _q("dscr", "ratio", "plan", "(revenue - opex - levered tax - replacements) / (debt service - balloon) in the years with scheduled debt service (the balloon is paid from the sale, not from operations).", **F, cached=False, json=True, label="DSCR"),
))
# opex: the sum of the opex lines, in table order (a new line is in it by its opex_part)
YEAR_QUANTITIES = tuple(replace(q, expr=functools.reduce(operator.add, (Y(r.key) for r in YEAR_QUANTITIES if r.opex_part)))
                        if q.key == "opex_usd" else q for q in YEAR_QUANTITIES)
YEAR_QUANTITY_BY_KEY = {q.key: q for q in YEAR_QUANTITIES}


def _code_help(field: Field) -> str:
    return f"{field.label} as a code: " + ", ".join(f"{i} {c}" for i, c in enumerate(field.choices)) + "."


def _field_value(field: Field) -> float:
    """A field's default as the finance layer reads it (a choice: its index; not set: NaN)."""
    if field.type == "choice":
        return float(field.choices.index(field.default))
    return float("nan") if field.default is None else float(field.default)


def _input(key, axis="plan", field_table=PLAN_FIELD_BY_NAME, optional=False, **flows) -> Quantity:
    """A finance input that is an input field: the row names the field; its unit and help are the field's
    (a choice: its codes), its "no change" value (`optional`: a caller may leave it out) the field's default."""
    field = field_table[key]
    unit, help_ = ("code", _code_help(field)) if field.type == "choice" else (field.unit, field.help)
    return Quantity(key=key, unit=unit, axis=axis, help=help_, field=key,
                    default=_field_value(field) if optional else None, **flows)


_DEVICE = by_name(DEVICE_FIELDS)
_POOL = by_name(POOL_FIELDS)
FINANCE_INPUTS: tuple[Quantity, ...] = scoped("finance input", (
    # per pool: the device's economics, the pool's count, rack keys, operating point and price
    _input("price_usd", "pool", _DEVICE, swing=5),
    _input("devices_per_server", "pool", _DEVICE),
    _input("server_price_usd", "pool", _DEVICE, swing=6),
    _input("tdp_w", "pool", _DEVICE),
    _input("idle_w", "pool", _DEVICE),
    _input("server_overhead_w", "pool", _DEVICE),
    _input("power_limit_w", "pool", _DEVICE, optional=True),
    _q("device_count", "devices", "pool", "Accelerators in the pool after sizing."),
    _input("rack_power_cap_kw", "pool", _POOL),
    _input("servers_per_rack_max", "pool", _POOL),
    _q("tokens_per_s_per_device", "tokens/s", "pool", "Output tokens/s per device of the pool at the operating point (0 for a prefill pool).", swing=1),
    _q("power_w", "W", "pool", "Power per device of the pool while serving at the operating point.", swing=7),
    _q("price_usd_per_million_output_tokens", "USD/Mtok", "pool", "Output price the pool's tokens sell at (the plan's, or its price tier).", swing=2),
    _q("owned", "flag", "pool", "1: the pool is bought (capex, energy, facility, maintenance); 0: rented.", default=1.0, label="Owned (1) or rented (0)"),
    _input("rent_usd_per_device_hour", "pool", _POOL, optional=True),
    _input("purchase_year", "pool", _POOL, optional=True),
    _q("prefill_share", "fraction", "pool", "Share of the pool's device time spent prefilling (NaN: unknown); allocates cost to input tokens.", default=float("nan"),
       label="Prefill share of device time"),
    # per plan: the plan's input fields
    _input("other_capex_fraction", swing=14),
    *(_input(k, optional=True) for k in ITEMIZED_CAPEX_KEYS),  # the itemized capex (the "capex" fields per device, server)
    _input("pue", swing=9),
    _input("electricity_usd_per_kwh", swing=8),
    _input("colocation_usd_per_kw_month", swing=10),
    _input("maintenance_fraction_per_year", swing=11),
    *(_input(q.rate_input, optional=True) for q in YEAR_QUANTITIES if q.rate_input),
    *(_input(q.device_input, optional=True) for q in YEAR_QUANTITIES if q.device_input),  # each per-device line's price  # each held-capex opex line's rate
    _input("software_usd_per_device_year", swing=12),
    _input("staff_usd_per_year", swing=13),
    _input("utilization", swing=4),
    _input("years"),
    _input("discount_rate", swing=15),
    _input("residual_value_fraction", swing=16),
    *(_input(k, optional=True) for k in ("resale_curve", "resale_decline_per_year")),
    _input("price_usd_per_million_input_tokens", swing=3),
    _input("price_usd_per_million_cached_input_tokens", optional=True, swing=27),
    _input("prefix_cache_hit_rate", optional=True),
    _input("input_tokens"),
    _input("output_tokens"),
    *(_input(k, optional=True) for k in (
        "price_change_per_year", "electricity_price_change_per_year", "cost_change_per_year", "first_year_utilization",
        "ramp_years", "tranche_ramp_months", "depreciation_years", "depreciation_method", "discounting", "tax_losses",
        "debt_years", "revenue_mode")),
    # the tornado also swings the device-hour prices, tax and financing and the finance-over-time keys (where set)
    *(_input(k, optional=True, swing=i) for i, k in enumerate((
        "price_usd_per_device_hour", "reserved_price_usd_per_device_hour", "reserved_fraction", "tax_rate",
        "debt_fraction", "debt_rate", "equity_discount_rate", "annual_failure_rate"), start=17)),
    # finance over time (docs/model.md, "Finance over time")
    *(_input(k, optional=True, swing=i) for i, k in enumerate(
        ("hardware_price_change_per_year", "throughput_change_per_year"), start=25)),
    _input("tax_loss_limit", optional=True),
    *(_input(k, optional=True) for k in ("held_capex_basis", "colocation_contracted_kw")),
    _q("demand_tokens_per_year", "tokens/yr", "plan", "A demand-sized plan's demand (demand_tokens_per_day x 365; NaN: "
       "not sized by demand): the output tokens throughput_change_per_year may not exceed.", default=float("nan")),
))
# the inputs a caller may leave out (a one-pool plan): their "no change" values, from the rows
OPTIONAL_INPUTS = {q.key: q.default for q in FINANCE_INPUTS if q.default is not None}


# views of the year rows' flow columns (every list of year keys another module needs)
OPEX_PARTS = tuple(q.opex_part for q in YEAR_QUANTITIES if q.opex_part)   # the opex sum, in table order
COST_COMPONENTS = ("capex",) + OPEX_PARTS                                   # cost per token's parts
HELD_CAPEX_RATES = {q.opex_part: q.rate_input for q in YEAR_QUANTITIES if q.rate_input}  # part -> its fraction of the capex held
HELD_CAPEX_PARTS = tuple(HELD_CAPEX_RATES)
DEVICE_LINE_PARTS = tuple(q.opex_part for q in YEAR_QUANTITIES if q.device_input)  # itemized per device-year
PART_YEAR_KEYS = {q.opex_part: q.key for q in YEAR_QUANTITIES if q.opex_part}          # part -> its year row
PART_ANNUAL_KEYS = {q.opex_part: q.annual_key for q in YEAR_QUANTITIES if q.opex_part}  # part -> its plan quantity per year
COMPONENT_KEYS = {part: f"cost_per_million_output_tokens_{part}_usd" for part in COST_COMPONENTS}  # cost per token's parts
BAR_SEGMENTS = ("capex",) + tuple(dict.fromkeys(q.bar for q in YEAR_QUANTITIES if q.opex_part))  # the cost bar
OTHER_PARTS = tuple(q.opex_part for q in YEAR_QUANTITIES if q.bar == "other")  # drawn as one "other" segment
# (a part without a bridge position comes after the positioned ones, in table order; likewise a held-capex line
# without a pool_year position among the per-pool rows: a new line needs no position)
BRIDGE_PARTS = ("capex",) + tuple(q.opex_part for q in sorted(
    (q for q in YEAR_QUANTITIES if q.opex_part), key=lambda q: (q.bridge == 0, q.bridge))) + ("other",)
POOL_YEAR_KEYS = ("active",) + ranked(YEAR_QUANTITIES, "pool_year") + tuple(
    q.key for q in YEAR_QUANTITIES if (q.rate_input or q.pool_expr is not None) and not q.pool_year)  # per pool and year
CASHFLOW_YEAR_ROWS = tuple(q.key for q in YEAR_QUANTITIES if q.cashflow == "years")
CASHFLOW_FINANCING_ROWS = tuple(q.key for q in YEAR_QUANTITIES if q.cashflow == "financing")
CACHED_YEAR_ROWS = tuple(q.key for q in YEAR_QUANTITIES if q.cashflow and q.cached)
CARRIED_YEAR_ROWS = tuple(q.key for q in YEAR_QUANTITIES if q.carried)  # past the horizon: the last value
LEVELIZED_YEAR_ROWS = tuple(q.key for q in YEAR_QUANTITIES if q.levelized)  # a plan's "per year" value
YEAR_JSON_KEYS = tuple(q.key for q in YEAR_QUANTITIES if q.json)       # `compute --json` "years" rows

def _metric_q(key) -> Quantity:
    """The plan quantity of result metric `key`: its unit and help are the metric table's."""
    metric = METRIC_BY_KEY[key]
    return _q(key, metric.unit, "plan", metric.help, expr=metric.expr)


def _plan_q(key, unit, help_, label="") -> Quantity:
    """A plan quantity; one that is also a result metric is declared once, in the metric table."""
    metric = METRIC_BY_KEY.get(key)
    return _q(key, unit, "plan", help_, label=label) if metric is None else _metric_q(key)


_POOL_AND_PLAN: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    ("device_count", "devices", "Accelerators (plan: summed over pools).", dict(summed=True, pool_json=1)),
    ("servers", "servers", "ceil(device_count / devices_per_server) (plan: summed over pools).", dict(
        summed=True, pool_json=2, expr=round_up(K("device_count") / K("devices_per_server")))),
    ("racks", "racks", "ceil(servers / servers_per_rack), the pool's own racks (plan: summed; pools never share a rack).", dict(
        summed=True, pool_json=4, expr=when_positive(K("servers_per_rack"), round_up(K("servers") / K("servers_per_rack"))))),
    ("hardware_capex_usd", "USD", "Bought pools: device_count x price_usd + servers x server_price_usd.", dict(
        summed=True, label="Hardware capex (devices + servers)", expr=K("owned") * (K("device_count") * K("price_usd") + K("servers") * K("server_price_usd")) * BOUGHT)),
    # a pool that cannot be racked or holds no device does not exist: no capex, so the plan has no cost or return
    ("capex_usd", "USD", "hardware capex x (1 + other capex fraction) + devices x (network + storage per device) + servers x installation per server (bought pools); n/a where a pool cannot be racked.", dict(
        summed=True, pool_json=5, expr=when(
            all_of(is_number(K("racks")), compare(K("device_count"), ">=", 1)),
            K("hardware_capex_usd") * (1 + K("other_capex_fraction"))
            + K("owned") * (K("device_count") * PER_DEVICE_CAPEX + K("servers") * PER_SERVER_CAPEX) * BOUGHT,
            not_available()))),
    ("it_avg_kw", "kW", "Devices at utilization-weighted power plus server overhead.", dict(
        summed=True, pool_json=6, expr=(K("device_count") * K("device_avg_w") + K("servers") * K("server_overhead_w"))
        / C("W_PER_KW"))),
    ("it_provisioned_kw", "kW", "Servers at nameplate power.", dict(
        summed=True, pool_json=7, expr=K("servers") * K("server_nameplate_w") / C("W_PER_KW"))),
    ("energy_usd_per_year", "USD/yr", "it_avg_kw x PUE x 8760 h x electricity price (bought pools).", dict(
        expr=K("owned") * (K("it_avg_kw") * K("pue") * C("HOURS_PER_YEAR") * K("electricity_usd_per_kwh")))),
    ("colocation_usd_per_year", "USD/yr", "it_provisioned_kw x colocation x 12 (bought pools).", dict(
        expr=K("owned") * (K("it_provisioned_kw") * K("colocation_usd_per_kw_month") * C("MONTHS_PER_YEAR")))),
    ("maintenance_usd_per_year", "USD/yr", "maintenance fraction x hardware capex.", dict(
        expr=K("hardware_capex_usd") * K("maintenance_fraction_per_year"))),
    # (the fraction decides first: 0 where it is 0, even where the capex does not exist)
    *((q.annual_key, "USD/yr", f"{q.rate_input} x capex (bought pools).", dict(
        expr=gated(compare(K(q.rate_input), ">", 0), K("owned") * K("capex_usd") * K(q.rate_input))))
      for q in YEAR_QUANTITIES if q.rate_input),
    *((q.annual_key, "USD/yr", f"{q.device_input} x device_count.", dict(expr=K("device_count") * K(q.device_input)))
      for q in YEAR_QUANTITIES if q.device_input),
    ("software_usd_per_year", "USD/yr", "software per device-year x device_count.", dict(
        expr=K("device_count") * K("software_usd_per_device_year"))),
    ("rent_usd_per_year", "USD/yr", "Rented pools: device_count x rent per device-hour x 8760.", dict(
        expr=(1 - K("owned")) * (K("device_count") * K("rent_usd_per_device_hour") * C("HOURS_PER_YEAR")))),
    ("output_tokens_per_year", "tokens/yr", "tokens/s per device x devices x utilization x seconds per year.", dict(
        expr=K("tokens_per_s_per_device") * K("device_count") * K("utilization") * C("SECONDS_PER_YEAR"))),
    ("input_tokens_per_year", "tokens/yr", "output tokens per year x input_tokens / output_tokens.", dict(
        label="Input tokens per year", expr=K("output_tokens_per_year") * K("input_tokens") / K("output_tokens"))),
    # a pool's revenue per year at year-1 prices: its tokens at their prices, or its device-hours (revenue_mode)
    ("revenue_usd_per_year", "USD/yr", "Output and input tokens at their prices.", dict(expr=when(
        is_choice("revenue_mode", "device_hours"),
        K("device_count") * C("HOURS_PER_YEAR") * (K("reserved_fraction") * K("reserved_price_usd_per_device_hour")
                                                   + (1 - K("reserved_fraction")) * K("utilization")
                                                   * K("price_usd_per_device_hour")),
        K("output_tokens_per_year") * K("price_usd_per_million_output_tokens") / C("TOKENS_PER_MILLION")
        + K("input_tokens_per_year") * INPUT_PRICE / C("TOKENS_PER_MILLION")))),
)

POOL_QUANTITIES: tuple[Quantity, ...] = scoped("pool quantity", tuple(
    _q(k, u, "pool", h, **f) for k, u, h, f in _POOL_AND_PLAN) + (
    _q("server_nameplate_w", "W", "pool", "devices_per_server x (power_limit_w where > 0, else tdp_w) + server_overhead_w.",
       label="Server nameplate power", expr=K("devices_per_server") * DEVICE_NAMEPLATE_W + K("server_overhead_w")),
    _q("servers_per_rack", "servers", "pool", "min(servers_per_rack_max, floor(rack cap / server nameplate)); 0: a server exceeds the cap.",
       expr=minimum(K("servers_per_rack_max"), round_down(K("rack_power_cap_kw") * C("W_PER_KW") / K("server_nameplate_w"))),
       pool_json=3),
    _q("device_avg_w", "W", "pool", "utilization x power_w + (1 - utilization) x idle_w.", label="Average power per device",
       expr=K("utilization") * K("power_w") + (1 - K("utilization")) * K("idle_w")),
))
# the pool quantities computed by their expression (over the pool's inputs and rows and the plan's inputs)
POOL_EXPRESSIONS: tuple[tuple[str, object], ...] = tuple((q.key, q.expr) for q in POOL_QUANTITIES if q.expr is not None)

_PLAN_ROWS: tuple[Quantity, ...] = tuple(_plan_q(k, u, h, f.get("label", "")) for k, u, h, f in _POOL_AND_PLAN) + (
    _metric_q("servers_per_rack"),
    _q("racks_in_service", "racks", "plan", "Racks that exist, levelized: the present value of each tranche's racks over "
       "the years it serves (after its purchase year) x the capital recovery factor (the racks when every tranche is "
       "bought at the start and nothing changes by year). Revenue per rack divides by this."),
    _q("device_count_in_service", "devices", "plan", "Devices that exist, levelized like racks_in_service. Cost per "
       "device-hour divides by this x 8,760 h."),
    _q("staff_usd_per_year", "USD/yr", "plan", "Operations staff cost per year."),
    _metric_q("opex_usd_per_year"),
    _q("capital_recovery_factor", "1/yr", "plan", "r / (1 - (1 + r)^-years); 1 / years at r = 0.",
       label="Capital recovery factor"),
    _metric_q("capex_usd_per_year"),
    _metric_q("cost_per_million_output_tokens_usd"),
    _metric_q("cost_per_million_total_tokens_usd"),
) + tuple(
    _q(key, "USD/Mtok", "plan", f"The {part} part of the cost per million output tokens.",
       label=f"Cost per million output tokens: {part.replace('_', ' ')}", expr=per_million(K("capex_usd_per_year" if part == "capex" else PART_ANNUAL_KEYS[part]), K("output_tokens_per_year")))
    for part, key in COMPONENT_KEYS.items()
) + (
    _metric_q("revenue_usd_per_rack_per_year"),
    _q("net_usd_per_year", "USD/yr", "plan", "Revenue - opex per year.", label="Net (revenue - opex) per year",
       expr=K("revenue_usd_per_year") - K("opex_usd_per_year")),
    _q("cash_flows_usd", "USD", "plan", "Year-end flows, year 0 first (trailing year axis)."),
    _metric_q("npv_usd"),
    _metric_q("irr"),
    _metric_q("payback_months"),
    _metric_q("roi"),
    _metric_q("equity_npv_usd"),
    _metric_q("equity_irr"),
    _metric_q("min_dscr"),
    _q("prefill_share_of_device_time", "fraction", "plan", "sum over pools of devices x prefill share / devices: the share of cost allocated to input tokens.",
       label="Prefill share of device time",
       expr=when_positive(K("device_count"), pools_total(K("device_count") * K("prefill_share")) / K("device_count"))),
    _metric_q("cost_per_million_input_tokens_usd"),
) + (TOKEN_TYPE_ROWS := (
    # the input tokens and their revenue by token type (docs/model.md, "Three token prices")
    _q("uncached_input_tokens_per_year", "tokens/yr", "plan", "Input tokens not read from the prefix cache: input tokens per year x (1 - prefix_cache_hit_rate).",
       label="Uncached input tokens per year", expr=K("input_tokens_per_year") * (1 - K("prefix_cache_hit_rate"))),
    _q("cached_input_tokens_per_year", "tokens/yr", "plan", "Input tokens read from the prefix cache: input tokens per year x prefix_cache_hit_rate.",
       label="Cached input tokens per year", expr=K("input_tokens_per_year") * K("prefix_cache_hit_rate")),
    _q("uncached_input_revenue_usd_per_year", "USD/yr", "plan", "Revenue of the uncached input tokens; levelized over the years."),
    _q("cached_input_revenue_usd_per_year", "USD/yr", "plan", "Revenue of the cached input tokens; levelized over the years."),
    _q("output_revenue_usd_per_year", "USD/yr", "plan", "Revenue per year less the input tokens' revenue: the output tokens' (device_hours: all of it).",
       label="Revenue of output tokens per year", expr=K("revenue_usd_per_year") - K("uncached_input_revenue_usd_per_year") - K("cached_input_revenue_usd_per_year")),
))
# the rows of tokens and revenue by token type that are expressions (the Results sheet places them by revenue)
TOKEN_TYPE_KEYS = tuple(q.key for q in TOKEN_TYPE_ROWS if q.expr is not None)
# every finance metric is a plan quantity: one not listed above is declared by its metric row alone
PLAN_QUANTITIES: tuple[Quantity, ...] = scoped("plan quantity", _PLAN_ROWS + tuple(
    _metric_q(m.key) for m in METRICS if m.source == "finance" and m.key not in {q.key for q in _PLAN_ROWS}))

# the plan quantities computed by their expression, in table order (an expression reads rows computed before it)
PLAN_EXPRESSIONS: tuple[tuple[str, object], ...] = tuple((q.key, q.expr) for q in PLAN_QUANTITIES if q.expr is not None)

INPUT_BY_KEY = {q.key: q for q in FINANCE_INPUTS}
SWING_KEYS = ranked(FINANCE_INPUTS, "swing")  # the tornado swings these inputs
POOL_INPUT_KEYS = tuple(q.key for q in FINANCE_INPUTS if q.axis == "pool")
# the pool-axis inputs that are a field of the pool itself (its rack limits, rent, purchase year): not its device's
POOL_FIELD_INPUTS = tuple(q.key for q in FINANCE_INPUTS if q.axis == "pool" and q.field and q.key not in DEVICE_ECONOMICS_KEYS)
PLAN_INPUT_KEYS = tuple(q.key for q in FINANCE_INPUTS if q.axis == "plan")
SUMMED_KEYS = tuple(q.key for q in POOL_QUANTITIES if q.summed)     # a plan's value: its pools' sum
POOL_JSON_KEYS = ranked(POOL_QUANTITIES, "pool_json")                # `compute --json` pool rows
QUANTITY_BY_KEY = {q.key: q for q in POOL_QUANTITIES + PLAN_QUANTITIES if q.axis == "plan"}
POOL_QUANTITY_BY_KEY = {q.key: q for q in POOL_QUANTITIES}


# the per-pool year rows (YearRows.pool_*): each the year row of its key, per pool
POOL_YEAR_ROWS = {"active": _q("pool_active", "flag", "pool", "1 in the years the pool serves (after its purchase year, to the horizon).",
                                 pool_expr=when(all_of(compare(Year(), ">", K("purchase_year")), compare(Year(), "<=", K("years"))), 1, 0))} | {
    k: replace(YEAR_QUANTITY_BY_KEY[k], key=f"pool_{k}", axis="pool") for k in POOL_YEAR_KEYS[1:]}
# the records of these tables (one array field per row), written out from them by tools/gen_records.py
from .result_types import FinanceInputs, FinanceResult, PoolFinance, YearRows  # noqa: E402,F401


def finance_inputs(pool: Mapping[str, Any], plan: Mapping[str, Any]) -> FinanceInputs:
    """Typed inputs from per-pool arrays (last axis = pools) and per-plan values; keys of OPTIONAL_INPUTS
    left out take their "no change" value."""
    missing = [k for k in POOL_INPUT_KEYS if k not in pool and k not in OPTIONAL_INPUTS] + [
        k for k in PLAN_INPUT_KEYS if k not in plan and k not in OPTIONAL_INPUTS]
    if missing:
        raise KeyError(f"finance inputs missing: {', '.join(missing)}")
    shape = np.shape(np.asarray(pool["device_count"], float))
    values = {k: np.asarray(pool[k], float) if k in pool else np.full(shape, OPTIONAL_INPUTS[k])
              for k in POOL_INPUT_KEYS}
    values.update({k: np.asarray(plan.get(k, OPTIONAL_INPUTS.get(k)), float) for k in PLAN_INPUT_KEYS})
    return FinanceInputs(**values)


def single_pool_inputs(x: Mapping[str, Any]) -> FinanceInputs:
    """Inputs of a one-pool plan from one flat mapping (scalars or arrays over variants); a pool axis of
    length 1 is added to the pool-axis keys. `owned` defaults to 1 and rent to 0 (a bought pool)."""
    x = {**OPTIONAL_INPUTS, **x}
    pool = {k: np.asarray(x[k], float)[..., None] for k in POOL_INPUT_KEYS if k in x}
    return finance_inputs(pool, x)


def as_inputs(x) -> FinanceInputs:
    """`x` as FinanceInputs (a mapping of one pool's inputs becomes a one-pool record)."""
    return x if isinstance(x, FinanceInputs) else single_pool_inputs(x)
