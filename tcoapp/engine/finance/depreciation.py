"""Tax depreciation of a tranche and its book value at the horizon (docs/model.md, "Years" and
"Finance conventions").

`depreciation_method` (a plan key; its code is the index in DEPRECIATION_METHODS):
- straight_line (0): the basis capex x (1 - residual_value_fraction) in equal parts over D =
  `depreciation_years` (empty: `years`), ages 1..D;
- half_year (1): the same basis, straight line with the half-year convention: half a year's part at age
  1, whole parts at ages 2..D, the other half at age D + 1;
- macrs_5 (2) / macrs_7 (3): the IRS MACRS GDS percentages, 200% declining balance switching to
  straight line, half-year convention, of the whole capex (MACRS ignores salvage value), from IRS
  Publication 946 "How to Depreciate Property", Appendix A, Table A-1 (3-, 5-, 7-, 10-, 15- and
  20-year property, half-year convention); computers and peripheral equipment are 5-year property
  (Pub. 946, Table B-1, asset class 00.12). `depreciation_years` does not apply to them.
A tranche's age is the years since its purchase (it depreciates from the year after). Its book value
at the horizon is capex less the depreciation taken by then; the horizon sale's gain (value at the
horizon less that book value) is taxable, a negative gain a deductible loss (metrics.py).
"""
from __future__ import annotations

import numpy as np

from ..quantities.inputs import DEPRECIATION_METHODS  # noqa: F401  (the codes are the indices of these names)

# IRS Publication 946, Table A-1, half-year convention, GDS 200% declining balance (percent of basis by year)
MACRS_5_PERCENT = (20.00, 32.00, 19.20, 11.52, 11.52, 5.76)
MACRS_7_PERCENT = (14.29, 24.49, 17.49, 12.49, 8.93, 8.92, 8.93, 4.46)
_TABLES = {2: MACRS_5_PERCENT, 3: MACRS_7_PERCENT}


def basis_fraction(method, residual_value_fraction):
    """The depreciable basis as a fraction of capex: 1 - residual (straight line, half year); 1 (MACRS)."""
    method = np.asarray(method, float)
    return np.where(method >= 2, 1.0, 1.0 - np.asarray(residual_value_fraction, float))


def rate_by_age(method, life, age):
    """The fraction of the basis deducted in the year a tranche reaches `age` (0 outside its schedule).
    Straight line is not computed here: metrics.py keeps its own operation, capex x (1 - residual) / D."""
    method, life, age = (np.asarray(v, float) for v in (method, life, age))
    half = np.where(age == 1, 0.5 / life, np.where((age >= 2) & (age <= life), 1.0 / life,
                                                   np.where(age == life + 1, 0.5 / life, 0.0)))
    out = np.where(method == 1, half, 0.0)
    for code, table in _TABLES.items():
        rates = np.asarray(table) / 100.0
        index = np.clip(age, 1, len(rates)).astype(int) - 1
        by_table = np.where((age >= 1) & (age <= len(rates)), rates[index], 0.0)
        out = np.where(method == code, by_table, out)
    return out


def taken_fraction(method, life, age):
    """The fraction of the basis deducted by `age` years (the sum of rate_by_age over ages 1..age) for the
    half-year and MACRS schedules."""
    method, life, age = (np.asarray(v, float) for v in (method, life, age))
    whole = np.floor(np.maximum(age, 0.0))
    half = np.where(whole <= 0, 0.0, np.minimum(1.0, (whole - 0.5) / life))
    out = np.where(method == 1, half, 0.0)
    for code, table in _TABLES.items():
        cumulative = np.concatenate([[0.0], np.cumsum(np.asarray(table) / 100.0)])
        index = np.clip(whole, 0, len(table)).astype(int)
        out = np.where(method == code, cumulative[index], out)
    return out
