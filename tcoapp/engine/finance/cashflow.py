"""Annual cash flows, NPV, IRR, payback and ROI (docs/model.md section 3).

Convention: year-end flows. Year 0 = -capex; years 1..n = revenue - opex; year n adds
residual_value_fraction * capex. NPV discounts year t by (1 + r)^t, so year 0 is not discounted
(numpy-financial's `npv` convention; the Excel equivalent is `=CF0 + NPV(r, CF1:CFn)`, because
Excel's NPV() discounts its first value). Inputs broadcast; flows get a trailing year axis.
"""
from __future__ import annotations

import numpy as np

from ..quantities import wide_ops
from ..quantities.short_sum import short_sum


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


def discount_years(flows_shape_last: int, discounting=0.0):
    """The time each year's flow is discounted over: t (end_of_year, code 0); t - 0.5 for t >= 1 (mid_year, 1)."""
    t = np.arange(flows_shape_last, dtype=float)
    mid = np.asarray(discounting, float)[..., None] == 1
    return np.where(mid & (t >= 1), t - 0.5, t)


def npv_usd(rate, flows, discounting=0.0):
    """sum_t flows[t] / (1 + rate)^t  [USD] (mid_year: t - 0.5 for t >= 1)."""
    flows = np.asarray(flows, float)
    t = discount_years(flows.shape[-1], discounting)
    return short_sum(flows / (1.0 + np.asarray(rate, float)[..., None]) ** t, axis=-1)


def npv_profile(rates, flows, discounting=0.0):
    """NPV of one row of `flows` at each of `rates` (the NPV-vs-rate chart): npv_usd over a rate axis."""
    rates = np.asarray(rates, float)
    return npv_usd(rates, np.broadcast_to(np.asarray(flows, float), rates.shape + np.shape(flows)[-1:]),
                   np.full(rates.shape, float(np.asarray(discounting, float))))


def irr(flows):
    """Internal rate of return per row where exactly one rate above -100 % makes NPV = 0, vectorized over
    rows; NaN otherwise (docs/model.md, "Finance").

    Whether a rate is unique is read from the NPV profile itself: NPV(r) = sum_t f_t (1 + r)^-t is the
    polynomial g(x) = sum_t f_t x^t in x = 1 / (1 + r) > 0, and every real positive root of g is a rate.
    - flows that change sign once (Descartes: exactly one positive root): that root, found for all such
      rows at once by a bracketed Newton iteration to machine precision (`_single_root`), or where the
      first flow is 0 from the polynomial's roots;
    - any other mixed flows: all roots of g (companion-matrix eigenvalues, as `np.roots`), the real
      positive ones polished by Newton steps and counted once each (`_only_real_root`): the only one is
      the IRR (flows -0.71, +0.66, +0.66, -2.19, +5.44 M have one, 80.1 %, though they change sign three
      times); where the others are rates below 0 %, the only rate above 0 % is (a loan's balloon at the
      horizon makes equity flows -, -, -, +, +, -: rates of -57 % and +22.6 %); none, or several above
      0 % (none is "the" IRR): NaN;
    - NaN where the flows are of one sign or a flow is unknown (NaN).
    The eigenvalue routes are batched per row length (rows of equal leading and trailing zeros share
    one call)."""
    flows = np.asarray(flows, float)
    rows = flows.reshape(-1, flows.shape[-1])
    out = np.full(rows.shape[0], np.nan)
    mixed = np.any(rows > 0, axis=-1) & np.any(rows < 0, axis=-1) & np.all(np.isfinite(rows), axis=-1)
    once = mixed & (_sign_changes(rows) == 1)
    newton = once & (rows[:, 0] != 0)
    if np.any(newton):
        out[newton] = 1.0 / _single_root(rows[newton]) - 1.0
    _by_roots(rows, once & ~newton, out, _closest_to_zero)
    _by_roots(rows, mixed & ~once, out, _only_real_root)
    return out.reshape(flows.shape[:-1])


def rate_count(flows) -> int:
    """How many rates above -100 % make NPV = 0 for one row of flows (0 for flows of one sign or unknown)."""
    row = np.atleast_2d(np.asarray(flows, float))
    if not (np.all(np.isfinite(row)) and np.any(row > 0) and np.any(row < 0)):
        return 0
    out = np.full(1, np.nan)
    _by_roots(row, np.array([True]), out, lambda roots, p: np.array([len(_real_positive(roots[0], p[0]))], float))
    return int(out[0])


def irr_is_ambiguous(flows) -> bool:
    """True where several rates make NPV = 0 and none is the IRR (`irr`)."""
    return rate_count(flows) > 1 and bool(np.isnan(irr(np.asarray(flows, float))))


def sign_changes(row) -> int:
    """How often the non-zero values of `row` change sign."""
    return int(_sign_changes(np.atleast_2d(np.asarray(row, float)))[0])


def _sign_changes(rows: np.ndarray) -> np.ndarray:
    """`sign_changes` of every row of a 2-D array at once."""
    signs = np.sign(rows)
    if np.all(signs != 0):   # no zero: each value's previous non-zero value is the one before it
        return np.sum(signs[:, 1:] != signs[:, :-1], axis=-1)
    position = np.where(signs != 0, np.arange(rows.shape[-1]), -1)
    previous = np.maximum.accumulate(position, axis=-1)[:, :-1]  # last non-zero before t
    before = np.take_along_axis(signs, np.maximum(previous, 0), axis=-1)
    return np.sum((signs[:, 1:] != 0) & (previous >= 0) & (signs[:, 1:] != before), axis=-1)


_HALF_MAX = np.finfo(float).max / 2.0


def _single_root(rows: np.ndarray, iterations: int = 200) -> np.ndarray:
    """The positive root x of g(x) = sum_t rows[t] x^t for rows with one sign change and g(0) != 0:
    Newton steps kept inside a bracket [lo, hi] that always holds the root (bisection otherwise).

    Each row's steps depend on that row alone, and a row that stops moving (its step gives x again) is at a
    fixed point: stepping it again gives the same x, lo and hi. So the rows still moving are taken out only
    once they are at most half of those iterated (fewer copies; about 60 steps for the last rows of 10,000
    Monte Carlo draws, some 10 for most), with the same numbers as taking each row out when it stops."""
    f0 = np.sign(rows[:, 0])
    lo, hi = _bracket(rows, f0)
    coefficients = np.ascontiguousarray(rows[:, ::-1].T)  # Horner's order, highest power first: (T, rows)
    # x stays in (0, 2 hi] (x = (lo + hi) / 2, or a Newton step inside (lo, hi)): finite where 2 hi is
    horner = _horner_finite if coefficients.shape[0] > 1 and np.all(hi <= _HALF_MAX) else _horner
    x = 0.5 * (lo + hi)
    out = x.copy()
    active = np.arange(rows.shape[0])
    for _ in range(iterations):
        value, slope = horner(coefficients, x)
        left = np.sign(value) == f0
        lo, hi = np.where(left, x, lo), np.where(left, hi, x)
        with np.errstate(divide="ignore", invalid="ignore"):
            step = x - value / slope
        inside = np.isfinite(step) & (step > lo) & (step < hi)
        new = np.where(value == 0, x, np.where(inside, step, 0.5 * (lo + hi)))
        moving = new != x
        count = np.count_nonzero(moving)
        if count <= moving.size // 2:
            out[active] = new
            if not count:
                return out
            active, coefficients, f0 = active[moving], coefficients[:, moving], f0[moving]
            lo, hi, new = lo[moving], hi[moving], new[moving]
        x = new
    out[active] = x
    return out


def _bracket(rows: np.ndarray, f0: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi] from [0, 1], hi doubled until g(hi) has the other sign than g(0) (x up to 2^1100 ~ a rate of -1)."""
    coefficients = np.ascontiguousarray(rows[:, ::-1].T)
    lo, hi = np.zeros(rows.shape[0]), np.ones(rows.shape[0])
    for _ in range(1100):
        left = np.sign(_horner(coefficients, hi)[0]) == f0
        if not np.any(left):
            break
        lo, hi = np.where(left, hi, lo), np.where(left, 2.0 * hi, hi)
    return lo, hi


def _horner(coefficients: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(g(x), g'(x)) by Horner's rule from 0, coefficients highest power first."""
    value, slope = np.zeros_like(x), np.zeros_like(x)
    for c in coefficients:
        slope = slope * x + value
        value = value * x + c
    return value, slope


def _horner_finite(coefficients: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`_horner` for finite x > 0 and two coefficients or more, its first step and a half skipped: the same numbers
    (0 x x = +0, so its first value is c0 + 0 and its second slope that value)."""
    value = coefficients[0] + 0.0
    slope = value
    value = value * x + coefficients[1]
    for c in coefficients[2:]:
        slope = slope * x + value
        value = value * x + c
    return value, slope


def _by_roots(rows: np.ndarray, which: np.ndarray, out: np.ndarray, pick) -> None:
    """out[which] = pick(roots) per row, the roots of each row's polynomial as `np.roots` finds them."""
    poly = rows[:, ::-1]  # np.roots order: highest power first
    nonzero = poly != 0
    first = np.argmax(nonzero, axis=-1)
    last = poly.shape[-1] - 1 - np.argmax(nonzero[:, ::-1], axis=-1)
    for lo, hi in set(zip(first[which].tolist(), last[which].tolist())):
        index = np.nonzero(which & (first == lo) & (last == hi))[0]
        p = poly[index, lo:hi + 1]
        n = p.shape[-1] - 1
        companion = np.zeros((p.shape[0], n, n))
        companion[:, 1:, :-1] = np.eye(n - 1)
        companion[:, 0, :] = -p[:, 1:] / p[:, :1]
        roots = np.linalg.eigvals(companion)
        out[index] = pick(roots, p) if pick is not _closest_to_zero else pick(roots)


def _closest_to_zero(roots: np.ndarray) -> np.ndarray:
    """numpy-financial's choice: among real roots x > 0 (imaginary part exactly 0), the rate 1/x - 1
    closest to 0."""
    usable = (roots.imag == 0) & (roots.real > 0)
    with np.errstate(divide="ignore"):
        rates = 1.0 / np.where(usable, roots.real, 1.0) - 1.0
    pick = np.argmin(np.where(usable, np.abs(rates), np.inf), axis=-1)
    rate = np.take_along_axis(rates, pick[:, None], axis=-1)[:, 0]
    return np.where(np.any(usable, axis=-1) & np.isfinite(rate), rate, np.nan)


def _real_positive(roots: np.ndarray, poly: np.ndarray) -> list[float]:
    """The distinct real positive roots x of the polynomial `poly` (highest power first) among `roots`
    (its eigenvalue roots): candidates with a small imaginary part, polished by Newton steps on the
    polynomial, kept where the polynomial vanishes there to rounding, each counted once."""
    slope_poly = np.polyder(poly)
    found: list[float] = []
    for root in roots:
        x = float(root.real)
        if not (x > 0 and abs(root.imag) <= 1e-6 * max(abs(root), 1e-300)):
            continue
        for _ in range(50):
            slope = np.polyval(slope_poly, x)
            step = np.polyval(poly, x) / slope if slope != 0 else 0.0
            if not np.isfinite(step) or x - step <= 0:
                break
            x -= step
            if abs(step) <= 1e-15 * x:
                break
        scale = np.polyval(np.abs(poly), x)
        if abs(np.polyval(poly, x)) <= 1e-9 * scale and not any(abs(x - y) <= 1e-7 * y for y in found):
            found.append(x)
    return found


def _only_real_root(roots: np.ndarray, polys: np.ndarray) -> np.ndarray:
    """Per row: the rate 1/x - 1 of the polynomial's only real positive root, or, where the others are all
    rates below 0 %, of its only one with a rate above 0 % (x < 1: the case Norstrom's criterion, a cumulative
    flow that changes sign once, guarantees); NaN where several rates above 0 % make NPV = 0, or none does."""
    out = np.full(roots.shape[0], np.nan)
    for i in range(roots.shape[0]):
        found = _real_positive(roots[i], polys[i])
        gaining = [x for x in found if x < 1.0]
        pick = found if len(found) == 1 else gaining if len(gaining) == 1 else []
        if pick:
            out[i] = 1.0 / pick[0] - 1.0
    return out


def mirr(flows, finance_rate, reinvest_rate, years):
    """Modified IRR of flows [..., T] over years 0..n (n = `years`, per row): (sum of the inflows compounded
    to year n at `reinvest_rate` / -sum of the outflows discounted to year 0 at `finance_rate`)^(1/n) - 1,
    Excel's MIRR(CF0:CFn, finance, reinvest). NaN without both inflows and outflows or a flow unknown."""
    flows = np.asarray(flows, float)
    t = np.arange(flows.shape[-1], dtype=float)
    n = np.asarray(years, float)[..., None]
    inside = t <= n
    grow = (1.0 + np.asarray(reinvest_rate, float)[..., None]) ** (n - t)
    shrink = (1.0 + np.asarray(finance_rate, float)[..., None]) ** t
    gains = short_sum(np.where(inside & (flows > 0), flows * grow, 0.0), axis=-1)
    costs = -short_sum(np.where(inside & (flows < 0), flows / shrink, 0.0), axis=-1)
    known = np.all(np.isfinite(flows), axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (gains / costs) ** (1.0 / n[..., 0]) - 1.0
    return np.where(known & (gains > 0) & (costs > 0), value, np.nan)


def payback_months(flows):
    """The earliest time after which the cumulative flow stays >= 0 up to the horizon, linear within the
    year of the last crossing, in months (docs/model.md, "Finance"): 0 where the cumulative flow is never
    below 0; NaN ("never") where it is below 0 at the horizon (or a flow is unknown). A later tranche that
    pushes the cumulative flow below 0 again moves payback past that dip. Years past a row's horizon hold
    0, so the last column is the horizon's cumulative flow. Vectorized over rows."""
    cumulative = wide_ops.cumsum(np.asarray(flows, float), axis=-1)   # np.cumsum, bit for bit
    below = cumulative < 0
    count = cumulative.shape[-1]
    last_below = count - 1 - np.argmax(below[..., ::-1], axis=-1)  # the last year with a negative cumulative flow
    k = np.minimum(last_below, count - 2) if count > 1 else last_below
    before = np.take_along_axis(cumulative, k[..., None], axis=-1)[..., 0]
    after = np.take_along_axis(cumulative, np.minimum(k + 1, count - 1)[..., None], axis=-1)[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        crossing = 12.0 * (k + (-before) / (after - before))
    paid = np.where(np.any(below, axis=-1), crossing, 0.0)
    known = np.all(np.isfinite(cumulative), axis=-1)
    return np.where(known & (cumulative[..., -1] >= 0), paid, np.nan)


def roi(flows, capex_usd):
    """(sum of the flows of years 1..n) / capex - 1; NaN where capex is 0."""
    capex = np.asarray(capex_usd, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = short_sum(np.asarray(flows, float)[..., 1:], axis=-1) / capex - 1.0
    return np.where(capex > 0, value, np.nan)
