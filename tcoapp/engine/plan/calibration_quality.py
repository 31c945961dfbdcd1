"""How well a calibration fit matches its curve: the fit_* and heldout_* rows of the Calibration sheet
(plan/calibration_scope.py, QUALITY_ROWS), computed once for the CLI (`tcoapp calibrate`) and the desktop app."""
from __future__ import annotations


def fit_quality(result, check) -> dict:
    """The QUALITY_ROWS values of a curve fit `result` (performance/curve_fit.py) and its held-out `check`
    (median and largest |error| in %, rounded to 3 decimals as the sheet stores them)."""
    return {"fit_curve": result.curve, "fit_points": int(result.batch.size),
            "fit_median_abs_pct_error": round(result.result.median_abs_pct_error, 3),
            "heldout_points": len(check.heldout_pct_errors),
            "heldout_median_abs_pct_error": round(check.median_abs_pct_error, 3),
            "heldout_max_abs_pct_error": round(check.max_abs_pct_error, 3)}
