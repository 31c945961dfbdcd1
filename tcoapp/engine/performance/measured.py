"""Measured efficiency curves: points per (device, model, config), interpolated in log(batch).

Interpolation is monotone piecewise-cubic (PCHIP, scipy) in log(batch), so a measured curve that
rises never wiggles. Outside the measured batch range the value is extrapolated linearly in
log-log from the end segment and the point is flagged (`feasible` False, `extrapolated` on the
operating point, and a warning); nothing is extrapolated silently.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..quantities.curve_arrays import CURVE_ARRAYS
from .curve import CurveArrays


@dataclass(frozen=True, eq=False)
class MeasuredCurve:
    """Measured points of one curve, sorted by batch. NaN = not measured."""

    name: str
    device: str
    model: str
    batch: np.ndarray
    tokens_per_s_per_device: np.ndarray
    tokens_per_s_per_user: np.ndarray
    power_w: np.ndarray
    ttft_s: np.ndarray
    precision: str = ""
    tensor_parallel: int | None = None
    source: str = ""
    point_sources: tuple[str, ...] = field(default=())
    # The configuration the points were measured in, as (key, value) text pairs in the file's order:
    # project keys where they exist (tensor_parallel, input_tokens, prefill.workers, ...) and the
    # tool's own columns under their header names. Empty for a curve typed by hand.
    config: tuple[tuple[str, str], ...] = field(default=())

    def __eq__(self, other) -> bool:
        if not isinstance(other, MeasuredCurve):
            return NotImplemented
        scalars = ("name", "device", "model", "precision", "tensor_parallel", "source", "point_sources", "config")
        arrays = CURVE_ARRAYS
        return all(getattr(self, s) == getattr(other, s) for s in scalars) and all(
            np.array_equal(getattr(self, a), getattr(other, a), equal_nan=True) for a in arrays)

    __hash__ = None  # type: ignore[assignment]  # arrays: not hashable

    @property
    def config_dict(self) -> dict[str, str]:
        """The curve's recorded configuration (key -> text)."""
        return dict(self.config)

    @property
    def batch_range(self) -> tuple[float, float]:
        """(smallest, largest) measured batch [sequences]."""
        return float(self.batch[0]), float(self.batch[-1])


def config_text(config) -> str:
    """The configuration as one text cell: "key=value; key=value" (the Curves sheet's `config`)."""
    return "; ".join(f"{key}={value}" for key, value in config)


def parse_config_text(text: str) -> tuple[tuple[tuple[str, str], ...], str | None]:
    """(config pairs, None) from "key=value; ..." text, or ((), the problem) when a part has no key."""
    pairs = []
    for part in (text or "").split(";"):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            return (), f"= {text!r}: each part must be key=value, separated by ';' ({part.strip()!r} is not)"
        pairs.append((key.strip(), value.strip()))
    return tuple(pairs), None


def make_measured_curve(name, device, model, batch, tokens_per_s_per_device, tokens_per_s_per_user=None,
                        power_w=None, ttft_s=None, **meta) -> MeasuredCurve:
    """Sort by batch; missing columns become NaN. Duplicate batches are a ValueError."""
    batch = np.asarray(batch, float)
    n = batch.size
    given = [np.full(n, np.nan) if v is None else np.asarray(v, float)
             for v in (tokens_per_s_per_device, tokens_per_s_per_user, power_w, ttft_s)]
    if batch.ndim != 1 or any(v.shape != batch.shape for v in given):
        return _by_columns(name, device, model, batch, given, meta)
    # the columns as the rows of one new array (the curve owns its values), checked in one pass each
    table = np.array([batch, *given])
    if n > 1 and not np.all(batch[1:] > batch[:-1]):   # not in increasing batch order already
        table = table[:, np.argsort(batch, kind="stable")]
        if np.any(np.diff(table[0]) == 0):
            raise ValueError(f"curve {name!r} has two points at the same batch")
    bad = table <= 0   # NaN (not measured) compares False
    if bad.any():
        key, point = divmod(int(np.flatnonzero(bad)[0]), n)
        _refuse(name, CURVE_ARRAYS[key], table[key, point], table[0, point])
    return MeasuredCurve(name, device, model, *table, **meta)


def _by_columns(name, device, model, batch, given, meta) -> MeasuredCurve:
    """make_measured_curve column by column (columns of another length than the batches': as indexing them
    by the batch order gives)."""
    order = np.argsort(batch, kind="stable")
    sorted_batch = batch[order]
    if batch.size and np.any(np.diff(sorted_batch) == 0):
        raise ValueError(f"curve {name!r} has two points at the same batch")
    columns = dict(zip(CURVE_ARRAYS, [sorted_batch, *(v[order] for v in given)]))
    for key, values in columns.items():
        bad = np.flatnonzero(values <= 0)   # NaN (not measured) compares False
        if bad.size:
            _refuse(name, key, values[bad[0]], sorted_batch[bad[0]])
    return MeasuredCurve(name, device, model, *columns.values(), **meta)


def _refuse(name, key: str, value, batch):
    raise ValueError(f"curve {name!r}: {key} = {value:g} at batch {batch:g}: "
                     "a measured value must be > 0 (leave it empty when it was not measured)")


def _interp_loglog(x_points, y_points, x):
    """PCHIP in (log B, y) inside the range; linear in (log B, log y) outside. NaN points are skipped."""
    ok = np.isfinite(y_points)
    xp, yp = np.log(x_points[ok]), y_points[ok]
    lx = np.log(x)
    if xp.size == 0:
        return np.full_like(lx, np.nan)
    if xp.size == 1:
        return np.full_like(lx, yp[0])
    from scipy.interpolate import PchipInterpolator  # lazy: scipy costs ~1 s of app start-up

    inside = PchipInterpolator(xp, yp, extrapolate=False)(lx)
    return np.where(np.isfinite(inside), inside, _edge_extrapolate(xp, yp, lx))


def _edge_extrapolate(xp, yp, lx):
    """Linear in (log B, log y): positive as the measured values are (make_measured_curve checks it),
    so an extrapolated time, power or rate is never negative."""
    ly = np.log(yp)
    lo_slope = (ly[1] - ly[0]) / (xp[1] - xp[0])
    hi_slope = (ly[-1] - ly[-2]) / (xp[-1] - xp[-2])
    value = np.where(lx < xp[0], ly[0] + lo_slope * (lx - xp[0]), ly[-1] + hi_slope * (lx - xp[-1]))
    with np.errstate(over="ignore"):  # far outside the range: inf, and the point is flagged extrapolated
        return np.exp(value)


def evaluate_measured(curve: MeasuredCurve, batch, tensor_parallel: int, idle_w: float, tdp_w: float) -> CurveArrays:
    """The measured curve at the given batches.

    tokens/s per user, where not measured, is tokens/s per device x devices per replica / batch
    (devices per replica = the curve's tensor_parallel, else the plan's). Power, where not
    measured, is the device's TDP (a conservative assumption, stated in the notes).
    """
    b = np.atleast_1d(np.asarray(batch, float))
    lo, hi = curve.batch_range
    tps = _interp_loglog(curve.batch, curve.tokens_per_s_per_device, b)
    replica = curve.tensor_parallel or tensor_parallel
    notes = []
    if np.any(np.isfinite(curve.tokens_per_s_per_user)):
        per_user = _interp_loglog(curve.batch, curve.tokens_per_s_per_user, b)
    else:
        per_user = tps * replica / b
    if np.any(np.isfinite(curve.power_w)):
        power = _interp_loglog(curve.batch, curve.power_w, b)
    else:
        power = np.full_like(b, float(tdp_w))
        notes.append(f"curve {curve.name!r} has no measured power: TDP ({tdp_w:g} W) assumed")
    ttft = _interp_loglog(curve.batch, curve.ttft_s, b) if np.any(np.isfinite(curve.ttft_s)) else np.full_like(b, np.nan)
    inside = (b >= lo * (1 - 1e-12)) & (b <= hi * (1 + 1e-12))
    return CurveArrays(b, tps, per_user, ttft, power, inside, source=f"measured:{curve.name}", notes=tuple(notes))
