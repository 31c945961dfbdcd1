"""montecarlo_draws_per_s: 10,000 draws of an 8-plan scenario, beside the deterministic compute.

The scenario: the default scenario's five iso-power plans plus B300, MI300X and H200 at TP4 (8 plans,
Llama-3.3-70B at >= 50 tokens/s per user, 1 MW each), with uncertain utilization, output and input
prices (one market group), electricity, PUE, the weight-read bandwidth efficiency `factor.eta_mem`
(which re-runs every plan's operating point over the draws) and each plan's device price. The value
is draws per second of `simulate` given the computed results (the time beyond a plain compute);
the baseline is the deterministic `compute_scenario` of the same scenario, timed in the same run
(best of 3 each). Target: 10,000 draws in at most 1 s beyond the compute.
"""
from __future__ import annotations

import time
from dataclasses import replace

from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.quantities.records import make_plan
from tcoapp.engine.uncertainty.inputs import UncertainInput
from tcoapp.engine.uncertainty.simulate import simulate
from tcoapp.io.default_scenario import COMMON, default_scenario

DRAWS = 10_000
EXTRA = (("B300 NVFP4 TP1", {"device": "B300", "weight_precision": "nvfp4", "tensor_parallel": 1}),
         ("MI300X FP8 TP1", {"device": "MI300X", "weight_precision": "fp8", "tensor_parallel": 1}),
         ("H200 FP8 TP4", {"device": "H200-SXM", "weight_precision": "fp8", "tensor_parallel": 4}))


def eight_plan_scenario():
    base = default_scenario()
    plans = base.plans + tuple(make_plan(name, {**COMMON, "kv_precision": "fp8", **own}) for name, own in EXTRA)
    rows = [UncertainInput("*", "utilization", "pert", 0.5, 0.7, 0.85, group="market"),
            UncertainInput("*", "price_usd_per_million_output_tokens", "triangular", 0.6, 0.88, 1.0, group="market"),
            UncertainInput("*", "price_usd_per_million_input_tokens", "triangular", 0.6, 0.88, 1.0, group="market"),
            UncertainInput("*", "electricity_usd_per_kwh", "lognormal", mean=0.09, sd=0.015),
            UncertainInput("*", "pue", "uniform", 1.2, high=1.4),
            UncertainInput("*", "factor.eta_mem", "pert", 0.65, 0.8, 0.9)]
    for plan in plans:
        price = base.device(plan.device).price_usd
        rows.append(UncertainInput(plan.name, "device.price_usd", "triangular", 0.8 * price, price, 1.3 * price))
    return replace(base.with_plans(plans), uncertainty=tuple(rows))


def _best(func, repeats=3) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = func()
        best = min(best, time.perf_counter() - start)
    return best, out


def montecarlo_draws_per_s() -> dict:
    scenario = eight_plan_scenario()
    compute_s, results = _best(lambda: compute_scenario(scenario))
    simulate_s, _ = _best(lambda: simulate(scenario, DRAWS, seed=0, results=results))
    return {"value": round(DRAWS / simulate_s), "unit": "draws/s", "baseline": round(compute_s, 4),
            "baseline_name": f"deterministic compute of the same 8 plans, s (same run); {DRAWS:,} draws took "
                             f"{simulate_s:.3f} s beyond it",
            "target": DRAWS}


BENCHMARKS = {"montecarlo_draws_per_s": montecarlo_draws_per_s}


# --- large runs: peak memory and time of `tcoapp simulate` at 1e5 / 1e6 / 1e7 draws ------------------
SAMPLE = "samples/uncertainty_llama70b.xlsx"   # 4 plans
LARGE_DRAWS = (100_000, 1_000_000, 10_000_000)
OLD_MAX_DRAWS = 1_000_000   # one call over every draw needs ~2.9 GB at 1e6: 1e7 (~29 GB) is not run
CANCEL_AFTER_S = 3.0
_CHILD = r"""
import json, resource, sys, threading, time
from tcoapp.engine.pipeline.compute import compute_scenario
from tcoapp.engine.core.errors import Cancelled
from tcoapp.engine.uncertainty import simulate as sim
from tcoapp.io.load import load_scenario
draws, mode = int(sys.argv[1]), sys.argv[2]
scenario = load_scenario(sys.argv[3])
results = compute_scenario(scenario)
if mode == "old":   # the code before chunking: one vectorized call over every draw, every draw kept
    sim.CHUNK_DRAWS = sim.KEEP_DRAWS = draws
flag, asked = threading.Event(), []
def should_cancel():
    if flag.is_set():
        asked.append(time.perf_counter())
    return flag.is_set()
start = time.perf_counter()
if mode == "cancel":
    threading.Timer(float(sys.argv[4]), flag.set).start()
    try:
        sim.simulate(scenario, draws, 0, results=results, should_cancel=should_cancel)
    except Cancelled:
        pass
    set_at = start + float(sys.argv[4])
    print(json.dumps({"cancel_latency_s": time.perf_counter() - set_at}))
    raise SystemExit(0)
sim.simulate(scenario, draws, 0, results=results)
print(json.dumps({"s": time.perf_counter() - start,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _child(*args) -> dict:
    import json
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent
    done = subprocess.run([sys.executable, "-c", _CHILD, *map(str, args)], cwd=root, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def montecarlo_large_run_peak_mb() -> dict:
    """Peak memory (MB, the process's max RSS) of simulate at 10,000,000 draws on the 4-plan
    uncertainty sample (chunks of draws), with the time, next to the code before chunking (one call
    over every draw) at 100,000 and 1,000,000 draws, and the cancel latency of a 10,000,000-draw run."""
    import sys

    rows = {}
    for draws in LARGE_DRAWS:
        rows[("chunked", draws)] = _child(draws, "new", SAMPLE)
        if draws <= OLD_MAX_DRAWS:
            rows[("one call", draws)] = _child(draws, "old", SAMPLE)
    cancel = _child(LARGE_DRAWS[-1], "cancel", SAMPLE, CANCEL_AFTER_S)
    table = "; ".join(f"{mode} {draws:,}: {r['peak_mb']:.0f} MB {r['s']:.1f} s" for (mode, draws), r in rows.items())
    print(f"montecarlo_large_run_peak_mb: {table}; cancel latency {cancel['cancel_latency_s']:.2f} s", file=sys.stderr)
    return {"value": round(rows[("chunked", LARGE_DRAWS[-1])]["peak_mb"]), "unit": "MB",
            "baseline": round(rows[("one call", OLD_MAX_DRAWS)]["peak_mb"]),
            "baseline_name": f"one call over every draw at {OLD_MAX_DRAWS:,} draws (the code before chunking; "
                             f"1e7 not run). {table}; cancel latency {cancel['cancel_latency_s']:.2f} s",
            "target": 1024}


BENCHMARKS["montecarlo_large_run_peak_mb"] = montecarlo_large_run_peak_mb
