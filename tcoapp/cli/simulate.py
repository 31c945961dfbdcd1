"""`tcoapp simulate [FILE] --draws N --seed S [--json] [--no-model-error] [--out RESULT.xlsx]`: Monte Carlo
over the workbook's Uncertainty sheet and the model's own error (docs/model.md, "Uncertainty: Monte Carlo")."""
from __future__ import annotations

import argparse
import json
import sys
import time
import textwrap

from ..engine.quantities.metrics import METRIC_BY_KEY
from ..engine.uncertainty.simulate import DEFAULT_DRAWS, DEFAULT_SEED
from ..engine.core.number_format import json_rounded, percent
from ..present.values import metric_value


def simulate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcoapp simulate",
        description="Monte Carlo over the uncertain inputs of a scenario workbook's Uncertainty sheet and the "
                    "model's own error in each generated plan's throughput (no FILE: the built-in default "
                    "scenario, which has no Uncertainty rows).")
    parser.add_argument("file", nargs="?", help="scenario workbook (.xlsx)")
    parser.add_argument("--draws", type=int, default=DEFAULT_DRAWS, help=f"number of draws (default {DEFAULT_DRAWS:,})")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help=f"random seed, >= 0 (default {DEFAULT_SEED})")
    parser.add_argument("--json", action="store_true",
                        help='print {"draws", "seed", "plans": [{"name", METRIC: {"mean", "p5", ..., "p95", '
                             '"share_defined"}, "prob_npv_positive"}], "pairwise": [...]}')
    parser.add_argument("--no-model-error", action="store_true",
                        help="draw the Uncertainty sheet's inputs alone, without the model's own error in each "
                             "generated plan's throughput (docs/model.md, \"How the model's errors correlate\")")
    parser.add_argument("--out", metavar="RESULT.xlsx",
                        help="write the full scenario workbook with the MonteCarlo and MonteCarloDraws sheets")
    return parser


def run_simulate(args) -> int:
    from ..engine.pipeline.compute import compute_scenario
    from ..engine.uncertainty.report import SUMMARY_METRICS, simulation_json
    from ..engine.uncertainty.simulate import simulate
    from ..io.kept_work import print_notes
    from ..io.load import load_scenario

    scenario = load_scenario(args.file)
    print_notes(scenario)
    results = compute_scenario(scenario)
    sim = simulate(scenario, args.draws, args.seed, results=results, progress=progress_printer(args.draws),
                   model_error=not args.no_model_error)
    if args.out:
        from ..io.workbook_write import write_scenario
        write_scenario(scenario, args.out, results, simulation=sim)
    data = simulation_json(sim)
    if args.json:
        print(json.dumps(json_rounded(data), indent=2, allow_nan=False))
    elif not args.out:
        print(_table(data, SUMMARY_METRICS))
    return 0


PROGRESS_EVERY_S = 1.0


def progress_printer(draws: int, stream=None, every_s: float = PROGRESS_EVERY_S, clock=time.monotonic):
    """`progress(done, total)` printing "simulate: 42% of 10,000,000 draws" on stderr at most once per
    `every_s` seconds, from `every_s` after the start (a short run prints nothing)."""
    start = clock()
    last = [start]

    def progress(done: int, total: int) -> None:
        now = clock()
        if now - last[0] >= every_s:
            last[0] = now
            print(f"simulate: {done / total:.0%} of {draws:,} draws ({now - start:.0f} s)",
                  file=stream or sys.stderr, flush=True)
    return progress


def _table(data, metrics) -> str:
    lines = [f"{data['draws']:,} draws, seed {data['seed']}"]
    for plan in data["plans"]:
        lines.append(f"{plan['name']}: P(NPV > 0) = {percent(plan['prob_npv_positive'])}"
                     + ("" if plan["uncertain_inputs"] else " (no uncertain input)"))
        for key in metrics:
            s = plan[key]
            cells = "  ".join(f"{name} {_num(s[name], key)}" for name in ("p10", "p50", "p90"))
            defined = "" if s["share_defined"] == 1 else f"  defined in {percent(s['share_defined'])} of draws"
            line = f"  {METRIC_BY_KEY[key].label:32s} {cells}{defined}"
            lines += textwrap.wrap(line, 100, subsequent_indent=" " * 35) or [line]
        for n in plan["notes"]:
            lines += textwrap.wrap(f"note: {n}", 100, initial_indent="  ", subsequent_indent="    ")
    for pair in data["pairwise"]:
        lines += textwrap.wrap(f"P(NPV {pair['a']} > NPV {pair['b']}) = {percent(pair['prob_a_higher_npv'])}", 100)
    return "\n".join(lines)


def _num(value, key: str) -> str:
    if value is None:
        return "never" if key == "payback_months" else "n/a"
    return metric_value(key, value).replace(" per year", "/yr")
