"""Print setup of every sheet of the exported workbook (docs/workbook_format.md, "Printing").

Wide tables (one column per plan or per year) are never shrunk to one page wide: they print at
READABLE_SCALE (8.8 pt for the 11 pt body font), landscape, and split their columns across pages with
the label (or key) columns and the header rows repeated on every page, so each page reads on its own.
A small Devices or Models table prints on its side on the PrintedTables sheet (xlsx_printed_tables), each on one
page, and its own sheet prints nothing. Checks prints its summary (status of each plan, by sheet) on a few pages; its detail rows and the
MonteCarloDraws sheet are bulk data, left out of the print area (their header rows print).
"""
from __future__ import annotations

import locale
import math
import os

from openpyxl.utils import column_index_from_string, get_column_letter
from openpyxl.worksheet.page import PageMargins
from openpyxl.worksheet.pagebreak import Break

from ..engine.quantities.inputs import CURVE_POINT_FIELDS, DEVICE_FIELDS, MODEL_FIELDS, POOL_FIELDS, PRICE_TIER_FIELDS
from ..engine.uncertainty.fields import UNCERTAINTY_FIELDS
from . import sheets as S
from .xlsx_layout import CF_POOL_ROWS, EQUITY_IRR_ATTEMPTS, EQUITY_SIGN_ROWS, IRR_ATTEMPTS, IRR_GUESSES
from .xlsx_printed_tables import on_printed_tables

BODY_FONT_PT = 11      # openpyxl's default font (Calibri 11)
READABLE_SCALE = 73    # % : 8.03 pt printed, at the 8 pt floor (more of a table on a page)
MIN_PRINTED_PT = 8
LETTER, A4 = 1, 9      # OOXML paperSize codes
LETTER_TERRITORIES = ("US", "CA")   # Letter paper; A4 everywhere else (and where no locale is set)
PAGE_PT = {LETTER: (612.0, 792.0), A4: (595.0, 842.0)}   # portrait width, height
SIDE_MARGIN_IN, TOP_MARGIN_IN = 0.4, 0.45
DEFAULT_WIDTH = 8.43   # a column with no width set (Excel's and LibreOffice's default, in characters)
HELPER_ROWS = ("payback_year_fraction", "discounted_payback_year_fraction", "flow_last_sign", "flow_sign_change", "cumulative_last_sign",
               "cumulative_sign_change", *IRR_GUESSES[:4], "irr_floor", *IRR_ATTEMPTS, "equity_irr_guess_engine",
               *EQUITY_SIGN_ROWS, "equity_irr_floor", *EQUITY_IRR_ATTEMPTS,   # CashFlow cells IRR() and payback read
               # and the detail of printed rows: revenue by input token type (in revenue_usd), the discounted flows
               # (the discounted payback's own); all grouped and collapsed (not printed; expanded on screen)
               "uncached_input_revenue_usd", "cached_input_revenue_usd", "discounted_cash_flow_usd",
               "cumulative_discounted_cash_flow_usd")


def printed_pt(scale: int) -> float:
    return BODY_FONT_PT * scale / 100


def paper_size(environ=None) -> int:
    """Letter in the US and Canada, A4 elsewhere: from LC_ALL, else LC_PAPER, else LANG (POSIX precedence), else
    the user's locale as Python reads it (Windows: 'English_United States')."""
    environ = os.environ if environ is None else environ
    name = next((environ[k] for k in ("LC_ALL", "LC_PAPER", "LANG") if environ.get(k)), "")
    if not name or name.split(".")[0] in ("C", "POSIX"):
        try:
            name = locale.getlocale()[0] or ""
        except ValueError:
            name = ""
    region = name.split(".")[0].replace("-", "_")
    territory = region.split("_", 1)[1] if "_" in region else ""
    if territory.upper() in LETTER_TERRITORIES or territory in ("United States", "Canada"):
        return LETTER
    return A4


def _column_pt(ws, col: int) -> float:
    """A column's printed width at 100 %. A width unit is one digit of the body font: 5.4 pt in Calibri, up to
    6.25 pt where LibreOffice substitutes a wider font (DejaVu Sans, without Calibri or Carlito)."""
    dim = ws.column_dimensions.get(get_column_letter(col))
    if dim is not None and dim.hidden:
        return 0.0
    return (dim.width if dim is not None and dim.width else DEFAULT_WIDTH) * PT_PER_WIDTH_UNIT


PT_PER_WIDTH_UNIT = 6.5   # 6.25 pt of type and LibreOffice's layout ~3 % wider than that: the 9-plan Results
#                           sheet, planned at 5 plan columns a page and 8.03 pt, printed at 7.8 pt at 6.25 pt a unit


def _pages_wide(ws, first: int, last: int, titles: tuple[int, int] | None, paper: int, landscape: bool) -> int:
    """Pages across at READABLE_SCALE: the columns after the title columns, whole columns a page, in the width a
    page leaves beside the title columns."""
    short, long = PAGE_PT[paper]
    page = ((long if landscape else short) - 2 * SIDE_MARGIN_IN * 72) * 100 / READABLE_SCALE
    title = sum(_column_pt(ws, c) for c in range(titles[0], titles[1] + 1)) if titles else 0.0
    room = max(page - title, page / 4)
    pages, used = 1, 0.0
    for col in range(max(first, titles[1] + 1) if titles else first, last + 1):
        width = _column_pt(ws, col)
        if used and used + width > room:
            pages, used = pages + 1, 0.0
        used += width
    return pages


def _title_span(title_cols: str | None) -> tuple[int, int] | None:
    if not title_cols:
        return None
    left, right = title_cols.split(":")
    return column_index_from_string(left), column_index_from_string(right)


def setup(ws, last_col: int, last_row: int, title_rows: str | None = "1:1", title_cols: str | None = "A:A",
          landscape: bool = True, first_col: str = "A", paper: int | None = None) -> None:
    """The locale's paper; fit to one page wide where the columns fit it at READABLE_SCALE (the application then
    prints at that scale or larger: >= 8 pt), as many pages down as the rows take; a wider table at READABLE_SCALE,
    its columns split across pages; portrait unless landscape takes fewer pages across (or is asked for and the
    table is wider than a portrait page); the title rows and columns on every page."""
    paper = paper_size() if paper is None else paper
    first = column_index_from_string(first_col)
    last = max(last_col, 1)
    titles = _title_span(title_cols)
    portrait, across = (_pages_wide(ws, first, last, titles, paper, landscape=flag) for flag in (False, True))
    landscape = across < portrait or (landscape and portrait > 1)
    ws.page_setup.paperSize = paper
    ws.page_setup.orientation = "landscape" if landscape else "portrait"
    ws.page_setup.scale = READABLE_SCALE
    ws.page_setup.fitToWidth = min(portrait, across)
    ws.page_setup.fitToHeight = 0
    ws.sheet_properties.pageSetUpPr.fitToPage = True
    ws.page_margins = PageMargins(left=SIDE_MARGIN_IN, right=SIDE_MARGIN_IN, top=TOP_MARGIN_IN, bottom=TOP_MARGIN_IN,
                                  header=0.2, footer=0.2)
    ws.print_options.gridLines = False
    if title_rows:
        ws.print_title_rows = title_rows
    if title_cols:
        ws.print_title_cols = title_cols
    area_first = first_col
    if titles and titles[1] == first and last > first:   # LibreOffice would print the title column twice
        area_first = get_column_letter(first + 1)
    ws.print_area = f"{area_first}1:{get_column_letter(last)}{max(last_row, 1)}"
    ws.oddFooter.center.text = "&A: page &P of &N"


def _table(ws, n_fields: int, entries: int, title_rows: str = "1:2", title_cols: str = "A:A", paper=None,
           elsewhere: bool = False) -> None:
    """A table sheet: printed when it has entries and is not printed elsewhere (PrintedTables); else nothing: its
    print area is one empty cell (below the table), a page LibreOffice and Excel leave out."""
    if entries and not elsewhere:
        setup(ws, n_fields, S.FIRST_ENTRY_ROW + entries - 1, title_rows, title_cols, paper=paper)
    else:
        setup(ws, 1, 1, None, None, paper=paper)
        empty = S.FIRST_ENTRY_ROW + entries + 1   # below the table (a long text overflows into the cells beside it)
        ws.print_area = f"A{empty}:A{empty}"


def _printed_tables(ws, entries: int, paper: int) -> None:
    """PrintedTables: the small tables on their side, each whole on a page (portrait where it fits); nothing where
    none is."""
    if entries:
        setup(ws, 1 + entries, ws.max_row, None, "A:A", landscape=False, paper=paper)
    else:
        _table(ws, 1, 0, paper=paper)


def _entries(ws) -> int:
    return sum(1 for row in ws.iter_rows(min_row=S.FIRST_ENTRY_ROW, max_col=1) if row[0].value not in (None, ""))


def _cashflow(ws, scenario, layout, paper: int) -> None:
    """CashFlow as a report: one plan block a page (a page break before each), the years of the longest horizon,
    the IRR and payback helper rows grouped and collapsed (and a one-pool plan's pool rows: the plan's own again)."""
    last_year = max([p.years for p in scenario.plans] + [1])
    last_col = S.FIRST_PLAN_COLUMN + min(last_year, layout.max_years)
    blocks_end = layout.cf_block_row(len(scenario.plans)) - 2 if scenario.plans else 1   # the last block's last row
    last_row = max(ws.max_row, blocks_end, 1)   # (its key cells are raw cells, not the sheet's: xlsx_cashflow)
    setup(ws, last_col, last_row, "1:2", "B:B", first_col="B", paper=paper)
    for index in range(len(scenario.plans)):
        first = layout.cf_block_row(index)
        if index:
            ws.row_breaks.append(Break(id=first - 1))
        keys = list(HELPER_ROWS)
        if layout.cf_pools(index) == 1 and not scenario.plans[index].pools:   # its one pool's rows are the plan's
            keys += [f"pool1.{key}" for key in CF_POOL_ROWS]
        for key in keys:
            row = layout.cf_row(index, key)
            ws.row_dimensions[row].outlineLevel = 1
            ws.row_dimensions[row].hidden = True
    ws.sheet_properties.outlinePr.summaryBelow = False


def _summary(ws, last_plan: int, last_row: int, paper: int) -> None:
    """The table across its pages, then the charts in a print range of their own (one page across: the title
    columns would draw a chart anchored in them again on every page of the table)."""
    from .xlsx_summary import FIRST_ROW, ROWS

    setup(ws, last_plan, last_row, "1:2", "A:B", paper=paper)
    table_last = FIRST_ROW + len(ROWS) - 1
    if last_row > table_last + 1:
        charts_last_col = get_column_letter(S.FIRST_PLAN_COLUMN + 4)   # a chart is 15 cm wide: A to G hold it
        area = ws.print_area.split("!")[-1].replace("$", "").split(":")
        ws.print_area = [f"{area[0]}:{get_column_letter(last_plan)}{table_last}",
                         f"A{table_last + 2}:{charts_last_col}{last_row}"]


def print_all(workbook, scenario, layout, curve_points: int, checks_last_col: int, summary_last_row: int) -> None:
    """The print setup of every sheet the export writes (the Monte Carlo sheets: print_monte_carlo)."""
    n = len(scenario.plans)
    paper = paper_size()
    last_plan = S.FIRST_PLAN_COLUMN + max(n, 1) - 1
    sheet = workbook.__getitem__
    _summary(sheet(S.SUMMARY), last_plan, summary_last_row, paper)
    setup(sheet(S.PLANS), last_plan, sheet(S.PLANS).max_row, "1:1", "B:B", first_col="B", paper=paper)
    _table(sheet(S.POOLS), len(POOL_FIELDS), _entries(sheet(S.POOLS)), "1:2", "A:B", paper=paper)
    if S.WORKLOADS in workbook.sheetnames:
        _table(sheet(S.WORKLOADS), sheet(S.WORKLOADS).max_column, _entries(sheet(S.WORKLOADS)), "1:2", "A:B", paper=paper)
    # Results and CashFlow print from their label column (label and unit; the machine keys of column A stay on
    # screen)
    setup(sheet(S.RESULTS), last_plan, sheet(S.RESULTS).max_row, "1:2", "B:B", first_col="B", paper=paper)
    _cashflow(sheet(S.CASH_FLOW), scenario, layout, paper)
    setup(sheet(S.BRIDGE), sheet(S.BRIDGE).max_column, sheet(S.BRIDGE).max_row, "1:1", "A:B", landscape=False,
          paper=paper)
    setup(sheet(S.CHECKS), checks_last_col, 3 + n, "1:3", "A:B", paper=paper)
    devices, models = _entries(sheet(S.DEVICES)), _entries(sheet(S.MODELS))
    _table(sheet(S.DEVICES), len(DEVICE_FIELDS), devices, paper=paper, elsewhere=on_printed_tables(devices))
    _table(sheet(S.MODELS), len(MODEL_FIELDS), models, paper=paper, elsewhere=on_printed_tables(models))
    _printed_tables(sheet(S.PRINTED_TABLES), max([n for n in (devices, models) if on_printed_tables(n)], default=0),
                    paper)
    _table(sheet(S.CURVES), len(CURVE_POINT_FIELDS), curve_points, paper=paper)
    _table(sheet(S.PRICE_TIERS), len(PRICE_TIER_FIELDS), _entries(sheet(S.PRICE_TIERS)), paper=paper)
    setup(sheet(S.CALIBRATION), 3 + len(scenario.device_factors), sheet(S.CALIBRATION).max_row, "1:1", "A:B",
          paper=paper)
    _table(sheet(S.UNCERTAINTY), len(UNCERTAINTY_FIELDS), _entries(sheet(S.UNCERTAINTY)), "1:2", "A:B", paper=paper)
    setup(sheet(S.CONSTANTS), 4, sheet(S.CONSTANTS).max_row, "1:1", "A:A", paper=paper)
    setup(sheet(S.ABOUT), 2, sheet(S.ABOUT).max_row, None, None, landscape=False, paper=paper)


def print_monte_carlo(summary_ws, draws_ws, last_col: int, draw_columns: int) -> None:
    """MonteCarlo prints whole; MonteCarloDraws (one row per draw) prints its two header rows only, over its first
    `draw_columns` columns (the plans' metrics; the model error's columns are data to recompute from)."""
    setup(summary_ws, last_col, summary_ws.max_row, "1:1", "A:B")
    if draws_ws is not None:
        setup(draws_ws, draw_columns, 2, "1:2", "A:A")
