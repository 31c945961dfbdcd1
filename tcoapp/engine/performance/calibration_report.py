"""A curve fit as JSON and as text: what `tcoapp calibrate` prints and the GUI's fit dialog shows."""
from __future__ import annotations

import numpy as np


def _finite(value) -> float | None:
    return float(value) if np.isfinite(value) else None


def fit_json(fit, before, written: bool, check=None, scope: str = "", changed=()) -> dict:
    """The fit as JSON (null where a value does not exist): factors before/after, errors at every point,
    the held-out check (`check`: fit_check.FitCheck) and what a write did (`scope`, `changed` plans)."""
    from .fit_check import RULE, bound_text
    r = fit.result
    s, w = fit.serving, fit.workload
    return {
        "curve": fit.curve, "device": fit.device, "model": fit.model,
        "serving": {"tensor_parallel": s.tensor_parallel, "expert_parallel": s.expert_parallel,
                    "attention_dp": s.attention_dp, "weight_precision": s.weight_precision,
                    "attention_weight_precision": s.attention_weight_precision or None,
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
        "converged": r.success, "written": written, "scope": scope or fit.device,
        "at_bounds_text": [bound_text(n, getattr(r.factors, n)) for n in fit.at_bounds],
        "heldout": None if check is None else {
            "rule": RULE, "ok": check.ok, "reasons": list(check.reasons), "notes": list(check.notes),
            "median_abs_pct_error": _finite(check.median_abs_pct_error),
            "max_abs_pct_error": _finite(check.max_abs_pct_error),
            "points": [{"batch": b, "pct_error": e} for b, e in zip(check.heldout_batches, check.heldout_pct_errors)]},
        "changed_plans": list(changed),
    }


def fit_text(data: dict, book: str) -> str:
    """The fit as the text `tcoapp calibrate` prints."""
    s, w = data["serving"], data["workload"]
    lines = [f"curve {data['curve']!r}: {len(data['points'])} points, {data['device']} / {data['model']}, "
             f"TP {s['tensor_parallel']} x EP {s['expert_parallel']}"
             f"{', attention-DP' if s['attention_dp'] else ''}, {s['weight_precision']} weights"
             f"{' (' + s['attention_weight_precision'] + ' outside the experts)' if s.get('attention_weight_precision') else ''}, "
             f"{s['kv_precision']} KV, {w['input_tokens']} input / {w['output_tokens']} output tokens"]
    lines.append("fitted factors (before -> after):")
    for name, v in data["factors"].items():
        side = next((t for t in data.get("at_bounds_text", ()) if t.startswith(f"{name} =")), "")
        bound = f"  (at {side[side.index('(its') + 1:-1]})" if side else ""
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
    held = data.get("heldout")
    if held is not None:
        if held["points"]:
            lines.append(f"held-out check ({len(held['points'])} points, every other in batch order, predicted by a fit "
                         f"to the rest): median |error| {held['median_abs_pct_error']:.1f} %, max "
                         f"{held['max_abs_pct_error']:.1f} %")
        lines.append("fit passes the rule: " + held["rule"] if held["ok"] else
                     "fit fails the rule (" + held["rule"] + "): " + "; ".join(held["reasons"]))
        lines += [f"note: {n}" for n in held.get("notes", [])]
    scope = data.get("scope") or data["device"]
    if data["written"]:
        lines.append(f"written to {book}'s Calibration sheet (column {scope!r}): plans on {data['device']} in that "
                     "scope (model class, serving stack) use them")
    elif held is None or held["ok"]:
        lines.append(f"not written: add --write to store them for plans in scope {scope!r}")
    else:
        lines.append(f"not written: the fit is not good enough to store for plans in scope {scope!r}")
    return "\n".join(lines)


def _num(value) -> str:
    return f"{value:>10.4g}" if value is not None else f"{'n/a':>10}"
