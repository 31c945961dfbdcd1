"""`tcoapp calibrate BOOK.xlsx --curve NAME [--fit F1,F2] [--write] [--json]` (DESIGN section 15):
fit the generated model's efficiency factors to one measured curve of a workbook, print the
factors and the errors at the curve's points before and after, and with --write store them on
the Calibration sheet for plans on the curve's device."""
from __future__ import annotations

import argparse
import json


def calibrate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcoapp calibrate",
        description="Fit the generated (roofline) model's efficiency factors to a measured curve of a workbook "
                    "by least squares on tokens/s per device (and power where measured).")
    parser.add_argument("book", help="scenario workbook (.xlsx) holding the curve on its Curves sheet")
    parser.add_argument("--curve", required=True, metavar="NAME", help="the curve to fit (a name on the Curves sheet)")
    parser.add_argument("--fit", metavar="F1,F2", help="factors to fit, comma-separated (default: those of eta_mem, "
                        "eta_kv, eta_prefill, eta_compute, step_overhead_s, seq_overhead_s the points can identify)")
    parser.add_argument("--write", action="store_true",
                        help="store the fitted factors on the Calibration sheet (a column for the curve's device)")
    parser.add_argument("--json", action="store_true", help="print the fit as JSON")
    return parser


def run_calibrate(args) -> int:
    from .engine.errors import Problem, ValidationError
    from .engine.performance.curve_fit import fit_curve
    from .io.load import load_scenario

    scenario = load_scenario(args.book)
    if args.curve not in scenario.curves:
        known = ", ".join(repr(n) for n in scenario.curves) or "none"
        raise ValidationError([Problem(f"{args.book} sheet 'Curves'", "curve", f"= {args.curve!r}: no curve of that "
                                                                              f"name (the workbook has: {known})")])
    curve = scenario.curves[args.curve]
    devices = {n: scenario.device(n) for n in scenario.all_device_names()}
    models = {n: scenario.model(n) for n in scenario.all_model_names()}
    fit = tuple(f.strip() for f in args.fit.split(",") if f.strip()) if args.fit else None
    result = fit_curve(curve, devices, models, scenario.factors_for(curve.device), fit,
                       scenario.workload_of_curve(curve.name))
    before = scenario.factors_for(curve.device)
    if args.write:
        from .io.calibration_book import write_device_factors
        write_device_factors(scenario, args.book, curve.device, result.result.factors)
    from .calibration_report import fit_json, fit_text
    data = fit_json(result, before, written=args.write)
    print(json.dumps(data, indent=2, allow_nan=False) if args.json else fit_text(data, args.book))
    return 0
