"""`tcoapp accuracy [CSV] [--rows] [--by GROUPING]` (docs/model.md, "How sure it is"): the accuracy
of the generated model on the public measurements, median and 90th-percentile absolute percent
error and median signed error of output tokens/s per device, overall and by regime, class, vendor,
expert-parallel width, serving stack and fit/held-out split, and the calibration of the prediction
intervals (the computation: tcoapp/engine/performance/accuracy.py; the rows: tcoapp/io/measurements.py).
"""
from __future__ import annotations

import argparse

from ..engine.performance.accuracy import Accuracy, interval_coverage
from ..engine.performance.measurement_rows import MLPERF_INPUT_TOKENS


def accuracy_parser() -> argparse.ArgumentParser:
    from ..engine.performance.accuracy import GROUPINGS
    from ..io.measurements import DEFAULT_CSV
    parser = argparse.ArgumentParser(
        prog="tcoapp accuracy",
        description="Accuracy of the generated model on published measurements (default: the repository's "
                    "tests/data/measurements_public.csv), with the shipped efficiency factors.")
    parser.add_argument("csv", nargs="?", default=str(DEFAULT_CSV), help="measurements CSV")
    parser.add_argument("--rows", action="store_true", help="print every modelled row")
    parser.add_argument("--by", choices=GROUPINGS, default="family", help="first grouping of the tables")
    return parser


def run_accuracy(args) -> int:
    from ..io.measurements import accuracy_of_file
    print(format_report(accuracy_of_file(args.csv), rows=args.rows, by=args.by))
    return 0


def format_report(acc: Accuracy, rows: bool = False, by: str = "family") -> str:
    """The tables the command prints (every modelled row first with `rows`)."""
    lines = []
    if rows:
        for r in acc.results:
            c = r.config
            lines.append(f"line {r.line:4d} {r.device:12s} {r.model:15s} {r.scenario:11s} measured {r.measured:9.1f} "
                         f"predicted {r.predicted:9.1f} ({r.predicted / r.measured - 1:+.0%}) "
                         f"B={c['batch']:.0f} TP{c['tensor_parallel']} EP{c['expert_parallel']}"
                         f"{' ADP' if c['attention_dp'] else ''} {c['weight_precision']} {r.split}")
    header = f"{'group':28s} {'n':>4s} {'median APE %':>13s} {'p90 APE %':>10s} {'median signed %':>16s}"

    def table(title, acc_summary):
        lines.append(title)
        lines.append(header)
        for group, s in acc_summary.items():
            lines.append(f"{group:28s} {s['n']:4d} {s['median_ape_pct']:13.1f} {s['p90_ape_pct']:10.1f} "
                         f"{s['median_signed_pct']:+16.1f}")

    for grouping in dict.fromkeys((by, "scenario", "kind", "vendor", "ep", "stack", "split")):
        table(f"by {grouping}:", {g: s for g, s in acc.summary(grouping).items() if g != "overall" or grouping == by})
    for regime in ("offline", "server", "interactive"):
        sub = acc.summary("kind", where=lambda r, regime=regime: r.scenario == regime)
        if sub:
            table(f"{regime} by kind:", sub)
    table("held-out sources only, by regime:", acc.summary("scenario", where=lambda r: r.split == "held-out"))
    coverage = interval_coverage(acc.results)
    if coverage:
        lines.append("80 % prediction band, calibration on held-out sources (band from the other half of them): "
                     + "; ".join(f"{k} {c['inside_share']:.0%} of {c['n']}" for k, c in coverage.items()))
    unreached = sum(1 for r in acc.results if r.predicted == 0.0)
    lines.append(f"modelled {len(acc.results)} rows ({unreached} whose measured tokens/s per user no modelled "
                 f"configuration reaches: predicted 0, -100 %), skipped {len(acc.skipped)}:")
    reasons: dict[str, int] = {}
    for _, reason in acc.skipped:
        key = reason.split(" '")[0] if reason.startswith(("device", "model")) else reason
        reasons[key] = reasons.get(key, 0) + 1
    lines.extend(f"  {n:4d} {reason}" for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
    estimates = ", ".join(f"{model} {tokens:,}" for model, tokens in MLPERF_INPUT_TOKENS.items())
    lines.append(f"MLPerf rows state no input length: ESTIMATED mean input tokens used ({estimates}); "
                 "MLPerf Offline rows run at the throughput-maximizing feasible batch.")
    return "\n".join(lines)
