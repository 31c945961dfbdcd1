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
    return result.metric_or_none("tokens_per_s_per_device"), chosen, result.published_anchor


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
    ratios = []
    measurements = [r for _, r in read_measurements()]
    with open(args.points, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        value, chosen, anchor = searched(scenario, row, args.draft_tokens, args.acceptance, measurements,
                                        args.disaggregation)
        published = float(row["published_tokens_per_s_per_device"] or "nan")
        ratio = value / published if value else float("nan")
        if value and published == published:
            ratios.append(ratio)
        print(f"{row['device']:12s} {row['model']:12s} {row['precision']:5s} {row['input_tokens']:>5s}/{row['output_tokens']:<5s}"
              f" at {float(row['tokens_per_s_per_user']):6.1f} tok/s/user: published "
              + (f"{published:8.1f}" if published == published else " unknown") + f" ({row['configuration'][:70]}), searched {value or float('nan'):8.1f}  ratio {ratio:5.2f}  [{chosen}]; {anchor_text(anchor)}")
    if ratios:
        inside = sum(GOAL_RANGE[0] <= r <= GOAL_RANGE[1] for r in ratios)
        print(f"\n{len(ratios)} points: ratio {min(ratios):.2f}-{max(ratios):.2f}, median {statistics.median(ratios):.2f}; "
              f"{inside} of {len(ratios)} within {GOAL_RANGE[0]}-{GOAL_RANGE[1]} (goal: all), "
              f"median goal {GOAL_MEDIAN[0]}-{GOAL_MEDIAN[1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
