"""Print setup of every sheet of the exported workbook (docs/workbook_format.md, "Printing").

Wide tables (one column per plan or per year) are never shrunk to one page wide: they print at
READABLE_SCALE (8.8 pt for the 11 pt body font), landscape, and split their columns across pages with
the label (or key) columns and the header rows repeated on every page, so each page reads on its own.
Checks prints its summary (status of each plan, by sheet) on a few pages; its detail rows and the
MonteCarloDraws sheet are bulk data, left out of the print area (their header rows print).
"""
from __future__ import annotations

from openpyxl.utils import get_column_letter
from openpyxl.worksheet.page import PageMargins

from ..engine.quantities.inputs import CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, POOL_FIELDS, PRICE_TIER_FIELDS
from ..engine.uncertainty.fields import UNCERTAINTY_FIELDS
from . import sheets as S

BODY_FONT_PT = 11      # openpyxl's default font (Calibri 11)
READABLE_SCALE = 80    # % : 8.8 pt printed, above the 8 pt floor
MIN_PRINTED_PT = 8


def printed_pt(scale: int) -> float:
    return BODY_FONT_PT * scale / 100


def setup(ws, last_col: int, last_row: int, title_rows: str | None = "1:1", title_cols: str | None = "A:A",
          landscape: bool = True, first_col: str = "A") -> None:
    """Landscape (or portrait), READABLE_SCALE, never fit to a page, the title rows and columns on every page."""
    ws.page_setup.orientation = "landscape" if landscape else "portrait"
    ws.page_setup.scale = READABLE_SCALE
    ws.page_setup.fitToWidth = None
    ws.page_setup.fitToHeight = None
    ws.sheet_properties.pageSetUpPr.fitToPage = False
    ws.page_margins = PageMargins(left=0.4, right=0.4, top=0.5, bottom=0.5, header=0.3, footer=0.3)
    ws.print_options.gridLines = False
    if title_rows:
        ws.print_title_rows = title_rows
    if title_cols:
        ws.print_title_cols = title_cols
    ws.print_area = f"{first_col}1:{get_column_letter(max(last_col, 1))}{max(last_row, 1)}"
    ws.oddFooter.center.text = "&A: page &P of &N"


def print_all(workbook, scenario, layout, curve_points: int, checks_last_col: int, summary_last_row: int) -> None:
    """The print setup of every sheet the export writes (the Monte Carlo sheets: print_monte_carlo)."""
    n = len(scenario.plans)
    last_plan = S.FIRST_PLAN_COLUMN + max(n, 1) - 1
    sheet = workbook.__getitem__
    setup(sheet(S.SUMMARY), last_plan, summary_last_row, "1:2", "A:B")
    setup(sheet(S.PLANS), last_plan, sheet(S.PLANS).max_row, "1:1", "A:B")
    setup(sheet(S.POOLS), len(POOL_FIELDS), max(sheet(S.POOLS).max_row, 2), "1:2", "A:B")
    # Results and CashFlow print from their label column (label and unit; the machine keys of column A stay on
    # screen), which leaves room for four plans or five years a page
    setup(sheet(S.RESULTS), last_plan, sheet(S.RESULTS).max_row, "1:2", "B:B", first_col="B")
    setup(sheet(S.CASH_FLOW), S.FIRST_PLAN_COLUMN + layout.max_years, sheet(S.CASH_FLOW).max_row, "1:2", "B:B",
          first_col="B")
    setup(sheet(S.BRIDGE), sheet(S.BRIDGE).max_column, sheet(S.BRIDGE).max_row, "1:1", "A:B", landscape=False)
    setup(sheet(S.CHECKS), checks_last_col, 3 + n, "1:3", "A:B")
    setup(sheet(S.DEVICES), len(DEVICE_FIELDS), sheet(S.DEVICES).max_row, "1:2", "A:A")
    setup(sheet(S.MODELS), len(MODEL_FIELDS), sheet(S.MODELS).max_row, "1:2", "A:A")
    setup(sheet(S.CURVES), len(CURVE_POINT_FIELDS), S.FIRST_ENTRY_ROW + max(curve_points, 1) - 1, "1:2", "A:A")
    setup(sheet(S.PRICE_TIERS), len(PRICE_TIER_FIELDS), sheet(S.PRICE_TIERS).max_row, "1:2", "A:A")
    setup(sheet(S.CALIBRATION), 3 + len(scenario.device_factors), sheet(S.CALIBRATION).max_row, "1:1", "A:B")
    setup(sheet(S.UNCERTAINTY), len(UNCERTAINTY_FIELDS), sheet(S.UNCERTAINTY).max_row, "1:2", "A:B")
    setup(sheet(S.CONSTANTS), 4, sheet(S.CONSTANTS).max_row, "1:1", "A:A")
    setup(sheet(S.ABOUT), 2, sheet(S.ABOUT).max_row, None, None, landscape=False)


def print_monte_carlo(summary_ws, draws_ws, last_col: int, draw_columns: int) -> None:
    """MonteCarlo prints whole; MonteCarloDraws (one row per draw) prints its two header rows only."""
    setup(summary_ws, last_col, summary_ws.max_row, "1:1", "A:B")
    if draws_ws is not None:
        setup(draws_ws, draw_columns, 2, "1:2", "A:A")
