"""Is a curve fit good enough to be written? The rule (docs/curves.md, "When a fit is written"):

- held-out check: the same factors are fitted again to every other point of the curve in batch
  order (the 1st, 3rd, 5th, ...) from the same start, and predict the points left out (the 2nd,
  4th, ...). Their median |error| of tokens/s per device must be at most HELDOUT_MEDIAN_MAX_PCT
  and every one at most HELDOUT_POINT_MAX_PCT. A curve with too few points for that (the check
  fit needs one point more than the factors) cannot be checked, so it is not written;
- nothing else refuses a fit: the fit to all points (its median |error|), a fitted factor on its
  physical bound (the factors may then stand in for something the model lacks for this curve) and
  a solver that stopped early are said as notes beside the held-out figures, which decide.

The factors written are those of the fit to all points; the held-out figures are its quality.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from .calibration import BOUNDS, calibrate, points_from_curve, residuals

HELDOUT_MEDIAN_MAX_PCT = 5.0
HELDOUT_POINT_MAX_PCT = 15.0
FIT_MEDIAN_MAX_PCT = 5.0
RULE = (f"held-out points (every other point in batch order, predicted by a fit to the rest): median |error| <= "
        f"{HELDOUT_MEDIAN_MAX_PCT:g} % and each <= {HELDOUT_POINT_MAX_PCT:g} %")


@dataclass(frozen=True)
class FitCheck:
    heldout_batches: tuple[float, ...]
    heldout_pct_errors: tuple[float, ...]     # signed, percent, at each held-out point
    reasons: tuple[str, ...]                  # why the fit must not be written (empty: it may)
    notes: tuple[str, ...] = ()               # what is worth knowing and does not refuse it

    @property
    def ok(self) -> bool:
        """Whether the fit passed every check (no reason to refuse it)."""
        return not self.reasons

    @property
    def median_abs_pct_error(self) -> float:
        """Median absolute error on the held-out points [%] (NaN: none held out)."""
        return float(np.median(np.abs(self.heldout_pct_errors))) if self.heldout_pct_errors else float("nan")

    @property
    def max_abs_pct_error(self) -> float:
        """Largest absolute error on the held-out points [%] (NaN: none held out)."""
        return float(np.max(np.abs(self.heldout_pct_errors))) if self.heldout_pct_errors else float("nan")


def bound_text(name: str, value: float) -> str:
    """`eta_mem = 1 (its upper bound 1)`: the value and the bound it sits on."""
    lo, hi = BOUNDS[name]
    which, bound = ("upper", hi) if abs(np.log(value / hi)) < abs(np.log(value / lo)) else ("lower", lo)
    return f"{name} = {value:.4g} (its {which} bound {bound:g})"


def check_fit(fit, curve, devices: Mapping, models: Mapping, start) -> FitCheck:
    """The held-out check of `fit` (a CurveFit of `curve` from factors `start`) and every reason it
    must not be written (module docstring)."""
    reasons = []
    r = fit.result
    order = np.argsort(curve.batch, kind="stable")
    points = points_from_curve(curve, fit.serving, fit.workload)
    train = [points[i] for i in order[0::2]]
    test = [points[i] for i in order[1::2]]
    errors: tuple[float, ...] = ()
    if len(train) < len(r.fitted) + 1 or not test:
        reasons.append(f"too few points to check the fit on held-out points: {len(points)} point(s); fitting "
                       f"{len(r.fitted)} factor(s) on every other point needs at least {2 * (len(r.fitted) + 1)}")
    else:
        check = calibrate(train, devices, models, start, fit=r.fitted)
        errors = tuple(float(e) * 100 for e in residuals(test, devices, models, check.factors)[:len(test)])
    out = FitCheck(tuple(float(curve.batch[i]) for i in order[1::2]) if errors else (), errors, ())
    if errors and out.median_abs_pct_error > HELDOUT_MEDIAN_MAX_PCT:
        reasons.append(f"held-out points: median |error| {out.median_abs_pct_error:.1f} % > "
                       f"{HELDOUT_MEDIAN_MAX_PCT:g} %")
    if errors and out.max_abs_pct_error > HELDOUT_POINT_MAX_PCT:
        worst = int(np.argmax(np.abs(errors)))
        reasons.append(f"held-out point at batch {out.heldout_batches[worst]:g}: |error| {abs(errors[worst]):.1f} % > "
                       f"{HELDOUT_POINT_MAX_PCT:g} %")
    notes = []
    if r.median_abs_pct_error > FIT_MEDIAN_MAX_PCT:
        notes.append(f"all points: median |error| {r.median_abs_pct_error:.1f} % after the fit (> "
                     f"{FIT_MEDIAN_MAX_PCT:g} %)")
    for name in fit.at_bounds:
        notes.append(f"{bound_text(name, getattr(r.factors, name))}: it may stand in for something the model "
                     "lacks for this curve")
    if not r.success:
        notes.append(f"the least-squares solver stopped before converging ({r.message})")
    return FitCheck(out.heldout_batches, errors, tuple(reasons), tuple(notes))
