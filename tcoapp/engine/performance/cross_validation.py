"""Leave-one-family-out validation of the generated model (docs/model.md, "How sure it is"): the
figure quoted as "unseen".

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

from .accuracy import Accuracy, run
from .factor_fit import FIT, FLOOR_RATIO, FactorFit, fit_factors, jacobian, log_residuals
from .factors import DEFAULT_FACTORS, EfficiencyFactors

REFIT_STEPS = 4


@dataclass(frozen=True)
class CrossValidation:
    accuracy: Accuracy                   # every row predicted by factors fitted without its family
    fits: dict[str, FactorFit]           # family -> the fit without it


def family_lines(results) -> dict[str, list[int]]:
    """{source family: its modelled CSV lines}, in the order of `results`."""
    out: dict[str, list[int]] = {}
    for r in results:
        out.setdefault(r.source_family, []).append(r.line)
    return out


def leave_one_family_out(rows, catalog, factors: EfficiencyFactors = DEFAULT_FACTORS, max_nfev: int = REFIT_STEPS,
                         exact: bool = False, map_fn=map) -> CrossValidation:
    """Every modelled row of `rows` predicted by the FIT factors refitted on the other families'
    rows, each refit started from the fit on every row (module docstring)."""
    rows = list(rows)
    base = run(rows, catalog, factors)
    families = family_lines(base.results)
    lines = [r.line for r in base.results]
    centre = fit_factors(rows, catalog, lines, start=factors, start_results=base.results).factors
    at_centre = run(rows, catalog, centre, lines=set(lines)).results
    fixed = None
    if not exact:
        found = {r.line: r for r in at_centre}
        residuals = log_residuals(rows, catalog, centre, lines) if len(found) < len(lines) else np.array(
            [np.log(max(found[x].predicted / found[x].measured, FLOOR_RATIO)) for x in lines])
        fixed = dict(zip(lines, jacobian(rows, catalog, centre, lines, FIT, residuals)))
    tasks = [(rows, catalog, centre, [r for r in at_centre if r.line not in own_set], own, max_nfev, fixed)
             for own, own_set in ((own, set(own)) for own in families.values())]
    outcomes = list(map_fn(_refit_and_predict, tasks))
    results, skipped = [], list(base.skipped)
    for (fit, predicted), own in zip(outcomes, families.values()):
        results.extend(predicted.results)
        found_lines = {r.line for r in predicted.results}
        skipped.extend((line, "no feasible configuration with the factors fitted without its family")
                       for line in own if line not in found_lines)
    results.sort(key=lambda r: r.line)
    fits = {name: outcome[0] for name, outcome in zip(families, outcomes)}
    return CrossValidation(replace(base, results=tuple(results), skipped=tuple(sorted(skipped))), fits)


def _refit_and_predict(task) -> tuple[FactorFit, Accuracy]:
    """(the fit on `others`, the rows `own` predicted with it): one family's turn."""
    rows, catalog, factors, others, own, max_nfev, fixed = task
    fit = fit_factors(rows, catalog, [r.line for r in others], start=factors,
                      max_nfev=max_nfev if fixed else 40, fixed_jacobian=fixed, start_results=others)
    return fit, run(rows, catalog, fit.factors, lines=set(own))
