"""agentic_session_curve_s: the agentic session curve of one replica (serving/agentic.py: hit rate,
tokens/s and TTFT at 24 counts of concurrent sessions, host offload, session-affinity routing; and
the same with random routing over 8 replicas), beside its single-class floor: one generated curve of
the same replica at the same 24 batches (`generate_curve`), in the same run.

Value: seconds per session curve (best of 5). The curve is a fixed point of roofline sweeps and
LRU residency solves over the counts, vectorized; random routing adds its ages' incomplete gamma
functions and a root finder. session_curve keeps its answers for the same inputs (a plan is computed
twice), so the kept curves are cleared before each timed call: the figure is a computation, not a
lookup.
"""
from __future__ import annotations

import time

import numpy as np

from tcoapp.engine.performance.generated import generate_curve
from tcoapp.engine.performance.kv_residency import SessionShape
from tcoapp.engine.quantities.records import ServingConfig, Workload
from tcoapp.engine.serving.agentic import KvTiers, clear_session_curves, session_curve
from tcoapp.io.catalog import load_catalog

SHAPE = SessionShape(turns=30, system_prompt_tokens=8000, turn_input_tokens=2000, turn_output_tokens=300, gap_s=5.0)
COUNTS = np.geomspace(1, 600, 24)
SERVING = ServingConfig(tensor_parallel=8, expert_parallel=1, weight_precision="fp8", kv_precision="fp8")
TIERS = KvTiers("host", host_gb=250.0, host_link_gb_s=64.0)


def _best(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        clear_session_curves()
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def agentic_session_curve_s() -> dict:
    catalog = load_catalog()
    device, model = catalog.devices["B200"], catalog.models["Qwen3-Coder-480B"]
    workload = Workload(input_tokens=int(SHAPE.prompt_tokens().mean()), output_tokens=300)
    floor = _best(lambda: generate_curve(device, model, SERVING, workload, COUNTS))
    affinity = _best(lambda: session_curve(device, model, SERVING, SHAPE, TIERS, COUNTS))
    spread = _best(lambda: session_curve(device, model, SERVING, SHAPE, TIERS, COUNTS, routing="random", replicas=8), 2)
    return {"value": affinity, "unit": "s", "baseline": floor, "baseline_name": "one generated curve, same batches",
            "ratio": affinity / floor, "random_routing_s": spread, "target": 0.05}


BENCHMARKS = {"agentic_session_curve_s": agentic_session_curve_s}
