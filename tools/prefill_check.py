"""The model's prefill against the prefill throughput InferenceX measured on disaggregated prefill
workers: for each (device, precision, input length) of DeepSeek-R1, the disaggregated run with the most
input tokens/s per prefill GPU, and the model's prefill of one request at that run's prefill
parallelism (TP, EP, attention-DP), as input tokens/s per device.

    python tools/prefill_check.py RESULTS_JSON [RESULTS_JSON ...]

RESULTS_JSON: InferenceX result rows (the InferenceX-app fixture files, tools/frontier_envelope.py).
A disaggregated run's input_tput_per_gpu is its input tokens/s over its prefill GPUs only. It is the
prefill workers' capacity where they were the bottleneck, which the line shows by the run's median TTFT
beside the model's time for one isolated prefill: a TTFT many times that is a queue in front of
saturated prefill workers. Elsewhere it is a lower bound on the capacity. The model's figure is
input_tokens / (the roofline's busy-replica prefill time x the prefill replica's devices) at the
device's shipped factors (roofline.prefill; docs/model.md "Checked against published frontiers").
"""
from __future__ import annotations

import argparse
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import numpy as np  # noqa: E402

from frontier_envelope import prefill_capacity, unique_runs  # noqa: E402
from tcoapp.engine.performance.generated import run_roofline  # noqa: E402
from tcoapp.engine.quantities.records import ServingConfig, Workload  # noqa: E402
from tcoapp.io.default_scenario import default_scenario  # noqa: E402

DEVICES = {"b200": "B200", "b300": "B300", "gb200": "GB200-NVL72", "gb300": "GB300-NVL72", "h100": "H100-SXM",
           "h200": "H200-SXM", "mi355x": "MI355X"}
FP4 = {"NVIDIA": "nvfp4", "AMD": "mxfp4"}


def model_prefill(scenario, device_name: str, precision: str, run: dict) -> tuple[float, float]:
    """(input tokens/s per device of the model's busy-replica prefill, its isolated prefill time s) at the
    run's prefill parallelism; KV at the weights' precision."""
    device = scenario.device(device_name)
    weights = FP4[device.vendor] if precision == "fp4" else precision
    tp, ep = int(run["prefill_tp"]), int(run["prefill_ep"])
    # InferenceX states an EP group inside the TP group (TP8 EP8: 8 GPUs); the roofline's replica is TP x EP
    serving = ServingConfig(tensor_parallel=tp if ep <= 1 else max(tp // ep, 1), expert_parallel=max(ep, 1),
                            attention_dp=bool(run["prefill_dp_attention"]), weight_precision=weights,
                            kv_precision=weights)
    result = run_roofline(device, scenario.model("DeepSeek-R1"), serving,
                          Workload(input_tokens=run["isl"], output_tokens=run["osl"]), np.array([1.0]),
                          scenario.factors_for(device_name))
    devices = serving.tensor_parallel * serving.expert_parallel
    busy = float(np.ravel(result.prefill_s)[0])
    return run["isl"] / (busy * devices), busy


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    args = parser.parse_args(argv)
    runs = unique_runs(args.results)
    scenario = default_scenario()
    ratios = []
    for hardware, device_name in DEVICES.items():
        for precision in ("fp8", "fp4"):
            for isl in (1024, 8192):
                group = [r for r in runs if r["hardware"] == hardware and r["model"] == "dsr1"
                         and r["precision"] == precision and r["isl"] == isl]
                measured, run = prefill_capacity(group)
                if run is None:
                    continue
                model, alone_s = model_prefill(scenario, device_name, precision, run)
                ratios.append(model / measured)
                print(f"{device_name:12s} {precision} {isl:5d} in: measured {measured:8,.0f} input tokens/s per prefill GPU "
                      f"({run['framework']} prefill TP{run['prefill_tp']} EP{run['prefill_ep']}"
                      f"{' attention-DP' if run['prefill_dp_attention'] else ''}, {run['num_prefill_gpu']} GPUs, "
                      f"conc {run['conc']}, median TTFT {run['metrics']['median_ttft']:.2f} s, {run['date']}); "
                      f"model {model:8,.0f} ({model / measured:.2f}x; one prefill {alone_s * 1e3:.0f} ms)")
    if ratios:
        print(f"\n{len(ratios)} groups: model / measured {min(ratios):.2f}-{max(ratios):.2f}, median {statistics.median(ratios):.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
