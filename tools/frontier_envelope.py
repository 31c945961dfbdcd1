"""Published measured frontiers from InferenceX result rows: the upper envelope and the target it is read at.

    python tools/frontier_envelope.py RESULTS_JSON [RESULTS_JSON ...] --source TEXT > rows.csv

RESULTS_JSON: InferenceX result rows as the InferenceX-app serves them (its cypress fixtures
`packages/app/cypress/fixtures/api/benchmarks.json` and `benchmarks-history.json`: one object per
measured run with hardware, framework, model, precision, spec_method, disagg, isl, osl, conc, date,
run_url and metrics). Rows of the same run given twice count once.

The envelope rule. A published frontier at a target t tokens/s per user is the upper envelope
    E(t) = max { output tokens/s per GPU of a measured run : its tokens/s per user >= t }
over every measured configuration of one (hardware, model, precision, input length, output
length): the best measured configuration, speculative decoding and disaggregation included where a
run used them (tokens/s per user: the run's median interactivity, 1 / median time per output token;
tokens/s per GPU: its output throughput over all its GPUs, prefill GPUs included, `per_gpu`).

The target. The envelope is a step function read only where runs were measured: far from a run it is
set by a configuration built for another operating point (a run at concurrency 2 on a 48-GPU
deployment is not a frontier). The target of a group is the envelope vertex (a measured run on the
Pareto front) in 32-120 tokens/s per user where the envelope is most stable, i.e. with the smallest
ln(E(t / 1.2) / E(1.2 t)): moving the target 20 % either way changes the published value least.
A vertex with no measured run above 1.2 t has an undefined stability and is taken only where it is
the group's only vertex in 32-120 (its row then says "sparse").

What the envelope can show. A run of concurrency c on G GPUs keeps at most c / G sequences per GPU
decoding, so its output per GPU at t tokens/s per user is at most (c / G) x t. Each row states
`densest_sequences_per_gpu`: the most sequences per GPU any run reaching the target offered,
max { c / G : tokens/s per user >= t } (G: a disaggregated run's prefill and decode GPUs, an
aggregated run's one replica, decode_tp: InferenceX's GPU-count fields of an aggregated TP x EP run
count TP x EP). An answer that needs more sequences per device than that was never offered to the
benchmark at that interactivity: the published value is a lower bound on the frontier there, not a
measurement of it (tools/frontier_check.py says "under-sampled"). And `prefill_input_tokens_per_s_per_gpu`:
the most input tokens/s per prefill GPU of any disaggregated run of the group (InferenceX's
input_tput_per_gpu, divided by the prefill GPUs only), with that run's median TTFT: a prefill pool
whose TTFT is seconds while a lone prefill takes a fraction of one is saturated, so this is the
stack's measured prefill capacity (empty where the group has no disaggregated run).

    python tools/frontier_envelope.py RESULTS_JSON [...] --annotate POINTS_CSV > annotated.csv

rewrites a points file (tools/frontier_points.csv, tools/frontier_points_wide.csv) with those two
columns recomputed from the runs at each row's own target, every other column as it was.
"""
from __future__ import annotations

import argparse
import csv
import json
import math
import sys

TARGET_RANGE = (32.0, 120.0)
STABILITY_STEP = 1.2
TARGET_ROUNDING = 0.005   # a points file states each target to 2 decimals (rows(): round(per_user, 2))
GROUPS = (  # (tcoapp device, InferenceX hardware, InferenceX model, tcoapp model, precision, isl, osl)
    ("B200", "b200", "dsr1", "DeepSeek-R1", "fp8", 1024, 1024),
    ("B200", "b200", "dsr1", "DeepSeek-R1", "fp8", 8192, 1024),
    ("GB200-NVL72", "gb200", "dsr1", "DeepSeek-R1", "fp8", 1024, 1024),
    ("GB200-NVL72", "gb200", "dsr1", "DeepSeek-R1", "fp8", 8192, 1024),
    ("H100-SXM", "h100", "dsr1", "DeepSeek-R1", "fp8", 1024, 1024),
    ("H100-SXM", "h100", "dsr1", "DeepSeek-R1", "fp8", 8192, 1024),
)


def per_user(run: dict) -> float:
    return float(run["metrics"]["median_intvty"])


def per_gpu(run: dict) -> float:
    """Output tokens/s per GPU over all the run's GPUs: tput_per_gpu (input + output tokens over every
    GPU) x osl / (isl + osl). Not output_tput_per_gpu: for a disaggregated run InferenceX divides the
    output by the decode GPUs only (and the input by the prefill GPUs), so that field overstates a
    disaggregated deployment's output per GPU by (prefill + decode GPUs) / decode GPUs."""
    return float(run["metrics"]["tput_per_gpu"]) * run["osl"] / (run["isl"] + run["osl"])


def envelope(runs: list[dict], target: float) -> tuple[float, dict | None]:
    """(E(target), the run that sets it); (nan, None) where no run reaches the target."""
    reaching = [r for r in runs if per_user(r) >= target]
    if not reaching:
        return math.nan, None
    best = max(reaching, key=per_gpu)
    return per_gpu(best), best


def gpus(run: dict) -> int:
    """The GPUs a run occupies: a disaggregated run's prefill + decode GPUs; an aggregated run's one
    replica, decode_tp (its num_prefill_gpu / num_decode_gpu count TP x EP: 64 for a TP8 EP8 replica of 8
    GPUs; tput_per_gpu is per the 8)."""
    if run["disagg"] and run.get("prefill_num_workers"):
        return int(run["num_prefill_gpu"]) + int(run["num_decode_gpu"])
    return int(run["decode_tp"]) if not run["disagg"] else int(run["num_decode_gpu"])


def densest_sequences_per_gpu(runs: list[dict], target: float) -> float:
    """The most sequences per GPU (concurrency / GPUs) offered by any run reaching `target` tokens/s per
    user (within the points file's rounding of t to 2 decimals, TARGET_ROUNDING); nan where none
    reaches it."""
    return max((r["conc"] / gpus(r) for r in runs if per_user(r) >= target - TARGET_ROUNDING), default=math.nan)


def prefill_capacity(runs: list[dict]) -> tuple[float, dict | None]:
    """(the most input tokens/s per prefill GPU of any disaggregated run, that run); (nan, None) without
    a disaggregated run."""
    split = [r for r in runs if r["disagg"] and r.get("prefill_num_workers") and r["metrics"].get("input_tput_per_gpu")]
    if not split:
        return math.nan, None
    best = max(split, key=lambda r: float(r["metrics"]["input_tput_per_gpu"]))
    return float(best["metrics"]["input_tput_per_gpu"]), best


def vertices(runs: list[dict]) -> list[dict]:
    """The runs on the Pareto front (no other run is both more interactive and faster per GPU)."""
    return [r for r in runs if envelope(runs, per_user(r))[1] is r]


def stability(runs: list[dict], target: float) -> float:
    """ln(E(t / 1.2) / E(1.2 t)); inf where no run reaches 1.2 t."""
    high = envelope(runs, target * STABILITY_STEP)[0]
    return math.log(envelope(runs, target / STABILITY_STEP)[0] / high) if math.isfinite(high) else math.inf


def choose_target(runs: list[dict]) -> tuple[dict, float] | None:
    """(the vertex run read as the published point, its stability); None without a vertex in range."""
    inside = [r for r in vertices(runs) if TARGET_RANGE[0] <= per_user(r) <= TARGET_RANGE[1]]
    if not inside:
        return None
    scored = sorted(((stability(runs, per_user(r)), per_user(r), id(r), r) for r in inside), key=lambda s: s[:2])
    return scored[0][3], scored[0][0]


def unique_runs(paths: list[str]) -> list[dict]:
    runs: dict[tuple, dict] = {}
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            for run in json.load(handle):
                key = (run["hardware"], run["framework"], run["model"], run["precision"], run["spec_method"],
                       run["disagg"], run["isl"], run["osl"], run["conc"], run["date"], run.get("run_url"))
                runs.setdefault(key, run)
    return list(runs.values())


def configuration(run: dict) -> str:
    text = (f"{run['framework']} spec={run['spec_method']} disagg={str(run['disagg']).lower()} conc={run['conc']}"
            f" decode TP{run['decode_tp']} EP{run['decode_ep']}{' DP-attention' if run['decode_dp_attention'] else ''}")
    if run["disagg"]:
        text += f" prefill GPUs {run['num_prefill_gpu']} decode GPUs {run['num_decode_gpu']}"
    return text


def group_runs(runs: list[dict], hardware: str, model_key: str, precision: str, isl: int, osl: int) -> list[dict]:
    return [r for r in runs if r["hardware"] == hardware and r["model"] == model_key
            and r["precision"] == precision and r["isl"] == isl and r["osl"] == osl]


def sampling_columns(group: list[dict], target: float) -> dict:
    """The two columns that say what the group's runs can show at `target` (module docstring)."""
    densest = densest_sequences_per_gpu(group, target)
    capacity, run = prefill_capacity(group)
    return {"densest_sequences_per_gpu": round(densest, 3) if math.isfinite(densest) else "",
            "prefill_input_tokens_per_s_per_gpu": round(capacity) if run else "",
            "prefill_capacity_run": (f"{run['framework']} prefill GPUs {run['num_prefill_gpu']} conc={run['conc']} "
                                     f"median TTFT {run['metrics']['median_ttft']:.2f} s {run['date']}") if run else ""}


def annotate(runs: list[dict], points: list[dict]) -> list[dict]:
    """`points` with the sampling columns recomputed from `runs` at each row's target (empty for a row
    of no group)."""
    out = []
    for point in points:
        key = (point["device"], point["model"], point["precision"], int(point["input_tokens"]), int(point["output_tokens"]))
        group_key = next((g for g in GROUPS if (g[0], g[3], g[4], g[5], g[6]) == key), None)
        if group_key is None:
            columns = dict.fromkeys(("densest_sequences_per_gpu", "prefill_input_tokens_per_s_per_gpu", "prefill_capacity_run"), "")
        else:
            columns = sampling_columns(group_runs(runs, *group_key[1:3], *group_key[4:]), float(point["tokens_per_s_per_user"]))
        out.append({**point, **columns})
    return out


def rows(runs: list[dict], source: str) -> list[dict]:
    out = []
    for device, hardware, model_key, model, precision, isl, osl in GROUPS:
        group = group_runs(runs, hardware, model_key, precision, isl, osl)
        chosen = choose_target(group)
        if chosen is None:
            continue
        run, stable = chosen
        note = (f"stability ln(E(t/1.2)/E(1.2t)) = {stable:.2f} over {len(group)} runs" if math.isfinite(stable)
                else f"sparse: no run measured above 1.2 t ({len(group)} runs)")
        out.append({"device": device, "model": model, "precision": precision, "input_tokens": isl,
                    "output_tokens": osl, "tokens_per_s_per_user": round(per_user(run), 2),
                    "published_tokens_per_s_per_device": round(per_gpu(run), 2),
                    "configuration": f"{configuration(run)}; {note}", "date": run["date"],
                    "source": f"{source}; run {run.get('run_url', '')}",
                    **sampling_columns(group, per_user(run))})
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", nargs="+")
    parser.add_argument("--source", help="where the result files come from (repository @ commit)")
    parser.add_argument("--annotate", help="a points CSV to rewrite with the sampling columns")
    args = parser.parse_args(argv)
    if args.annotate:
        with open(args.annotate, newline="", encoding="utf-8") as handle:
            found = annotate(unique_runs(args.results), list(csv.DictReader(handle)))
    elif args.source:
        found = rows(unique_runs(args.results), args.source)
    else:
        parser.error("give --source (build the points) or --annotate POINTS_CSV")
    writer = csv.DictWriter(sys.stdout, fieldnames=list(found[0]) if found else ["device"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(found)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
