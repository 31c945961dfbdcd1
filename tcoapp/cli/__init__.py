"""The command line: `tcoapp` (desktop app), `tcoapp FILE.xlsx`, `tcoapp compute ...` (docs/workbook_format.md).

Bad input exits non-zero with one line per problem on stderr (sheet and cell, or field) and never a
traceback; set TCOAPP_DEBUG=1 to see one for an internal error. Ctrl+C ends it with exit 130 and the
line "tcoapp: interrupted".
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import sys

from ..io.versions import APP_VERSION

EXIT_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INTERRUPTED = 130   # 128 + SIGINT, as a shell reports a process ended by Ctrl+C


def _main_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcoapp",
        description="TCO and ROI of AI inference hardware. Without a command, opens the desktop app.",
        epilog="Commands:\n  compute [FILE.xlsx] [--json] [--rank-by KEY] [--out RESULT.xlsx]   compute a scenario\n"
               "  curves FILE.csv [--json] [--into BOOK.xlsx]        read measured curves (InferenceX, aiconfigurator)\n"
               "  calibrate BOOK.xlsx --curve NAME [--write]         fit the generated model to a measured curve\n"
               "  simulate [FILE.xlsx] [--draws N] [--seed S] [--json] [--out RESULT.xlsx]   Monte Carlo\n"
               "  report [FILE.xlsx] --out REPORT.pdf                the decision report (PDF)\n"
               "  accuracy [CSV] [--rows] [--in-sample] [--jobs N]    the model's unseen error on published measurements\n"
               "Run 'tcoapp COMMAND --help' for its options.",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file", nargs="?", help="scenario workbook (.xlsx) to open in the desktop app")
    parser.add_argument("--version", action="version", version=f"tcoapp {APP_VERSION}")
    return parser


def _compute_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcoapp compute",
        description="Compute every plan of a scenario workbook (no FILE: the built-in default scenario).")
    parser.add_argument("file", nargs="?", help="scenario workbook (.xlsx)")
    parser.add_argument("--json", action="store_true",
                        help='print {"plans": [{"name": ..., <metric keys>...}], "decision": {"objective", "ranked", '
                             '"p_first_beats_second", "too_close", "reason"}} (null where a value does not exist)')
    parser.add_argument("--out", metavar="RESULT.xlsx",
                        help="write the full scenario workbook with live formulas (with Uncertainty rows, also the "
                             "MonteCarlo sheets of 2,000 draws, seed 0; see tcoapp simulate --out)")
    parser.add_argument("--rank-by", metavar="KEY", dest="rank_by",
                        help="the decision's objective by key, label or an unambiguous start of either ('npv', "
                             "'equity', 'cost'; default: the one that fits the plans' constraint: equity NPV at one "
                             "hurdle rate where any plan borrows, NPV where they are sized by facility power or "
                             "budget, cost per million output tokens where sized by demand): "
                             "cost_per_million_output_tokens_usd, npv_usd, equity_npv_usd, "
                             "revenue_usd_per_rack_per_year or revenue_usd_per_mw_per_year")
    parser.add_argument("--bridge", metavar="A,B",
                        help="split plan B's cost per million output tokens minus plan A's into parts that add up "
                             "exactly (capex per token, energy, colocation, maintenance, software, staff, rent, "
                             "other); A and B are plan names or numbers (1 = the first plan); with --json: a "
                             '"bridge" object')
    return parser


# the commands of their own module, loaded only when run: tcoapp/cli/<name>.py defines `<name>_parser()`
# and `run_<name>(args)`
SUBCOMMANDS = ("curves", "simulate", "report", "accuracy", "calibrate")


def _run_subcommand(name: str, argv: list[str]) -> int:
    module = importlib.import_module(f".{name}", __name__)
    return getattr(module, f"run_{name}")(getattr(module, f"{name}_parser")().parse_args(argv))


def _one_blas_thread() -> None:
    """One OpenBLAS thread unless the user chose otherwise. numpy's OpenBLAS starts a thread per core
    when numpy loads (35-60 ms of start-up here); tcoapp's arrays are elementwise and its matrices
    (IRR companions, curve-fit columns) far below the size OpenBLAS would split across threads, so one
    thread gives the same numbers without that cost."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "numpy" not in sys.modules:   # (read only when numpy loads: too late once it has)
        _one_blas_thread()
    try:
        if argv and argv[0] == "compute":
            return _compute(_compute_parser().parse_args(argv[1:]))
        if argv and argv[0] in SUBCOMMANDS:
            return _run_subcommand(argv[0], argv[1:])
        args = _main_parser().parse_args(argv)
        if args.file is not None and _unknown_command(args.file):
            return EXIT_INPUT
        from ..gui.app import run_app
        return run_app(args.file)
    except BrokenPipeError:  # output piped into `head` and the like: not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:  # Ctrl+C (while starting up, reading or computing): one line, no traceback
        print("tcoapp: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except Exception as exc:  # the last line of defence: no traceback reaches a user
        return _report(exc)


COMMANDS = ("compute",) + SUBCOMMANDS


def _unknown_command(word: str) -> bool:
    """A first word that is neither a command nor a workbook ('tcoapp compte'): says so on stderr with
    the nearest command and returns True; False for a file to open."""
    if os.path.exists(word) or word.lower().endswith((".xlsx", ".xlsm")) or os.sep in word:
        return False
    import difflib
    near = difflib.get_close_matches(word, COMMANDS, n=1)
    hint = f" Did you mean 'tcoapp {near[0]}'?" if near else ""
    print(f"tcoapp: unknown command {word!r} (commands: {', '.join(COMMANDS)}; a workbook to open ends in "
          f".xlsx).{hint}", file=sys.stderr)
    return True


def _report(exc: Exception) -> int:
    from ..engine.core.errors import TcoError, shorten

    if isinstance(exc, TcoError):
        for line in str(exc).splitlines():   # never a 32,767-character value echoed in full
            print(f"error: {shorten(line)}", file=sys.stderr)
        return EXIT_INPUT
    if os.environ.get("TCOAPP_DEBUG"):
        raise exc
    print(f"internal error: {type(exc).__name__}: {shorten(str(exc))} (set TCOAPP_DEBUG=1 for details)", file=sys.stderr)
    return EXIT_INTERNAL


def _compute(args) -> int:
    from ..engine.pipeline.compute import compute_scenario
    from ..io.kept_work import print_notes
    from ..io.load import load_scenario

    rank_by = _rank_by(args.rank_by)
    scenario = load_scenario(args.file)
    print_notes(scenario)
    pair = _bridge_pair(args.bridge, [p.name for p in scenario.plans]) if args.bridge else None
    results = _anchored(scenario, compute_scenario(scenario))
    if args.out:
        from ..io.workbook_write import write_scenario
        write_scenario(scenario, args.out, results)
    bridge = _bridge(results, pair) if pair else None
    if args.json:
        from ..engine.decision.choice import decide
        from ..present.decision_text import decision_json
        from ..engine.core.number_format import json_rounded
        out = {"plans": [r.as_json() for r in results], "decision": decision_json(decide(scenario, results, rank_by))}
        if pair:
            out["bridge"] = bridge
        print(json.dumps(json_rounded(out), indent=2, allow_nan=False))
    elif not args.out or pair:
        if not args.out:
            from .text import compute_text
            print(compute_text(scenario, results, rank_by))
        if pair:
            print(_bridge_text(bridge, pair))
    return 0


def _anchored(scenario, results):
    """The results with each plan's published anchor: the nearest shipped measurement (docs/model.md,
    "Published anchor")."""
    from ..engine.pipeline.anchor import with_anchor
    from ..io.measurements import read_measurements

    rows = [row for _, row in read_measurements()]
    return [with_anchor(scenario, result, rows) for result in results]


def _rank_by(key: str | None) -> str | None:
    """--rank-by KEY: one of the decision's objectives by key, label or an unambiguous start of either
    ('npv'); None: the default for the plans."""
    from ..engine.decision.choice import objective_key
    from ..engine.core.errors import Problem, ValidationError

    if key is None:
        return None
    try:
        return objective_key(key)
    except ValueError as exc:
        raise ValidationError([Problem("--rank-by", "rank_by", f"= {exc}")]) from None


def _bridge_pair(text: str, names: list[str]) -> tuple[int, int]:
    """Plan indices of "A,B": names (which may hold commas: the split that names two plans) or numbers."""
    from ..engine.core.errors import Problem, ValidationError

    pieces = text.split(",")
    found = []
    for cut in range(1, len(pieces)):
        ia, ib = (_plan_index(",".join(part).strip(), names) for part in (pieces[:cut], pieces[cut:]))
        if ia is not None and ib is not None:
            found.append((ia, ib))
    if len(set(found)) != 1:
        why = "names no two plans" if not found else "can be read as more than one pair of plans"
        raise ValidationError([Problem("--bridge", "bridge", f"= {text!r} {why}: give A,B as two plan names or "
                                                             f"numbers 1..{len(names)} (plans: {', '.join(names)})")])
    return found[0]


def _plan_index(text: str, names: list[str]) -> int | None:
    if text in names:
        return names.index(text)
    return int(text) - 1 if text.isdigit() and 1 <= int(text) <= len(names) else None


def _bridge(results, pair):
    from ..engine.finance.bridge import cost_bridge

    a, b = (results[i] for i in pair)
    if a.finance is None or b.finance is None:
        return None
    return cost_bridge(a.name, a.finance, b.name, b.finance)


def _bridge_text(bridge, pair) -> str:
    if bridge is None:
        return "bridge: n/a (a plan has no cost per million output tokens)"
    lines = [f"cost per million output tokens, {bridge['a']} -> {bridge['b']} (USD/Mtok)",
             f"  {bridge['a']}: {bridge['a_usd_per_million']:.6g}"]
    lines += [f"  {p['part']:<12} {p['difference']:+.6g}" for p in bridge["parts"]]
    lines.append(f"  {bridge['b']}: {bridge['b_usd_per_million']:.6g}")
    return "\n".join(lines)

