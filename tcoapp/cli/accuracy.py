"""`tcoapp accuracy [CSV] [--rows] [--in-sample] [--by GROUPING] [--cv] [--exact] [--jobs N]` (docs/model.md,
"How sure it is"): the accuracy of the generated model on the public measurements in two splits:
leave-one-family-out (each source family's rows predicted by the FIT factors refitted without that
family) and leave-one-era-out (the rows of each software era predicted by the factors fitted on the
other era only; tcoapp/engine/performance/cross_validation.py), and the worse of the two for each
headline figure. Median and 90th-percentile absolute percent error and median signed error of output
tokens/s per device by regime x class x vendor (rows of known configuration) with the
unknown-configuration and unreachable cells, the calibration of the 80 % prediction band per cell, the rows modelled
and skipped (each reason counted) and the time it took. `--in-sample` prints the errors of the shipped factors instead
(fitted on these very rows: not unseen).
"""
from __future__ import annotations

import argparse
import textwrap
import time

from ..engine.performance.accuracy import Accuracy
from ..engine.performance.interval_cells import UNKNOWN_CELL, UNREACHED_CELL, own_cell
from ..engine.performance.measurement_rows import MLPERF_INPUT_TOKENS

REGIMES = ("offline", "server", "interactive")
CLASSES = ("dense", "MoE")
HEADER = f"{'group':32s} {'n':>4s} {'median APE %':>13s} {'p90 APE %':>10s} {'median signed %':>16s}"


def accuracy_parser() -> argparse.ArgumentParser:
    from ..engine.performance.accuracy import GROUPINGS
    from ..io.measurements import DEFAULT_CSV
    parser = argparse.ArgumentParser(
        prog="tcoapp accuracy",
        description="Accuracy of the generated model on published measurements (default: the shipped "
                    "measurements_public.csv), leave-one-family-out: each source family predicted by the "
                    "efficiency factors refitted without it.")
    parser.add_argument("csv", nargs="?", default=str(DEFAULT_CSV), help="measurements CSV")
    parser.add_argument("--rows", action="store_true", help="print every modelled row")
    parser.add_argument("--in-sample", action="store_true",
                        help="the shipped factors' errors (fitted on these rows, not unseen) instead of leave-one-family-out")
    parser.add_argument("--by", choices=GROUPINGS, default=None, help="also print a table by this grouping")
    parser.add_argument("--cv", action="store_true",
                        help="recompute the leave-one-family-out predictions (default: the stored ones while current)")
    parser.add_argument("--exact", action="store_true",
                        help="refit each family with finite differences at every step (slower)")
    parser.add_argument("--jobs", type=int, default=1, help="processes for the refits (default 1)")
    return parser


def run_accuracy(args) -> int:
    from ..io.catalog import load_catalog
    from ..io.measurements import read_measurements
    start = time.perf_counter()
    rows, catalog = read_measurements(args.csv), load_catalog()
    from ..engine.performance.device_ratios import ratio_summary
    if args.in_sample:
        from ..engine.performance.accuracy import run
        acc = run(rows, catalog)
        title = "IN-SAMPLE by regime x class x vendor (shipped factors, fitted on these rows; not unseen)"
        print(format_report(acc, title, rows=args.rows, by=args.by, ratios=ratio_summary(acc.results, dict(rows))))
        print(f"took {time.perf_counter() - start:.1f} s")
        return _nothing_modelled(args, acc.results)
    from ..engine.performance.cross_validation import ERA_BOUNDARY
    from ..engine.performance.interval_cells import coverage as band_coverage
    splits, notes = [], []
    for split in ("family", "era"):
        acc, note = _cross_validated(rows, catalog, args, split)
        splits.append(acc)
        notes.append(note)
    lofo, era = splits
    pooled = lofo.results + era.results      # the band that ships is built from both splits' residuals
    print(format_report(lofo, "LEAVE-ONE-FAMILY-OUT by regime x class x vendor (unseen: factors fitted without the family)",
                        rows=args.rows, by=args.by, coverage=band_coverage(lofo.results, band_from=pooled),
                        ratios=ratio_summary(lofo.results, dict(rows))))
    print()
    print(format_report(era, f"LEAVE-ONE-ERA-OUT by regime x class x vendor (unseen software: rows dated before "
                             f"{ERA_BOUNDARY} predicted by factors fitted only on rows from {ERA_BOUNDARY} on, "
                             f"and the reverse)", by=args.by,
                        coverage=band_coverage(era.results, band_from=pooled), ratios=ratio_summary(era.results, dict(rows))))
    print()
    print("\n".join(worse_of_two(lofo, era)))
    print()
    print("\n".join(agentic_lines(catalog)))
    print(_wrapped(notes[1].rstrip("; ")))
    print(f"{notes[0]}took {time.perf_counter() - start:.1f} s")
    return _nothing_modelled(args, lofo.results + era.results)


def agentic_lines(catalog) -> list[str]:
    """The agentic sessions cell: the session model on the public agentic measurements
    (resources/measurements/agentic_public.csv; engine/serving/agentic_validation.py), its own cell."""
    from ..engine.serving.agentic_validation import predict, summary
    from ..io.agentic_measurements import read_agentic_measurements
    rows = read_agentic_measurements(catalog=catalog)
    s = summary(predict(rows, catalog))
    wrap = lambda text: textwrap.wrap(text, 100, initial_indent="  ", subsequent_indent="    ")  # noqa: E731
    lines = textwrap.wrap(f"AGENTIC SESSIONS (own cell: {s['rows']} operating points of public agentic runs; the "
                          "session model has no fitted parameter and the rows enter no fit, so every prediction is "
                          "unseen):", 100, subsequent_indent="    ")
    if not s["rows"]:
        return lines + ["  no rows"]
    lines += wrap(f"prefix hit rate: median |error| {s['median_abs_hit_error']:.3f}, p90 {s['p90_abs_hit_error']:.3f} "
                  f"(0..1); the knee's side (hit rate above or below 0.5) right on {s['knee_side_agreement']:.0%} of rows")
    lines += wrap(f"tokens/s per device: median APE {s['median_tokens_ape_pct']:.1f} %, p90 {s['p90_tokens_ape_pct']:.1f} %")
    gains = ", ".join(f"{g['sessions_per_replica']:g}: {g['measured']:.2f}x measured / {g['predicted']:.2f}x predicted"
                      for g in s["offload_gains"])
    return lines + wrap(f"host offload gain in tokens/s per device, by sessions per replica: {gains}")


def worse_of_two(lofo: Accuracy, era: Accuracy) -> list[str]:
    """The figures model changes are judged by: for each, the worse of the two splits."""
    lines = ["WORSE OF THE TWO SPLITS (model changes are chosen by these):"]
    checks = (("overall", None), ("MoE", lambda r: r.kind == "MoE"), ("interactive", lambda r: r.scenario == "interactive"))
    for name, where in checks:
        a, b = lofo.summary("scenario", where=where).get("overall"), era.summary("scenario", where=where).get("overall")
        if a and b:
            worse = max((a, "family"), (b, "era"), key=lambda x: x[0]["median_ape_pct"])
            p90 = max((a, "family"), (b, "era"), key=lambda x: x[0]["p90_ape_pct"])
            lines.append(f"  {name:12s} median APE {worse[0]['median_ape_pct']:5.1f} % ({worse[1]} split), "
                         f"p90 {p90[0]['p90_ape_pct']:5.1f} % ({p90[1]} split)")
    return lines


def _cross_validated(rows, catalog, args, split: str = "family"):
    """(the cross-validated accuracy of `split` ("family" or "era"), a note on where it came from): the
    stored predictions of the shipped file while current, else recomputed."""
    import pathlib

    from ..io.cross_validated import stored_path, stored_cross_validation
    from ..io.measurements import DEFAULT_CSV
    shipped = pathlib.Path(args.csv).resolve() == DEFAULT_CSV.resolve()
    name = "leave-one-family-out" if split == "family" else "leave-one-era-out"
    if shipped and not (args.cv or args.exact):
        acc = stored_cross_validation(rows, catalog, stored_path(split))
        if acc is not None:
            return _undated(acc, rows, split), f"stored {name} predictions (current for this model; --cv recomputes them); "
    acc = _refits(rows, catalog, args, split).accuracy
    if shipped and not (args.cv or args.exact):
        return acc, (f"the stored {name} predictions are out of date (the model, factors or measurements changed): "
                     "recomputed; `python tools/refit_factors.py --intervals` stores them; ")
    return acc, f"{name} recomputed; "


def _undated(acc: Accuracy, rows, split: str) -> Accuracy:
    """The stored era predictions with each undated row's reason (in neither era's fit, not tested)."""
    if split != "era":
        return acc
    from dataclasses import replace

    from ..engine.performance.cross_validation import UNDATED, era_of
    dates = dict(rows)
    skipped = tuple((line, UNDATED if era_of(dates.get(line, {}).get("date", "")) is None else reason)
                    for line, reason in acc.skipped)
    return replace(acc, skipped=skipped)


def _refits(rows, catalog, args, split: str):
    import sys

    from ..engine.performance.cross_validation import leave_one_era_out, leave_one_family_out
    how = leave_one_family_out if split == "family" else leave_one_era_out
    print(f"computing the leave-one-{split}-out refits (a minute or more)...", file=sys.stderr, flush=True)
    if args.jobs <= 1:
        return how(rows, catalog, exact=args.exact)
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        return how(rows, catalog, exact=args.exact, map_fn=pool.map)


def _stat_line(group: str, s: dict) -> str:
    return (f"{group:32s} {s['n']:4d} {s['median_ape_pct']:13.1f} {s['p90_ape_pct']:10.1f} "
            f"{s['median_signed_pct']:+16.1f}")


def lofo_table(acc: Accuracy) -> list[str]:
    """Regime x class x vendor of the rows of known configuration that a modelled configuration reaches
    (each with its subtotal), the unknown-configuration cell and the unreachable cell (rows whose
    target no modelled configuration reaches: predicted 0, -100 %), each by regime, then by regime,
    class and vendor and overall (every row, the unreachable ones at -100 %)."""
    lines = [HEADER]
    for regime in REGIMES:
        for kind in CLASSES:
            cell = acc.summary("vendor", where=lambda r, g=regime, k=kind: own_cell(r) is None and r.scenario == g
                               and r.kind == k)
            for vendor, s in cell.items():
                lines.append(_stat_line(f"{regime} {kind} {'all' if vendor == 'overall' else vendor}", s))
    for name in (UNKNOWN_CELL, UNREACHED_CELL):
        for regime, s in acc.summary("scenario", where=lambda r, c=name: own_cell(r) == c).items():
            lines.append(_stat_line(f"{name} {'all' if regime == 'overall' else regime}", s))
    for by in ("scenario", "kind", "vendor"):
        lines.extend(_stat_line(f"{g}", s) for g, s in acc.summary(by).items() if g != "overall")
    lines.append(_stat_line("overall", acc.summary("scenario")["overall"]))
    return lines


def format_report(acc: Accuracy, title: str = "", rows: bool = False, by: str | None = None, coverage=None,
                  ratios=None) -> str:
    """The tables the command prints (every modelled row first with `rows`)."""
    lines = [_row_line(r) for r in acc.results] if rows else []
    if not acc.results:
        lines.append("no row could be modelled")
    else:
        lines.append(f"{title}:")
        lines.extend(lofo_table(acc))
        if by:
            lines.append(f"by {by}:")
            lines.append(HEADER)
            lines.extend(_stat_line(str(g), s) for g, s in acc.summary(by).items())
    if ratios:
        lines.append(f"device-vs-device ratio (two devices on the same work): median |error| {ratios['median_abs_pct']:.1f} %, "
                     f"p90 {ratios['p90_abs_pct']:.1f} % ({ratios['n']} pairs)")
    if coverage:
        lines.append("80 % prediction band (from both splits' residuals), share of this split's rows inside (each "
                     "family against the band built without it):")
        lines.extend(f"  {k:28s} {c['inside_share']:4.0%} of {c['n']}" for k, c in sorted(coverage.items()))
    lines.extend(_counts(acc))
    rows_listed = len(acc.results) if rows else 0
    return "\n".join(lines[:rows_listed] + [_wrapped(line) for line in lines[rows_listed:]])


def _wrapped(line: str) -> str:
    """A line of at most 100 columns (continued, indented, on the next lines); a table row is never longer."""
    return textwrap.fill(line, width=100, subsequent_indent="    ", break_long_words=False,
                         break_on_hyphens=False) if len(line) > 100 else line


def _row_line(r) -> str:
    c = r.config
    return (f"line {r.line:4d} {r.device:12s} {r.model:15s} {r.scenario:11s} measured {r.measured:9.1f} "
            f"predicted {r.predicted:9.1f} ({r.predicted / r.measured - 1:+.0%}) "
            f"B={c['batch']:.0f} TP{c['tensor_parallel']} EP{c['expert_parallel']}"
            f"{' ADP' if c['attention_dp'] else ''}{_configuration_text(r)} {c['weight_precision']} [{r.source_family}]")


def _configuration_text(r) -> str:
    """What the row's stated configuration adds: draft tokens, disaggregation, or that it is unknown."""
    c = r.config
    text = f" k={c['spec_decode_draft_tokens']}" if c.get("spec_decode_draft_tokens") else ""
    text += " disaggregated" if c.get("disaggregated") else ""
    return text + (" (configuration unknown)" if r.configuration != "known" else "")


def _counts(acc: Accuracy) -> list[str]:
    unreached = sum(1 for r in acc.results if r.predicted == 0.0)
    families = len({r.source_family for r in acc.results})
    lines = [f"modelled {len(acc.results)} rows of {families} source families ({unreached} whose measured tokens/s "
             f"per user no modelled configuration reaches: predicted 0, -100 %), skipped {len(acc.skipped)}:"]
    reasons: dict[str, int] = {}
    for _, reason in acc.skipped:
        key = reason.split(" '")[0] if reason.startswith(("device", "model")) else reason
        reasons[key] = reasons.get(key, 0) + 1
    lines.extend(f"  {n:4d} {reason}" for reason, n in sorted(reasons.items(), key=lambda kv: -kv[1]))
    estimates = ", ".join(f"{model} {tokens:,}" for model, tokens in MLPERF_INPUT_TOKENS.items())
    lines.append(f"MLPerf rows state no input length: ESTIMATED mean input tokens used ({estimates}); "
                 "MLPerf Offline rows run at the throughput-maximizing feasible batch.")
    return lines


def _nothing_modelled(args, results) -> int:
    """0, or 2 with the reason where no row of the file could be modelled (each row's reason is counted
    in the report above)."""
    if results:
        return 0
    import sys
    print(f"error: {args.csv}: no row could be modelled (each row's reason is counted above): a measurements "
          "CSV needs rows whose model and device are in the catalog, with tokens_per_s_per_gpu", file=sys.stderr)
    return 2
