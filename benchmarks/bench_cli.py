"""compute_cli_s: `tcoapp compute --json` on the default scenario, whole process (median of 5).

Baseline: the same interpreter starting and importing numpy and numpy-financial (the floor any run pays).
"""
from __future__ import annotations

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


BENCHMARKS = {"compute_cli_s": compute_cli_s}
