"""Capital recovery (docs/model.md section 3).

crf(r, n) = r / (1 - (1 + r)^-n), and 1/n at r = 0 (the limit). Annualized capex subtracts the
present value of the residual: capex_usd_per_year = (capex - residual * capex / (1+r)^n) * crf.
"""
from __future__ import annotations

import numpy as np


def crf(rate, years):
    """Capital recovery factor [1/yr]; broadcast over arrays, exact 1/years at rate 0."""
    rate = np.asarray(rate, float)
    years = np.asarray(years, float)
    safe = np.where(rate == 0, 1.0, rate)
    with np.errstate(divide="ignore", invalid="ignore"):
        general = safe / (1.0 - (1.0 + safe) ** -years)
    return np.where(rate == 0, 1.0 / years, general)


def capex_usd_per_year(capex_usd, residual_value_fraction, rate, years):
    """Level annual capital charge [USD/yr] net of the discounted residual value."""
    rate = np.asarray(rate, float)
    residual_pv = residual_value_fraction * np.asarray(capex_usd, float) / (1.0 + rate) ** np.asarray(years, float)
    return (capex_usd - residual_pv) * crf(rate, years)
