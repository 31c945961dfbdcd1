"""Fit the generated model to one measured curve (docs/curves.md, `tcoapp calibrate`).

The curve's configuration (tensor_parallel, expert_parallel, attention_dp, weight/kv precision,
input_tokens, output_tokens: written by curve import) says which generated curve to compare; its
points are fitted by `calibration.calibrate` (scipy least squares on the relative errors of
tokens/s per device, and of power where measured). A fit is refused, saying why, when the curve
cannot be modelled (unknown device or model, disaggregated, pipeline parallel, no workload), when
it has too few points for the factors, or when a factor cannot be identified from the points:

- sensitivity: s_ij = d r_i / d ln f_j (central differences, +-5 % in the factor). A factor whose
  column is below 1e-3 everywhere moves no prediction (a 10 % change moves none by 0.01 %).
- collinearity: with the columns scaled to unit length, a factor whose column lies within
  sin(angle) < 0.05 of the span of the others' cannot be told apart from them. (For a dense
  model at one workload the step time is close to a + b x batch: the weights read and the fixed
  overheads set a, the KV reads, prefill and per-sequence work set b; two numbers, whatever the
  names.) A fitted factor that ends on its physical bound is then refitted together with its
  held twin, which can carry the rest of the effect.

Without an explicit list, the default candidates are taken in order and the ones that cannot be
identified are held at their current values (said); with an explicit list any such factor refuses
the fit.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Sequence, cast

import numpy as np

from ..core.errors import TcoError
from ..quantities.inputs import PRECISIONS
from ..quantities.records import ServingConfig, Workload
from .calibration import BOUNDS, CalibrationResult, calibrate, points_from_curve, residuals
from .factors import DEFAULT_FACTORS, EfficiencyFactors
from .measured import MeasuredCurve

DEFAULT_CANDIDATES = ("eta_mem", "eta_kv", "eta_prefill", "eta_compute", "layer_overhead_s", "seq_overhead_s")
# A mixture-of-experts curve is scoped to the MoE factors first: its step time is set by the experts' GEMMs
# (their efficiency, the load skew between experts, the all-to-all) that the dense factors cannot stand in
# for (fitted alone they all end on their bounds); the points then identify what they can of the rest.
MOE_CANDIDATES = ("moe_compute_efficiency", "expert_load_skew", "a2a_peer_overhead_s", "eta_mem", "eta_kv",
                  "layer_overhead_s", "eta_prefill", "seq_overhead_s")
MIN_SENSITIVITY = 1e-3
MIN_INDEPENDENCE = 0.05
LOG_STEP = np.log(1.05)


class CalibrationRefused(TcoError):
    """The fit cannot be made; the message says why (one reason per line)."""

    def __init__(self, reasons: Sequence[str]):
        self.reasons = tuple(reasons)
        super().__init__("\n".join(self.reasons))


@dataclass(frozen=True)
class CurveFit:
    curve: str
    device: str
    model: str
    serving: ServingConfig
    workload: Workload
    result: CalibrationResult
    batch: np.ndarray
    measured: np.ndarray                 # tokens/s per device at each point
    held: dict[str, str] = field(default_factory=dict)   # candidate factor -> why it was not fitted
    notes: tuple[str, ...] = ()

    @property
    def predicted_before(self) -> np.ndarray:
        """The model's prediction before the fit, in the measured quantity's unit."""
        return self.measured * (1.0 + self.result.initial_residuals)

    @property
    def predicted_after(self) -> np.ndarray:
        """The model's prediction after the fit, in the measured quantity's unit."""
        return self.measured * (1.0 + self.result.residuals)

    @property
    def at_bounds(self) -> tuple[str, ...]:
        """Fitted factors that ended on a physical bound (the model may be missing something)."""
        out = []
        for name in self.result.fitted:
            lo, hi = BOUNDS[name]
            value = getattr(self.result.factors, name)
            if value <= lo * 1.001 or value >= hi * 0.999:
                out.append(name)
        return tuple(out)


def _count(config: Mapping[str, str], key: str, default: int) -> int:
    """A whole number of the config cell, `default` where it is missing or not whole."""
    value = _int(config, key, default)
    return default if value is None else value


def _int(config: Mapping[str, str], key: str, default: int | None = None) -> int | None:
    try:
        value = float(config[key])
    except (KeyError, ValueError):
        return default
    return int(value) if value.is_integer() else default


def curve_setup(curve: MeasuredCurve, devices: Mapping, models: Mapping,
                workload: Workload | None = None) -> tuple[ServingConfig, Workload]:
    """The serving configuration and workload the curve was measured in, or CalibrationRefused.
    `workload` (the workload of a plan using the curve) stands in where the config has none."""
    config = curve.config_dict
    reasons = []
    if curve.device not in devices:
        reasons.append(f"curve {curve.name!r}: device {curve.device!r} is not a known device (set the curve's device "
                       "to a catalog or Devices-sheet name)")
    if curve.model not in models:
        reasons.append(f"curve {curve.name!r}: model {curve.model!r} is not a known model (set the curve's model to "
                       "a catalog or Models-sheet name, or add the model to the Models sheet)")
    if config.get("disaggregated") == "true":
        reasons.append(f"curve {curve.name!r} is a disaggregated deployment: calibration fits aggregated curves only")
    if config.get("role") in ("prefill", "decode"):
        reasons.append(f"curve {curve.name!r} is the {config['role']} pool of a disaggregated deployment: calibration "
                       "fits aggregated curves only")
    if (_int(config, "pipeline_parallel") or 1) > 1:
        reasons.append(f"curve {curve.name!r}: pipeline_parallel = {config['pipeline_parallel']}: the generated model "
                       "has no pipeline parallelism")
    if "tensor_parallel" not in config and (_int(config, "EP") or 1) > 1:
        reasons.append(f"curve {curve.name!r}: TP {config.get('TP', '?')} with EP {config['EP']} says no engine layout "
                       "(EP does not divide TP): add tensor_parallel and expert_parallel to its config cell")
    isl, osl = _int(config, "input_tokens"), _int(config, "output_tokens")
    if (not isl or not osl) and workload is not None:
        isl, osl = workload.input_tokens, workload.output_tokens
    if not isl or not osl:
        reasons.append(f"curve {curve.name!r}: its config has no input_tokens / output_tokens and no plan uses it (add "
                       "e.g. 'input_tokens=4000; output_tokens=1000' to its config cell on the Curves sheet)")
    if reasons:
        raise CalibrationRefused(reasons)
    precision = {k: config.get(k, "") for k in ("weight_precision", "kv_precision", "attention_weight_precision")}
    serving = ServingConfig(
        tensor_parallel=_count(config, "tensor_parallel", curve.tensor_parallel or 1),
        expert_parallel=_count(config, "expert_parallel", 1), attention_dp=config.get("attention_dp") == "true",
    ).with_(**{k: v for k, v in precision.items() if v in PRECISIONS})
    return serving, Workload(input_tokens=cast(int, isl), output_tokens=cast(int, osl))   # (both > 0: refused above)


def sensitivities(points, devices, models, factors: EfficiencyFactors, names: Sequence[str]) -> np.ndarray:
    """s_ij = d r_i / d ln f_j by central differences (one-sided at a bound)."""
    columns = []
    for name in names:
        lo, hi = np.log(BOUNDS[name])
        x = np.log(getattr(factors, name))
        up, down = min(x + LOG_STEP, hi), max(x - LOG_STEP, lo)
        r_up = residuals(points, devices, models, factors.with_(**{name: float(np.exp(up))}))
        r_down = residuals(points, devices, models, factors.with_(**{name: float(np.exp(down))}))
        columns.append((r_up - r_down) / (up - down))
    return np.column_stack(columns) if columns else np.zeros((len(points), 0))


def _independence(columns: np.ndarray) -> float:
    """The smallest singular value of the unit-scaled columns (0: one is a combination of others)."""
    scaled = columns / np.linalg.norm(columns, axis=0)
    return float(np.linalg.svd(scaled, compute_uv=False)[-1])


def checkable_factors(n_points: int) -> int:
    """How many factors a curve of n points can fit and still be checked on held-out points: the check
    refits them to every other point (ceil(n / 2) points), which needs one point more than factors."""
    return max(1, (n_points + 1) // 2 - 1)


def identifiable(points, devices, models, factors, candidates: Sequence[str],
                 limit: int | None = None) -> tuple[list[str], dict[str, str]]:
    """The candidates the points can identify (in order, greedily; at most `limit`), and why each other
    one cannot."""
    limit = len(points) - 1 if limit is None else limit
    s = sensitivities(points, devices, models, factors, candidates)
    kept: list[int] = []
    held: dict[str, str] = {}
    for j, name in enumerate(candidates):
        if np.max(np.abs(s[:, j])) < MIN_SENSITIVITY:
            held[name] = "no point depends on it (a 10 % change moves no prediction by 0.01 %)"
            continue
        if len(kept) >= limit:
            held[name] = (f"too few points: {len(points)} point(s) identify at most {limit} factor(s) that can be "
                          "checked on held-out points")
            continue
        if kept and _independence(s[:, kept + [j]]) < MIN_INDEPENDENCE:
            cosines = [abs(np.dot(s[:, j], s[:, k])) / (np.linalg.norm(s[:, j]) * np.linalg.norm(s[:, k])) for k in kept]
            twin = candidates[kept[int(np.argmax(cosines))]]
            held[name] = f"its effect on these points is (almost) that of {twin}: the two cannot be told apart"
            continue
        kept.append(j)
    return [candidates[j] for j in kept], held


def _on_bound(factors: EfficiencyFactors, name: str) -> bool:
    lo, hi = BOUNDS[name]
    value = getattr(factors, name)
    return value <= lo * 1.001 or value >= hi * 0.999


def _bound_side(name: str, value: float) -> str:
    """`eta_mem reached its upper bound 1`: which bound, and its value (not the factor's final one)."""
    lo, hi = BOUNDS[name]
    return f"{name} reached its upper bound {hi:g}" if value >= hi * 0.999 else f"{name} reached its lower bound {lo:g}"


def _free_twins_of_bound_factors(points, devices, models, factors, result, chosen, held):
    """A fitted factor that ends on its physical bound cannot move further; a held factor with the
    same effect (its twin) then can, and is fitted with it (said in `held`'s place by the caller), as
    long as the fit can still be checked on held-out points."""
    bound = [n for n in chosen if _on_bound(result.factors, n)]
    twins = [n for n, why in held.items() if any(why.endswith(f"that of {b}: the two cannot be told apart") for b in bound)]
    twins = twins[:max(0, checkable_factors(len(points)) - len(chosen))]
    if not twins:
        return result, chosen, held, ()
    widened = list(chosen) + twins
    again = calibrate(points, devices, models, factors, fit=widened)
    if again.median_abs_pct_error >= result.median_abs_pct_error:
        return result, chosen, held, ()
    twins_of = {b: [t for t in twins if held[t].endswith(f"that of {b}: the two cannot be told apart")] for b in bound}
    notes = tuple(f"{_bound_side(b, getattr(result.factors, b))} in a first fit and was fitted again together with "
                  f"{', '.join(ts)} (same effect on these points): now "
                  + ", ".join(f"{n} = {getattr(again.factors, n):.4g}" for n in (b, *ts))
                  + "; the curve fixes their combined effect, not the split"
                  for b, ts in twins_of.items() if ts)
    held = {n: w for n, w in held.items() if n not in twins}
    return again, widened, held, notes


def fit_curve(curve: MeasuredCurve, devices: Mapping, models: Mapping, factors: EfficiencyFactors = DEFAULT_FACTORS,
              fit: Sequence[str] | None = None, workload: Workload | None = None) -> CurveFit:
    """Calibrate `factors` to `curve` (see module docstring); raises CalibrationRefused. `workload`:
    the input/output tokens where the curve's config does not say (a plan using the curve)."""
    serving, workload = curve_setup(curve, devices, models, workload)
    points = points_from_curve(curve, serving, workload)
    unknown = [n for n in (fit or ()) if n not in BOUNDS]
    if unknown:
        raise CalibrationRefused([f"cannot fit {', '.join(unknown)}: fittable factors are {', '.join(BOUNDS)}"])
    moe = bool(getattr(models.get(curve.model), "n_experts", 0))
    candidates = tuple(fit) if fit else MOE_CANDIDATES if moe else DEFAULT_CANDIDATES
    if len(points) < 2:
        raise CalibrationRefused([f"curve {curve.name!r} has {len(points)} point(s): a fit needs at least 2 (one more "
                                  "than the factors fitted)"])
    if fit and len(points) < len(fit) + 1:
        raise CalibrationRefused([f"curve {curve.name!r} has {len(points)} point(s): fitting {len(fit)} factor(s) "
                                  f"needs at least {len(fit) + 1}"])
    chosen, held = identifiable(points, devices, models, factors, candidates,
                                None if fit else checkable_factors(len(points)))
    if fit and held:
        raise CalibrationRefused([f"{name} cannot be identified from curve {curve.name!r}: {why}" for name, why in held.items()])
    if not chosen:
        raise CalibrationRefused([f"no factor can be identified from curve {curve.name!r}: "
                                  + "; ".join(f"{n}: {w}" for n, w in held.items())])
    result = calibrate(points, devices, models, factors, fit=chosen)
    notes: tuple[str, ...] = ()
    if not fit:
        result, chosen, held, notes = _free_twins_of_bound_factors(points, devices, models, factors, result, chosen, held)
    return CurveFit(curve.name, curve.device, curve.model, serving, workload, result, curve.batch.copy(),
                    curve.tokens_per_s_per_device.copy(), held, notes)
