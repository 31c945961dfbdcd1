"""The searched answer against published measured frontiers: for each point of a frontier file, the
default search of the default scenario's first plan, set to the point's device, model, precision,
lengths and interactivity target, and ratio = searched / published tokens/s per device.

    python tools/frontier_check.py [POINTS_CSV] [--draft-tokens N] [--acceptance A] [--disaggregation auto]

POINTS_CSV (default tools/frontier_points.csv) has one row per published point: device, model,
precision, input_tokens, output_tokens, tokens_per_s_per_user (the target), published output
tokens/s per device, the configuration that produced it, its date and source. `--draft-tokens N`
caps the search's draft tokens (0: speculative decoding off); `--acceptance A` types the draft
acceptance (default: the model's published one); `--disaggregation auto` lets the search also price
prefill/decode pools (`search_disaggregation`; default: the plan's own, off in the default scenario). Prints one line per point (with the searched plan's
`published_anchor`, the nearest shipped measurement, and its ratio to it, or "no anchor"), then the
range and median of the ratios beside the goal (every ratio within 0.6-1.67, median within 0.8-1.25).

The shipped points (tools/frontier_points.csv) are the 11 points of the frontier check: DeepSeek-R1
FP8 on B200, GB200 NVL72 and H100 at 1k/1k and 8k/1k, Llama-3.3-70B on B200 (NVFP4 and FP8, 1k/1k,
at 76 and 108 tokens/s per user) and gpt-oss-120b MXFP4 on B200 at 100. The DeepSeek-R1 rows are
built by tools/frontier_envelope.py from InferenceX's result rows (the InferenceX-app fixture files
named in each row's source): the upper envelope, max output tokens/s per GPU over every measured
configuration with tokens/s per user >= the target (speculative decoding and disaggregation
included where a run used them), read at the envelope vertex in 32-120 tokens/s per user where it
is most stable (that tool's docstring). The Llama and gpt-oss rows have no published value: no
public repository reached holds InferenceX results for those models; they print "unknown" and do
not enter the ratios. tools/frontier_points_wide.csv is a wider check: 29 Pareto points of the
DeepSeek-R1 rows at 30-125 tokens/s per user, as output_tput_per_gpu states them (per decode GPU
for a disaggregated run, so those values are high by (prefill + decode) / decode GPUs).

Under-sampled points. A published envelope is a lower bound on the frontier: it holds only the
configurations InferenceX ran. A run of concurrency c on G GPUs cannot show more than c / G sequences
per GPU decoding, so where the searched answer needs more sequences per device (its tokens/s per
device over its tokens/s per user, Little's law) than the densest run reaching the target offered
(the points file's `densest_sequences_per_gpu`, tools/frontier_envelope.py), the benchmark never
offered that operating point: the line says "under-sampled" and its ratio is against a lower bound
(only a ratio below 0.6 is then a failure; a high one is untested, not confirmed). The summary gives
the sampled points' ratios against the goal and the under-sampled ones against their bound; none is
dropped. Where the points file states `prefill_input_tokens_per_s_per_gpu` (the stack's measured
prefill throughput per prefill GPU from its disaggregated runs), the line also gives the searched
plan's own prefill throughput per device while it prefills (tokens/s per device x input / output /
the share of device time spent prefilling) and their ratio.
"""
from __future__ import annotations

import argparse
import csv
import pathlib
import statistics
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

from tcoapp.engine.pipeline.anchor import with_anchor  # noqa: E402
from tcoapp.engine.pipeline.compute import compute_plan  # noqa: E402
from tcoapp.io.default_scenario import default_scenario  # noqa: E402
from tcoapp.io.measurements import read_measurements  # noqa: E402

POINTS = pathlib.Path(__file__).with_name("frontier_points.csv")
GOAL_RANGE = (0.6, 1.67)
GOAL_MEDIAN = (0.8, 1.25)


def searched(scenario, row: dict, draft_tokens: int | None, acceptance: float | None = None, measurements=(),
             disaggregation: str | None = None):
    """(tokens/s per device, the chosen configuration's text, the plan's published anchor or None) of the
    default search at the point; `measurements`: the shipped measurement rows the anchor is read from."""
    name = scenario.plans[0].name
    changes = {"device": row["device"], "model": row["model"], "search_precisions": row["precision"],
               "weight_precision": row["precision"], "kv_precision": row["precision"],
               "input_tokens": int(row["input_tokens"]), "output_tokens": int(row["output_tokens"]),
               "min_tokens_per_s_per_user": float(row["tokens_per_s_per_user"])}
    same = next((p for p in scenario.plans if p.device == row["device"]), None)
    if same is not None:   # a rack-scale device keeps its own rack keys (GB200 NVL72: one 132 kW rack)
        changes.update(rack_power_cap_kw=same.rack_power_cap_kw, servers_per_rack_max=same.servers_per_rack_max)
    if draft_tokens is not None:
        changes["search_max_draft_tokens"] = draft_tokens
    if acceptance is not None:
        changes["spec_decode_acceptance"] = acceptance
    if disaggregation is not None:
        changes["search_disaggregation"] = disaggregation
    scenario = scenario.with_plan(name, **changes)
    plan = scenario.plan(name)
    result = with_anchor(scenario, compute_plan(scenario, plan), measurements)
    chosen = result.serving_text()
    split = result.disaggregation or {}
    if split.get("chosen"):
        chosen = f"prefill:decode {split['prefill_devices']}:{split['decode_devices']} devices, {chosen}"
    return result.metric_or_none("tokens_per_s_per_device"), chosen, result.published_anchor, sampling_inputs(result, plan)


def sampling_inputs(result, plan) -> dict:
    """What the searched plan needs of a measured run: its sequences per device (tokens/s per device /
    tokens/s per user) and its prefill throughput per device while prefilling (input tokens/s)."""
    per_device, per_user = result.metric_or_none("tokens_per_s_per_device"), result.metric_or_none("tokens_per_s_per_user")
    share = result.point.prefill_share
    return {"sequences_per_device": per_device / per_user if per_device and per_user else None,
            "prefill_tokens_per_s_per_device": (per_device * plan.workload.input_tokens / plan.workload.output_tokens / share
                                                if per_device and share > 0 else None)}


def sampling_text(row: dict, needs: dict) -> tuple[str, bool]:
    """(the words on what the published point can show beside the searched answer, under-sampled?)."""
    densest = float(row.get("densest_sequences_per_gpu") or "nan")
    sequences = needs["sequences_per_device"]
    under = sequences is not None and densest == densest and sequences > densest
    parts = []
    if sequences is not None and densest == densest:
        parts.append(f"{'UNDER-SAMPLED' if under else 'sampled'}: searched {sequences:.2f} sequences per device, "
                     f"densest measured run at >= target {densest:.2f} per GPU"
                     + ("; the published value is a lower bound here" if under else ""))
    measured = float(row.get("prefill_input_tokens_per_s_per_gpu") or "nan")
    model = needs["prefill_tokens_per_s_per_device"]
    if model is not None and measured == measured:
        parts.append(f"prefill {model:,.0f} input tokens/s per device vs measured {measured:,.0f} per prefill GPU "
                     f"({model / measured:.2f}x)")
    return ("; ".join(parts), under)


def anchor_text(anchor: dict | None) -> str:
    """The searched plan's published anchor in a few words."""
    if not anchor:
        return "no anchor in the shipped measurements"
    user = anchor.get("tokens_per_s_per_user")
    return (f"anchor {anchor['value']:,.0f} tokens/s per device" + (f" at {user:.0f} tokens/s per user" if user else "")
            + (f", searched {anchor['ratio']:.2f}x it" if anchor.get("ratio") else ""))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("points", nargs="?", default=str(POINTS))
    parser.add_argument("--draft-tokens", type=int, default=None)
    parser.add_argument("--acceptance", type=float, default=None)
    parser.add_argument("--disaggregation", choices=("off", "auto"), default=None)
    args = parser.parse_args(argv)
    scenario = default_scenario()
    ratios, sampled, bounded = [], [], []
    measurements = [r for _, r in read_measurements()]
    with open(args.points, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        value, chosen, anchor, needs = searched(scenario, row, args.draft_tokens, args.acceptance, measurements,
                                                args.disaggregation)
        published = float(row["published_tokens_per_s_per_device"] or "nan")
        ratio = value / published if value else float("nan")
        sampling, under = sampling_text(row, needs)
        if value and published == published:
            ratios.append(ratio)
            (bounded if under else sampled).append(ratio)
        print(f"{row['device']:12s} {row['model']:12s} {row['precision']:5s} {row['input_tokens']:>5s}/{row['output_tokens']:<5s}"
              f" at {float(row['tokens_per_s_per_user']):6.1f} tok/s/user: published "
              + (f"{published:8.1f}" if published == published else " unknown") + f" ({row['configuration'][:70]}), searched {value or float('nan'):8.1f}  ratio {ratio:5.2f}  [{chosen}]; {anchor_text(anchor)}"
              + (f"; {sampling}" if sampling else ""))
    if ratios:
        inside = sum(GOAL_RANGE[0] <= r <= GOAL_RANGE[1] for r in ratios)
        print(f"\n{len(ratios)} points: ratio {min(ratios):.2f}-{max(ratios):.2f}, median {statistics.median(ratios):.2f}; "
              f"{inside} of {len(ratios)} within {GOAL_RANGE[0]}-{GOAL_RANGE[1]} (goal: all), "
              f"median goal {GOAL_MEDIAN[0]}-{GOAL_MEDIAN[1]}")
    print(summary_by_sampling(sampled, bounded))
    return 0


def summary_by_sampling(sampled: list[float], bounded: list[float]) -> str:
    """The sampled points' ratios against the goal, and the under-sampled ones against their lower bound."""
    text = ""
    if sampled:
        inside = sum(GOAL_RANGE[0] <= r <= GOAL_RANGE[1] for r in sampled)
        text += (f"sampled ({len(sampled)}): ratio {min(sampled):.2f}-{max(sampled):.2f}, median "
                 f"{statistics.median(sampled):.2f}; {inside} of {len(sampled)} within {GOAL_RANGE[0]}-{GOAL_RANGE[1]}")
    if bounded:
        above = sum(r >= GOAL_RANGE[0] for r in bounded)
        text += ("\n" if text else "") + (
            f"under-sampled ({len(bounded)}, published value a lower bound): ratio {min(bounded):.2f}-{max(bounded):.2f}; "
            f"{above} of {len(bounded)} at or above {GOAL_RANGE[0]} (the side a lower bound tests; above "
            f"{GOAL_RANGE[1]} untested)")
    return text


if __name__ == "__main__":
    raise SystemExit(main())
