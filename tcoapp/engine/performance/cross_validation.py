"""Leave-one-family-out validation of the generated model (docs/model.md, "How sure it is"): the
figure quoted as "unseen".

For each source family (`measurement_rows.source_family`: the unit of independent evidence), the
FIT factors are refitted without that family's rows (`factor_fit.fit_factors`, the fit that ships
the factors) and the family's rows are predicted with them. Every modelled row is thus predicted
by factors that never saw its family; the errors of those predictions are the unseen errors, and
their residuals build the prediction intervals (`interval_cells`).

Speed: a full refit costs (len(FIT) + 1) model runs per step. Here every refit starts from the
shipped factors (themselves fitted on every row) and uses one Jacobian measured there on every
row (len(FIT) + 1 runs, shared by all families): each step of a family's refit costs one model run
(a chord method inside scipy's trust region; `max_nfev` model runs, REFIT_STEPS by default).
`tcoapp accuracy --exact` refits each family with finite differences at every step instead
(slower). `tcoapp accuracy` reads the stored result while it is current (tcoapp/io/cross_validated.py).

Pure computation: rows as (CSV line, dict) pairs, the catalog as an object with `.devices` and
`.models`; `map_fn` (default the built-in map) lets a caller spread the families over processes.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from .accuracy import Accuracy, run
from .factor_fit import FIT, FactorFit, fit_factors, jacobian, log_residuals
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
    """Every modelled row of `rows` predicted by the FIT factors refitted (from `factors`) on the
    other families' rows (module docstring)."""
    rows = list(rows)
    base = run(rows, catalog, factors)
    families = family_lines(base.results)
    lines = [r.line for r in base.results]
    fixed = None
    if not exact:
        matrix = jacobian(rows, catalog, factors, lines, FIT, log_residuals(rows, catalog, factors, lines))
        fixed = dict(zip(lines, matrix))
    tasks = [(rows, catalog, factors, [r for r in base.results if r.line not in own_set], own, max_nfev, fixed)
             for own, own_set in ((own, set(own)) for own in families.values())]
    outcomes = list(map_fn(_refit_and_predict, tasks))
    results, skipped = [], list(base.skipped)
    for (fit, predicted), own in zip(outcomes, families.values()):
        results.extend(predicted.results)
        found = {r.line for r in predicted.results}
        skipped.extend((line, "no feasible configuration with the factors fitted without its family")
                       for line in own if line not in found)
    results.sort(key=lambda r: r.line)
    fits = {name: outcome[0] for name, outcome in zip(families, outcomes)}
    return CrossValidation(replace(base, results=tuple(results), skipped=tuple(sorted(skipped))), fits)


def _refit_and_predict(task) -> tuple[FactorFit, Accuracy]:
    """(the fit on `others`, the rows `own` predicted with it): one family's turn."""
    rows, catalog, factors, others, own, max_nfev, fixed = task
    fit = fit_factors(rows, catalog, [r.line for r in others], start=factors,
                      max_nfev=max_nfev if fixed else 40, fixed_jacobian=fixed, start_results=others)
    return fit, run(rows, catalog, fit.factors, lines=set(own))
