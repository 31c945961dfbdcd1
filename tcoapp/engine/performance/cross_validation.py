"""Leave-one-family-out and leave-one-era-out validation of the generated model (docs/model.md, "How
sure it is"): the figures quoted as "unseen"; model changes are chosen by the worse of the two.

Leave-one-era-out (`leave_one_era_out`): the rows of software before ERA_BOUNDARY are predicted by
factors fitted only on the rows from it on, and the reverse, so no era's software is in the fit that
predicts it (leave-one-family-out keeps the other families of the same era in the fit). Rows
without a date are in neither fit and are not tested.

Only rows whose configuration is known (measurement_config.py) are fitted, in either split; a row of
unknown configuration is predicted by the held-out fit and reported in its own cell.

For each source family (`measurement_rows.source_family`: the unit of independent evidence), the
FIT factors are refitted without that family's rows (`factor_fit.fit_factors`, the fit that ships
the factors) and the family's rows are predicted with them. Every modelled row is thus predicted
by factors that never saw its family; the errors of those predictions are the unseen errors, and
their residuals build the prediction intervals (`interval_cells`).

Speed: a full refit costs (len(FIT) + 1) model runs per step. Here the factors are first fitted
on every row (the centre: a few steps where the given factors are already that fit, as the shipped
ones should be), and every family's refit starts from the centre, where leaving one family out
moves the optimum only a little, with one Jacobian measured there on every row (len(FIT) + 1
runs, shared by all families): each step of a family's refit costs one model run (a chord method
inside scipy's trust region; `max_nfev` model runs, REFIT_STEPS by default). `tcoapp accuracy
--exact` refits each family with finite differences at every step instead (slower).
`tcoapp accuracy` reads the stored result while it is current (tcoapp/io/cross_validated.py).

Pure computation: rows as (CSV line, dict) pairs, the catalog as an object with `.devices` and
`.models`; `map_fn` (default the built-in map) lets a caller spread the families over processes.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..quantities.dates import months
from .accuracy import Accuracy, run
from .factor_fit import FIT, FLOOR_RATIO, FactorFit, fit_factors, jacobian, log_residuals
from .factors import DEFAULT_FACTORS, EfficiencyFactors

REFIT_STEPS = 4
# Converged leave-one-era-out refits (`converged=True`; docs/model.md, "The era split's refits"):
# finite-difference steps until a step changes the cost by less than ERA_TOLERANCE of it or the log-factors
# by less than ERA_TOLERANCE of their norm (scipy's ftol and xtol), at most ERA_MAX_NFEV steps. Leaving a
# whole era out moves the optimum far from the centre, so REFIT_STEPS chord steps (the shipped tables' refits)
# stop wherever they happen to be and the score depends on the start.
ERA_TOLERANCE = 1e-4
ERA_MAX_NFEV = 100
# The era boundary of leave-one-era-out (the first month of the later era): MLPerf v6.0 (2026-04) and
# InferenceX from 2026-04 on are the later era; MLPerf v4.1-v5.1 and InferenceX to 2026-03 the earlier.
ERA_BOUNDARY = "2026-04"
UNDATED = "no software date: in neither era's fit, not tested by leave-one-era-out"


@dataclass(frozen=True)
class CrossValidation:
    accuracy: Accuracy                   # every row predicted by factors fitted without its family (era)
    fits: dict[str, FactorFit]           # family (era) -> the fit without it
    not_tested: tuple[int, ...] = ()     # modelled lines no held-out fit predicts (leave-one-era-out: undated rows)


def family_lines(results) -> dict[str, list[int]]:
    """{source family: its modelled CSV lines}, in the order of `results`."""
    out: dict[str, list[int]] = {}
    for r in results:
        out.setdefault(r.source_family, []).append(r.line)
    return out


def era_of(date_text: str, boundary: str = ERA_BOUNDARY) -> str | None:
    """"before BOUNDARY" or "from BOUNDARY" by a row's software date; None where it states none."""
    d, b = months(date_text), months(boundary)
    if d is None or b is None:
        return None
    return f"before {boundary}" if d < b else f"from {boundary}"


def era_groups(rows, boundary: str = ERA_BOUNDARY) -> dict[int, str]:
    """{CSV line: its era} of the dated rows (the held-out unit of leave-one-era-out)."""
    return {line: era for line, row in rows if (era := era_of(row.get("date", ""), boundary)) is not None}


def era_lines(rows, results, boundary: str = ERA_BOUNDARY) -> tuple[dict[str, list[int]], list[int]]:
    """({era: its modelled CSV lines}, the undated lines)."""
    dates = {line: row.get("date", "") for line, row in rows}
    out: dict[str, list[int]] = {f"before {boundary}": [], f"from {boundary}": []}
    undated: list[int] = []
    for r in results:
        era = era_of(dates.get(r.line, ""), boundary)
        (undated if era is None else out[era]).append(r.line)
    return out, undated


def fitted_lines(results) -> list[int]:
    """The lines that may set factors: rows whose configuration is known (an unknown row is predicted
    and reported, never fitted)."""
    return [r.line for r in results if getattr(r, "configuration", "known") == "known"]


def leave_one_family_out(rows, catalog, factors: EfficiencyFactors = DEFAULT_FACTORS, max_nfev: int = REFIT_STEPS,
                         exact: bool = False, map_fn=map, names=FIT) -> CrossValidation:
    """Every modelled row of `rows` predicted by the FIT factors refitted on the other families'
    known-configuration rows, each refit started from the fit on every such row (module docstring)."""
    rows = list(rows)
    base = run(rows, catalog, factors)
    fit_set = set(fitted_lines(base.results))
    groups = {family: (own, [x for x in fit_set if x not in set(own)]) for family, own in family_lines(base.results).items()}
    return _hold_out(rows, catalog, factors, base, groups, max_nfev, exact, map_fn,
                     "no feasible configuration with the factors fitted without its family", names)


def leave_one_era_out(rows, catalog, factors: EfficiencyFactors = DEFAULT_FACTORS, boundary: str = ERA_BOUNDARY,
                      max_nfev: int = REFIT_STEPS, exact: bool = False, map_fn=map, names=FIT,
                      converged: bool = False) -> CrossValidation:
    """The rows of each software era predicted by the FIT factors refitted on the other era's
    known-configuration rows only (fit before `boundary`, test from it, and the reverse): `max_nfev`
    chord steps from the centre (the shipped tables; not converged, so the figures depend on the start),
    or with `converged` finite-difference steps until ERA_TOLERANCE (at most ERA_MAX_NFEV). Undated rows
    are in neither fit and are not tested (`not_tested`)."""
    tolerance = ERA_TOLERANCE if converged else None
    if converged:
        max_nfev, exact = ERA_MAX_NFEV, True
    rows = list(rows)
    base = run(rows, catalog, factors)
    eras, undated = era_lines(rows, base.results, boundary)
    fit_set = set(fitted_lines(base.results))
    groups = {era: (own, [x for other, theirs in eras.items() if other != era for x in theirs if x in fit_set])
              for era, own in eras.items()}
    cv = _hold_out(rows, catalog, factors, base, groups, max_nfev, exact, map_fn,
                   "no feasible configuration with the factors fitted on the other era", names, tolerance)
    skipped = tuple(sorted(cv.accuracy.skipped + tuple((line, UNDATED) for line in undated)))
    return replace(cv, accuracy=replace(cv.accuracy, skipped=skipped), not_tested=tuple(sorted(undated)))


def leave_one_architecture_out(rows, catalog, factors: EfficiencyFactors = DEFAULT_FACTORS,
                               max_nfev: int = REFIT_STEPS, map_fn=map, names=FIT) -> CrossValidation:
    """Each architecture with its own compute ratio (ARCHITECTURE_COMPUTE: every measured one but the
    reference, Blackwell, which every ratio is measured against) predicted by the FIT factors refitted
    on the other architectures' known-configuration rows: its ratio is then held at 1, as an architecture
    without measurements computes (docs/model.md, "Architectures without measurements")."""
    from .factors import ARCHITECTURE_COMPUTE
    rows = list(rows)
    base = run(rows, catalog, factors)
    fit_set = set(fitted_lines(base.results))
    own: dict[str, list[int]] = {}
    for r in base.results:
        if r.architecture in ARCHITECTURE_COMPUTE:
            own.setdefault(r.architecture, []).append(r.line)
    groups = {arch: (lines, [x for x in fit_set if x not in set(lines)]) for arch, lines in own.items()}
    return _hold_out(rows, catalog, factors, base, groups, max_nfev, False, map_fn,
                     "no feasible configuration with the factors fitted without its architecture", names)


def _hold_out(rows, catalog, factors, base, groups, max_nfev, exact, map_fn, infeasible, names=FIT,
              tolerance: float | None = None) -> CrossValidation:
    """Each group's rows predicted by the factors `names` refitted on its training lines ({name: (own
    lines, training lines)}), every refit started from the fit on every known-configuration row."""
    lines = fitted_lines(base.results)
    centre = fit_factors(rows, catalog, lines, start=factors, names=names,
                         start_results=[r for r in base.results if r.line in set(lines)]).factors
    at_centre = run(rows, catalog, centre, lines=set(lines)).results
    fixed = None
    if not exact:
        found = {r.line: r for r in at_centre}
        residuals = log_residuals(rows, catalog, centre, lines) if any(x not in found for x in lines) else np.array(
            [np.log(max(found[x].predicted / found[x].measured, FLOOR_RATIO)) for x in lines])
        fixed = dict(zip(lines, jacobian(rows, catalog, centre, lines, names, residuals)))
    tasks = [(rows, catalog, centre, [r for r in at_centre if r.line in train_set], own, max_nfev, fixed, names, tolerance)
             for own, train_set in ((own, set(train)) for own, train in groups.values())]
    outcomes = list(map_fn(_refit_and_predict, tasks))
    results, skipped = [], list(base.skipped)
    for (fit, predicted), (own, _) in zip(outcomes, groups.values()):
        results.extend(predicted.results)
        found_lines = {r.line for r in predicted.results}
        skipped.extend((line, infeasible) for line in own if line not in found_lines)
    results.sort(key=lambda r: r.line)
    fits = {name: outcome[0] for name, outcome in zip(groups, outcomes)}
    return CrossValidation(replace(base, results=tuple(results), skipped=tuple(sorted(skipped))), fits)


def _refit_and_predict(task) -> tuple[FactorFit, Accuracy]:
    """(the fit on `others`, the rows `own` predicted with it): one family's turn."""
    rows, catalog, factors, others, own, max_nfev, fixed, names, tolerance = task
    steps = max_nfev if fixed or tolerance is not None else 40
    fit = fit_factors(rows, catalog, [r.line for r in others], start=factors, names=names, max_nfev=steps,
                      fixed_jacobian=fixed, start_results=others, **({} if tolerance is None else {"tolerance": tolerance}))
    return fit, run(rows, catalog, fit.factors, lines=set(own))
