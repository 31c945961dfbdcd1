"""Growth with the work (README.md, "Benchmarks"): each measure at its size and at 10x, time and peak memory.

- scale_search_plans: the serving search's 8 plans (bench_search.py) and 80 (the 8 at ten input lengths,
  1000 .. 1090 tokens, so that no plan repeats another's sweep), every plan computed;
- scale_montecarlo_draws: 10,000 and 100,000 draws of the 8-plan scenario (bench_montecarlo.py), beyond its
  compute;
- scale_workbook_plans: a 5-plan and a 50-plan workbook (bench_workbook.py's plans, 500 measured points
  per curve), written with its results and read back;
- scale_classes_plans: the same 8 and 80 plans, each serving three request classes (bench_classes.py: chat,
  reasoning, and batch with a long tail; each tenth of the 80 with prompts 10 k tokens longer), every plan
  searched and computed;
- scale_sessions_counts: an agentic session curve (bench_agentic.py's replica with a host-memory KV tier, random routing over
  8 replicas, the heavier of the two routings) at 24 and at 240 counts of concurrent sessions over the same
  range, its kept curves cleared before each run;
- scale_curves_rows: a 100,000-row and a 1,000,000-row curve file (bench_curves.py's plain CSV, 1,000
  curves) read and written as `tcoapp curves --json` text. A curve file may hold 100,000 rows (the 1M-row
  file is refused at row 100,001: bench_curves.py times that); here the limit is lifted in the
  benchmark's own process, to show how the reader grows past it.

Each size runs in its own process (`python benchmarks/bench_scale.py KIND SIZE`): the time is the best of 3
CPU seconds of the work alone, the memory the process's peak resident set beyond what it held before
the work (the interpreter, the modules and the inputs). "growth" is the 10x figure over the 1x one: at
most 10 is no worse than linear. The value is the time growth, the baseline 10 (linear).
"""
from __future__ import annotations

import json
import os
import pathlib
import resource
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
SIZES = {"search": (8, 80), "montecarlo": (10_000, 100_000), "workbook": (5, 50), "curves": (100_000, 1_000_000),
         "sessions": (24, 240), "classes": (8, 80)}
UNITS = {"search": "plans", "montecarlo": "draws", "workbook": "plans", "curves": "rows", "sessions": "counts",
         "classes": "plans"}


def _rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _search_work(plans: int):
    import bench_search as B
    from tcoapp.engine.pipeline.compute import compute_plan

    scenario = B._scenario()
    if plans > len(scenario.plans):
        copies = plans // len(scenario.plans)
        scenario = scenario.with_plans(tuple(
            plan.with_(name=f"{plan.name} {1000 + 10 * k} in", input_tokens=1000 + 10 * k)
            for k in range(copies) for plan in scenario.plans))
    return lambda: [compute_plan(scenario, plan) for plan in scenario.plans]


def _montecarlo_work(draws: int):
    import bench_montecarlo as B

    scenario = B.eight_plan_scenario()
    results = B.compute_scenario(scenario)
    return lambda: B.simulate(scenario, draws, seed=0, results=results)


def _workbook_work(plans: int):
    import tempfile

    import bench_workbook as B
    from tcoapp.engine.pipeline.compute import compute_scenario
    from tcoapp.io.workbook_read import read_scenario
    from tcoapp.io.workbook_write import write_scenario

    scenario = B.bench_scenario(plans)
    results = compute_scenario(scenario)
    path = os.path.join(tempfile.mkdtemp(prefix="tcoapp-bench-"), "scale.xlsx")

    def work():
        write_scenario(scenario, path, results)
        read_scenario(path)
    return work


def _curves_work(rows: int):
    import tempfile

    import bench_curves as B
    from tcoapp.io.curve_files import read_curve_file, table
    from tcoapp.io.curve_files.to_json import curve_file_json
    from tcoapp.present.json_text import dumps

    table.MAX_DATA_ROWS = max(table.MAX_DATA_ROWS, rows)   # past the reader's limit: see the module's docstring
    path = B._plain_csv(pathlib.Path(tempfile.mkdtemp(prefix="tcoapp-bench-")) / f"rows_{rows}.csv", rows)
    return lambda: dumps(curve_file_json(read_curve_file(path)))


def _classes_work(plans: int):
    import bench_classes
    import bench_search as B
    from tcoapp.engine.pipeline.compute import compute_plan

    base = B._scenario()
    copies = max(1, plans // len(base.plans))
    scenario = base.with_plans(tuple(plan.with_(name=f"{plan.name} {k}") for k in range(copies) for plan in base.plans))
    for k in range(copies):   # each copy's classes 10 k tokens longer: no plan repeats another's mix
        classes = [dict(c, input_tokens=c["input_tokens"] + 10 * k) for c in bench_classes.THREE]
        for plan in base.plans:
            scenario = scenario.with_plan(f"{plan.name} {k}", workloads=classes)
    return lambda: [compute_plan(scenario, plan) for plan in scenario.plans]


def _sessions_work(counts: int):
    import numpy as np

    import bench_agentic as B
    from tcoapp.engine.serving.agentic import clear_session_curves, session_curve
    from tcoapp.io.catalog import load_catalog

    catalog = load_catalog()
    device, model = catalog.devices["B200"], catalog.models["Qwen3-Coder-480B"]
    grid = np.geomspace(1, 600, counts)

    def work():
        clear_session_curves()
        session_curve(device, model, B.SERVING, B.SHAPE, B.TIERS, grid, routing="random", replicas=8)
    return work


WORK = {"search": _search_work, "montecarlo": _montecarlo_work, "workbook": _workbook_work, "curves": _curves_work, "sessions": _sessions_work,
        "classes": _classes_work}


def measure(kind: str, size: int) -> dict:
    """In this process: the work's best CPU seconds of 3 and the peak memory (MB) beyond the start."""
    work = WORK[kind](size)
    before = _rss_mb()
    best = float("inf")
    for _ in range(3):
        start = time.process_time()
        work()
        best = min(best, time.process_time() - start)
    return {"s": best, "peak_mb": max(0.0, _peak_mb() - before)}


def _child(kind: str, size: int) -> dict:
    done = subprocess.run([sys.executable, str(HERE / "bench_scale.py"), kind, str(size)], capture_output=True,
                          text=True, check=True, cwd=HERE.parent, timeout=1800)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _growth(kind: str) -> dict:
    small, large = SIZES[kind]
    a, b = _child(kind, small), _child(kind, large)
    unit = UNITS[kind]
    time_growth = b["s"] / a["s"]
    memory_growth = b["peak_mb"] / a["peak_mb"] if a["peak_mb"] > 0 else None
    return {"value": round(time_growth, 2), "unit": "x (time at 10x size / at 1x)", "baseline": 10.0,
            "baseline_name": f"linear growth. {small:,} {unit}: {a['s']:.3f} s, {a['peak_mb']:.0f} MB; "
                             f"{large:,} {unit}: {b['s']:.3f} s, {b['peak_mb']:.0f} MB (CPU s, best of 3; peak "
                             f"memory beyond the process's start)",
            "memory_growth": None if memory_growth is None else round(memory_growth, 2), "target": 10.0}


BENCHMARKS = {f"scale_{kind}_{UNITS[kind]}": (lambda kind=kind: _growth(kind)) for kind in SIZES}


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    sys.path.insert(0, str(HERE.parent))
    print(json.dumps(measure(sys.argv[1], int(sys.argv[2]))))
