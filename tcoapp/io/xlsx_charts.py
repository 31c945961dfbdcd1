"""Charts of the CashFlow sheet (openpyxl.chart): cumulative cash flow per plan, cost breakdown."""
from __future__ import annotations

from openpyxl.chart import BarChart, LineChart, Reference, Series
from openpyxl.utils import get_column_letter

from ..engine.quantities.finance import COMPONENT_KEYS
from ..engine.plan.scenario import Scenario
from . import sheets as S
from .xlsx_layout import CF_YEAR_ROW, Layout


APP_CASHFLOW_CHARTS = 2   # the cumulative cash flow and the cost bars (io/output_rows.py counts an analyst's beyond them)


def add_charts(cash_ws, results_ws, scenario: Scenario, layout: Layout) -> None:
    if not scenario.plans:
        return
    anchor_col = get_column_letter(S.FIRST_PLAN_COLUMN + layout.max_years + 2)
    cash_ws.add_chart(cumulative_chart(cash_ws, scenario, layout), f"{anchor_col}2")
    cash_ws.add_chart(cost_chart(results_ws, scenario, layout), f"{anchor_col}22")


def cumulative_chart(ws, scenario: Scenario, layout: Layout) -> LineChart:
    chart = LineChart()
    chart.title = "Cumulative cash flow per plan"
    chart.y_axis.title = "USD"
    chart.x_axis.title = "year"
    chart.y_axis.number_format = '"$"#,##0'
    first, last = S.FIRST_PLAN_COLUMN, S.FIRST_PLAN_COLUMN + layout.max_years
    for index, plan in enumerate(scenario.plans):
        row = layout.cf_row(index, "cumulative_cash_flow_usd")
        values = Reference(ws, min_col=first, max_col=last, min_row=row, max_row=row)
        chart.series.append(Series(values, title=plan.name))
    chart.set_categories(Reference(ws, min_col=first, max_col=last, min_row=CF_YEAR_ROW, max_row=CF_YEAR_ROW))
    chart.height, chart.width = 9, 18
    return chart


def cost_chart(ws, scenario: Scenario, layout: Layout) -> BarChart:
    chart = BarChart()
    chart.type = "col"
    chart.grouping = "stacked"
    chart.overlap = 100
    chart.title = "Cost per million output tokens by component"
    chart.y_axis.title = "USD per million output tokens"
    chart.y_axis.number_format = '"$"#,##0.00'
    first, last = S.FIRST_PLAN_COLUMN, S.FIRST_PLAN_COLUMN + len(scenario.plans) - 1
    for part, key in COMPONENT_KEYS.items():
        row = layout.result_rows[key]
        values = Reference(ws, min_col=first, max_col=last, min_row=row, max_row=row)
        chart.series.append(Series(values, title=part))
    chart.set_categories(Reference(ws, min_col=first, max_col=last, min_row=1, max_row=1))
    chart.height, chart.width = 9, 18
    return chart
