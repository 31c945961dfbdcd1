"""`tcoapp calibrate BOOK.xlsx --curve NAME [--fit F1,F2] [--write] [--json]` (docs/curves.md):
fit the generated model's efficiency factors to one measured curve of a workbook, print the
factors and the errors at the curve's points before and after and at held-out points, and with
--write store them on the Calibration sheet for plans in the curve's scope (device x model class x
serving stack) -- only when the fit passes the stated rule (engine/performance/fit_check.py);
otherwise nothing is written and the command exits with EXIT_NOT_WRITTEN."""
from __future__ import annotations

import argparse
import json
import sys

EXIT_NOT_WRITTEN = 4   # the fit was made and shown, but is not good enough to store


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
                        help="store the fitted factors on the Calibration sheet, in a column for the curve's scope "
                             "(device | model class | serving stack), if the fit passes the held-out check "
                             f"(else nothing is written and the exit code is {EXIT_NOT_WRITTEN})")
    parser.add_argument("--json", action="store_true", help="print the fit as JSON")
    return parser


def run_calibrate(args) -> int:
    from ..engine.plan.calibration_quality import fit_quality
    from ..engine.plan.calibration_scope import curve_scope, factors_in_scope
    from ..engine.core.errors import Problem, ValidationError
    from ..engine.performance.curve_fit import fit_curve
    from ..engine.performance.fit_check import check_fit
    from ..io.load import load_scenario

    scenario = load_scenario(args.book)
    if args.curve not in scenario.curves:
        known = ", ".join(repr(n) for n in scenario.curves) or "none"
        raise ValidationError([Problem(f"{args.book} sheet 'Curves'", "curve", f"= {args.curve!r}: no curve of that "
                                                                              f"name (the workbook has: {known})")])
    curve = scenario.curves[args.curve]
    devices = {n: scenario.device(n) for n in scenario.all_device_names()}
    models = {n: scenario.model(n) for n in scenario.all_model_names()}
    fit = tuple(f.strip() for f in args.fit.split(",") if f.strip()) if args.fit else None
    scope = curve_scope(curve, models)
    before = factors_in_scope(scenario.device_factors, scope.device, scope.model_class,
                              scope.serving_stack) or scenario.factors
    result = fit_curve(curve, devices, models, before, fit, scenario.workload_of_curve(curve.name))
    check = check_fit(result, curve, devices, models, before)
    written, changed, unscoped = False, [], []
    if args.write and check.ok:
        from ..io.calibration_book import changed_plans, with_scope_factors
        from ..io.workbook_write import write_scenario
        updated = with_scope_factors(scenario, scope.key, result.result.factors, fit_quality(result, check))
        changed = changed_plans(scenario, updated)
        unscoped = _plans_without_stack(scenario, scope)
        write_scenario(updated, args.book)
        written = True
    from ..engine.performance.calibration_report import fit_json, fit_text
    data = fit_json(result, before, written=written, check=check, scope=scope.key, changed=changed)
    print(json.dumps(data, indent=2, allow_nan=False) if args.json else fit_text(data, args.book))
    if args.write and not check.ok:
        for reason in check.reasons:
            print(f"error: not written: {reason}", file=sys.stderr)
        return EXIT_NOT_WRITTEN
    if written:
        _written_notes(scenario, scope, changed, unscoped)
    return 0


def _written_notes(scenario, scope, changed: list[str], unscoped: list[str]) -> None:
    """What a written calibration replaced and changed, on stderr."""
    if scope.key in scenario.device_factors:
        old = scenario.calibration_quality.get(scope.key, {}).get("fit_curve")
        print(f"note: replaced the factors of {scope.key!r}" + (f" fitted to {old!r}" if old else ""), file=sys.stderr)
    print(f"warning: the write changes the numbers of {len(changed)} plan(s)"
          + (": " + ", ".join(repr(n) for n in changed) if changed else ""), file=sys.stderr)
    if unscoped:
        print(f"note: plan(s) {', '.join(repr(n) for n in unscoped)} on {scope.device} name no serving stack: "
              f"they do not use these factors (set serving_stack = {scope.serving_stack} on the Plans sheet "
              "to use them)", file=sys.stderr)


def _plans_without_stack(scenario, scope) -> list[str]:
    """Plans on the scope's device and model class that name no serving stack, when the scope names one."""
    from ..engine.plan.calibration_scope import model_class
    if not scope.serving_stack:
        return []
    out = []
    for plan in scenario.plans:
        try:
            klass = model_class(scenario.model(plan.model))
        except KeyError:
            continue
        devices = {plan.device, *(p.device for p in plan.pools)}
        if scope.device in devices and klass == scope.model_class and not plan.serving_stack:
            out.append(plan.name)
    return out
