"""engine_sweep_points_per_s: a >= 1e6-point frontier sweep in one vectorized call vs a Python loop.

The sweep: DeepSeek-R1 on B200, 31,250 batch sizes x TP {1,2,4,8} x EP {1,2,4,8} x attention-DP
{off,on} = 1,000,000 points, `frontier.sweep` (best of 3). The baseline evaluates the same kernel
(`roofline.evaluate`) one point at a time in a Python loop on a 2,000-point subset.
"""
from __future__ import annotations

import csv
import pathlib
import time

import numpy as np

from tcoapp.engine.performance.factors import DEFAULT_FACTORS
from tcoapp.engine.performance.frontier import sweep
from tcoapp.engine.performance.memory import architecture
from tcoapp.engine.performance.precision import attention_peak_flops, bytes_per_value, peak_flops
from tcoapp.engine.performance.roofline import evaluate
from tcoapp.engine.performance.roofline_inputs import ServingArrays, WorkloadArrays
from tcoapp.engine.quantities.records import Workload, make_device, make_model

CATALOG = pathlib.Path(__file__).resolve().parents[1] / "resources" / "catalog"
AXES = {"tensor_parallel": (1, 2, 4, 8), "expert_parallel": (1, 2, 4, 8), "attention_dp": (False, True)}
N_BATCHES = 31_250
LOOP_POINTS = 2_000


def _entry(filename, name, make):
    with open(CATALOG / filename, newline="", encoding="utf-8") as handle:
        return next(make(row) for row in csv.DictReader(handle) if row["name"] == name)


def _setup():
    device = _entry("devices.csv", "B200", make_device)
    model = _entry("models.csv", "DeepSeek-R1", make_model)
    return device, model, Workload(input_tokens=1000, output_tokens=1000), np.geomspace(1, 16384, N_BATCHES)


def _loop(device, model, workload, batches) -> float:
    """Seconds per point of the same computation, one point per call."""
    arch, f = architecture(model), DEFAULT_FACTORS
    w, kv = bytes_per_value("nvfp4"), bytes_per_value("fp8")
    peak, attn = peak_flops(device, "nvfp4", f.fp4_math_efficiency), attention_peak_flops(device, "fp8")
    rng = np.random.default_rng(0)
    points = [(float(rng.choice(batches)), int(rng.choice(AXES["tensor_parallel"])),
               int(rng.choice(AXES["expert_parallel"])), bool(rng.integers(2))) for _ in range(LOOP_POINTS)]
    requests = WorkloadArrays(input_tokens=float(workload.input_tokens), output_tokens=float(workload.output_tokens))
    start = time.perf_counter()
    for b, tp, ep, adp in points:
        serving = ServingArrays(batch_sequences=b, tensor_parallel=tp, expert_parallel=ep, attention_dp=adp,
                                weight_bytes_per_value=w, kv_bytes_per_value=kv, peak_flop_s=peak,
                                attention_peak_flop_s=attn, draft_tokens=0.0, acceptance_fraction=0.7)
        evaluate(device, arch, serving, requests, f)
    return (time.perf_counter() - start) / LOOP_POINTS


def engine_sweep_points_per_s() -> dict:
    device, model, workload, batches = _setup()
    best = np.inf
    for _ in range(3):
        start = time.perf_counter()
        result = sweep(device, model, workload, batches=batches, weight_precisions=("nvfp4",), **AXES)
        best = min(best, time.perf_counter() - start)
    vectorized = result.size / best
    looped = 1.0 / _loop(device, model, workload, batches)
    return {"value": round(vectorized), "unit": "points/s", "baseline": round(looped),
            "baseline_name": f"same kernel point by point in a Python loop ({LOOP_POINTS} points); "
                             f"sweep of {result.size:,} points is {vectorized / looped:.0f}x faster",
            "target": 2_000_000}


BENCHMARKS = {"engine_sweep_points_per_s": engine_sweep_points_per_s}
