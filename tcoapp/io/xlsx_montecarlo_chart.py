"""The NPV histogram of the MonteCarlo sheet: a table of bins (share of draws per plan) and its chart."""
from __future__ import annotations

from openpyxl.chart import LineChart, Reference, Series

from ..engine.uncertainty.statistics import histograms
from .xlsx_styles import header, put, unit_cell

BINS = 30


def write_npv_histogram(ws, row: int, sim, anchor: str) -> int:
    """From `row`: bin centre (USD) | one column per plan (share of its draws); a line chart at `anchor`."""
    edges, shares = histograms([p.metric("npv_usd") for p in sim.plans], BINS)
    header(ws, row, 1, "npv_usd bin centre", "Centre of each NPV bin; each plan's column: the share of its draws in the bin.")
    for col, plan in enumerate(sim.plans, start=2):
        header(ws, row, col, plan.name)
    unit_cell(ws, row + 1, 1, "USD")
    for col in range(2, 2 + len(sim.plans)):
        unit_cell(ws, row + 1, col, "fraction")
    first = row + 2
    for k in range(len(edges) - 1):
        put(ws, first + k, 1, float((edges[k] + edges[k + 1]) / 2), "engine", "USD")
        for col, share in enumerate(shares, start=2):
            put(ws, first + k, col, float(share[k]), "engine", "fraction")
    last = first + len(edges) - 2
    chart = LineChart()
    chart.title = "NPV distribution per plan (share of draws)"
    chart.y_axis.title = "share of draws"
    chart.x_axis.title = "NPV [USD]"
    chart.x_axis.number_format = '"$"#,##0'
    chart.y_axis.number_format = "0%"
    for col, plan in enumerate(sim.plans, start=2):
        chart.series.append(Series(Reference(ws, min_col=col, min_row=first, max_row=last), title=plan.name))
    chart.set_categories(Reference(ws, min_col=1, min_row=first, max_row=last))
    chart.height, chart.width = 9, 18
    ws.add_chart(chart, anchor)
    return last + 1
