"""Refit the shipped FIT efficiency factors once, globally, on every row of known configuration of
the public accuracy set, and write what leave-one-family-out and leave-one-era-out validation give.

    python tools/refit_factors.py [CSV]              # fit on every row, print the factors and the errors
    python tools/refit_factors.py --intervals [CSV]  # both splits: write the stored predictions, print the
                                                     # prediction-interval tables and their calibration
    python tools/refit_factors.py --architectures [CSV]  # leave one architecture out: ARCHITECTURE_HELD_OUT
    python tools/refit_factors.py --tables           # the --intervals tables from the stored predictions
                                                     # (current ones only), without refitting
    python tools/refit_factors.py --era-stability [CSV]  # the era split at model_error 0.999 / 1 / 1.001:
                                                     # exit 1 where its median or p90 moves by >= STABLE_POINTS

The fit is `tcoapp.engine.performance.factor_fit.fit_factors` (the same function
leave-one-family-out validation refits without each family; its docstring says what is fitted and
held). The factors it prints are copied into tcoapp/engine/performance/factors.py with the date of
the fit; choose between model variants only by the worse of the leave-one-family-out and
leave-one-era-out figures (`tcoapp accuracy`), never by these in-sample ones.

`--intervals` runs `cross_validation.leave_one_family_out` and `leave_one_era_out` with the shipped
factors, writes their per-row predictions to resources/measurements/cross_validated.csv and
cross_validated_era.csv (`tcoapp accuracy` reads them while they are current and recomputes them
when not) and prints RESIDUAL_QUANTILES / PER_USER_QUANTILES (from both splits' residuals) and
ERA_RESIDUAL_QUANTILES (leave-one-era-out's alone) for tcoapp/engine/performance/prediction_interval.py
with the calibration of the 80 % band on each split (each family's rows against the band built
without that family).
"""
from __future__ import annotations

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tcoapp.engine.performance import accuracy, error_components, interval_cells  # noqa: E402
from tcoapp.engine.performance.cross_validation import (  # noqa: E402
    ERA_BOUNDARY, fitted_lines, leave_one_architecture_out, leave_one_era_out, leave_one_family_out,
)
from tcoapp.engine.performance.factor_fit import FIT, fit_factors  # noqa: E402
from tcoapp.engine.performance.factors import DEFAULT_FACTORS  # noqa: E402
from tcoapp.io.catalog import load_catalog  # noqa: E402
from tcoapp.io.cross_validated import stored_path, write_cross_validated  # noqa: E402
from tcoapp.io.measurements import DEFAULT_CSV, read_measurements  # noqa: E402


def _report(name, acc) -> None:
    for regime, s in acc.summary("scenario").items():
        print(f"  {name:6s} {regime:11s} n={s['n']:3d} median {s['median_ape_pct']:5.1f} %  p90 {s['p90_ape_pct']:6.1f} %  "
              f"signed {s['median_signed_pct']:+5.1f} %")


def _table(name, table) -> None:
    print(f"{name}: dict[str, tuple[int, int, float, float]] = {{")
    for key, (n, families, lo, hi) in table.items():
        print(f"    {key!r}: ({n}, {families}, {lo:.3f}, {hi:.3f}),")
    print("}")


def intervals(path) -> int:
    """Both splits with the shipped factors: store their predictions, print the interval tables
    (from both splits' residuals; the era split's alone for dates the fit never saw) and the
    calibration of the 80 % band on each split."""
    rows, catalog = read_measurements(path), load_catalog()
    splits = {}
    for split, how in (("family", leave_one_family_out), ("era", leave_one_era_out)):
        start = time.perf_counter()
        cv = how(rows, catalog)
        print(f"# leave-one-{split}-out: {len(cv.fits)} held-out fits, {time.perf_counter() - start:.0f} s")
        target = write_cross_validated(cv.accuracy, rows, catalog, stored_path(split))
        print(f"# wrote {len(cv.accuracy.results)} cross-validated predictions to {target}")
        splits[split] = cv.accuracy.results
    return tables(splits)


def tables(splits: dict) -> int:
    """Print the interval tables, the error shares and the calibration of the 80 % band on each split
    from both splits' results ({"family": ..., "era": ...})."""
    pooled = splits["family"] + splits["era"]
    _table("RESIDUAL_QUANTILES", interval_cells.build_cells(pooled))
    _table("PER_USER_QUANTILES", interval_cells.build_cells(pooled, per_user=True))
    print(f"# era boundary {ERA_BOUNDARY}")
    _table("ERA_RESIDUAL_QUANTILES", interval_cells.build_cells(splits["era"]))
    estimates = {split: error_components.split_estimate(results) for split, results in splits.items()}
    print("# how the model's errors correlate (engine/performance/error_components.py)")
    print("ERROR_SHARES: dict[str, float] = {")
    for key, share in error_components.shares(estimates).items():
        print(f"    {key!r}: {share},")
    print("}")
    print("SPLIT_ESTIMATES: dict[str, dict] = {")
    for split, e in estimates.items():
        print(f"    {split!r}: {e!r},")
    print("}")
    for split, results in splits.items():
        for key, c in sorted(interval_cells.coverage(results, band_from=pooled).items()):
            print(f"# calibration ({split} split) {key}: {c['inside_share']:.0%} of {c['n']} rows inside the 80 % "
                  f"band built without their family")
    return 0


def stored_tables() -> int:
    """The --intervals tables from the stored cross-validated predictions of the shipped measurements
    (2 where they are not current: run --intervals)."""
    from tcoapp.io.cross_validated import stored_cross_validation
    rows, catalog = read_measurements(DEFAULT_CSV), load_catalog()
    splits = {split: stored_cross_validation(rows, catalog, stored_path(split)) for split in ("family", "era")}
    if any(acc is None for acc in splits.values()):
        print("the stored cross-validated predictions are out of date: run --intervals", file=sys.stderr)
        return 2
    return tables({split: acc.results for split, acc in splits.items()})


def architectures(path) -> int:
    """Leave one architecture out with the shipped factors: ARCHITECTURE_HELD_OUT and the sd it gives an
    architecture without measurements (engine/performance/error_components.py)."""
    cv = leave_one_architecture_out(read_measurements(path), load_catalog())
    held = error_components.held_out_architectures(cv.accuracy.results)
    print("ARCHITECTURE_HELD_OUT: dict[str, tuple[int, float]] = {")
    for arch, value in held.items():
        print(f"    {arch!r}: {value},")
    print("}")
    print(f"# UNMEASURED_ARCHITECTURE_SD = {error_components.unmeasured_architecture_sd(held):.3f}")
    return 0


STABLE_POINTS = 0.5   # a converged split moves its median and p90 by less than this under a 0.1 % nudge
NUDGES = (0.999, 1.0, 1.001)


def era_stability(path) -> int:
    """The leave-one-era-out split with every step and prefill 0.1 % slower, as shipped and 0.1 % faster
    (`model_error`): a split whose refits converge scores the three alike (docs/model.md, "How sure it is");
    1 where the median or p90 absolute percent error spreads by STABLE_POINTS or more."""
    rows, catalog = read_measurements(path), load_catalog()
    scores = []
    for nudge in NUDGES:
        start = time.perf_counter()
        cv = leave_one_era_out(rows, catalog, DEFAULT_FACTORS.with_(model_error=DEFAULT_FACTORS.model_error * nudge),
                               converged=True)
        s = cv.accuracy.summary("scenario")["overall"]
        scores.append((s["median_ape_pct"], s["p90_ape_pct"]))
        steps = ", ".join(f"{era}: {fit.evaluations} steps ({fit.message})" for era, fit in cv.fits.items())
        print(f"model_error x {nudge}: median {s['median_ape_pct']:.1f} %  p90 {s['p90_ape_pct']:.1f} %  "
              f"[{steps}; {time.perf_counter() - start:.0f} s]", flush=True)
    spread = [max(x) - min(x) for x in zip(*scores)]
    print(f"spread: median {spread[0]:.2f} points, p90 {spread[1]:.2f} points (stable below {STABLE_POINTS})")
    return 0 if max(spread) < STABLE_POINTS else 1


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--architectures":
        return architectures(args[1] if len(args) > 1 else DEFAULT_CSV)
    if args and args[0] == "--era-stability":
        return era_stability(args[1] if len(args) > 1 else DEFAULT_CSV)
    if args and args[0] == "--tables":
        return stored_tables()
    if args and args[0] == "--intervals":
        return intervals(args[1] if len(args) > 1 else DEFAULT_CSV)
    rows = read_measurements(args[0] if args else DEFAULT_CSV)
    catalog = load_catalog()
    before = accuracy.run(rows, catalog)
    lines = fitted_lines(before.results)   # rows of known configuration only
    fit = fit_factors(rows, catalog, lines, start=DEFAULT_FACTORS,
                      start_results=[r for r in before.results if r.line in set(lines)])
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
