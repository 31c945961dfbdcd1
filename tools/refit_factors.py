"""Refit the shipped FIT efficiency factors once, globally, on the fit part of the public accuracy set.

    python tools/refit_factors.py [CSV]              # fit, print the factors and the errors
    python tools/refit_factors.py --intervals [CSV]  # print the prediction-interval table of the shipped factors

One least-squares fit for every device, model and vendor stack together (never per row): the
residual of a row is log(predicted / measured) tokens/s per device, modelled exactly as
`tcoapp accuracy` models it (tcoapp/engine/performance/accuracy.py), with a soft-L1 loss (scale 0.1) so a
few rows the model cannot describe do not pull the factors. Rows of the held-out part (see
`measurement_rows.row_split`) are never seen. The physical factors (eta_mem, eta_comm, step and layer
overheads, comm latency and per-peer overhead, scale-out latency, memory and power factors) stay at
their rule-of-thumb defaults. The serving-stack factors (ROCm, SGLang, vLLM relative to
TensorRT-LLM) are fitted here too, each on all fit rows of its stack, never per row; a stack with
no fit row (SGLang on NVIDIA: its InferenceX sources are all held out) keeps its default, said.
Prints the fitted factors (to copy into tcoapp/engine/performance/factors.py with the date of the
fit) and the fit / held-out errors before and after.
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tcoapp.engine.performance import accuracy  # noqa: E402
from tcoapp.io.catalog import load_catalog  # noqa: E402
from tcoapp.io.measurements import DEFAULT_CSV, read_measurements  # noqa: E402
from tcoapp.engine.performance.calibration import BOUNDS  # noqa: E402
from tcoapp.engine.performance.factors import DEFAULT_FACTORS  # noqa: E402
from tcoapp.engine.performance.measurement_rows import STACK_FACTOR  # noqa: E402

# sched_overhead_s is held: per attention-DP rank (docs/model.md) it has the same regressor as
# seq_overhead_s (ceil(B / N) under attention-DP, B without), so only their sum is identified.
FIT = ("eta_kv", "eta_compute", "eta_prefill", "seq_overhead_s", "fp4_math_efficiency", "moe_compute_efficiency",
       "moe_gemm_half_tokens", "mem_compute_overlap_loss", "expert_load_skew",
       "stack_step_rocm", "stack_step_sglang", "stack_step_vllm",
       "w4a16_gemm_efficiency", "software_maturity_moe_per_year", "software_maturity_dense_per_year")
# log-space bounds of the factors calibration.BOUNDS does not hold (a maturity rate of 1e-4 per year is none)
EXTRA_BOUNDS = {"software_maturity_moe_per_year": (1e-4, 3.0), "software_maturity_dense_per_year": (1e-4, 3.0),
                "w4a16_gemm_efficiency": (0.05, 1.0)}
STACK_FACTORS = dict(STACK_FACTOR, ROCm="stack_step_rocm")  # stack -> its step factor (ROCm: every AMD row)
MISSING_RESIDUAL = 1.0  # a fit row that becomes infeasible counts as a factor-e error
FLOOR_RATIO = float(np.exp(-3.0))  # a row whose target no configuration reaches (predicted 0) counts as e^-3


def _factors(x, names=FIT):
    return DEFAULT_FACTORS.with_(**{name: float(v) for name, v in zip(names, np.exp(x))})


def identified(names, fit_results) -> tuple[tuple[str, ...], dict[str, str]]:
    """(the factors the fit rows can identify, {held factor: why}): a stack's step factor is fitted
    only where some fit row runs that stack. With none, no residual depends on it, so the solver
    could move it anywhere without changing the fit (a refit moved stack_step_sglang from 1 to 9.8
    that way); it is held at its default instead."""
    stacks = {r.stack for r in fit_results}
    held = {factor: f"no fit row runs {stack} (its sources are all held out)"
            for stack, factor in STACK_FACTORS.items() if factor in names and stack not in stacks}
    return tuple(n for n in names if n not in held), held


def _residuals(rows, catalog, lines, x, names=FIT) -> np.ndarray:
    acc = accuracy.run(rows, catalog, _factors(x, names), lines=set(lines))
    found = {r.line: np.log(max(r.predicted / r.measured, FLOOR_RATIO)) for r in acc.results}
    return np.array([found.get(line, MISSING_RESIDUAL) for line in lines])


def _report(name, acc) -> None:
    for split, s in acc.summary("split").items():
        print(f"  {name:6s} {split:9s} n={s['n']:3d} median {s['median_ape_pct']:5.1f} %  p90 {s['p90_ape_pct']:6.1f} %  "
              f"signed {s['median_signed_pct']:+5.1f} %")
    for regime, s in acc.summary("scenario", where=lambda r: r.split == "held-out").items():
        print(f"  {name:6s} held-out {regime:11s} n={s['n']:3d} median {s['median_ape_pct']:5.1f} %  "
              f"p90 {s['p90_ape_pct']:6.1f} %  signed {s['median_signed_pct']:+5.1f} %")


def intervals(path) -> int:
    """Print RESIDUAL_QUANTILES / PER_USER_QUANTILES (held-out rows, shipped factors) for
    tcoapp/engine/performance/prediction_interval.py, and their calibration."""
    acc = accuracy.run(read_measurements(path), load_catalog())
    held = [r for r in acc.results if r.split == "held-out"]
    device, user = accuracy.interval_cells(held)
    print("RESIDUAL_QUANTILES: dict[str, tuple[int, float, float]] = {")
    for key, (n, lo, hi) in device.items():
        print(f"    {key!r}: ({n}, {lo:.3f}, {hi:.3f}),")
    print("}")
    print("PER_USER_QUANTILES: dict[str, tuple[int, float, float]] = {")
    for key, (n, lo, hi) in user.items():
        print(f"    {key!r}: ({n}, {lo:.3f}, {hi:.3f}),")
    print("}")
    narrow = accuracy.interval_coverage(acc.results, (0.1, 0.9))["overall"]
    print(f"# a 10th-90th band would hold {narrow['inside_share']:.0%} of {narrow['n']} (too narrow across sources)")
    for regime, c in accuracy.interval_coverage(acc.results).items():
        print(f"# calibration {regime}: {c['inside_share']:.0%} of {c['n']} held-out rows inside the 80 % band "
              "built from the other half of the held-out sources")
    return 0


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--intervals":
        return intervals(args[1] if len(args) > 1 else DEFAULT_CSV)
    rows = read_measurements(args[0] if args else DEFAULT_CSV)
    catalog = load_catalog()
    before = accuracy.run(rows, catalog)
    lines = [r.line for r in before.results if r.split == "fit"]
    names, held = identified(FIT, [r for r in before.results if r.split == "fit"])
    for name, why in held.items():
        print(f"  {name} held at {getattr(DEFAULT_FACTORS, name):.4g}: not identified, {why}")
    bounds = {**BOUNDS, **EXTRA_BOUNDS}
    lo = np.log([bounds[n][0] for n in names])
    hi = np.log([bounds[n][1] for n in names])
    x0 = np.clip(np.log([max(getattr(DEFAULT_FACTORS, n), 1e-12) for n in names]), lo + 1e-6, hi - 1e-6)
    sol = least_squares(lambda x: _residuals(rows, catalog, lines, x, names), x0, bounds=(lo, hi), loss="soft_l1",
                        f_scale=0.1, diff_step=1e-2, max_nfev=40)
    fitted = _factors(sol.x, names)
    print(f"fit on {len(lines)} rows ({sol.message}, {sol.nfev} evaluations):")
    for name in names:
        print(f"  {name} = {getattr(fitted, name):.4g}   (was {getattr(DEFAULT_FACTORS, name):.4g})")
    _report("before", before)
    _report("after", accuracy.run(rows, catalog, fitted))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
