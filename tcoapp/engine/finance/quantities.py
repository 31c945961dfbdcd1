"""The finance side's one table: every input and intermediate of the finance layer, with its unit,
its scope and its help (docs/model.md, "Finance layer" and "Fleet plans").

Scope "pool" quantities are per pool (the last array axis is the pool axis); scope "plan" quantities
are per plan (the pools summed, or plan-wide inputs). The typed records `FinanceInputs`,
`PoolFinance` and `FinanceResult` are generated from these tables, so a key, its unit and its help
live in one place; the workbook writers keep only `key -> formula` and read units and help here.
"""
from __future__ import annotations

from dataclasses import dataclass, fields as dc_fields, make_dataclass, replace
from typing import Any, Mapping

import numpy as np


@dataclass(frozen=True)
class Quantity:
    key: str
    unit: str
    scope: str  # "pool" or "plan"
    help: str


def _q(key, unit, scope, help_) -> Quantity:
    return Quantity(key, unit, scope, help_)


FINANCE_INPUTS: tuple[Quantity, ...] = (
    # per pool: the device's economics, the pool's count, rack keys, operating point and price
    _q("price_usd", "USD", "pool", "Price of one accelerator of the pool's device."),
    _q("devices_per_server", "devices", "pool", "Accelerators in one server of the pool's device."),
    _q("server_price_usd", "USD", "pool", "Server price without its accelerators."),
    _q("tdp_w", "W", "pool", "Accelerator board power at full load."),
    _q("idle_w", "W", "pool", "Accelerator power when idle."),
    _q("server_overhead_w", "W", "pool", "Server nameplate power minus its accelerators' TDP."),
    _q("device_count", "devices", "pool", "Accelerators in the pool after sizing."),
    _q("rack_power_cap_kw", "kW", "pool", "Power a rack of the pool may draw at nameplate."),
    _q("servers_per_rack_max", "servers", "pool", "Space limit on the pool's servers in one rack."),
    _q("tokens_per_s_per_device", "tokens/s", "pool", "Output tokens/s per device of the pool at the operating point (0 for a prefill pool)."),
    _q("power_w", "W", "pool", "Power per device of the pool while serving at the operating point."),
    _q("price_usd_per_million_output_tokens", "USD/Mtok", "pool", "Output price the pool's tokens sell at (the plan's, or its price tier)."),
    _q("owned", "flag", "pool", "1: the pool is bought (capex, energy, facility, maintenance); 0: rented."),
    _q("rent_usd_per_device_hour", "USD/device/h", "pool", "Reserved rent of a rented pool per device-hour."),
    _q("purchase_year", "year", "pool", "Year the pool (a tranche) is paid; it serves from the next year."),
    _q("prefill_share", "fraction", "pool", "Share of the pool's device time spent prefilling (NaN: unknown); allocates cost to input tokens."),
    # per plan
    _q("other_capex_fraction", "fraction", "plan", "Networking, storage and installation as a fraction of hardware capex."),
    _q("network_usd_per_device", "USD/device", "plan", "Itemized network capex per device (bought pools)."),
    _q("storage_usd_per_device", "USD/device", "plan", "Itemized storage capex per device (bought pools)."),
    _q("installation_usd_per_server", "USD/server", "plan", "Itemized installation capex per server (bought pools)."),
    _q("pue", "ratio", "plan", "Facility power / IT power."),
    _q("electricity_usd_per_kwh", "USD/kWh", "plan", "Electricity price."),
    _q("colocation_usd_per_kw_month", "USD/kW/month", "plan", "Colocation rent per provisioned IT kW per month."),
    _q("maintenance_fraction_per_year", "fraction/yr", "plan", "Support and repairs per year as a fraction of hardware capex."),
    _q("software_usd_per_device_year", "USD/device/yr", "plan", "Software licences per device per year."),
    _q("staff_usd_per_year", "USD/yr", "plan", "Operations staff cost per year."),
    _q("utilization", "fraction", "plan", "Share of the year the fleet serves at the operating point."),
    _q("years", "years", "plan", "Economic life and cash-flow horizon."),
    _q("discount_rate", "fraction/yr", "plan", "Cost of capital."),
    _q("residual_value_fraction", "fraction", "plan", "Resale value at the horizon as a fraction of capex."),
    _q("resale_curve", "code", "plan", "0 linear, 1 declining_balance (value x (1 - resale_decline_per_year)^age)."),
    _q("resale_decline_per_year", "fraction/yr", "plan", "Declining-balance resale: the share of value lost every year."),
    _q("price_usd_per_million_input_tokens", "USD/Mtok", "plan", "Price per million input tokens."),
    _q("input_tokens", "tokens", "plan", "Prompt length per request."),
    _q("output_tokens", "tokens", "plan", "Generated tokens per request."),
    _q("price_change_per_year", "fraction/yr", "plan", "Change of every token price per year."),
    _q("electricity_price_change_per_year", "fraction/yr", "plan", "Change of the electricity price per year."),
    _q("cost_change_per_year", "fraction/yr", "plan", "Change per year of colocation, maintenance, software, staff and rent."),
    _q("first_year_utilization", "fraction", "plan", "Utilization in year 1 of a ramp (NaN: `utilization`)."),
    _q("ramp_years", "years", "plan", "Years of the utilization ramp (0: none)."),
    _q("tranche_ramp_months", "months", "plan", "Months over which each tranche's load climbs from 0 to full from its first serving year (0: none)."),
    _q("annual_failure_rate", "fraction/yr", "plan", "Share of a bought pool's devices failing every year, replaced at price_usd (0: none)."),
    _q("tax_rate", "fraction", "plan", "Income tax rate."),
    _q("depreciation_years", "years", "plan", "Straight-line depreciation life (NaN: `years`)."),
    _q("depreciation_method", "code", "plan", "0 straight_line, 1 half_year, 2 macrs_5, 3 macrs_7 (depreciation.py)."),
    _q("discounting", "code", "plan", "0 end_of_year, 1 mid_year (flows of years 1..N discounted at t - 0.5)."),
    _q("tax_losses", "code", "plan", "0 carry_forward, 1 credit (a loss is a negative tax in its year)."),
    _q("debt_fraction", "fraction", "plan", "Share of each tranche's capex borrowed when it is paid."),
    _q("debt_rate", "fraction/yr", "plan", "Interest rate of the debt."),
    _q("debt_years", "years", "plan", "Term of the level-annuity debt (NaN: `years`)."),
    _q("equity_discount_rate", "fraction/yr", "plan", "Discount rate of the equity flows (NaN: `discount_rate`)."),
    _q("revenue_mode", "code", "plan", "0 tokens, 1 device_hours (devices sold by the hour)."),
    _q("price_usd_per_device_hour", "USD/device/h", "plan", "On-demand price of a device-hour (hours used)."),
    _q("reserved_price_usd_per_device_hour", "USD/device/h", "plan", "Reserved price of a device-hour (every hour)."),
    _q("reserved_fraction", "fraction", "plan", "Share of the devices sold as reserved capacity."),
)
# per-plan inputs a caller may leave out (a one-pool plan of section 6): their "no change" values
OPTIONAL_INPUTS = {"owned": 1.0, "rent_usd_per_device_hour": 0.0, "purchase_year": 0.0, "prefill_share": float("nan"),
                   "price_change_per_year": 0.0, "electricity_price_change_per_year": 0.0, "cost_change_per_year": 0.0,
                   "first_year_utilization": float("nan"), "ramp_years": 0.0, "tax_rate": 0.0,
                   "depreciation_years": float("nan"), "depreciation_method": 0.0,
                   "discounting": 0.0, "tax_losses": 0.0, "debt_fraction": 0.0, "debt_rate": 0.0,
                   "debt_years": float("nan"), "equity_discount_rate": float("nan"), "revenue_mode": 0.0,
                   "price_usd_per_device_hour": 0.0, "reserved_price_usd_per_device_hour": 0.0, "reserved_fraction": 0.0,
                   "network_usd_per_device": 0.0, "storage_usd_per_device": 0.0, "installation_usd_per_server": 0.0,
                   "resale_curve": 0.0, "resale_decline_per_year": 0.0, "tranche_ramp_months": 0.0,
                   "annual_failure_rate": 0.0}

COST_COMPONENTS = ("capex", "energy", "colocation", "maintenance", "software", "rent", "staff")
OPEX_PARTS = ("energy", "colocation", "maintenance", "software", "rent", "staff")

_POOL_AND_PLAN = (
    ("device_count", "devices", "Accelerators (plan: summed over pools)."),
    ("servers", "servers", "ceil(device_count / devices_per_server) (plan: summed over pools)."),
    ("racks", "racks", "ceil(servers / servers_per_rack), the pool's own racks (plan: summed; pools never share a rack)."),
    ("hardware_capex_usd", "USD", "Bought pools: device_count x price_usd + servers x server_price_usd."),
    ("capex_usd", "USD", "hardware capex x (1 + other capex fraction) + devices x (network + storage per device) + servers x installation per server (bought pools); n/a where a pool cannot be racked."),
    ("it_avg_kw", "kW", "Devices at utilization-weighted power plus server overhead."),
    ("it_provisioned_kw", "kW", "Servers at nameplate power."),
    ("energy_usd_per_year", "USD/yr", "it_avg_kw x PUE x 8760 h x electricity price (bought pools)."),
    ("colocation_usd_per_year", "USD/yr", "it_provisioned_kw x colocation x 12 (bought pools)."),
    ("maintenance_usd_per_year", "USD/yr", "maintenance fraction x hardware capex."),
    ("software_usd_per_year", "USD/yr", "software per device-year x device_count."),
    ("rent_usd_per_year", "USD/yr", "Rented pools: device_count x rent per device-hour x 8760."),
    ("output_tokens_per_year", "tokens/yr", "tokens/s per device x devices x utilization x seconds per year."),
    ("input_tokens_per_year", "tokens/yr", "output tokens per year x input_tokens / output_tokens."),
    ("revenue_usd_per_year", "USD/yr", "Output and input tokens at their prices."),
)

POOL_QUANTITIES: tuple[Quantity, ...] = tuple(_q(k, u, "pool", h) for k, u, h in _POOL_AND_PLAN) + (
    _q("server_nameplate_w", "W", "pool", "devices_per_server x tdp_w + server_overhead_w."),
    _q("servers_per_rack", "servers", "pool", "min(servers_per_rack_max, floor(rack cap / server nameplate)); 0: a server exceeds the cap."),
    _q("device_avg_w", "W", "pool", "utilization x power_w + (1 - utilization) x idle_w."),
)

PLAN_QUANTITIES: tuple[Quantity, ...] = tuple(_q(k, u, "plan", h) for k, u, h in _POOL_AND_PLAN) + (
    _q("servers_per_rack", "servers", "plan", "The pools' servers per rack where they all agree; n/a where pools differ (see each pool)."),
    _q("staff_usd_per_year", "USD/yr", "plan", "Operations staff cost per year."),
    _q("opex_usd_per_year", "USD/yr", "plan", "Energy + colocation + maintenance + software + rent + staff."),
    _q("capital_recovery_factor", "1/yr", "plan", "r / (1 - (1 + r)^-years); 1 / years at r = 0."),
    _q("capex_usd_per_year", "USD/yr", "plan", "(capex - discounted residual) x capital recovery factor."),
    _q("cost_per_million_output_tokens_usd", "USD/Mtok", "plan", "(capex per year + opex per year) / output tokens x 1e6."),
    _q("cost_per_million_total_tokens_usd", "USD/Mtok", "plan", "The same cost over output + input tokens."),
) + tuple(
    _q(f"cost_per_million_output_tokens_{part}_usd", "USD/Mtok", "plan",
       f"The {part} part of the cost per million output tokens.") for part in COST_COMPONENTS
) + (
    _q("revenue_usd_per_rack_per_year", "USD/rack/yr", "plan", "Revenue per year / racks of all pools."),
    _q("net_usd_per_year", "USD/yr", "plan", "Revenue - opex per year."),
    _q("cash_flows_usd", "USD", "plan", "Year-end flows, year 0 first (trailing year axis)."),
    _q("npv_usd", "USD", "plan", "Cash flows discounted at the discount rate (year 0 undiscounted)."),
    _q("irr", "fraction/yr", "plan", "Rate at which NPV = 0; n/a where none exists."),
    _q("payback_months", "months", "plan", "The earliest time after which the cumulative cash flow stays >= 0 up to the horizon; 0 where it is never below 0; never where it is below 0 at the horizon."),
    _q("roi", "fraction", "plan", "Sum of the flows of years 1..n (later tranches' capex added back) / capex - 1."),
    _q("equity_npv_usd", "USD", "plan", "The equity flows (after debt drawn, interest, principal and the interest's tax saving) discounted at the equity discount rate."),
    _q("equity_irr", "fraction/yr", "plan", "Rate at which the equity NPV = 0; n/a where none exists."),
    _q("min_dscr", "ratio", "plan", "Worst year's (revenue - opex - tax with interest deducted) / (interest + scheduled principal); n/a without debt."),
    _q("prefill_share_of_device_time", "fraction", "plan", "sum over pools of devices x prefill share / devices: the share of cost allocated to input tokens."),
    _q("cost_per_million_input_tokens_usd", "USD/Mtok", "plan", "Levelized cost allocated to input tokens by the prefill share of device time, over the input tokens."),
)

# per-year rows (plan scope, trailing axis = year 0..max years)
YEAR_QUANTITIES: tuple[Quantity, ...] = (
    _q("price_index", "ratio", "plan", "(1 + price_change_per_year)^(t-1): every token price in year t, relative to year 1."),
    _q("electricity_index", "ratio", "plan", "(1 + electricity_price_change_per_year)^(t-1)."),
    _q("cost_index", "ratio", "plan", "(1 + cost_change_per_year)^(t-1): colocation, maintenance, software, staff, rent."),
    _q("utilization", "fraction", "plan", "first + (utilization - first) x min(1, (t - 1) / ramp_years); each tranche serves at this x its ramp factor (tranche_ramp_months)."),
    _q("output_tokens", "tokens", "plan", "Output tokens made in the year by the pools serving then."),
    _q("input_tokens", "tokens", "plan", "Input tokens of those requests."),
    _q("revenue_usd", "USD", "plan", "Output and input tokens at the year's prices."),
    _q("energy_usd", "USD", "plan", "Energy of the bought pools serving in the year."),
    _q("colocation_usd", "USD", "plan", "Colocation of the bought pools serving in the year."),
    _q("maintenance_usd", "USD", "plan", "Maintenance of the pools serving in the year."),
    _q("software_usd", "USD", "plan", "Software of the pools serving in the year."),
    _q("rent_usd", "USD", "plan", "Rent of the rented pools serving in the year."),
    _q("staff_usd", "USD", "plan", "Staff cost of the year."),
    _q("opex_usd", "USD", "plan", "Energy + colocation + maintenance + software + rent + staff."),
    _q("capex_usd", "USD", "plan", "Capex of the tranches paid in the year."),
    _q("replacement_capex_usd", "USD", "plan", "Failed devices replaced in the year: annual_failure_rate x the bought pools' serving devices x price_usd."),
    _q("depreciation_rate_by_age", "fraction", "plan", "Share of a tranche's capex deducted in the year it reaches this age (the column's year): the schedule the replacements follow."),
    _q("replacement_depreciation_usd", "USD", "plan", "Depreciation of the replacements bought in earlier years (the tranches' schedule by their age); in depreciation_usd."),
    _q("residual_value_usd", "USD", "plan", "At the horizon: every tranche's value then."),
    _q("depreciation_usd", "USD", "plan", "Depreciation of the tranches and of the replacements (depreciation_method)."),
    _q("disposal_gain_usd", "USD", "plan", "At the horizon: the tranches' values less their book values (capex and replacements - depreciation taken); taxable, a loss deductible."),
    _q("taxable_income_usd", "USD", "plan", "Revenue - opex - depreciation (+ the disposal gain in the last year)."),
    _q("loss_carried_usd", "USD", "plan", "Tax losses carried into the next year."),
    _q("tax_usd", "USD", "plan", "tax_rate x taxable income after losses carried forward (>= 0); tax_losses = credit: tax_rate x taxable income (a loss: a negative tax)."),
    _q("cash_flow_usd", "USD", "plan", "Revenue - opex - tax - capex paid - replacements (+ residual values in the last year)."),
    _q("cumulative_cash_flow_usd", "USD", "plan", "Sum of the cash flows up to the year."),
    _q("debt_drawn_usd", "USD", "plan", "Debt borrowed in the year: debt_fraction x the capex of the tranches paid then."),
    _q("interest_usd", "USD", "plan", "Interest paid in the year: debt_rate x the balance owed at its start."),
    _q("principal_usd", "USD", "plan", "Principal repaid in the year (level annuity; at the horizon also the balance still owed)."),
    _q("debt_service_usd", "USD", "plan", "Interest + scheduled principal (the horizon's balloon repayment excluded)."),
    _q("levered_taxable_income_usd", "USD", "plan", "Taxable income less interest (the equity holder's)."),
    _q("levered_loss_carried_usd", "USD", "plan", "Tax losses of the levered taxable income carried into the next year."),
    _q("levered_tax_usd", "USD", "plan", "Tax with interest deducted from taxable income (same loss rule)."),
    _q("dscr", "ratio", "plan", "(revenue - opex - levered tax - replacements) / debt service in the years with debt service."),
    _q("equity_cash_flow_usd", "USD", "plan", "Cash flow + (tax - levered tax) + debt drawn - interest - principal."),
    _q("discount_factor", "ratio", "plan", "1 / (1 + discount_rate)^t (discounting = mid_year: t - 0.5 for t >= 1)."),
)
YEAR_QUANTITY_BY_KEY = {q.key: q for q in YEAR_QUANTITIES}

INPUT_BY_KEY = {q.key: q for q in FINANCE_INPUTS}
POOL_INPUT_KEYS = tuple(q.key for q in FINANCE_INPUTS if q.scope == "pool")
PLAN_INPUT_KEYS = tuple(q.key for q in FINANCE_INPUTS if q.scope == "plan")
DEVICE_ECONOMICS_KEYS = ("price_usd", "devices_per_server", "server_price_usd", "tdp_w", "idle_w", "server_overhead_w")
QUANTITY_BY_KEY = {q.key: q for q in POOL_QUANTITIES + PLAN_QUANTITIES if q.scope == "plan"}
POOL_QUANTITY_BY_KEY = {q.key: q for q in POOL_QUANTITIES}


def _array_record(name: str, table: tuple[Quantity, ...], doc: str, extra=()):
    spec = [(q.key, Any) for q in table] + list(extra)
    cls = make_dataclass(name, spec, frozen=True, namespace={
        "__getitem__": lambda self, key: getattr(self, key),
        "__contains__": lambda self, key: key in self.__dataclass_fields__,
        "keys": lambda self: tuple(f.name for f in dc_fields(self)),
        "with_": lambda self, **changes: replace(self, **changes),
        "__module__": __name__,
    })
    cls.__doc__ = doc
    return cls


FinanceInputs = _array_record(
    "FinanceInputs", FINANCE_INPUTS,
    "Inputs of `finance_metrics`: pool-scope fields are arrays whose last axis is the pool axis; plan-scope "
    "fields are arrays of the leading (variant) shape. Build with `finance_inputs` or `single_pool_inputs`.")
PoolFinance = _array_record("PoolFinance", POOL_QUANTITIES, "Per-pool finance quantities (last axis: pools).")
POOL_YEAR_KEYS = ("active", "utilization", "output_tokens", "revenue_usd", "energy_usd", "colocation_usd", "maintenance_usd",
                  "software_usd", "rent_usd", "capex_usd", "replacement_capex_usd", "depreciation_usd",
                  "residual_value_usd", "interest_usd", "principal_usd", "debt_service_usd")
YearRows = _array_record("YearRows", YEAR_QUANTITIES, "Per-year rows of a plan (trailing axis: year 0..max years); "
                         "pool_* fields per pool (axis -2) and year.",
                         extra=tuple((f"pool_{k}", Any) for k in POOL_YEAR_KEYS))
FinanceResult = _array_record("FinanceResult", PLAN_QUANTITIES, "Per-plan finance quantities.",
                              extra=(("pools", Any), ("years", Any)))


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
    length 1 is added to the pool-scope keys. `owned` defaults to 1 and rent to 0 (a bought pool)."""
    x = {**OPTIONAL_INPUTS, **x}
    pool = {k: np.asarray(x[k], float)[..., None] for k in POOL_INPUT_KEYS if k in x}
    return finance_inputs(pool, x)


def as_inputs(x) -> FinanceInputs:
    """`x` as FinanceInputs (a mapping of one pool's inputs becomes a one-pool record)."""
    return x if isinstance(x, FinanceInputs) else single_pool_inputs(x)
