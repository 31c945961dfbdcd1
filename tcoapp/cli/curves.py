"""`tcoapp curves FILE [--json] [--into BOOK.xlsx]` (docs/curves.md): read a measured-curve
file from InferenceX, aiconfigurator or a plain CSV, show or store what it holds."""
from __future__ import annotations

import argparse
import math
import sys


def curves_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcoapp curves",
        description="Read a measured-curve file (InferenceX export, aiconfigurator pareto.csv or "
                    "best_config_topn.csv, plain CSV) and show its curves, or add them to a workbook.")
    parser.add_argument("file", help="the curve file (.csv)")
    parser.add_argument("--format", default="auto", choices=("auto", "inferencex", "aiconfigurator", "plain"),
                        help="the file's format (default: recognized from its header)")
    parser.add_argument("--json", action="store_true",
                        help='print {"format", "curves": [{"name", "device", "model", "config", "points"}], "warnings"}')
    parser.add_argument("--into", metavar="BOOK.xlsx",
                        help="add the curves to this workbook's Curves sheet (saved atomically; created if missing)")
    parser.add_argument("--replace", action="store_true", help="with --into: overwrite curves of the same name")
    return parser


def run_curves(args) -> int:
    from ..io.curve_files import read_curve_file
    from ..present.curve_file_text import curve_file_parts

    devices = models = vendors = None
    if args.into:
        devices, models, vendors = _book_names(args.into)
    result = read_curve_file(args.file, args.format, devices, models, vendors)
    notes = ()
    if args.into:
        from ..io.curve_files.into_book import add_curves_to_workbook
        notes = add_curves_to_workbook(result.curves, args.into, args.replace)
    if args.json:
        _print_parts(curve_file_parts(result))
    else:
        print(summary(result))
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    if args.into:
        print(f"added {len(result.curves)} curve(s) to {args.into}", file=sys.stderr)
    return 0


def _print_parts(parts: list[str], chunk_chars: int = 1 << 20) -> None:
    """`print("".join(parts))` without the joined copy (22 MB for a 100,000-row file, and as much again
    encoded): the parts written about a megabyte at a time (one write each, also when stdout is unbuffered)."""
    chunk: list[str] = []
    size = 0
    for part in parts:
        chunk.append(part)
        size += len(part)
        if size >= chunk_chars:
            sys.stdout.write("".join(chunk))
            chunk, size = [], 0
    chunk.append("\n")
    sys.stdout.write("".join(chunk))


def _book_names(book):
    """Device and model names of the target workbook (its own entries and the catalog)."""
    import os

    from ..io.load import load_scenario
    scenario = load_scenario(book if os.path.exists(book) else None)
    vendors = {name: scenario.device(name).vendor for name in scenario.all_device_names()}
    return scenario.all_device_names(), scenario.all_model_names(), vendors


def _span(values) -> str:
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        return "-"
    lo, hi = min(finite), max(finite)
    return f"{lo:.4g}" if lo == hi else f"{lo:.4g}..{hi:.4g}"


def summary(result) -> str:
    """What a file held, as text: one block per curve, then the warnings."""
    lines = [f"{result.path}: {result.format} format, {len(result.curves)} curve(s), "
             f"{sum(c.batch.size for c in result.curves)} point(s)"]
    for c in result.curves:
        lines.append(f"- {c.name}")
        lines.append(f"    device {c.device or '-'}, model {c.model or '-'}, {c.batch.size} point(s), batch "
                     f"{_span(c.batch)}, tokens/s per device {_span(c.tokens_per_s_per_device)}, tokens/s per user "
                     f"{_span(c.tokens_per_s_per_user)}, TTFT {_span(c.ttft_s)} s, power {_span(c.power_w)} W")
        if c.config:
            lines.append("    config: " + "; ".join(f"{k}={v}" for k, v in c.config))
    lines += [f"warning: {w}" for w in result.warnings]
    return "\n".join(lines)
