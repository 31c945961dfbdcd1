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
from .factors import DEFAULT_FACTORS, EfficiencyFactors
from .generated import generate_curve

# Physical bounds of each fittable factor (lower, upper).
BOUNDS: dict[str, tuple[float, float]] = {
    "eta_mem": (0.2, 1.0), "eta_kv": (0.1, 1.0), "eta_compute": (0.05, 1.0), "eta_prefill": (0.05, 1.0), "eta_comm": (0.05, 1.0),
    "step_overhead_s": (1e-5, 0.05), "layer_overhead_s": (1e-7, 1e-3), "seq_overhead_s": (1e-8, 1e-4), "comm_latency_s": (1e-7, 1e-3),
    "power_gamma": (0.2, 3.0), "power_mem_activity": (0.05, 1.0), "spec_draft_cost_fraction": (0.0, 1.0),
    "spec_acceptance_realised": (0.3, 1.5),
    "usable_memory_fraction": (0.5, 0.98), "fp4_math_efficiency": (0.3, 1.0), "moe_compute_efficiency": (0.1, 1.0),
    "mem_compute_overlap_loss": (1e-3, 1.0), "moe_gemm_half_tokens": (1.0, 4096.0),
    "expert_load_skew": (1e-3, 2.0), "a2a_peer_overhead_s": (1e-8, 1e-4), "sched_overhead_s": (1e-9, 1e-4),
    "stack_step_rocm": (0.2, 10.0), "stack_step_sglang": (0.2, 10.0), "stack_step_vllm": (0.2, 10.0),
    "scale_out_latency_s": (1e-7, 1e-3),
    "arch_compute_hopper": (0.2, 5.0), "arch_compute_blackwell_ultra": (0.2, 5.0), "arch_compute_cdna3": (0.2, 5.0),
    "arch_compute_cdna4": (0.2, 5.0),
}
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
