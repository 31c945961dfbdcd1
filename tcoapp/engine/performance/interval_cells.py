"""The prediction-interval tables (`prediction_interval.RESIDUAL_QUANTILES` / `PER_USER_QUANTILES`)
built from cross-validated residuals, and their calibration (docs/model.md, "How sure it is").

Input: cross-validated results (`cross_validation.leave_one_family_out`, `leave_one_era_out`, or both
together, as the shipped band is built): each row predicted by factors that never saw its family (or
its era). Rows of unknown configuration build no band and are tested in their own cell; so are rows
whose target no modelled configuration reaches (predicted 0: no ratio exists, and a floored one would
stretch their cell's band to no use), in the cell UNREACHED_CELL, counted outside every band. The
ratio of a row is measured / predicted tokens/s per device; per user the measured / predicted tokens/s
per user of rows measured at a stated concurrency.

A cell is a regime x class x vendor ("interactive/MoE/AMD"), a regime x class ("interactive/MoE"),
a regime ("interactive") or every row ("*"). Its band is the BAND_QUANTILES of the ratio a family
not yet seen would show, as two parts: the family's offset (each family's median log ratio; each
family weighs the same, however many rows it has) and the scatter of a row about its family's
offset (each row weighs the same): the quantiles of every offset combined with every scatter. So
the spread between families counts fully (two families that err in opposite directions widen the
band) while a family's few rows do not stand for as much scatter as another family's many.

How far the next family's offset falls from the cell's centre (the median of its families'
offsets) is estimated in one of two ways, by how many families the cell holds:

- MIN_FAMILIES or more: its own offsets, spread about their median by `offset_widening`, the
  small-sample predictive factor of one more family (Student's t over the normal quantile, times
  sqrt(1 + 1/n)): the next family's offset falls outside the range of a few seen ones far more
  often than their quantiles say;
- fewer (a spread from one or two families is no estimate): the between-family spread of every
  regime x class cell that holds two families or more (`pooled_spread`: each family's offset minus
  its cell's median, times sqrt(k / (k - 1)) for the k families of that cell), about this cell's
  own centre, spread by the factor of one more family with the t of the pooled offsets and
  sqrt(1 + 1/k) for this cell's k families (its centre is as uncertain as k families make it).
  The cell keeps its own centre and its own rows' scatter.

`band_for` uses the regime x class x vendor cell where it holds MIN_ROWS rows of MIN_FAMILIES
families (a vendor's own offsets, where it has its own spread), else the regime x class cell where
it holds MIN_ROWS rows, else the regime's, else every row's. (Chosen by the nested calibration below
against the band of the regime x class cell's own offsets for any number of families, pooled to the
regime below MIN_ROWS rows and widened to hold the smaller cells: that one held 0-13 % of NVIDIA's
dense interactive and server rows, because without one of the two families of those cells the band
was the other family's scatter alone; docs/model.md, "How sure it is".)

Calibration (`coverage`) is nested: each family's rows are tested against the band built without
that family (its residuals are already out-of-family); the share inside per cell, regime, class
and overall.
"""
from __future__ import annotations

import math

import numpy as np

from .prediction_interval import BAND_QUANTILES, MIN_FAMILIES, MIN_ROWS, band_for

REGIMES = ("offline", "server", "interactive")
UNKNOWN_CELL = "unknown configuration"
UNREACHED_CELL = "unreachable"
CLASSES = ("dense", "MoE")


def weighted_quantiles(values, weights, quantiles) -> np.ndarray:
    """Quantiles of `values` with `weights` (midpoint rule on the cumulative weight; equal weights
    give numpy's 'hazen' percentiles)."""
    order = np.argsort(values)
    v, w = np.asarray(values, float)[order], np.asarray(weights, float)[order]
    cum = (np.cumsum(w) - 0.5 * w) / w.sum()
    return np.interp(quantiles, cum, v)


def band(ratios, families, quantiles=BAND_QUANTILES, spread=None) -> tuple[float, float]:
    """(low, high): the `quantiles` of the ratio a family not yet seen would show (module docstring):
    every family's offset (its median log ratio, each family weighing the same) combined with every
    row's scatter about its own family's offset (each row weighing the same). A cell of fewer than
    MIN_FAMILIES families takes the between-family spread `spread` (`pooled_spread`: (deviations,
    degrees of freedom)) about its own centre where given."""
    log_ratio = np.log(np.asarray(ratios, float))
    offsets, index = family_offsets(log_ratio, families)
    scatter = log_ratio - offsets[index]
    centre = np.median(offsets)
    if offsets.size < MIN_FAMILIES and spread is not None and spread[1] > 0:
        deviations, dof = spread
        offsets = centre + offset_widening(dof + 1, quantiles, offsets.size) * np.asarray(deviations, float)
    else:
        offsets = centre + offset_widening(offsets.size, quantiles) * (offsets - centre)
    draws = (offsets[:, None] + scatter[None, :]).ravel()
    low, high = np.exp(weighted_quantiles(draws, np.ones_like(draws), quantiles))
    return float(low), float(high)


def family_offsets(log_ratio, families) -> tuple[np.ndarray, np.ndarray]:
    """(each family's median log ratio, each row's family index)."""
    _, index = np.unique(np.asarray(families, dtype=object).astype(str), return_inverse=True)
    return np.array([np.median(log_ratio[index == i]) for i in range(index.max() + 1)]), index


def pooled_spread(cells: dict[str, tuple[list, list]]) -> tuple[np.ndarray, int]:
    """(deviations, degrees of freedom): each family's offset minus its regime x class cell's median,
    times sqrt(k / (k - 1)) for the k families of that cell (the median of k offsets sits closer to
    them than the true centre), over every regime x class cell of two families or more; degrees of
    freedom the sum of k - 1 (module docstring)."""
    deviations, dof = [], 0
    for key, (values, families) in cells.items():
        if key.count("/") != 1:
            continue
        offsets, _ = family_offsets(np.log(np.asarray(values, float)), families)
        if offsets.size >= 2:
            deviations.append((offsets - np.median(offsets)) * np.sqrt(offsets.size / (offsets.size - 1)))
            dof += offsets.size - 1
    return (np.concatenate(deviations) if deviations else np.zeros(0)), dof


def offset_widening(families: int, quantiles=BAND_QUANTILES, centre_families: int | None = None) -> float:
    """How much wider the offset of a family not yet seen spreads than the offsets of `families`
    seen ones: the predictive interval of one more draw from a normal whose spread is estimated from
    n draws, t_{q, n-1} x sqrt(1 + 1/m) / z_q at the band's upper quantile q, m the number of families
    the centre is the median of (`centre_families`; default n). 1 with fewer than two families, no
    spread to widen, or at the 100th percentile. With 2 families 2.94, 3: 1.70, 5: 1.31, 10: 1.13:
    few families understate how far the next one falls (module docstring)."""
    if families < 2 or max(quantiles) >= 1.0:   # the range of the draws: no quantile to widen
        return 1.0
    from scipy import stats   # lazy: the band tables are built by tools, not at start-up
    q = max(quantiles)
    m = families if centre_families is None else max(1, centre_families)
    return float(stats.t.ppf(q, families - 1) / stats.norm.ppf(q) * np.sqrt(1.0 + 1.0 / m))


def _device_ratio(r) -> float:
    return r.measured / r.predicted if r.predicted > 0 else math.inf


def _user_ratio(r) -> float | None:
    if r.config.get("batch_measured") and r.measured_per_user and r.predicted_per_user:
        return r.measured_per_user / r.predicted_per_user
    return None


def cell_keys(r) -> tuple[str, ...]:
    """The cells a result belongs to: regime x class x vendor (where it names one), regime x class,
    regime, every row."""
    vendor = getattr(r, "vendor", "")
    own = (f"{r.scenario}/{r.kind}/{vendor}",) if vendor else ()
    return (*own, f"{r.scenario}/{r.kind}", r.scenario, "*")


def known(results) -> list:
    """The results that build bands: rows whose configuration is known and whose target a modelled
    configuration reaches (an unknown or unreachable row builds no band: its own cell)."""
    return [r for r in results if own_cell(r) is None]


def own_cell(r) -> str | None:
    """UNKNOWN_CELL for a row of unknown configuration, UNREACHED_CELL for one whose target no modelled
    configuration reaches (predicted 0), None for a row that builds bands."""
    if getattr(r, "configuration", "known") != "known":
        return UNKNOWN_CELL
    return None if r.predicted > 0 else UNREACHED_CELL


def build_cells(results, quantiles=BAND_QUANTILES, per_user: bool = False) -> dict[str, tuple[int, int, float, float]]:
    """{cell: (rows, families, low, high)} of measured / predicted (tokens/s per device, or per user),
    from the rows of known configuration that a modelled configuration reaches (`known`); a cell of fewer
    than MIN_FAMILIES families with the between-family spread of every regime x class cell (module
    docstring)."""
    ratio = _user_ratio if per_user else _device_ratio
    found: dict[str, tuple[list, list]] = {}
    for r in known(results):
        x = ratio(r)
        if x is None:
            continue
        for key in cell_keys(r):
            values, families = found.setdefault(key, ([], []))
            values.append(x)
            families.append(r.source_family)
    spread = pooled_spread(found)
    vendors = sorted({key.split("/")[2] for key in found if key.count("/") == 2})
    order = ([f"{g}/{c}/{v}" for g in REGIMES for c in CLASSES for v in vendors]
             + [f"{g}/{c}" for g in REGIMES for c in CLASSES] + list(REGIMES) + ["*"])
    return {key: (len(found[key][0]), len(set(found[key][1])), *band(*found[key], quantiles, spread))
            for key in order if key in found}




def _vendor_cell(r) -> tuple[str, ...]:
    """The regime x class x vendor cell a known row is counted in ("interactive/MoE/AMD"; none where
    the row names no vendor)."""
    vendor = getattr(r, "vendor", "")
    return (f"{r.scenario}/{r.kind}/{vendor}",) if vendor else ()


def coverage(results, quantiles=BAND_QUANTILES, groups: dict | None = None, band_from=None) -> dict[str, dict[str, float]]:
    """{cell, cell x vendor, regime, class, UNKNOWN_CELL, UNREACHED_CELL or "overall": {n, inside_share}}: each
    held-out unit's rows (a source family; `groups` {line: unit} where given) against the band built from
    the other units' cross-validated residuals (module docstring): those of `results`, or of `band_from`
    where given (e.g. both splits' residuals, the band that ships). Rows of unknown configuration are
    tested only in their own cell and "overall"; so are unreachable rows (predicted 0: outside every band)."""
    unit = (lambda r: r.source_family) if groups is None else (lambda r: groups.get(r.line))
    source = results if band_from is None else band_from
    inside: dict[str, list[bool]] = {}
    for name in sorted(str(u) for u in {unit(r) for r in results} - {None}):
        table = build_cells([r for r in source if unit(r) not in (name, None)], quantiles)
        if "*" not in table or table["*"][0] < MIN_ROWS:
            continue
        for r in (r for r in results if unit(r) == name):
            _, (_, lo, hi) = band_for(table, r.scenario, r.kind, getattr(r, "vendor", ""))
            ok = bool(lo <= _device_ratio(r) <= hi)
            cell = own_cell(r)
            keys = (f"{r.scenario}/{r.kind}", r.scenario, r.kind, *_vendor_cell(r)) if cell is None else (cell,)
            for key in (*keys, "overall"):
                inside.setdefault(key, []).append(ok)
    return {k: {"n": len(v), "inside_share": float(np.mean(v))} for k, v in inside.items()}
