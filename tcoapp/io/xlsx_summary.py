"""The Summary sheet: the comparison on one page (each plan's status and key metrics with readable
labels, all references to Results, so they move with it) and the two charts."""
from __future__ import annotations

from openpyxl.worksheet.pagebreak import Break

from ..engine.quantities.metrics import METRIC_BY_KEY, SUMMARY_SHEET_METRICS
from ..engine.plan.scenario import Scenario
from . import sheets as S
from .xlsx_charts import cost_chart, cumulative_chart
from .xlsx_checks import banner, plan_header, plan_status, plan_status_formats
from .xlsx_layout import Layout
from .xlsx_results import result_unit
from .xlsx_styles import PLAN_WIDTH_MAX, header, put, section, set_text, unit_cell, widths

ROWS = ("plan_check", *SUMMARY_SHEET_METRICS)  # the plan's status, then the metric table's summary_sheet column
FIRST_ROW = 5


def write_summary(ws, scenario: Scenario, layout: Layout) -> None:
    n = len(scenario.plans)
    last_col = S.FIRST_PLAN_COLUMN + n - 1
    header(ws, 1, 1, "Summary", "The comparison on one page; every number is a reference to the Results sheet.")
    header(ws, 1, 2, "unit")
    for index, plan in enumerate(scenario.plans):
        plan_header(ws, 1, S.FIRST_PLAN_COLUMN + index, plan.name)
    banner(ws, 2, max(last_col, 3))
    section(ws, FIRST_ROW - 1, "Key metrics (see Results for every number and its formula)", max(last_col, 2))
    for offset, key in enumerate(ROWS):
        row = FIRST_ROW + offset
        metric = METRIC_BY_KEY.get(key)
        set_text(ws.cell(row=row, column=1), metric.label if metric else "Is the plan current?")
        unit = result_unit(key)
        unit_cell(ws, row, 2, unit)
        for index in range(n):
            col = layout.plan_col(index)
            formula = plan_status(index) if key == "plan_check" else f"={S.RESULTS}!{col}{layout.result_rows[key]}"
            put(ws, row, S.FIRST_PLAN_COLUMN + index, formula, "formula", unit)
        if key == "plan_check":   # pasted over as values, it still shows the plan's live state, as Results' does
            plan_status_formats(ws, row, n, last_col)
    ws.freeze_panes = "C2"
    widths(ws, {1: 34, 2: 12, **{S.FIRST_PLAN_COLUMN + i: max(20, min(PLAN_WIDTH_MAX, len(p.name) + 4))
                                for i, p in enumerate(scenario.plans)}})


CHART_ROWS = 16  # rows a chart covers at its default size (7.5 cm)


def summary_last_row(scenario: Scenario) -> int:
    """The last row of the Summary sheet, its charts included (what prints)."""
    return FIRST_ROW + len(ROWS) + (2 + 2 * CHART_ROWS + CHART_GAP if scenario.plans else 0)


CHART_GAP = 2   # rows between the two charts (a page break before the second: a chart prints whole)


def add_summary_charts(ws, cash_ws, results_ws, scenario: Scenario, layout: Layout) -> None:
    if not scenario.plans:
        return
    anchor = FIRST_ROW + len(ROWS) + 2
    second = anchor + CHART_ROWS + CHART_GAP
    ws.add_chart(cumulative_chart(cash_ws, scenario, layout), f"A{anchor}")
    ws.add_chart(cost_chart(results_ws, scenario, layout), f"A{second}")   # below the first: each on the first
    ws.row_breaks.append(Break(id=second - 1))                            # page across, whole
