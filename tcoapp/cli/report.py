"""`tcoapp report [FILE.xlsx] --out report.pdf`: the decision report (docs/user_guide.md, "Decision
report") written headless, the same PDF as the desktop app's File > Export report."""
from __future__ import annotations

import argparse
import os
import sys


def report_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tcoapp report",
        description="Write the decision report of a scenario as PDF: ranked plans with reasons, charts, breakevens, "
                    "assumptions (costs not entered), sources and, with Uncertainty rows, the Monte Carlo summary "
                    "(2,000 draws, seed 0). No FILE: the built-in default scenario.")
    parser.add_argument("file", nargs="?", help="scenario workbook (.xlsx)")
    parser.add_argument("--out", metavar="REPORT.pdf", required=True, help="the PDF to write (atomic)")
    parser.add_argument("--rank-by", metavar="KEY", dest="rank_by",
                        help="the decision's objective, as tcoapp compute --rank-by: a key, a label or an unambiguous "
                             "start (default: the one that fits the plans' constraint)")
    return parser


def run_report(args) -> int:
    from ..engine.pipeline.compute import compute_scenario
    from ..engine.core.errors import TcoError
    from ..io.kept_work import print_notes
    from ..io.load import load_scenario

    if not args.out.lower().endswith(".pdf"):
        raise TcoError(f"--out {args.out!r}: the report is a PDF; name it REPORT.pdf")
    from . import _rank_by
    rank_by = _rank_by(args.rank_by)
    scenario = load_scenario(args.file)
    print_notes(scenario)
    results = compute_scenario(scenario)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")   # no window: a headless run prints the PDF
    from PySide6.QtGui import QGuiApplication
    app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])
    from ..gui.report_pdf import simulation_for_report, write_report_pdf
    title = os.path.basename(args.file) if args.file else "built-in default scenario"
    write_report_pdf(scenario, results, args.out, title, simulation_for_report(scenario, results), rank_by)
    del app
    print(f"wrote {args.out}")
    return 0
