"""Refit the shipped FIT efficiency factors once, globally, on the fit part of the public accuracy set.

    python tools/refit_factors.py [CSV]

One least-squares fit for every device, model and vendor stack together (never per row): the
residual of a row is log(predicted / measured) tokens/s per device, modelled exactly as
`python -m tcoapp.accuracy` models it (tcoapp/accuracy.py), with a soft-L1 loss (scale 0.1) so a
few rows the model cannot describe do not pull the factors. Rows of the held-out part (see
`accuracy.row_split`) are never seen. The physical factors (eta_mem, eta_comm, step and layer
overheads, comm latency, memory and power factors) stay at their rule-of-thumb defaults.
Prints the fitted factors (to copy into tcoapp/engine/performance/factors.py with the date of the
fit) and the fit / held-out errors before and after.
"""
from __future__ import annotations

import pathlib
import sys

import numpy as np
from scipy.optimize import least_squares

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tcoapp import accuracy  # noqa: E402
from tcoapp.engine.performance.calibration import BOUNDS  # noqa: E402
from tcoapp.engine.performance.factors import DEFAULT_FACTORS  # noqa: E402

FIT = ("eta_kv", "eta_compute", "eta_prefill", "seq_overhead_s", "fp4_math_efficiency", "moe_compute_efficiency",
       "moe_gemm_half_tokens", "mem_compute_overlap_loss")
MISSING_RESIDUAL = 1.0  # a fit row that becomes infeasible counts as a factor-e error


def _factors(x):
    return DEFAULT_FACTORS.with_(**{name: float(v) for name, v in zip(FIT, np.exp(x))})


def _residuals(path, catalog, lines, x) -> np.ndarray:
    found = {r.line: np.log(r.predicted / r.measured) for r in accuracy.run(path, catalog, _factors(x)).results}
    return np.array([found.get(line, MISSING_RESIDUAL) for line in lines])


def _report(name, acc) -> None:
    for split, s in acc.summary("split").items():
        print(f"  {name:6s} {split:9s} n={s['n']:3d} median {s['median_ape_pct']:5.1f} %  p90 {s['p90_ape_pct']:6.1f} %")


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    path = args[0] if args else accuracy.DEFAULT_CSV
    catalog = accuracy.load_catalog_for_accuracy()
    before = accuracy.run(path, catalog)
    lines = [r.line for r in before.results if r.split == "fit"]
    lo = np.log([BOUNDS[n][0] for n in FIT])
    hi = np.log([BOUNDS[n][1] for n in FIT])
    x0 = np.clip(np.log([max(getattr(DEFAULT_FACTORS, n), 1e-12) for n in FIT]), lo + 1e-6, hi - 1e-6)
    sol = least_squares(lambda x: _residuals(path, catalog, lines, x), x0, bounds=(lo, hi), loss="soft_l1",
                        f_scale=0.1, diff_step=1e-2, max_nfev=40)
    fitted = _factors(sol.x)
    print(f"fit on {len(lines)} rows ({sol.message}, {sol.nfev} evaluations):")
    for name in FIT:
        print(f"  {name} = {getattr(fitted, name):.4g}   (was {getattr(DEFAULT_FACTORS, name):.4g})")
    _report("before", before)
    _report("after", accuracy.run(path, catalog, fitted))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
