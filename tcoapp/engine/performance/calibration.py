"""Calibration: fit efficiency factors to measured points by least squares (docs/curves.md, "Calibrating the generated model to a curve").

The residual of point i is the relative error of tokens/s per device, r_i = predicted_i /
measured_i - 1 (and, where a point has a measured power, the relative error of power_w, which
pins `power_gamma`). `scipy.optimize.least_squares` minimizes sum r_i^2 over the chosen factors,
in log space (factors stay positive) and inside physical bounds. The fitted factors are a plain
`EfficiencyFactors`, saved with the scenario like any other input.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from ..quantities.records import ServingConfig, Workload
from ..quantities.factors import curve_fit_bounds
from .factors import DEFAULT_FACTORS, EfficiencyFactors
from .generated import generate_curve

# Physical bounds (lower, upper) of each factor a fit to a curve may move: the factor rows' fit bounds
# (quantities/factor_rows.py).
BOUNDS: dict[str, tuple[float, float]] = curve_fit_bounds()
OFFLINE_BATCHES = np.unique(np.round(np.geomspace(1, 32768, 120)))


@dataclass(frozen=True)
class MeasuredPoint:
    """One measurement to fit. `batch` None: an offline (max-throughput) measurement, modelled at the
    throughput-maximizing feasible batch. `serving` may list candidate configurations: the best is used."""

    device: str
    model: str
    workload: Workload
    tokens_per_s_per_device: float
    serving: ServingConfig | Sequence[ServingConfig] = field(default_factory=ServingConfig)
    batch: float | None = None
    power_w: float | None = None
    label: str = ""


@dataclass(frozen=True)
class CalibrationResult:
    """Fitted factors and the fit's error (percent values are 100 x relative errors)."""

    factors: EfficiencyFactors
    fitted: tuple[str, ...]
    residuals: np.ndarray            # relative errors of tokens/s per device, per point, after the fit
    initial_residuals: np.ndarray    # the same with the starting factors
    success: bool
    message: str

    @property
    def rmse_pct(self) -> float:
        """Root-mean-square relative error of the fit [%]."""
        return float(np.sqrt(np.mean(self.residuals ** 2)) * 100.0)

    @property
    def median_abs_pct_error(self) -> float:
        """Median absolute relative error after the fit [%]."""
        return float(np.median(np.abs(self.residuals)) * 100.0)

    @property
    def initial_median_abs_pct_error(self) -> float:
        """Median absolute relative error before the fit (initial factors) [%]."""
        return float(np.median(np.abs(self.initial_residuals)) * 100.0)


def points_from_curve(curve, serving: ServingConfig, workload: Workload) -> list[MeasuredPoint]:
    """The points of a MeasuredCurve (device and model by name), with measured power where it has it."""
    out = []
    for i, b in enumerate(curve.batch):
        power = float(curve.power_w[i]) if np.isfinite(curve.power_w[i]) else None
        out.append(MeasuredPoint(curve.device, curve.model, workload, float(curve.tokens_per_s_per_device[i]),
                                 serving, batch=float(b), power_w=power, label=f"{curve.name} batch {b:g}"))
    return out


def predict_point(point: MeasuredPoint, devices: Mapping, models: Mapping,
                  factors: EfficiencyFactors = DEFAULT_FACTORS) -> tuple[float, float]:
    """(tokens/s per device, power_w) the generated curve predicts for `point` (NaN: infeasible)."""
    device, model = devices[point.device], models[point.model]
    configs = [point.serving] if isinstance(point.serving, ServingConfig) else list(point.serving)
    best = (np.nan, np.nan)
    for serving in configs:
        batches = OFFLINE_BATCHES if point.batch is None else np.array([float(point.batch)])
        curve = generate_curve(device, model, serving, point.workload, batches, factors)
        ok = curve.feasible if point.batch is None else np.ones(1, bool)
        if not ok.any():
            continue
        i = int(np.argmax(np.where(ok, curve.tokens_per_s_per_device, -np.inf)))
        if not np.isfinite(best[0]) or curve.tokens_per_s_per_device[i] > best[0]:
            best = (float(curve.tokens_per_s_per_device[i]), float(curve.power_w[i]))
    return best


def residuals(points: Sequence[MeasuredPoint], devices, models, factors: EfficiencyFactors) -> np.ndarray:
    """Relative errors of tokens/s per device (then of power, for points with power), infeasible -> 1."""
    out, power = [], []
    for p in points:
        tps, watts = predict_point(p, devices, models, factors)
        out.append(tps / p.tokens_per_s_per_device - 1.0 if np.isfinite(tps) else 1.0)
        if p.power_w:
            power.append(watts / p.power_w - 1.0 if np.isfinite(watts) else 1.0)
    return np.array(out + power, float)


def calibrate(points: Sequence[MeasuredPoint], devices: Mapping, models: Mapping,
              factors: EfficiencyFactors = DEFAULT_FACTORS,
              fit: Sequence[str] = ("eta_mem", "eta_compute", "step_overhead_s")) -> CalibrationResult:
    """Least-squares fit of the factors named in `fit` to `points` (see module docstring)."""
    if not points:
        raise ValueError("calibration needs at least one measured point")
    unknown = [name for name in fit if name not in BOUNDS]
    if unknown:
        raise ValueError(f"cannot fit {unknown}: fittable factors are {', '.join(BOUNDS)}")
    lo = np.log([BOUNDS[n][0] for n in fit])
    hi = np.log([BOUNDS[n][1] for n in fit])
    x0 = np.clip(np.log([max(getattr(factors, n), 1e-12) for n in fit]), lo + 1e-9, hi - 1e-9)
    n_tps = len(points)

    def make(x):
        return factors.with_(**{n: float(v) for n, v in zip(fit, np.exp(x))})

    fun = lambda x: residuals(points, devices, models, make(x))  # noqa: E731
    initial = fun(x0)
    from scipy.optimize import least_squares  # lazy: keeps scipy out of app start-up

    sol = least_squares(fun, x0, bounds=(lo, hi), diff_step=1e-3, x_scale=1.0, max_nfev=200 * len(fit))
    fitted = make(sol.x)
    return CalibrationResult(fitted, tuple(fit), fun(sol.x)[:n_tps], initial[:n_tps], bool(sol.success), str(sol.message))
