"""Refit the shipped FIT efficiency factors once, globally, on every row of the public accuracy set,
and write what leave-one-family-out validation gives.

    python tools/refit_factors.py [CSV]              # fit on every row, print the factors and the errors
    python tools/refit_factors.py --intervals [CSV]  # leave-one-family-out: write the stored predictions,
                                                     # print the prediction-interval tables and their calibration

The fit is `tcoapp.engine.performance.factor_fit.fit_factors` (the same function
leave-one-family-out validation refits without each family; its docstring says what is fitted and
held). The factors it prints are copied into tcoapp/engine/performance/factors.py with the date of
the fit; choose between model variants only by the leave-one-family-out figures (`tcoapp accuracy`),
never by these in-sample ones.

`--intervals` runs `cross_validation.leave_one_family_out` with the shipped factors, writes its
per-row predictions to resources/measurements/cross_validated.csv (`tcoapp accuracy` reads them
while they are current and recomputes them when not) and prints RESIDUAL_QUANTILES /
PER_USER_QUANTILES for tcoapp/engine/performance/prediction_interval.py with the calibration of the
80 % band (each family against the band built without it).
"""
from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tcoapp.engine.performance import accuracy, interval_cells  # noqa: E402
from tcoapp.engine.performance.cross_validation import leave_one_family_out  # noqa: E402
from tcoapp.engine.performance.factor_fit import FIT, fit_factors  # noqa: E402
from tcoapp.engine.performance.factors import DEFAULT_FACTORS  # noqa: E402
from tcoapp.io.catalog import load_catalog  # noqa: E402
from tcoapp.io.cross_validated import write_cross_validated  # noqa: E402
from tcoapp.io.measurements import DEFAULT_CSV, read_measurements  # noqa: E402


def _report(name, acc) -> None:
    for regime, s in acc.summary("scenario").items():
        print(f"  {name:6s} {regime:11s} n={s['n']:3d} median {s['median_ape_pct']:5.1f} %  p90 {s['p90_ape_pct']:6.1f} %  "
              f"signed {s['median_signed_pct']:+5.1f} %")


def _table(name, table) -> None:
    print(f"{name}: dict[str, tuple[int, float, float]] = {{")
    for key, (n, lo, hi) in table.items():
        print(f"    {key!r}: ({n}, {lo:.3f}, {hi:.3f}),")
    print("}")


def intervals(path) -> int:
    """Leave-one-family-out with the shipped factors: store its predictions, print the interval tables."""
    start = time.perf_counter()
    rows, catalog = read_measurements(path), load_catalog()
    cv = leave_one_family_out(rows, catalog)
    print(f"# leave-one-family-out: {len(cv.fits)} families, {time.perf_counter() - start:.0f} s")
    target = write_cross_validated(cv.accuracy, rows, catalog)
    print(f"# wrote {len(cv.accuracy.results)} cross-validated predictions to {target}")
    _table("RESIDUAL_QUANTILES", interval_cells.build_cells(cv.accuracy.results))
    _table("PER_USER_QUANTILES", interval_cells.build_cells(cv.accuracy.results, per_user=True))
    for key, c in sorted(interval_cells.coverage(cv.accuracy.results).items()):
        print(f"# calibration {key}: {c['inside_share']:.0%} of {c['n']} rows inside the 80 % band built without their family")
    return 0


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--intervals":
        return intervals(args[1] if len(args) > 1 else DEFAULT_CSV)
    rows = read_measurements(args[0] if args else DEFAULT_CSV)
    catalog = load_catalog()
    before = accuracy.run(rows, catalog)
    fit = fit_factors(rows, catalog, [r.line for r in before.results], start=DEFAULT_FACTORS,
                      start_results=before.results)
    for name, why in fit.held.items():
        print(f"  {name} held at {getattr(fit.factors, name):.4g}: not identified, {why}")
    print(f"fit on {fit.rows} rows ({fit.message}, {fit.evaluations} evaluations):")
    for name in FIT:
        print(f"  {name} = {getattr(fit.factors, name):.4g}   (was {getattr(DEFAULT_FACTORS, name):.4g})")
    _report("before", before)
    _report("after", accuracy.run(rows, catalog, fit.factors))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
