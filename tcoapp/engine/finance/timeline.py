"""The years of a plan (docs/model.md, "Years"): prices, utilization and costs by year, tranches,
depreciation, tax with losses carried forward, and the cash flow of every year.

Vectorized over variants (leading axes), pools (axis -2 of pool arrays) and years (the last axis,
t = 0..max years). Year t >= 1 of a plan with horizon n (years past n are 0):

    price index        p_t = (1 + price_change_per_year)^(t-1)       every token price x p_t
    electricity index  e_t = (1 + electricity_price_change_per_year)^(t-1)
    cost index         c_t = (1 + cost_change_per_year)^(t-1)       colocation, maintenance, software, staff, rent
    utilization        u_t = first + (utilization - first) x min(1, (t-1) / ramp_years)   (ramp 0: utilization)
    a pool bought in year y (its tranche) is paid at t = y and serves in years y+1..n
    its utilization    u_t x f(t - y), f the tranche's ramp over its first tranche_ramp_months (1 without)
    replacements       annual_failure_rate x devices x price_usd in each year it serves (bought pools),
                       depreciated like a tranche bought that year; not valued at the horizon
    its value at the horizon (age a = n - y): capex x (1 - (1 - residual) x min(1, a / years))
    depreciation       capex x (1 - residual) / D in years y+1..y+D (D = depreciation_years or years)
    taxable income     revenue - opex - depreciation; losses carry forward:
                       tax_t = tax_rate x max(0, taxable_t - L_{t-1}),  L_t = max(0, L_{t-1} - taxable_t)
    cash flow          revenue - opex - tax - capex paid in t (+ the tranches' values in year n; not taxed)

The indices, the utilization and each tranche's ramp are the quantity table's year rows (quantities/finance.py,
compiled to the engine's numpy and the CashFlow formulas); this module keeps the rows written by hand
(quantities/hand_written.py): depreciation by age, tax with losses carried, the throughput index's demand cap.

With nothing changing by year (no price, cost or electricity change, no ramp, every pool bought at
year 0), every year 1..n equals section 3's single year exactly (the same operations, multiplied by
indices of exactly 1), so the section-3 figures are the special case.
"""
from __future__ import annotations

import numpy as np

from . import costs, depreciation

SECONDS_PER_YEAR = costs.SECONDS_PER_YEAR


def index_by_year(change, t):
    """(1 + change)^(t - 1) for t >= 1, 0 at t = 0 (nothing is sold or paid for at the start)."""
    return np.where(t >= 1, (1.0 + np.asarray(change, float)[..., None]) ** np.maximum(t - 1, 0), 0.0)


def depreciation_rate_by_age(method, life, residual_value_fraction, age):
    """The share of a tranche's capex deducted in the year it reaches `age` (years since purchase): straight
    line (1 - residual) / D at ages 1..D; else depreciation.py's basis x rate by age. Inputs broadcast."""
    method, life, resid, age = (np.asarray(v, float) for v in (method, life, residual_value_fraction, age))
    straight = np.where((age >= 1) & (age <= life), (1.0 - resid) / life, 0.0)
    scheduled = depreciation.basis_fraction(method, resid) * depreciation.rate_by_age(method, life, age)
    return np.where(method == 0, straight, scheduled)


def replacement_depreciation(replacement_usd, method, life, residual_value_fraction, in_horizon):
    """Depreciation in year t of the replacement devices bought in the years s < t: sum_s R_s x
    depreciation_rate_by_age(t - s); 0 past the horizon. replacement_usd [..., T]; plan keys of the
    leading shape. A loop over ages (memory of one row per variant, not a years x years matrix)."""
    bought = np.asarray(replacement_usd, float)
    years = bought.shape[-1]
    keys = [np.asarray(v, float) for v in (method, life, residual_value_fraction)]
    out = np.zeros(np.broadcast_shapes(bought.shape, *(np.shape(k) + (years,) for k in keys)))
    if np.any(bought != 0):
        for age in range(1, years):
            rate = depreciation_rate_by_age(*keys, float(age))[..., None]
            out[..., age:] += bought[..., :years - age] * rate
    return np.where(in_horizon > 0, out, 0.0)


def tranche_value_fraction(age, years, residual_value_fraction):
    """Value of a tranche at `age` years as a fraction of its capex: 1 - (1 - residual) x min(1, age / years)."""
    age, years, resid = (np.asarray(v, float) for v in (age, years, residual_value_fraction))
    return np.where(age >= years, resid, 1.0 - (1.0 - resid) * np.minimum(1.0, age / years))


def resale_fraction(age, years, residual_value_fraction, resale_curve=0.0, resale_decline_per_year=0.0):
    """A tranche's resale value at `age` as a fraction of its capex: linear (code 0, tranche_value_fraction) or
    declining balance (code 1): (1 - resale_decline_per_year)^age."""
    linear = tranche_value_fraction(age, years, residual_value_fraction)
    declining = (1.0 - np.asarray(resale_decline_per_year, float)) ** np.asarray(age, float)
    return np.where(np.asarray(resale_curve, float) == 1, declining, linear)


def tax_by_year(taxable, tax_rate, tax_losses=0.0, tax_loss_limit=1.0):
    """(tax, loss carried) per year with losses carried forward; a loop over years, vectorized over rows.
    The losses carried may offset at most tax_loss_limit x a year's taxable income (US federal: 0.8):
    offset = min(loss, limit x max(0, income)), tax = tax_rate x max(0, income - offset).
    tax_losses = 1 (credit): tax = tax_rate x taxable income, negative in a loss year, nothing carried."""
    taxable = np.asarray(taxable, float)
    tax, carried = np.zeros_like(taxable), np.zeros_like(taxable)
    loss = np.zeros(taxable.shape[:-1])
    rate = np.asarray(tax_rate, float)
    limit = np.asarray(tax_loss_limit, float)
    credit = np.asarray(tax_losses, float) == 1
    for t in range(1, taxable.shape[-1]):
        income = taxable[..., t]
        offset = np.minimum(loss, limit * np.maximum(income, 0.0))
        tax[..., t] = np.where(credit, rate * income, rate * np.maximum(0.0, income - offset))
        loss = np.where(credit, 0.0, np.where(income > 0, loss - offset, loss - income))
        carried[..., t] = loss
    return tax, carried


def throughput_index(change, demand_tokens_per_year, output_tokens, t):
    """(1 + throughput_change_per_year)^(t-1) for t >= 1 (0 at t = 0): the software's speed in year t relative
    to year 1; where a demand is given (a demand-sized plan), at most demand / the year's output tokens at
    year-1 speed, never below 1 (the fleet serves its demand, no more). Plan keys of the leading shape;
    output_tokens [..., T]."""
    index = index_by_year(change, t)
    demand = np.asarray(demand_tokens_per_year, float)[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        capped = np.minimum(index, np.maximum(1.0, demand / output_tokens))
    return np.where(np.isnan(demand) | (t < 1), index, capped)


def is_flat(a) -> np.ndarray:
    """True where nothing changes by year: section 3's repeated year (leading variant shape)."""
    first = np.asarray(a.first_year_utilization, float)
    no_ramp = (np.asarray(a.ramp_years, float) == 0) | np.isnan(first) | (first == np.asarray(a.utilization, float))
    return ((np.asarray(a.price_change_per_year, float) == 0) & (np.asarray(a.discounting, float) == 0)
            & (np.asarray(a.resale_curve, float) == 0) & (np.asarray(a.electricity_price_change_per_year, float) == 0)
            & (np.asarray(a.cost_change_per_year, float) == 0) & no_ramp
            & (np.asarray(a.tranche_ramp_months, float) == 0) & (np.asarray(a.annual_failure_rate, float) == 0)
            & (np.asarray(a.throughput_change_per_year, float) == 0) & (np.asarray(a.held_capex_basis, float) == 0)
            & np.all(np.asarray(a.purchase_year, float) == 0, axis=-1))
