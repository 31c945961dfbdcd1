"""The one table of every output metric (docs/workbook_format.md): label, unit, which way is better, help,
and the lists the metric is in (text report block, Monte Carlo, tornado, CashFlow).

The CLI, the Results sheet and the GUI take their labels and units from here, as inputs take
theirs from `inputs.py`. The typed record `Metrics` (one float field per row, unit and label in the
field's metadata) is generated from the table, so a new metric is one row.
"""
from __future__ import annotations

from dataclasses import fields

import numpy as np

from .expr import C, K, compare, not_available, per_million, pools_max, pools_min, when, when_positive
from .row import Metric, ranked, scoped

ANNUAL = K("capex_usd_per_year") + K("opex_usd_per_year")  # the levelized cost per year


def _m(key, label, unit, better, help_, **flows) -> Metric:
    return Metric(key=key, label=label, unit=unit, better=better, help=help_, **flows)


METRICS: tuple[Metric, ...] = scoped("metric", (
    _m("batch", "Batch", "sequences", "", "Concurrent sequences per replica at the operating point.",
       source="point", pool_point=True, text_group="Operating point"),
    _m("tokens_per_s_per_device", "Tokens/s per device", "tokens/s", "high", "Output tokens/s per device at the operating point.",
       source="point", pool_point=True, text_group="Operating point"),
    _m("tokens_per_s_per_user", "Tokens/s per user", "tokens/s", "high", "Output tokens/s each sequence sees (interactivity).",
       source="point", pool_point=True, summary_sheet=4, text_group="Operating point"),
    _m("ttft_s", "Time to first token", "s", "low", "Time from a request's arrival to its first output token.",
       source="point", pool_point=True, text_group="Operating point"),
    _m("power_w", "Power per device", "W", "", "Device power while serving at the operating point.",
       source="point", pool_point=True, text_group="Operating point"),
    _m("tokens_per_joule", "Tokens per joule", "tokens/J", "high", "tokens/s per device / power_w (= tokens/s/W).",
       source="point", text_group="Operating point"),
    _m("max_batch_by_memory", "Max batch by memory", "sequences", "", "Largest batch whose weights and KV cache fit in memory.",
       source="point", text_group="Operating point"),
    _m("device_count", "Devices", "devices", "", "Accelerators bought (after sizing).",
       summary_sheet=1, text_group="Fleet", simulated=10),
    _m("servers", "Servers", "servers", "", "ceil(device_count / devices_per_server).",
       text_group="Fleet"),
    _m("racks", "Racks", "racks", "low", "ceil(servers / servers_per_rack); empty where a server exceeds the rack power cap.",
       summary_sheet=2, text_group="Fleet"),
    _m("servers_per_rack", "Servers per rack", "servers", "", "min(servers_per_rack_max, floor(rack cap / server nameplate)).",
       text_group="Fleet", expr=when(compare(pools_min("servers_per_rack"), "=", pools_max("servers_per_rack")),
                                     pools_min("servers_per_rack"), not_available())),
    _m("it_avg_kw", "Average IT power", "kW", "", "Devices at utilization-weighted power plus server overhead.",
       text_group="Fleet"),
    _m("it_provisioned_kw", "Provisioned IT power", "kW", "", "Servers at nameplate power.",
       summary_sheet=3, text_group="Fleet"),
    _m("capex_usd", "Capex", "USD", "", "Hardware x (1 + other capex fraction).",
       summary_sheet=5, text_group="Costs", simulated=7),
    _m("capex_usd_per_year", "Capex per year (capital recovery)", "USD/yr", "", "(capex - discounted residual) x capital recovery factor.",
       text_group="Costs"),
    _m("opex_usd_per_year", "Opex per year", "USD/yr", "", "Energy + colocation + maintenance + software + rent + staff; levelized over the years (the year's opex when nothing changes by year).",
       text_group="Costs", simulated=8),
    _m("energy_usd_per_year", "Energy per year", "USD/yr", "", "it_avg_kw x PUE x 8760 h x electricity price; levelized over the years.",
       text_group="Costs"),
    _m("output_tokens_per_year", "Output tokens per year", "tokens/yr", "high", "tokens/s per device x devices x utilization x seconds per year; levelized over the years.",
       text_group="Costs"),
    _m("cost_per_million_output_tokens_usd", "Cost per million output tokens", "USD/Mtok", "low", "Levelized: present value of capex less residual plus opex, over the present value of output tokens, x 1e6 (= (capex per year + opex per year) / output tokens when nothing changes by year).",
       summary_sheet=6, text_group="Costs", simulated=4, summary=4, draws_sheet=4, tornado=2,
       objective=1, objective_label="Cost per million output tokens (at the target)",
       expr=per_million(ANNUAL, K("output_tokens_per_year"))),
    _m("cost_per_million_total_tokens_usd", "Cost per million total tokens", "USD/Mtok", "low", "The same cost over output + input tokens.",
       text_group="Costs", expr=per_million(ANNUAL, K("output_tokens_per_year") + K("input_tokens_per_year"))),
    _m("cost_per_million_input_tokens_usd", "Cost per million input tokens", "USD/Mtok", "low", "The cost share of prefill (the prefill share of device time) over the input tokens; n/a for measured curves, whose prefill share is unknown.",
       summary_sheet=7, text_group="Costs", expr=per_million(K("prefill_share_of_device_time") * ANNUAL, K("input_tokens_per_year"))),
    _m("cost_per_device_hour_usd", "Cost per device-hour", "USD/device/h", "low", "(capex per year + opex per year) / (devices in service x 8,760 h): what an hour of one device of the fleet costs, levelized over the years over the devices that exist (a later tranche counts from the year after its purchase); compare it with a GPU cloud's price per device-hour.",
       text_group="Costs", expr=when_positive(K("device_count_in_service"), ANNUAL / (K("device_count_in_service") * C("HOURS_PER_YEAR")))),
    _m("cost_per_million_uncached_input_tokens_usd", "Cost per M uncached input tokens", "USD/Mtok", "low", "The cost share of prefill (the prefill share of device time) over the input tokens not read from the prefix cache: the prefill computes only those; n/a for measured curves, whose prefill share is unknown.",
       text_group="Costs", expr=per_million(K("prefill_share_of_device_time") * ANNUAL, K("uncached_input_tokens_per_year"))),
    _m("cost_per_million_cached_input_tokens_usd", "Cost per M cached input tokens", "USD/Mtok", "low", "0 where the prefill share is known: a token read from the prefix cache takes no prefill time (its KV cache is read while decoding, a cost of the output tokens); n/a where the prefill share is unknown or no input token is cached.",
       text_group="Costs", expr=per_million(K("prefill_share_of_device_time") * 0 * ANNUAL, K("cached_input_tokens_per_year"))),
    _m("revenue_usd_per_year", "Revenue per year", "USD/yr", "high", "Output and input tokens at their prices; levelized over the years.",
       summary_sheet=8, text_group="Returns", simulated=9),
    _m("revenue_usd_per_rack_per_year", "Revenue per rack per year", "USD/rack/yr", "high", "Revenue per year / racks in service: levelized revenue over the levelized racks that exist (a later tranche's racks count from the year after its purchase).",
       summary_sheet=9, text_group="Returns", simulated=5, summary=5, draws_sheet=5, tornado=6, objective=4,
       expr=when_positive(K("racks_in_service"), K("revenue_usd_per_year") / K("racks_in_service"))),
    _m("revenue_per_million_output_tokens_usd", "Revenue per M output tokens", "USD/Mtok", "high", "Revenue of the output tokens (revenue less the input tokens') over the output tokens, levelized over the years (the output price when nothing changes by year; device_hours: all the revenue).",
       text_group="Returns", expr=per_million(K("output_revenue_usd_per_year"), K("output_tokens_per_year"))),
    _m("revenue_per_million_uncached_input_tokens_usd", "Revenue per M uncached input tokens", "USD/Mtok", "high", "Revenue of the input tokens not read from the prefix cache over those tokens (the input price when nothing changes by year).",
       text_group="Returns", expr=per_million(K("uncached_input_revenue_usd_per_year"), K("uncached_input_tokens_per_year"))),
    _m("revenue_per_million_cached_input_tokens_usd", "Revenue per M cached input tokens", "USD/Mtok", "high", "Revenue of the input tokens read from the prefix cache over those tokens (the cached input price, empty: the input price, when nothing changes by year); n/a where no input token is cached.",
       text_group="Returns", expr=per_million(K("cached_input_revenue_usd_per_year"), K("cached_input_tokens_per_year"))),
    _m("revenue_per_million_total_tokens_usd", "Revenue per M tokens, blended", "USD/Mtok", "high", "Revenue per year over output + input tokens per year: the blended price of every token sold.",
       text_group="Returns", expr=per_million(K("revenue_usd_per_year"), K("output_tokens_per_year") + K("input_tokens_per_year"))),
    _m("npv_usd", "NPV", "USD", "high", "Cash flows discounted at the discount rate (year 0 undiscounted).",
       summary_sheet=10, text_group="Returns", simulated=1, summary=1, draws_sheet=1, tornado=1, cashflow_cell=1, objective=2),
    _m("irr", "IRR", "fraction/yr", "high", "Rate at which NPV = 0; empty where none exists.",
       summary_sheet=11, text_group="Returns", simulated=2, summary=2, draws_sheet=2, tornado=4, cashflow_cell=2),
    _m("payback_months", "Payback", "months", "low", "The earliest time after which the cumulative cash flow stays >= 0 up to the horizon (a later dip below 0 moves it); 0 where it is never below 0; 'never' where it is below 0 at the horizon.",
       summary_sheet=12, text_group="Returns", simulated=3, summary=3, draws_sheet=3, tornado=3, cashflow_cell=3),
    _m("discounted_payback_months", "Discounted payback", "months", "low", "Payback of the discounted cash flows (each year's flow x its discount factor): the earliest time after which their cumulative sum stays >= 0 up to the horizon; 'never' where it is below 0 at the horizon (NPV < 0).",
       text_group="Returns", cashflow_cell=7),
    _m("mirr", "MIRR", "fraction/yr", "high", "Modified IRR of the year-end flows of years 0..n: (future value at the horizon of the inflows reinvested at the discount rate / present value of the outflows at the discount rate)^(1/n) - 1 (Excel's MIRR(flows, r, r)); one value always, where IRR may have none or several; empty without both inflows and outflows.",
       text_group="Returns"),
    _m("unused_tax_loss_usd", "Tax losses unused at the horizon", "USD", "", "Tax losses carried forward that no taxable income offset by the horizon: no tax saving is counted for them (0 with tax_losses = credit, or where every loss was used).",
       text_group="Returns"),
    _m("roi", "ROI", "fraction", "high", "Sum of the flows of years 1..n (later tranches' capex added back) / capex - 1.",
       summary_sheet=13, text_group="Returns", simulated=6, summary=6, tornado=5),
    _m("equity_npv_usd", "Equity NPV", "USD", "high", "The equity holder's flows (capex less debt drawn, operations, interest and principal, tax with interest deducted) discounted at equity_discount_rate; = NPV without debt.",
       simulated=11, summary=7, cashflow_cell=4, tornado=7, objective=3),
    _m("equity_irr", "Equity IRR", "fraction/yr", "high", "Rate at which the equity NPV = 0; empty where none exists; = IRR without debt.",
       simulated=12, summary=8, cashflow_cell=5),
    _m("min_dscr", "Min DSCR", "ratio", "high", "Debt service coverage, worst year: (revenue - opex - tax) / (interest + scheduled principal); empty without debt.",
       simulated=13, summary=9, cashflow_cell=6, tornado=8),
    _m("wacc", "WACC", "fraction/yr", "", "Weighted average cost of capital where the plan has debt: (1 - debt_fraction) x equity_discount_rate + debt_fraction x debt_rate x (1 - the tax rate interest actually saves: tax saved by deducting interest over the horizon / interest paid, 0 where no tax is paid, tax_rate where every deduction is used) (nominal, as every rate); empty without debt."),
    _m("npv_at_wacc_usd", "NPV at the WACC", "USD", "high", "The project (unlevered) cash flows discounted at the WACC (same discounting); empty without debt."),
))

METRIC_BY_KEY = {m.key: m for m in METRICS}
METRIC_KEYS = tuple(m.key for m in METRICS)  # docs/workbook_format.md "Results", in the table's order
POINT_METRICS = tuple(m.key for m in METRICS if m.source == "point")     # from the operating point
POOL_POINT_METRICS = tuple(m.key for m in METRICS if m.pool_point)       # each pool's own point (JSON pool rows)
FINANCE_METRICS = tuple(m.key for m in METRICS if m.source == "finance")  # from the finance layer
SIMULATED_METRICS = ranked(METRICS, "simulated")   # kept for every Monte Carlo draw
SUMMARY_METRICS = ranked(METRICS, "summary")       # summarized over every draw of a run
DRAW_METRICS = ranked(METRICS, "draws_sheet")      # the MonteCarlo sheet's draw columns
TORNADO_METRICS = ranked(METRICS, "tornado")       # the GUI tornado's metrics
CASHFLOW_METRICS = ranked(METRICS, "cashflow_cell")
SUMMARY_SHEET_METRICS = ranked(METRICS, "summary_sheet")  # the Summary sheet's key metrics  # computed on the CashFlow sheet
# the Decision view's own measures: ranked like metrics, computed from a plan's result (engine/decision/summary.py)
DECISION_ROWS: tuple[Metric, ...] = scoped("decision", (
    _m("revenue_usd_per_mw_per_year", "Revenue per MW of facility power per year", "USD/MW/yr", "high",
       "Revenue per year / facility power (provisioned IT power x PUE, in MW).", source="decision", objective=5),
))
# a plan's agentic answer (docs/model.md, "A plan's agentic answer"): keys of the `agentic` block of a plan with an
# agentic request class, and the Results rows of a workbook that has one (engine/pipeline/agentic_block.py)
AGENTIC_ROWS: tuple[Metric, ...] = scoped("agentic", (
    _m("concurrent_sessions_per_device", "Concurrent agents per device", "sessions", "high",
       "Concurrent agentic sessions per device at the plan's operating point: sessions per replica / (TP x EP), "
       "for the plan's first agentic request class on its first pool serving users; n/a for a plan without one.",
       source="agentic"),
    _m("agents_per_mw", "Agents per MW of facility power", "sessions/MW", "high",
       "Concurrent agents per device x devices / facility power of the pool (provisioned IT power x PUE, in MW); "
       "n/a for a plan without an agentic request class.", source="agentic"),
    _m("cost_per_agent_hour_usd", "Cost per agent-hour", "USD/agent/h", "low",
       "Cost per device-hour / (concurrent agents per device x utilization): a device-hour of the fleet serves that "
       "many agent-hours while it is busy; n/a for a plan without an agentic request class.", source="agentic"),
))
# objective key -> (label, unit, better): the rows of the objective column, in its order
OBJECTIVES: dict[str, tuple[str, str, str]] = {
    m.key: (m.objective_label or m.label, m.unit, m.better)
    for m in sorted((m for m in METRICS + DECISION_ROWS if m.objective), key=lambda m: m.objective)}
TEXT_GROUPS = tuple((g, tuple(m.key for m in METRICS if m.text_group == g))
                    for g in dict.fromkeys(m.text_group for m in METRICS if m.text_group))


# the records of these rows (one field per row), written out from this table by tools/gen_records.py
from .result_types import DrawMetrics, Metrics  # noqa: E402,F401 (read through this module too)


def metric_values(metrics) -> tuple[tuple[str, float], ...]:
    """(key, value) of every metric, in the table's order (a table-driven loop over a `Metrics`)."""
    return tuple((f.name, getattr(metrics, f.name)) for f in fields(metrics))


def missing_text(key: str, metrics=None) -> str:
    """How a metric that does not exist reads: payback (discounted too) is "never" when the plan has cash flows that
    never turn positive, "n/a" when the plan has no cash flows at all (no operating point, no capex)."""
    if key not in ("payback_months", "discounted_payback_months"):
        return "n/a"
    npv = None if metrics is None else metrics.npv_usd
    has_flows = metrics is None or (npv is not None and npv == npv and abs(npv) != float("inf"))
    return "never" if has_flows else "n/a"
