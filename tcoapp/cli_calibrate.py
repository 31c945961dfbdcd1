"""`tcoapp calibrate BOOK.xlsx --curve NAME [--fit F1,F2] [--write] [--json]` (DESIGN section 15):
fit the generated model's efficiency factors to one measured curve of a workbook, print the
factors and the errors at the curve's points before and after, and with --write store them on
the Calibration sheet for plans on the curve's device."""
from __future__ import annotations

import argparse
import json

import numpy as np


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
    result = fit_curve(curve, devices, models, scenario.factors_for(curve.device), fit)
    before = scenario.factors_for(curve.device)
    if args.write:
        from .io.calibration_book import write_device_factors
        write_device_factors(scenario, args.book, curve.device, result.result.factors)
    data = fit_json(result, before, written=args.write)
    print(json.dumps(data, indent=2, allow_nan=False) if args.json else fit_text(data, args.book))
    return 0


def _finite(value) -> float | None:
    return float(value) if np.isfinite(value) else None


def fit_json(fit, before, written: bool) -> dict:
    r = fit.result
    s, w = fit.serving, fit.workload
    return {
        "curve": fit.curve, "device": fit.device, "model": fit.model,
        "serving": {"tensor_parallel": s.tensor_parallel, "expert_parallel": s.expert_parallel,
                    "attention_dp": s.attention_dp, "weight_precision": s.weight_precision,
                    "kv_precision": s.kv_precision},
        "workload": {"input_tokens": w.input_tokens, "output_tokens": w.output_tokens},
        "factors": {n: {"before": getattr(before, n), "after": getattr(r.factors, n)} for n in r.fitted},
        "at_bounds": list(fit.at_bounds), "held": dict(fit.held), "notes": list(fit.notes),
        "median_abs_pct_error": {"before": r.initial_median_abs_pct_error, "after": r.median_abs_pct_error},
        "rmse_pct": {"before": float(np.sqrt(np.mean(r.initial_residuals ** 2)) * 100), "after": r.rmse_pct},
        "points": [{"batch": float(b), "tokens_per_s_per_device": float(m), "before": _finite(pb),
                    "after": _finite(pa), "pct_error_before": float(eb * 100), "pct_error_after": float(ea * 100)}
                   for b, m, pb, pa, eb, ea in zip(fit.batch, fit.measured, fit.predicted_before, fit.predicted_after,
                                                   r.initial_residuals, r.residuals)],
        "converged": r.success, "written": written,
    }


def fit_text(data: dict, book: str) -> str:
    s, w = data["serving"], data["workload"]
    lines = [f"curve {data['curve']!r}: {len(data['points'])} points, {data['device']} / {data['model']}, "
             f"TP {s['tensor_parallel']} x EP {s['expert_parallel']}, {s['weight_precision']} weights, "
             f"{s['kv_precision']} KV, {w['input_tokens']} input / {w['output_tokens']} output tokens"]
    lines.append("fitted factors (before -> after):")
    for name, v in data["factors"].items():
        bound = "  (at its bound)" if name in data["at_bounds"] else ""
        lines.append(f"  {name:<18} {v['before']:.4g} -> {v['after']:.4g}{bound}")
    for name, why in data["held"].items():
        lines.append(f"  {name:<18} held: {why}")
    lines += [f"note: {n}" for n in data["notes"]]
    m, e = data["median_abs_pct_error"], data["rmse_pct"]
    lines.append(f"tokens/s per device error: median |error| {m['before']:.1f} % -> {m['after']:.1f} %, "
                 f"RMS {e['before']:.1f} % -> {e['after']:.1f} %")
    lines.append(f"  {'batch':>8} {'measured':>10} {'before':>10} {'error':>8} {'after':>10} {'error':>8}")
    for p in data["points"]:
        lines.append(f"  {p['batch']:>8g} {p['tokens_per_s_per_device']:>10.4g} {_num(p['before'])} "
                     f"{p['pct_error_before']:>7.1f}% {_num(p['after'])} {p['pct_error_after']:>7.1f}%")
    if not data["converged"]:
        lines.append("note: the least-squares solver stopped before converging")
    lines.append(f"written to {book}'s Calibration sheet (column {data['device']!r}): plans on {data['device']} use them"
                 if data["written"] else f"not written: add --write to store them for plans on {data['device']}")
    return "\n".join(lines)


def _num(value) -> str:
    return f"{value:>10.4g}" if value is not None else f"{'n/a':>10}"
