"""A curve fit as JSON and as text: what `tcoapp calibrate` prints and the GUI's fit dialog shows."""
from __future__ import annotations

import numpy as np


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
