"""Annual cash flows, NPV, IRR, payback and ROI (docs/model.md section 3).

Convention: year-end flows. Year 0 = -capex; years 1..n = revenue - opex; year n adds
residual_value_fraction * capex. NPV discounts year t by (1 + r)^t, so year 0 is not discounted
(numpy-financial's `npv` convention; the Excel equivalent is `=CF0 + NPV(r, CF1:CFn)`, because
Excel's NPV() discounts its first value). Inputs broadcast; flows get a trailing year axis.
"""
from __future__ import annotations

import numpy as np
import numpy_financial as npf


def cash_flows(capex_usd, net_usd_per_year, residual_value_fraction, years):
    """Array [..., max_years + 1] of flows; years past a row's horizon are 0."""
    capex, net, resid, n = np.broadcast_arrays(
        np.asarray(capex_usd, float), np.asarray(net_usd_per_year, float),
        np.asarray(residual_value_fraction, float), np.asarray(years, int))
    t = np.arange(int(n.max()) + 1)
    flows = np.where(t <= n[..., None], net[..., None], 0.0)
    flows[..., 0] = -capex
    flows = flows + np.where(t == n[..., None], (resid * capex)[..., None], 0.0)
    return flows


def npv_usd(rate, flows):
    """sum_t flows[t] / (1 + rate)^t  [USD]."""
    flows = np.asarray(flows, float)
    t = np.arange(flows.shape[-1])
    return np.sum(flows / (1.0 + np.asarray(rate, float)[..., None]) ** t, axis=-1)


def irr(flows):
    """Internal rate of return per row (numpy-financial); NaN where no real rate exists."""
    flows = np.asarray(flows, float)
    out = np.empty(flows.shape[:-1])
    for index in np.ndindex(out.shape):
        row = flows[index]
        out[index] = _irr_row(row)
    return out


def sign_changes(row) -> int:
    """How often the non-zero values of `row` change sign."""
    signs = np.sign(np.asarray(row, float))
    signs = signs[signs != 0]
    return int(np.count_nonzero(signs[1:] != signs[:-1]))


def _irr_row(row: np.ndarray) -> float:
    """The IRR where it is unique: flows that change sign once (Descartes' rule: one root above -100%),
    or, failing that, a cumulative flow that changes sign once (Norstrom's criterion: one positive
    root, returned). NaN otherwise: several rates make NPV = 0 and none is "the" IRR."""
    if not np.all(np.isfinite(row)) or not (np.any(row > 0) and np.any(row < 0)):
        return np.nan
    if sign_changes(row) == 1:
        value = npf.irr(row)
        return float(value) if np.isfinite(value) else np.nan
    if sign_changes(np.cumsum(row)) != 1:
        return np.nan
    roots = np.roots(row[::-1])
    real = roots[(np.abs(roots.imag) < 1e-12) & (roots.real > 0)].real
    rates = 1.0 / real - 1.0
    positive = rates[rates > 0]
    return float(positive.min()) if positive.size else np.nan


def irr_is_ambiguous(flows) -> bool:
    """True where the flows change sign more than once and so does the cumulative flow: no unique IRR."""
    row = np.asarray(flows, float)
    return bool(np.all(np.isfinite(row)) and sign_changes(row) > 1 and sign_changes(np.cumsum(row)) != 1)


def payback_months(flows):
    """First time the cumulative flow reaches 0, linear within the year, in months; NaN = never."""
    flows = np.asarray(flows, float)
    cumulative = np.cumsum(flows, axis=-1)
    out = np.full(flows.shape[:-1], np.nan)
    for index in np.ndindex(out.shape):
        out[index] = _payback_row(cumulative[index])
    return out


def _payback_row(cumulative: np.ndarray) -> float:
    if cumulative[0] >= 0:
        return 0.0
    reached = np.nonzero(cumulative[1:] >= 0)[0]
    if reached.size == 0:
        return np.nan
    t = int(reached[0]) + 1
    before, after = cumulative[t - 1], cumulative[t]
    return 12.0 * ((t - 1) + (-before) / (after - before))


def roi(flows, capex_usd):
    """(sum of the flows of years 1..n) / capex - 1; NaN where capex is 0."""
    capex = np.asarray(capex_usd, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.sum(np.asarray(flows, float)[..., 1:], axis=-1) / capex - 1.0
    return np.where(capex > 0, value, np.nan)
