"""Debt financing of a plan's tranches (docs/model.md, "Financing").

Each tranche borrows `debt_fraction` of its capex when it is paid (year y) and repays it as a level
annuity over `debt_years` (empty: `years`) at `debt_rate`, payments in years y+1..y+m:
    payment  P = D x i / (1 - (1 + i)^-m)          (i = 0: D / m)
    balance after j payments  B_j = D x ((1 + i)^m - (1 + i)^j) / ((1 + i)^m - 1)   (i = 0: D x (1 - j / m))
    interest in payment j = i x B_(j-1); principal = P - interest
A loan still running at the horizon is repaid then (its balance, from the sale). Interest is
deductible: the equity side's taxable income is the project's less interest (same loss rule). The
project (unlevered) flows, NPV and IRR do not change; the equity flows are
    equity_t = project_t + (project tax_t - levered tax_t) + drawn_t - interest_t - principal_t
debt service = interest + principal every year, the horizon's balloon included; min DSCR = the
smallest, over the years with scheduled debt service, of (revenue - opex - levered tax) / (debt
service - balloon) (the balloon is paid from the sale, not from operations). Vectorized: pools on axis -2, years on the last axis.
"""
from __future__ import annotations

import numpy as np

from ..quantities.short_sum import short_sum


def balance_fraction(rate, m, j):
    """B_j / D: the share of a level-annuity loan of m payments still owed after j payments."""
    rate, m, j = (np.asarray(v, float) for v in (rate, m, j))
    j = np.clip(j, 0.0, m)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        growth_m, growth_j = (1.0 + rate) ** m, (1.0 + rate) ** j
        general = (growth_m - growth_j) / (growth_m - 1.0)
    return np.where(rate == 0, 1.0 - j / m, general)


def payment_fraction(rate, m):
    """P / D: the level payment per unit borrowed."""
    rate, m = np.asarray(rate, float), np.asarray(m, float)
    safe = np.where(rate == 0, 1.0, rate)
    with np.errstate(divide="ignore", invalid="ignore"):
        general = safe / (1.0 - (1.0 + safe) ** -m)
    return np.where(rate == 0, 1.0 / m, general)


def debt_by_year(pool_capex, bought, t, n, debt_fraction, debt_rate, debt_years):
    """(drawn, interest, scheduled principal, balloon) per pool and year: pool arrays [..., P, T]; `bought`
    [..., P, 1]; plan keys as [..., 1, 1]; n [..., 1, 1]. The balloon: the balance still owed at n."""
    borrowed = pool_capex * debt_fraction  # in the purchase year only (pool_capex is 0 elsewhere)
    loan = short_sum(borrowed, axis=-1)[..., None]   # np.sum, as over the C order (a run's rows may be Fortran's)
    j = t - bought  # payments made by the end of year t
    paying = (j >= 1) & (j <= debt_years) & (t <= n)
    before = loan * balance_fraction(debt_rate, debt_years, j - 1)
    after = loan * balance_fraction(debt_rate, debt_years, j)
    interest = np.where(paying, debt_rate * before, 0.0)
    scheduled = np.where(paying, loan * payment_fraction(debt_rate, debt_years) - debt_rate * before, 0.0)
    balloon = np.where((t == n) & (j >= 1), after, 0.0)
    return borrowed, interest, scheduled, balloon


def min_dscr(dscr):
    """The smallest DSCR over the years that have one (NaN elsewhere); NaN where there is none."""
    worst = np.min(np.where(np.isnan(dscr), np.inf, dscr), axis=-1)
    return np.where(np.isfinite(worst), worst, np.nan)


def shield_rate(rows):
    """The tax rate interest actually saves over the horizon: (project tax - tax after interest) summed / interest
    summed; 0 where no tax is paid (a plan in losses takes no shield), tax_rate where every deduction is used,
    between where losses carried forward use only part of it. 0 without interest."""
    interest = short_sum(rows["interest_usd"], axis=-1)
    saved = short_sum(rows["tax_usd"] - rows["levered_tax_usd"], axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(interest > 0, saved / interest, 0.0)


def wacc(debt_fraction, equity_rate, debt_rate, tax_rate):
    """(1 - d) x equity rate + d x debt rate x (1 - tax rate) where the plan borrows (d > 0); NaN without debt.
    `tax_rate`: the rate the interest deduction saves (`shield_rate`), not the statutory rate."""
    d = np.asarray(debt_fraction, float)
    value = (1.0 - d) * np.asarray(equity_rate, float) + d * np.asarray(debt_rate, float) * (1.0 - np.asarray(tax_rate, float))
    return np.where(d > 0, value, np.nan)
