"""compute_cli_s: `tcoapp compute --json` on the default scenario, whole process (median of 5).

Baseline: the same interpreter starting and importing numpy and numpy-financial (the floor any run pays).

compute_cli_peak_mb: the peak resident memory of `tcoapp compute FILE --json` on the sample with the
widest searches (samples/hopper_to_blackwell_power_limited.xlsx: 9 searched plans, up to 2.4 million
swept points each). Baseline: the same process on the default scenario.
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time


def _median_wall_s(args, repeats=5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(args, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def compute_cli_s() -> dict:
    value = _median_wall_s([sys.executable, "-m", "tcoapp", "compute", "--json"])
    floor = _median_wall_s([sys.executable, "-c", "import numpy, numpy_financial"])
    return {"value": round(value, 3), "unit": "s", "baseline": round(floor, 3),
            "baseline_name": "python -c 'import numpy, numpy_financial' (interpreter floor)", "target": 2.0}


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WIDE_SAMPLE = os.path.join(ROOT, "samples", "hopper_to_blackwell_power_limited.xlsx")
_PEAK = ("import resource, sys; from tcoapp.cli import main; import contextlib, io\n"
         "with contextlib.redirect_stdout(io.StringIO()): status = main(sys.argv[1:])\n"
         "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)\n"
         "sys.exit(status)")


def _peak_mb(args) -> float:
    done = subprocess.run([sys.executable, "-c", _PEAK, *args], check=True, capture_output=True, text=True, cwd=ROOT)
    return float(done.stdout.strip().splitlines()[-1])


def compute_cli_peak_mb() -> dict:
    value = _peak_mb(["compute", WIDE_SAMPLE, "--json"])
    floor = _peak_mb(["compute", "--json"])
    return {"value": round(value), "unit": "MB", "baseline": round(floor),
            "baseline_name": "the same run on the default scenario", "target": None}


BENCHMARKS = {"compute_cli_s": compute_cli_s, "compute_cli_peak_mb": compute_cli_peak_mb}
